#!/usr/bin/python3
"""Makes tests/fixtures/reference_griffin/ with the reference code itself: Griffin's residual
blocks of type RECURRENT and its final RMSNorm from google-deepmind/recurrentgemma (De et al.
2024, "Griffin: Mixing Gated Linear Recurrences with Local Attention for Efficient Language
Models"; recurrentgemma/torch/modules.py ResidualBlock, layers.py RMSNorm), for the test that
imports their weights into recurlab's "rg_lru" encoder and compares the outputs
(tests/experiments/weights/reference_griffin_test.cpp).

recurrentgemma's package __init__ files import JAX and a sampler that needs a newer torch; the
script imports recurrentgemma.torch.modules and .layers from a checkout without them. It needs
torch (1.13 or later) and jaxtyping:

  git clone https://github.com/google-deepmind/recurrentgemma /tmp/recurrentgemma
  python3 -m venv --system-site-packages /tmp/rg && /tmp/rg/bin/pip install jaxtyping einops
  /tmp/rg/bin/python scripts/make-reference-griffin-fixture.py /tmp/recurrentgemma [OUT_DIR]
    (OUT_DIR defaults to tests/fixtures/reference_griffin; CPU only)

What is built: LAYERS ResidualBlocks (width = lru_width = DIM, num_heads 1, conv1d_temporal_width
4, mlp_expanded_width 3·DIM) held in an nn.ModuleList `layers`, and `final_norm`, an RMSNorm, as
Griffin's model applies them (without its embedding and readout). Every parameter of the
temporal half gets random values (norm scales included); the MLP half is zero, which recurlab's
block lacks (a zero MLP adds nothing to the residual stream). The output is the stack's forward
pass with segment_pos = 0, 1, ... (a fresh document: recurrentgemma resets the RG-LRU's input
scale at position 0) on a batch-first input, in float64 (the weights and input are float32
values converted; recurrentgemma's rnn_scan told to accumulate in float64, where it accumulates in
float32 by default).

Output: rg_lru.safetensors (F32 state_dict under the reference's names; the options in
__metadata__), io.safetensors (input F32 (L, B, DIM) time-major as recurlab takes it; output
F64 (L, B, DIM)).
"""
import os
import sys
import types

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture_safetensors import write_safetensors  # noqa: E402  (scripts/)

DIM, LAYERS, LENGTH, BATCH = 6, 2, 7, 3


def import_reference(checkout):
    """recurrentgemma.torch.modules and .layers, without the package __init__ files."""
    for name, sub in (("recurrentgemma", "recurrentgemma"),
                      ("recurrentgemma.torch", "recurrentgemma/torch")):
        package = types.ModuleType(name)
        package.__path__ = [os.path.join(checkout, sub)]
        sys.modules[name] = package
    from recurrentgemma import common  # noqa: E402  the reference's own modules
    from recurrentgemma.torch import layers, modules  # noqa: E402
    # rnn_scan accumulates in float32 whatever the inputs' dtype (its acc_dtype default): for
    # a float64 reference output it accumulates in float64, the one change to its code path.
    scan = layers.rnn_scan
    layers.rnn_scan = lambda *args, **kwargs: scan(*args, **kwargs, acc_dtype=torch.float64)
    return common, layers, modules


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    common, layers, modules = import_reference(os.path.abspath(sys.argv[1]))
    out_dir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "reference_griffin")
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(2024)
    holder = torch.nn.Module()
    holder.layers = torch.nn.ModuleList([
        modules.ResidualBlock(width=DIM, mlp_expanded_width=3 * DIM, num_heads=1,
                              attention_window_size=LENGTH,
                              temporal_block_type=common.TemporalBlockType.RECURRENT,
                              lru_width=DIM, conv1d_temporal_width=4)
        for _ in range(LAYERS)])
    holder.final_norm = layers.RMSNorm(DIM)
    with torch.no_grad():
        for name, p in holder.named_parameters():
            if ".mlp_block." in name or ".channel_pre_norm." in name:
                p.zero_()
            elif name.endswith("a_param"):
                p.copy_(p + 0.3 * torch.randn(p.shape))  # off the ring init, still a in (0, 1)
            else:
                p.copy_(0.5 * torch.randn(p.shape))
    state = {k: v.float().clone() for k, v in holder.state_dict().items()}
    write_safetensors(os.path.join(out_dir, "rg_lru.safetensors"), state,
                      {"format": "pt",
                       "model": "google-deepmind/recurrentgemma ResidualBlock (RECURRENT)",
                       "layers": str(LAYERS), "width": str(DIM), "conv1d_temporal_width": "4",
                       "mlp_expanded_width": str(3 * DIM)})
    x = torch.randn(BATCH, LENGTH, DIM)
    holder = holder.double()
    y = x.double()
    position = torch.arange(LENGTH).expand(BATCH, LENGTH)
    with torch.no_grad():
        for block in holder.layers:
            y, _ = block(y, position, None, return_cache=False)
        y = holder.final_norm(y)
    write_safetensors(os.path.join(out_dir, "io.safetensors"),
                      {"input": x.transpose(0, 1).contiguous(),
                       "output": y.transpose(0, 1).contiguous()},
                      {"made_by": "scripts/make-reference-griffin-fixture.py",
                       "reference": "google-deepmind/recurrentgemma recurrentgemma/torch",
                       "outputs": "the stack's forward on the CPU in float64",
                       "torch": torch.__version__})
    print(f"{len(state)} tensors, output {tuple(y.shape)}, max |y| {y.abs().max().item():.3f}; "
          f"wrote {out_dir} (torch {torch.__version__})")


if __name__ == "__main__":
    main()
