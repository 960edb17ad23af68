#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Known answers for the engine's T5 encoder-decoder (engine/include/attnscope/seq2seq.h) -> tests/fixtures/.

  models/<name>/       tiny T5ForConditionalGeneration checkpoints with random weights (config.json,
                       model.safetensors as save_pretrained writes them)
  seq2seq/<case>/      teacher-forced outputs for the input_ids / decoder_input_ids in index.json:
                       encoder_attentions.npy [layers, heads, S, S], decoder_attentions.npy [dec_layers, heads, T, T],
                       cross_attentions.npy [dec_layers, heads, T, S], encoder_hidden.npy [S, D] (after the
                       encoder's final layer norm), logits.npy [T, vocab]
  seq2seq/index.json   cases, ids, and transformers' own float32-vs-float64 attention gap per case

Weights: N(0, 0.08²) for q and k (T5 does not scale scores, so this keeps attention peaked), N(0, 0.1²) for the
other matrices, N(0, 1) for the relative-position bias table and the embeddings, layer norms 1 + N(0, 0.1²). The
sources are longer than relative_attention_max_distance in one case so the clamped buckets are exercised.

Run from the repository root:  /work/venv/bin/python tools/make_seq2seq_fixtures.py
"""

import json
import pathlib
import shutil

import numpy as np
import torch
import transformers
from transformers import T5Config, T5ForConditionalGeneration

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SEED = 20261203

MODELS = {
    # v1.1 / Flan style: gated-gelu (gelu_new), untied lm_head, no output scaling; 2 encoder and 3 decoder layers;
    # 8 buckets with max distance 12 (sources of 23 tokens reach the clamped bucket).
    "t5-gated-d48h3": dict(vocab_size=96, d_model=48, d_kv=16, d_ff=80, num_layers=2, num_decoder_layers=3,
                           num_heads=3, relative_attention_num_buckets=8, relative_attention_max_distance=12,
                           feed_forward_proj="gated-gelu", tie_word_embeddings=False, decoder_start_token_id=0),
    # Original T5 style: relu, tied embeddings and the d_model^-1/2 output scale; heads·d_kv = 32 ≠ d_model = 40.
    "t5-relu-d40h4": dict(vocab_size=80, d_model=40, d_kv=8, d_ff=64, num_layers=2, num_heads=4,
                          relative_attention_num_buckets=32, relative_attention_max_distance=128,
                          feed_forward_proj="relu", decoder_start_token_id=0),
}

CASES = {
    "t5-gated-long": ("t5-gated-d48h3", 23, 9),
    "t5-gated-one": ("t5-gated-d48h3", 1, 1),
    "t5-relu-plain": ("t5-relu-d40h4", 11, 7),
}


def randomize(model, gen):
    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=gen)
            if "layer_norm" in name:
                p.copy_(1.0 + 0.1 * noise)
            elif "relative_attention_bias" in name or name == "shared.weight":
                p.copy_(noise)
            elif name.endswith(".q.weight") or name.endswith(".k.weight"):
                p.copy_(0.08 * noise)
            else:
                p.copy_(0.1 * noise)


def save_npy(path, a):
    np.save(path, np.ascontiguousarray(a.detach().numpy().astype(np.float32)))


def main():
    torch.manual_seed(SEED)
    gen = torch.Generator().manual_seed(SEED)
    out_dir = FIXTURES / "seq2seq"
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    models = {}
    for name, kwargs in MODELS.items():
        model = T5ForConditionalGeneration(T5Config(**kwargs, attn_implementation="eager")).eval()
        randomize(model, gen)
        folder = FIXTURES / "models" / name
        if folder.exists():
            shutil.rmtree(folder)
        model.save_pretrained(folder)
        models[name] = model
        print(name, "scale_decoder_outputs", model.config.scale_decoder_outputs)
    index = {"versions": {"transformers": transformers.__version__, "torch": torch.__version__}, "cases": []}
    for case, (name, S, T) in CASES.items():
        model = models[name]
        vocab = model.config.vocab_size
        ids = torch.randint(2, vocab, (1, S), generator=gen)
        dec = torch.cat([torch.zeros(1, 1, dtype=torch.long), torch.randint(2, vocab, (1, T - 1), generator=gen)], 1)
        with torch.no_grad():
            o = model(input_ids=ids, decoder_input_ids=dec, output_attentions=True, use_cache=False)
            o64 = model.double()(input_ids=ids, decoder_input_ids=dec, output_attentions=True, use_cache=False)
            model.float()
        d = out_dir / case
        d.mkdir()
        kinds = {"encoder_attentions": "encoder_attentions", "decoder_attentions": "decoder_attentions",
                 "cross_attentions": "cross_attentions"}
        gap = 0.0
        for file, field in kinds.items():
            a, a64 = torch.stack([x[0] for x in getattr(o, field)]), torch.stack([x[0] for x in getattr(o64, field)])
            save_npy(d / f"{file}.npy", a)
            gap = max(gap, float((a.double() - a64).abs().max()))
        save_npy(d / "encoder_hidden.npy", o.encoder_last_hidden_state[0])
        save_npy(d / "logits.npy", o.logits[0])
        enc = torch.stack([x[0] for x in o.encoder_attentions])
        entry = {"case": case, "model": name, "input_ids": ids[0].tolist(), "decoder_input_ids": dec[0].tolist(),
                 "mean_max_encoder_weight": round(float(enc.max(-1).values.mean()), 4),
                 "hf_float32_vs_float64_attention": float(f"{gap:.3g}")}
        index["cases"].append(entry)
        print(case, {k: v for k, v in entry.items() if "ids" not in k})
    (out_dir / "index.json").write_text(json.dumps(index, indent=1) + "\n")
    for name in MODELS:
        print(name, sorted(p.name for p in (FIXTURES / "models" / name).iterdir()))


if __name__ == "__main__":
    main()
