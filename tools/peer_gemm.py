#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Peer benchmark: PyTorch's fp32 GEMM (torch.matmul, MKL/oneDNN inside the wheel) at the GPT-2-small layer shapes
that `attnscope-kernelbench gemm` times (QKV, attention output, MLP up/down, LM head at n rows), same thread count.
Prints one JSON line per shape and thread count with the median and minimum of --reps timed calls.

    /work/venv/bin/python tools/peer_gemm.py --n 512 --threads 1 2 --reps 3
"""
import argparse
import json
import statistics
import time

import torch


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=512)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    n = args.n
    shapes = [("qkv", n, 2304, 768, False), ("attn_out", n, 768, 768, False), ("mlp_up", n, 3072, 768, False),
              ("mlp_down", n, 768, 3072, False), ("lm_head", n, 50257, 768, True)]
    g = torch.Generator().manual_seed(7)
    for name, M, N, K, trans_b in shapes:
        a = torch.randn(M, K, generator=g)
        b = torch.randn(N, K, generator=g) if trans_b else torch.randn(K, N, generator=g)
        for t in args.threads:
            torch.set_num_threads(t)
            rhs = b.t() if trans_b else b
            torch.matmul(a, rhs)
            ms = []
            for _ in range(args.reps):
                t0 = time.perf_counter()
                torch.matmul(a, rhs)
                ms.append((time.perf_counter() - t0) * 1e3)
            med = statistics.median(ms)
            print(json.dumps({"shape": name, "M": M, "N": N, "K": K, "transB": trans_b, "kernel": "torch.matmul",
                              "threads": t, "ms_median": round(med, 3), "ms_min": round(min(ms), 3),
                              "gflops_min": round(2.0 * M * N * K / (min(ms) * 1e6), 2), "torch": torch.__version__,
                              "cpu_capability": torch.backends.cpu.get_cpu_capability()}), flush=True)


if __name__ == "__main__":
    main()
