#!/usr/bin/env python3
"""Times the reference SRU (asappresearch/sru 2.6, its CUDA kernel compiled on the spot by
PyTorch's cpp_extension) on the shapes recurlab_speed uses, as a second anchor for recurlab's CUDA
kernel: one SRU layer forward+backward (U = X·W plus the elementwise recurrence), and the
elementwise recurrence alone, float32, batch 32 and 128, median of CUDA-event timings.

usage: bench-reference-sru.py --sru DIR [--out FILE.json] [--repeats N]
  DIR holds the reference's `sru` package (e.g. a checkout of github.com/asappresearch/sru at
  v2.6.0); nothing of it is part of recurlab.
"""
import argparse
import json
import statistics
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sru", required=True)
    ap.add_argument("--out")
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--sizes", default="32x256,128x512,256x1024,512x1024,1024x2048")
    ap.add_argument("--batches", default="32,128")
    args = ap.parse_args()
    sys.path.insert(0, args.sru)
    import torch
    t0 = time.time()
    import sru  # compiles the CUDA kernel on first import
    from sru.ops import elementwise_recurrence_gpu
    print(f"reference sru {getattr(sru, '__version__', '?')} loaded in {time.time() - t0:.1f} s",
          flush=True)
    dev = torch.device("cuda")

    def timed(step):
        for _ in range(args.warmup):
            step()
        torch.cuda.synchronize()
        times = []
        for _ in range(args.repeats):
            a = torch.cuda.Event(enable_timing=True)
            b = torch.cuda.Event(enable_timing=True)
            a.record()
            step()
            b.record()
            torch.cuda.synchronize()
            times.append(a.elapsed_time(b))
        return statistics.median(times)

    rows = []
    for size in args.sizes.split(","):
        L, d = (int(v) for v in size.split("x"))
        for B in (int(v) for v in args.batches.split(",")):
            torch.manual_seed(1)
            layer = sru.SRU(d, d, num_layers=1, highway_bias=0.0, rescale=True).to(dev)
            x = torch.randn(L, B, d, device=dev, requires_grad=True)
            gy = torch.randn(L, B, d, device=dev)

            def layer_step():
                y, _ = layer(x)
                y.backward(gy)

            cell = layer.rnn_lst[0]
            u = torch.randn(L, B, 3 * d, device=dev, requires_grad=True)
            xk = torch.randn(L, B, d, device=dev, requires_grad=True)
            c0 = torch.zeros(B, d, device=dev)
            scale = torch.full((d,), 3 ** 0.5, device=dev)

            def kernel_step():
                h, _ = elementwise_recurrence_gpu(u, xk, cell.weight_c, cell.bias, c0,
                                                  cell.activation_type, d, False, True, scale)
                h.backward(gy)

            layer_ms = timed(layer_step)
            kernel_ms = timed(kernel_step)
            # Same byte count as recurlab's sruForwardBytes+Backward: 16 floats per (t, b, unit).
            gbs = 16 * 4 * L * B * d / (kernel_ms * 1e-3) / 1e9
            row = dict(length=L, hidden=d, batch=B, layer_ms=layer_ms, kernel_ms=kernel_ms,
                       kernel_gbs=gbs)
            rows.append(row)
            print(f"reference SRU l={L} d={d} batch={B}: layer fwd+bwd {layer_ms:.3f} ms, "
                  f"elementwise kernel fwd+bwd {kernel_ms:.3f} ms ({gbs:.0f} GB/s)", flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(dict(device=torch.cuda.get_device_name(), torch=torch.__version__,
                           rows=rows), f, indent=1)


if __name__ == "__main__":
    main()
