#!/usr/bin/python3
"""Makes tests/fixtures/reference_sru/ with the reference package itself, asappresearch/sru
2.6.0 (`sru.SRU`, https://github.com/asappresearch/sru): the weights of a small SRU under the
package's own state_dict() names and layout, an input, and that SRU's own forward output, for
the test that imports the weights into recurlab's SRU and compares the outputs
(tests/experiments/weights/weights_exchange_test.cpp, `ReferenceSruTest`).

The fixture in the repository was made by sru 2.6.0 with Debian's python3-torch 1.13 (the
io.safetensors metadata records both versions). To regenerate it:

  pip install --target /tmp/sru-pkg sru==2.6.0 --no-deps   # or plainly: pip install sru==2.6.0
  PYTHONPATH=/tmp/sru-pkg /usr/bin/python3 scripts/make-reference-sru-fixture.py [OUT_DIR]
    (OUT_DIR defaults to tests/fixtures/reference_sru)

Importing sru compiles the package's C++ operators with torch.utils.cpp_extension (a C++
compiler and `ninja` are needed; about a minute). Its CUDA operators are not wanted: this
script sets CUDA_HOME to a directory that does not exist (and drops CUDA_PATH), so that
compiling the package's .cu file fails at once and the package builds its own fallback (a stub
whose CUDA operators raise) instead; every tensor stays on the CPU.

The outputs h and c are the package's CPU forward pass on CPU tensors, in float64: with
autograd enabled, SRUCell.apply_recurrence on a CPU tensor runs the package's
elementwise_recurrence_naive loop in Python, which keeps the tensors' dtype (its C++ CPU
operator, used under torch.no_grad(), is float32 only). That float32 operator's output is also
computed, as a check printed and stored in the metadata (it agrees to 5e-7 on h).

Output: weights.safetensors (F32 weights under the package's names; the options in
__metadata__) and io.safetensors (input F32 (L, B, in), mask_pad U8 (L, B), c0 F32 (layers, B,
out), and the outputs h (L, B, out) and c (layers, B, out), F64, computed from the float32
weights and inputs converted to float64). The safetensors files are written by a few lines
below (no safetensors package needed).
"""
import json
import os
import sys
import warnings

os.environ["CUDA_HOME"] = "/nonexistent-cuda-for-sru-cpu-only"
os.environ.pop("CUDA_PATH", None)
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture_safetensors import write_safetensors  # noqa: E402  (scripts/)

with warnings.catch_warnings():
    # "Just-in-time loading and compiling the CUDA kernels of SRU was unsuccessful": wanted.
    warnings.simplefilter("ignore")
    import sru  # noqa: E402

OPTIONS = dict(input_size=5, hidden_size=3, num_layers=2, bidirectional=True, rescale=True,
               highway_bias=-1.0, layer_norm=True, projection_size=2, has_skip_term=True)
LENGTH, BATCH = 7, 3
PACKAGE_VERSION = "2.6.0"


def package_forward(model, x, c0, mask_pad):
    """The package's forward pass on the CPU with autograd on: its Python recurrence loop, in
    the tensors' own dtype. The result requiring grad shows that loop ran (the package's C++
    operator has no autograd)."""
    assert all(not t.is_cuda for t in model.state_dict().values())
    with torch.enable_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Running SRU on CPU with grad_enabled=True"
        h, c = model(x, c0, mask_pad)
    assert h.requires_grad and c.requires_grad, "not the package's Python CPU path"
    return h.detach(), c.detach()


def main():
    if sru.__version__ != PACKAGE_VERSION:
        sys.exit(f"sru {sru.__version__} is imported; the fixture is sru {PACKAGE_VERSION}'s")
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "reference_sru")
    os.makedirs(out_dir, exist_ok=True)
    model = sru.SRU(**OPTIONS)
    model.eval()
    # Trained-looking weights rather than the initialisation, so that every entry matters
    # (scale_x, a buffer, stays the package's own sqrt(1 + 2 e^highway_bias)).
    torch.manual_seed(2018)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("layer_norm.weight"):
                p.copy_(1 + 0.2 * torch.randn(p.shape))
            else:
                p.copy_(0.6 * torch.randn(p.shape))
    out = model.output_size
    x = torch.randn(LENGTH, BATCH, OPTIONS["input_size"])
    mask_pad = torch.zeros(LENGTH, BATCH, dtype=torch.uint8)
    mask_pad[LENGTH - 2:, 2] = 1  # the third sentence is 5 long
    c0 = 0.5 * torch.randn(OPTIONS["num_layers"], BATCH, out)
    state = {name: t.float().clone() for name, t in model.state_dict().items()}
    write_safetensors(os.path.join(out_dir, "weights.safetensors"), state,
                      {"format": "pt", "model": f"sru.SRU {sru.__version__}",
                       "options": json.dumps(OPTIONS)})

    # The check: the package's float32 C++ CPU operator (torch.no_grad()) on the same inputs.
    with torch.no_grad():
        h32, c32 = model(x, c0, mask_pad)
    h, c = package_forward(model.double(), x.double(), c0.double(), mask_pad)
    h32_diff = (h32.double() - h).abs().max().item()
    c32_diff = (c32.double() - c).abs().max().item()
    write_safetensors(os.path.join(out_dir, "io.safetensors"),
                      dict(input=x, mask_pad=mask_pad, c0=c0, h=h, c=c),
                      {"made_by": "scripts/make-reference-sru-fixture.py",
                       "package": f"sru {sru.__version__}",
                       "outputs": "sru.SRU forward on the CPU in float64 (Python recurrence)",
                       "float32_cpu_operator_max_diff": json.dumps([h32_diff, c32_diff]),
                       "torch": torch.__version__})
    print(f"wrote {out_dir} with sru {sru.__version__} (torch {torch.__version__}): "
          f"{len(state)} tensors; h {tuple(h.shape)} max |h| {h.abs().max().item():.3f}, "
          f"c {tuple(c.shape)}; the float32 C++ operator differs by {h32_diff:.2e} on h, "
          f"{c32_diff:.2e} on c")


if __name__ == "__main__":
    main()
