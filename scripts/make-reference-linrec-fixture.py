#!/usr/bin/python3
"""Makes tests/fixtures/reference_linrec/ with the reference code itself: the minGRU and minLSTM
layers of BorealisAI/minRNNs (Feng et al. 2024, "Were RNNs All We Needed?", the authors'
repository, models/minRNNs.py), for the test that imports their weights into recurlab's
"min_gru" and "min_lstm" encoders and compares the outputs
(tests/experiments/weights/reference_layouts_test.cpp, `ReferenceMinRnnTest`).

That repository is a set of scripts, not a package: give the path of a checkout (it imports
models.minRNNs, which imports models/helpers.py, models/associative_scan.py and
utils/misc.py from it):

  git clone https://github.com/BorealisAI/minRNNs /tmp/minRNNs
  /usr/bin/python3 scripts/make-reference-linrec-fixture.py /tmp/minRNNs [OUT_DIR]
    (OUT_DIR defaults to tests/fixtures/reference_linrec; plain PyTorch, CPU only)

What is built: for each of minGRU and minLSTM, a stack of LAYERS reference layers held in an
nn.ModuleList `layers` (dim = DIM, expansion_factor 1, no initial hidden state; minLSTM with
use_coeff_norm=True), each layer's output the next one's input, as recurlab's stack (the
authors' whole Model adds embeddings, norms, residuals and feed-forward blocks around each layer,
which are not part of the layer). to_hidden_and_gate gets random weights; to_out, which
recurlab's layer lacks, is the identity with a zero bias (recurlab exports it so). The output is
the stack's forward pass on a batch-first input, in float64 (the weights and input are float32
values converted), through the reference's parallel (log-space scan) path (length > 1).

Output: min_gru.safetensors and min_lstm.safetensors (F32 state_dict of the stack under the
reference's names; the options in __metadata__), io.safetensors (input F32 (L, B, DIM),
time-major as recurlab takes it; min_gru and min_lstm, the outputs F64 (L, B, DIM)).
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture_safetensors import write_safetensors  # noqa: E402  (scripts/)

DIM, LAYERS, LENGTH, BATCH = 4, 2, 6, 3


def build(module_class, options, seed):
    """An nn.ModuleList of reference layers with random gates and candidate, identity to_out."""
    torch.manual_seed(seed)
    layers = torch.nn.ModuleList([module_class(**options) for _ in range(LAYERS)])
    with torch.no_grad():
        for layer in layers:
            layer.to_hidden_and_gate.weight.copy_(
                0.7 * torch.randn(layer.to_hidden_and_gate.weight.shape))
            layer.to_hidden_and_gate.bias.copy_(
                0.3 * torch.randn(layer.to_hidden_and_gate.bias.shape))
            layer.to_out.weight.copy_(torch.eye(DIM))
            layer.to_out.bias.zero_()
    holder = torch.nn.Module()
    holder.layers = layers
    return holder


def run(holder, x):
    """The stack on x (B, L, DIM), each layer's output the next one's input."""
    with torch.no_grad():
        for layer in holder.layers:
            x, _ = layer(x)
    return x


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    checkout = os.path.abspath(sys.argv[1])
    sys.path.insert(0, checkout)
    from models.minRNNs import minGRU, minLSTM  # noqa: E402  the reference's own modules
    out_dir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "reference_linrec")
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(2024)
    x = torch.randn(BATCH, LENGTH, DIM)
    io = {"input": x.transpose(0, 1).contiguous()}
    models = {
        "min_gru": (minGRU, dict(dim=DIM, expansion_factor=1.0, use_init_hidden_state=False)),
        "min_lstm": (minLSTM, dict(dim=DIM, expansion_factor=1.0, forget_bias_init_scale=None,
                                   use_coeff_norm=True, use_init_hidden_state=False)),
    }
    for seed, (name, (module_class, options)) in enumerate(models.items()):
        holder = build(module_class, options, seed)
        state = {k: v.float().clone() for k, v in holder.state_dict().items()}
        write_safetensors(os.path.join(out_dir, name + ".safetensors"), state,
                          {"format": "pt", "model": f"BorealisAI/minRNNs {module_class.__name__}",
                           "options": json.dumps(options), "layers": str(LAYERS)})
        y = run(holder.double(), x.double())
        io[name] = y.transpose(0, 1).contiguous()
        print(f"{name}: {len(state)} tensors, output {tuple(io[name].shape)}, "
              f"max |y| {y.abs().max().item():.3f}")
    write_safetensors(os.path.join(out_dir, "io.safetensors"), io,
                      {"made_by": "scripts/make-reference-linrec-fixture.py",
                       "reference": "BorealisAI/minRNNs models/minRNNs.py",
                       "outputs": "the stacks' forward on the CPU in float64 (parallel path)",
                       "torch": torch.__version__})
    print(f"wrote {out_dir} (torch {torch.__version__})")


if __name__ == "__main__":
    main()
