#!/usr/bin/env python3
"""The ceiling of the SRU LM's speed-up over the LSTM LM at equal parameters (docs/performance.md).

Times, in interleaved rounds in one process on the same BLAS, (a) the matrix products alone of
one training step of the `lm_sru_vs_lstm` case's SRU LM (6 layers, width 682, projection 256,
embedding 128, batch 64 x bptt 100: every forward GEMM and both backward GEMMs of each, on
preallocated tensors, nothing else), and (b) the bench's nn.LSTM LM step (hidden 918, the same
parameter count; forward, backward, clipping, Adam). b / a is the largest ratio any SRU
implementation on this BLAS can reach: the one whose recurrence, dropout, loss and optimizer
take no time at all. Both models do about the same arithmetic per character (3.8M
multiply-adds forward), so the ratio measures how much better OpenBLAS runs the SRU's few large
GEMMs than the LSTM's 100 small per-step ones.

  OPENBLAS_CORETYPE=Cooperlake python3 bench/sru_gemm_floor.py --threads 1 --rounds 5
"""
import argparse
import statistics
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--steps", type=int, default=2, help="timed steps per measurement")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    try:  # OpenBLAS's own thread count, as recurlab_bench sets it
        import ctypes
        ctypes.CDLL("libopenblas.so.0").openblas_set_num_threads(a.threads)
    except (OSError, AttributeError):
        pass
    torch.manual_seed(0)
    L, B, V, E, w, P, layers, hl = 100, 64, 50, 128, 682, 256, 6, 918
    N = L * B
    r = torch.randn
    x, W0, gu0 = r(N, E), r(E, 4 * w), r(N, 4 * w)
    h, Wp, Wt, pr, gu, gp = r(N, w), r(w, P), r(P, 3 * w), r(N, P), r(N, 3 * w), r(N, P)
    out = {k: torch.empty(0) for k in range(10)}

    def sru_gemms():
        torch.mm(x, W0, out=out[0])
        torch.mm(x.t(), gu0, out=out[1])
        torch.mm(gu0, W0.t(), out=out[2])
        for _ in range(layers - 1):
            torch.mm(h, Wp, out=out[3])
            torch.mm(pr, Wt, out=out[4])
            torch.mm(pr.t(), gu, out=out[5])
            torch.mm(gu, Wt.t(), out=out[6])
            torch.mm(h.t(), gp, out=out[7])
            torch.mm(gp, Wp.t(), out=out[8])

    emb, lstm, dec = nn.Embedding(V, E), nn.LSTM(E, hl), nn.Linear(hl, V)
    params = list(emb.parameters()) + list(lstm.parameters()) + list(dec.parameters())
    opt = torch.optim.Adam(params, lr=1e-4)
    inp, tgt = torch.randint(0, V, (L, B)), torch.randint(0, V, (L, B))

    def lstm_step():
        opt.zero_grad(set_to_none=True)
        y, _ = lstm(emb(inp))
        F.cross_entropy(dec(F.dropout(y, 0.2, True)).view(-1, V), tgt.view(-1)).backward()
        nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()

    def seconds(step):
        start = time.perf_counter()
        for _ in range(a.steps):
            step()
        return (time.perf_counter() - start) / a.steps

    print(f"parameters: LSTM LM {sum(q.numel() for q in params)}; threads {a.threads}")
    sru_gemms(), lstm_step()  # warm-up
    ratios = []
    for k in range(a.rounds):
        pair = [(sru_gemms, "g"), (lstm_step, "l")]
        if k % 2:
            pair.reverse()
        t = {name: seconds(step) for step, name in pair}
        ratios.append(t["l"] / t["g"])
        print(f"round {k + 1}: SRU GEMMs alone {N / t['g']:.0f} characters/s, "
              f"LSTM LM step {N / t['l']:.0f} characters/s, ceiling {ratios[-1]:.2f}x", flush=True)
    print(f"ceiling of SRU LM / LSTM LM at {a.threads} thread(s): median {statistics.median(ratios):.2f}x "
          f"({min(ratios):.2f}-{max(ratios):.2f})")


if __name__ == "__main__":
    main()
