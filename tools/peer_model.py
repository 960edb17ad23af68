#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Peer benchmark: a whole GPT-2 forward pass, AttnScope beside PyTorch eager (transformers), same machine,
same thread count, timed alternately (A/B/A/B) so the ratio is measured side by side.

The model is GPT-2-small sized by default (12 layers, 12 heads, d_model 768) with random weights (seeded): the
script saves it once as a safetensors folder and both sides load that folder. `attnscope-cli bench --model`
validates its forward against AttnScope's fp64 reference backend before timing.

    tools/.venv/bin/python tools/peer_model.py --cli build/release/app/attnscope-cli --n 512 --threads 2
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

import torch
from transformers import GPT2Config, GPT2LMHeadModel


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--n", type=int, default=512)
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--d-model", type=int, default=768)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--folder", default=os.path.join(tempfile.gettempdir(), "attnscope-peer-gpt2"))
    args = ap.parse_args()

    torch.manual_seed(0)
    torch.set_num_threads(args.threads)
    config = GPT2Config(n_layer=args.layers, n_head=args.heads, n_embd=args.d_model, n_positions=max(1024, args.n),
                        vocab_size=50257)
    model = GPT2LMHeadModel(config).eval()
    model.config._attn_implementation = "eager"
    if not os.path.exists(os.path.join(args.folder, "model.safetensors")):
        model.save_pretrained(args.folder, safe_serialization=True)

    ids = torch.randint(0, config.vocab_size, (1, args.n), generator=torch.Generator().manual_seed(7))

    def torch_ms():
        with torch.no_grad():
            model(ids)
            times = []
            for _ in range(args.reps):
                t0 = time.perf_counter()
                model(ids)
                times.append((time.perf_counter() - t0) * 1e3)
        return statistics.median(times)

    def attnscope_ms(validate):
        cmd = [args.cli, "bench", "--model", args.folder, "--n", str(args.n), "--threads", str(args.threads),
               "--reps", str(args.reps), "--json"]
        if not validate:
            cmd.append("--no-validate")
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        return json.loads(next(l for l in out.splitlines() if l.startswith("{")))

    ours, theirs = [], []
    first = None
    for r in range(args.rounds):
        line = attnscope_ms(validate=(r == 0))   # validated once against the fp64 reference, then timed
        first = first or line
        ours.append(line["ms_median"])
        theirs.append(torch_ms())
    a, p = statistics.median(ours), statistics.median(theirs)
    print(json.dumps({
        "model": f"gpt2 random {args.layers}x{args.heads}x{args.d_model}", "n": args.n, "threads": args.threads,
        "attnscope_ms": round(a, 2), "torch_eager_ms": round(p, 2), "speed_ratio_attnscope_over_torch": round(p / a, 3),
        "attnscope_validated": first.get("validated"), "max_abs_logit_err_vs_reference": first.get("max_abs_logit_err_vs_reference"),
        "torch": torch.__version__, "rounds": args.rounds, "reps": args.reps,
    }))


if __name__ == "__main__":
    main()
