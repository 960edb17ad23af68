#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Known answers for the engine's BART and Marian encoder-decoders (engine/include/attnscope/seq2seq.h).

  tests/fixtures/models/<name>/    tiny BartForConditionalGeneration / MarianMTModel checkpoints with random weights
                                   (config.json, model.safetensors as save_pretrained writes them)
  tests/fixtures/seq2seq_bart/<case>/   teacher-forced outputs for the input_ids / decoder_input_ids in index.json:
                                   encoder_attentions.npy [layers, heads, S, S], decoder_attentions.npy
                                   [dec_layers, dec_heads, T, T], cross_attentions.npy [dec_layers, dec_heads, T, S],
                                   encoder_hidden.npy [S, D] (encoder_last_hidden_state), logits.npy [T, vocab];
                                   *_attentions_f64.npy: the same attentions from the model run in float64
  tests/fixtures/seq2seq_bart/index.json   cases, ids, greedy generate() (at most 8 new tokens, the start token
                                   dropped), and transformers' own float32-vs-float64 attention gap

Weights: N(0, 0.3²) for q_proj and k_proj (peaked attention: scores of a few units after the d_head^-1/2 scale),
N(0, 0.1²) for the other matrices and biases, N(0, 1) for token and BART's learned position embeddings (Marian's
token embeddings N(0, 1/d_model) when scale_embedding multiplies them by √d_model), layer norms
1 + N(0, 0.1²) (biases N(0, 0.1²)), final_logits_bias N(0, 0.5²). Marian's sinusoidal table is left as transformers
builds it. The encoder and decoder have different head counts (and, in one Marian model, different vocabularies), so
nothing can lean on the two stacks agreeing. One source fills max_position_embeddings exactly.

Run from the repository root:  tools/.venv/bin/python tools/make_bart_fixtures.py
"""

import json
import pathlib
import shutil

import numpy as np
import torch
import transformers
from safetensors import safe_open
from transformers import BartConfig, BartForConditionalGeneration, MarianConfig, MarianMTModel

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SEED = 20261204

MODELS = {
    # BART: learned positions (offset 2) + layernorm_embedding, scale_embedding on, erf GELU; 4 encoder heads
    # (d_head 12) against 3 decoder heads (d_head 16); max_position_embeddings 24.
    "bart-d48-e4d3": (BartForConditionalGeneration, BartConfig, dict(
        vocab_size=90, d_model=48, encoder_layers=2, decoder_layers=3, encoder_attention_heads=4,
        decoder_attention_heads=3, encoder_ffn_dim=72, decoder_ffn_dim=56, max_position_embeddings=24,
        scale_embedding=True, activation_function="gelu", pad_token_id=1, bos_token_id=0, eos_token_id=2,
        decoder_start_token_id=2, forced_eos_token_id=None)),
    # Marian (Opus-MT style): sinusoidal positions, no embedding layer norm, swish, scale_embedding, shared embeddings.
    "marian-d40-e4d2": (MarianMTModel, MarianConfig, dict(
        vocab_size=80, d_model=40, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
        decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=48, max_position_embeddings=64,
        scale_embedding=True, activation_function="swish", pad_token_id=79, eos_token_id=0,
        decoder_start_token_id=79, forced_eos_token_id=None)),
    # Marian with separate encoder and decoder vocabularies (share_encoder_decoder_embeddings false); relu; no scale.
    "marian-split-d32": (MarianMTModel, MarianConfig, dict(
        vocab_size=70, decoder_vocab_size=60, share_encoder_decoder_embeddings=False, d_model=32, encoder_layers=1,
        decoder_layers=2, encoder_attention_heads=2, decoder_attention_heads=4, encoder_ffn_dim=40,
        decoder_ffn_dim=40, max_position_embeddings=32, scale_embedding=False, activation_function="relu",
        pad_token_id=59, eos_token_id=0, decoder_start_token_id=59, forced_eos_token_id=None)),
}

CASES = {
    "bart-full": ("bart-d48-e4d3", 24, 9),    # the source fills max_position_embeddings
    "bart-one": ("bart-d48-e4d3", 1, 1),
    "marian-plain": ("marian-d40-e4d2", 13, 7),
    "marian-split": ("marian-split-d32", 11, 6),
}


def randomize(model, gen):
    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=gen)
            if "embed_positions" in name and isinstance(model, MarianMTModel):
                continue                      # the sinusoidal table
            if "layer_norm" in name or "layernorm" in name:
                p.copy_(1.0 + 0.1 * noise if name.endswith("weight") else 0.1 * noise)
            elif "embed_tokens" in name or "embed_positions" in name or name.endswith("shared.weight"):
                # Marian has no embedding layer norm: with scale_embedding, N(0, 1/d_model) keeps the first layer's
                # input at unit size (N(0, 1) would put scores in the hundreds and fp32 noise near 1e-5).
                scaled = isinstance(model, MarianMTModel) and model.config.scale_embedding
                p.copy_(noise / model.config.d_model ** 0.5 if scaled else noise)
            elif ("q_proj" in name or "k_proj" in name) and name.endswith("weight"):
                p.copy_(0.3 * noise)
            else:
                p.copy_(0.1 * noise)
        model.final_logits_bias.copy_(0.5 * torch.randn(model.final_logits_bias.shape, generator=gen))


def save_npy(path, a):
    np.save(path, np.ascontiguousarray(a.detach().numpy().astype(np.float32)))


def main():
    torch.manual_seed(SEED)
    gen = torch.Generator().manual_seed(SEED)
    out_dir = FIXTURES / "seq2seq_bart"   # marian_text.json beside the cases is tools/make_marian_fixtures.py's
    out_dir.mkdir(parents=True, exist_ok=True)
    for case in CASES:
        if (out_dir / case).exists():
            shutil.rmtree(out_dir / case)
    models = {}
    for name, (cls, cfg_cls, kwargs) in MODELS.items():
        model = cls(cfg_cls(**kwargs, attn_implementation="eager")).eval()
        randomize(model, gen)
        folder = FIXTURES / "models" / name
        if folder.exists():
            shutil.rmtree(folder)
        model.save_pretrained(folder)
        for extra in folder.iterdir():
            if extra.name not in ("config.json", "model.safetensors"):
                extra.unlink()            # generation_config.json: not read by the engine
        with safe_open(folder / "model.safetensors", "pt") as f:
            print(name, sorted(k for k in f.keys() if "layers." not in k))
        models[name] = model
    index = {"versions": {"transformers": transformers.__version__, "torch": torch.__version__}, "cases": []}
    for case, (name, S, T) in CASES.items():
        model = models[name]
        cfg = model.config
        dec_vocab = getattr(cfg, "decoder_vocab_size", None) or cfg.vocab_size
        ids = torch.randint(3, cfg.vocab_size, (1, S), generator=gen)
        start = torch.full((1, 1), cfg.decoder_start_token_id, dtype=torch.long)
        dec = torch.cat([start, torch.randint(3, dec_vocab - 1, (1, T - 1), generator=gen)], 1)
        with torch.no_grad():
            o = model(input_ids=ids, decoder_input_ids=dec, output_attentions=True, use_cache=False)
            o64 = model.double()(input_ids=ids, decoder_input_ids=dec, output_attentions=True, use_cache=False)
            model.float()
        d = out_dir / case
        d.mkdir()
        gap = 0.0
        for field in ("encoder_attentions", "decoder_attentions", "cross_attentions"):
            a, a64 = torch.stack([x[0] for x in getattr(o, field)]), torch.stack([x[0] for x in getattr(o64, field)])
            save_npy(d / f"{field}.npy", a)
            save_npy(d / f"{field}_f64.npy", a64)   # the float64 pass: the answer fp32 rounding scatters around
            gap = max(gap, float((a.double() - a64).abs().max()))
        save_npy(d / "encoder_hidden.npy", o.encoder_last_hidden_state[0])
        save_npy(d / "logits.npy", o.logits[0])
        enc = torch.stack([x[0] for x in o.encoder_attentions])
        cross = torch.stack([x[0] for x in o.cross_attentions])
        # Greedy generation as `run` does it without a target (every sampling and n-gram rule off).
        with torch.no_grad():
            gen_ids = model.generate(ids, max_new_tokens=8, do_sample=False, num_beams=1, min_length=0,
                                     no_repeat_ngram_size=0, repetition_penalty=1.0, forced_bos_token_id=None,
                                     forced_eos_token_id=None, decoder_start_token_id=cfg.decoder_start_token_id,
                                     eos_token_id=cfg.eos_token_id, pad_token_id=cfg.pad_token_id)
        entry = {"case": case, "model": name, "input_ids": ids[0].tolist(), "decoder_input_ids": dec[0].tolist(),
                 "generated_8": gen_ids[0, 1:].tolist(),
                 "mean_max_encoder_weight": round(float(enc.max(-1).values.mean()), 4),
                 "mean_max_cross_weight": round(float(cross.max(-1).values.mean()), 4),
                 "hf_float32_vs_float64_attention": float(f"{gap:.3g}")}
        index["cases"].append(entry)
        print(case, {k: v for k, v in entry.items() if "ids" not in k})
    (out_dir / "index.json").write_text(json.dumps(index, indent=1) + "\n")


if __name__ == "__main__":
    main()
