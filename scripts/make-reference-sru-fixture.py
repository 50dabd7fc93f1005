#!/usr/bin/python3
"""Makes tests/fixtures/reference_sru/: the weights of a small SRU as the PyTorch reference
(asappresearch/sru 2.6, `sru.SRU`) names and lays them out, an input, and that SRU's output,
for the test that imports the weights into recurlab's SRU and compares the outputs
(tests/experiments/weights/reference_sru_import_test.cpp).

The reference package itself is not needed: this file implements the forward pass of its
SRUCell and SRU (Lei et al. 2018, §2, with the v2.6 conventions documented in docs/weights.md:
W of shape (input, out*k) with the k sub-matrices interleaved per unit, weight_c = [v_f | v_r],
bias = [b_f | b_r], the scale_x buffer, pre-layer-norm on the matmul's input only, mask_pad
nonzero = pad) in plain PyTorch, as modules whose state_dict() names are the reference's. The
safetensors files are written by a few lines below (no safetensors package needed).

usage: /usr/bin/python3 scripts/make-reference-sru-fixture.py [OUT_DIR]
  (Debian's python3-torch; OUT_DIR defaults to tests/fixtures/reference_sru)
Output: weights.safetensors (F32 weights, reference names; the options in __metadata__) and
io.safetensors (input F32 (L, B, in), mask_pad U8 (L, B), c0 F32 (layers, B, out), and the
outputs h (L, B, out) and c (layers, B, out), computed in float64 from the float32 weights).
"""
import json
import math
import os
import struct
import sys

import torch
from torch import nn

OPTIONS = dict(input_size=5, hidden_size=3, num_layers=2, bidirectional=True, rescale=True,
               highway_bias=-1.0, layer_norm=True, projection_size=2, has_skip_term=True)
LENGTH, BATCH = 7, 3


class ReferenceSRUCell(nn.Module):
    def __init__(self, input_size, hidden_size, bidirectional, rescale, highway_bias,
                 layer_norm, projection_size, has_skip_term):
        super().__init__()
        self.hidden_size = hidden_size
        self.directions = 2 if bidirectional else 1
        self.output_size = hidden_size * self.directions
        self.rescale = rescale
        self.has_skip_term = has_skip_term
        self.k = 4 if has_skip_term and input_size != self.output_size else 3
        projects = 0 < projection_size < input_size and projection_size < self.output_size
        rows = projection_size if projects else input_size
        self.weight_proj = nn.Parameter(torch.empty(input_size, rows)) if projects else None
        self.weight = nn.Parameter(torch.empty(rows, self.output_size * self.k))
        self.weight_c = nn.Parameter(torch.empty(2 * self.output_size))
        self.bias = nn.Parameter(torch.empty(2 * self.output_size))
        alpha = math.sqrt(1 + 2 * math.exp(highway_bias)) if rescale and has_skip_term else 1.0
        self.register_buffer("scale_x", torch.tensor([alpha]))
        self.layer_norm = nn.LayerNorm(input_size) if layer_norm else None

    def forward(self, x, c0, mask_pad):
        length, batch, _ = x.shape
        dirs, d, k = self.directions, self.hidden_size, self.k
        residual = x
        if self.layer_norm is not None:
            x = self.layer_norm(x)
        flat = x.reshape(length * batch, -1)
        if self.weight_proj is not None:
            flat = flat @ self.weight_proj
        u = (flat @ self.weight).view(length, batch, dirs, d, k)
        v_f, v_r = self.weight_c.view(2, dirs, d)
        b_f, b_r = self.bias.view(2, dirs, d)
        if not self.has_skip_term:
            skip = None
        elif k == 3:
            skip = residual.view(length, batch, dirs, d)
            if self.rescale:
                skip = skip * self.scale_x
        else:
            skip = u[..., 3]
        pad = mask_pad.to(x.dtype).view(length, batch, 1)
        h = x.new_zeros(length, batch, dirs, d)
        c_last = []
        for di in range(dirs):
            c = c0.view(batch, dirs, d)[:, di]
            steps = range(length) if di == 0 else range(length - 1, -1, -1)
            for t in steps:
                f = torch.sigmoid(u[t, :, di, :, 1] + v_f[di] * c + b_f[di])
                r = torch.sigmoid(u[t, :, di, :, 2] + v_r[di] * c + b_r[di])
                c_new = f * c + (1 - f) * u[t, :, di, :, 0]
                c = pad[t] * c + (1 - pad[t]) * c_new  # a pad step carries c unchanged
                out = r * c if skip is None else r * c + (1 - r) * skip[t, :, di]
                h[t, :, di] = (1 - pad[t]) * out       # and leaves h at 0
            c_last.append(c)
        return h.view(length, batch, -1), torch.stack(c_last, dim=1).view(batch, -1)


class ReferenceSRU(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, **cell_options):
        super().__init__()
        out = hidden_size * (2 if cell_options["bidirectional"] else 1)
        self.rnn_lst = nn.ModuleList(
            ReferenceSRUCell(input_size if i == 0 else out, hidden_size, **cell_options)
            for i in range(num_layers))

    def forward(self, x, c0, mask_pad):
        cs = []
        for i, cell in enumerate(self.rnn_lst):
            x, c = cell(x, c0[i], mask_pad)
            cs.append(c)
        return x, torch.stack(cs)


def write_safetensors(path, tensors, metadata):
    """The format: 8-byte little-endian header length, JSON header, raw little-endian data."""
    dtypes = {torch.float32: "F32", torch.float64: "F64", torch.uint8: "U8"}
    header, blobs, offset = {"__metadata__": metadata}, [], 0
    for name, t in tensors.items():
        blob = t.detach().contiguous().numpy().tobytes()
        header[name] = dict(dtype=dtypes[t.dtype], shape=list(t.shape),
                            data_offsets=[offset, offset + len(blob)])
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "reference_sru")
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(2018)
    options = dict(OPTIONS)
    sru = ReferenceSRU(options.pop("input_size"), options.pop("hidden_size"),
                       options.pop("num_layers"), **options)
    # Trained-looking weights rather than the initialisation, so that every entry matters.
    with torch.no_grad():
        for name, p in sru.named_parameters():
            if name.endswith("layer_norm.weight"):
                p.copy_(1 + 0.2 * torch.randn(p.shape))
            else:
                p.copy_(0.6 * torch.randn(p.shape))
    out = sru.rnn_lst[0].output_size
    x = torch.randn(LENGTH, BATCH, OPTIONS["input_size"])
    mask_pad = torch.zeros(LENGTH, BATCH, dtype=torch.uint8)
    mask_pad[LENGTH - 2:, 2] = 1  # the third sentence is 5 long
    c0 = 0.5 * torch.randn(OPTIONS["num_layers"], BATCH, out)
    state = {name: t.float() for name, t in sru.state_dict().items()}
    write_safetensors(os.path.join(out_dir, "weights.safetensors"), state,
                      {"format": "pt", "model": "sru.SRU 2.6", "options": json.dumps(OPTIONS)})
    with torch.no_grad():
        h, c = sru.double()(x.double(), c0.double(), mask_pad)
    write_safetensors(os.path.join(out_dir, "io.safetensors"),
                      dict(input=x, mask_pad=mask_pad, c0=c0, h=h, c=c),
                      {"made_by": "scripts/make-reference-sru-fixture.py",
                       "torch": torch.__version__})
    print(f"wrote {out_dir}: {len(state)} tensors; h {tuple(h.shape)}, c {tuple(c.shape)}")


if __name__ == "__main__":
    main()
