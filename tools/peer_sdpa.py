#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Peer benchmark: PyTorch's scaled_dot_product_attention on the CPU beside attnscope-cli bench.

For each configuration the two are timed alternately (A/B/A/B, `--rounds` times) on the same machine and thread
count, so the reported ratio is measured side by side. AttnScope's figure is its own median (it validates against
fp64 before timing); PyTorch's is the median of `--reps` calls after warm-ups. Both use the FLOP convention
4·B·H·L²·d (halved when causal). Output: one JSON object per configuration.

    tools/.venv/bin/python tools/peer_sdpa.py --cli build/release/app/attnscope-cli --n 1024 4096 --d 64 \
        --heads 8 --threads 2 [--causal both]
"""
import argparse
import json
import statistics
import subprocess
import time

import torch


def torch_ms(n, d, heads, causal, threads, reps, seed=7):
    torch.set_num_threads(threads)
    g = torch.Generator().manual_seed(seed)
    q, k, v = (torch.randn(1, heads, n, d, generator=g) for _ in range(3))
    f = torch.nn.functional.scaled_dot_product_attention
    with torch.no_grad():
        for _ in range(3):
            f(q, k, v, is_causal=causal)
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            f(q, k, v, is_causal=causal)
            times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def attnscope(cli, n, d, heads, causal, threads, reps):
    cmd = [cli, "bench", "--n", str(n), "--d", str(d), "--heads", str(heads), "--threads", str(threads),
           "--backend", "tiled", "--reps", str(reps), "--json"]
    if causal:
        cmd.append("--causal")
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    line = next(json.loads(l) for l in out.splitlines() if l.startswith("{") and '"tiled"' in l)
    if not line.get("validated", False):
        raise RuntimeError(f"attnscope-cli did not validate: {line}")
    return line


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--n", type=int, nargs="+", default=[1024, 4096])
    ap.add_argument("--d", type=int, nargs="+", default=[64])
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--threads", type=int, nargs="+", default=[2])
    ap.add_argument("--causal", choices=["no", "yes", "both"], default="both")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    causals = {"no": [False], "yes": [True], "both": [False, True]}[args.causal]
    for n in args.n:
        for d in args.d:
            for causal in causals:
                for t in args.threads:
                    ours, theirs, last = [], [], None
                    for _ in range(args.rounds):
                        last = attnscope(args.cli, n, d, args.heads, causal, t, args.reps)
                        ours.append(last["ms_median"])
                        theirs.append(torch_ms(n, d, args.heads, causal, t, args.reps))
                    flops = 4.0 * args.heads * n * n * d * (0.5 if causal else 1.0)
                    a, p = statistics.median(ours), statistics.median(theirs)
                    print(json.dumps({
                        "n": n, "d": d, "heads": args.heads, "batch": 1, "causal": causal, "threads": t,
                        "attnscope_ms": round(a, 3), "torch_sdpa_ms": round(p, 3),
                        "attnscope_gflops": round(flops / a / 1e6, 2), "torch_sdpa_gflops": round(flops / p / 1e6, 2),
                        "speed_ratio_attnscope_over_torch": round(p / a, 3),
                        "torch": torch.__version__, "rounds": args.rounds,
                        "attnscope_gemm_ceiling_gflops": last["gemm_ceiling_gflops"],
                    }), flush=True)


if __name__ == "__main__":
    main()
