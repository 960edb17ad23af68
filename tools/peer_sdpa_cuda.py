#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Peer benchmark for AttnScope's CUDA path: PyTorch scaled_dot_product_attention on the GPU.

Same problems as `attnscope-cli bench --backend cuda --json` (Q, K, V ~ N(0, 1), shape [B, H, n, d], causal or
not), the FlashAttention backend forced with torch.nn.attention.sdpa_kernel (fp16/bf16; fp32 has no flash kernel
in PyTorch, so f32 lines use the EFFICIENT_ATTENTION backend and say so). Timed with CUDA events around the
kernel only (tensors already on the device), median of --reps after --warmups. One JSON object per line on stdout.

FLOPs follow docs/performance.md: 4·B·H·n²·d, halved when causal. PyTorch's is_causal is top-left aligned, which
for Lq == Lk is the same mask as AttnScope's bottom-right causal mask.

Development-only (tools/): needs torch with CUDA; never imported by the app or its tests.

  python3 tools/peer_sdpa_cuda.py --n 1024 4096 8192 --d 64 128 --dtype f16 f32 --causal both --heads 16
"""
import argparse
import json
import statistics
import sys
import time


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, nargs="+", default=[1024, 4096, 8192, 16384])
    ap.add_argument("--d", type=int, nargs="+", default=[64, 128])
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--dtype", nargs="+", default=["f16", "f32"], choices=["f16", "bf16", "f32"])
    ap.add_argument("--causal", choices=["yes", "no", "both"], default="both")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--warmups", type=int, default=5)
    ap.add_argument("--seed", type=int, default=7)
    return ap.parse_args()


def main():
    args = parse_args()
    try:
        import torch
        from torch.nn.attention import SDPBackend, sdpa_kernel
        import torch.nn.functional as F
    except ImportError as e:
        print(f"peer_sdpa_cuda: PyTorch is not importable ({e})", file=sys.stderr)
        return 1
    if not torch.cuda.is_available():
        print("peer_sdpa_cuda: torch.cuda.is_available() is False (no GPU or no CUDA build of torch)",
              file=sys.stderr)
        return 1

    dtypes = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}
    device = torch.device("cuda")
    props = torch.cuda.get_device_properties(device)
    causal_values = {"yes": [True], "no": [False], "both": [False, True]}[args.causal]
    failures = 0
    for dname in args.dtype:
        dtype = dtypes[dname]
        backend = SDPBackend.FLASH_ATTENTION if dtype != torch.float32 else SDPBackend.EFFICIENT_ATTENTION
        for d in args.d:
            for n in args.n:
                for causal in causal_values:
                    line = {
                        "peer": "torch.sdpa", "torch": torch.__version__, "cuda": torch.version.cuda,
                        "device": props.name, "sdpa_backend": backend.name, "dtype": dname,
                        "n": n, "d": d, "heads": args.heads, "batch": args.batch, "causal": causal,
                        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                    }
                    try:
                        gen = torch.Generator(device=device).manual_seed(args.seed)
                        shape = (args.batch, args.heads, n, d)
                        q, k, v = (torch.randn(shape, generator=gen, device=device, dtype=dtype) for _ in range(3))
                        with sdpa_kernel(backend):
                            out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                            # A sampled fp64 check, like the engine's bench: validate first, then time.
                            rows = torch.linspace(0, n - 1, steps=min(n, 16), device=device).long()
                            q64, k64, v64 = q[:, :, rows].double(), k.double(), v.double()
                            s = (q64 @ k64.transpose(-1, -2)) / (d ** 0.5)
                            if causal:
                                cols = torch.arange(n, device=device)
                                s = s.masked_fill(cols[None, :] > rows[:, None], float("-inf"))
                            ref = torch.softmax(s, dim=-1) @ v64
                            line["max_abs_err_vs_fp64_sampled"] = (out[:, :, rows].double() - ref).abs().max().item()
                            for _ in range(args.warmups):
                                F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                            times = []
                            for _ in range(args.reps):
                                start = torch.cuda.Event(enable_timing=True)
                                stop = torch.cuda.Event(enable_timing=True)
                                start.record()
                                F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                                stop.record()
                                stop.synchronize()
                                times.append(start.elapsed_time(stop))
                        flops = 4.0 * args.batch * args.heads * n * n * d / (2.0 if causal else 1.0)
                        ms = statistics.median(times)
                        line.update({"ms_median": round(ms, 4), "ms_min": round(min(times), 4), "reps": len(times),
                                     "timing": "cuda_event", "flops": flops,
                                     "tflops": round(flops / (ms * 1e9), 3)})
                        del q, k, v, out
                        torch.cuda.empty_cache()
                    except Exception as e:  # one failing size must not hide the others
                        line["error"] = f"{type(e).__name__}: {e}"
                        failures += 1
                    print(json.dumps(line), flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
