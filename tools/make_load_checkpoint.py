#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Write a random-weight checkpoint shaped like Qwen2.5-0.5B (494 M parameters) in BF16, for measuring how
AttnScope loads a real-sized model (peak RSS against the fp32 weight size, load time). Not committed: ~1 GB.

    /work/venv/bin/python tools/make_load_checkpoint.py /tmp/qwen2-0.5b-bf16 [--shards N]
    /usr/bin/time -v build/release/app/attnscope-cli info --model /tmp/qwen2-0.5b-bf16 > /dev/null

The weights are drawn with torch's default initialisation (seeded); only their sizes matter here.
"""
import argparse
import json
import os

import torch
from transformers import Qwen2Config, Qwen2ForCausalLM


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--shards", type=int, default=1, help="split into this many safetensors shards")
    args = ap.parse_args()
    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=151936, hidden_size=896, intermediate_size=4864, num_hidden_layers=24,
                         num_attention_heads=14, num_key_value_heads=2, max_position_embeddings=32768,
                         rope_theta=1e6, rms_norm_eps=1e-6, tie_word_embeddings=True, use_sliding_window=False,
                         max_window_layers=21)
    with torch.device("meta"):
        model = Qwen2ForCausalLM(config)
    model = model.to_empty(device="cpu").to(torch.bfloat16)
    model.tie_weights()   # to_empty() gives the tied lm_head its own storage
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0.0, 0.02)
    params = sum(p.numel() for p in model.parameters())
    shard = None if args.shards <= 1 else f"{(params * 2) // args.shards // (1 << 20) + 1}MB"
    model.save_pretrained(args.out, max_shard_size=shard) if shard else model.save_pretrained(args.out)
    print(json.dumps({"parameters": params, "fp32_bytes": params * 4,
                      "files": sorted(os.listdir(args.out))}))


if __name__ == "__main__":
    main()
