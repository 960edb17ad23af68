#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A tiny T5 with a tokenizer, for `attnscope-cli run` on a seq2seq model from text: tests/fixtures/models/t5-text-d32h4
(config.json, model.safetensors, tokenizer.json: a Unigram vocabulary with T5's Metaspace and "$A </s>" template,
built with the tokenizers library) and tests/fixtures/seq2seq/text.json, the known answers made by transformers:

- per source text: the tokenizer's ids, and greedy generation (generate(do_sample=False, num_beams=1,
  max_new_tokens=N, use_cache=False)) for N = 3 and 20 -- transformers 5.24 sizes its cache by num_layers, so the
  cache is off; the result is the same;
- per (source, target) pair: the target's ids (labels, ending in </s>), the decoder input [start] + labels[:-1]
  (shift_tokens_right) and the eager attentions of that teacher-forced pass, encoder / decoder / cross.

Random weights, seeded; the LM head is drawn larger than the embedding so that generation does not just copy its
last token (the other fixtures' random models do). Deterministic.

    tools/.venv/bin/python tools/make_seq2seq_text_fixture.py
"""
import json
import pathlib
import shutil

import torch
import transformers
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors
from transformers import T5Config, T5ForConditionalGeneration

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SEED = 20261204
WORDS = ("the a cat dog sat ran on in mat park big small red blue sees likes and with house tree bird eats fish "
         "green old new").split()
SOURCES = ["the cat sat on the mat", "a big dog ran in the park", "the old bird eats fish"]
PAIRS = [("the cat sat on the mat", "a cat sat on a mat"), ("the small dog sees a red house", "a small dog likes the tree")]


def build_tokenizer():
    vocab = [("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0), ("\u2581", -3.0)]
    vocab += [("\u2581" + w, -2.0 - 0.01 * i) for i, w in enumerate(WORDS)]
    vocab += [(c, -6.0) for c in "abcdefghijklmnopqrstuvwxyz"]
    tok = Tokenizer(models.Unigram(vocab, unk_id=2, byte_fallback=False))
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always")
    tok.post_processor = processors.TemplateProcessing(single="$A </s>", pair="$A </s> $B </s>",
                                                       special_tokens=[("</s>", 1)])
    tok.decoder = decoders.Metaspace(replacement="\u2581", prepend_scheme="always")
    tok.add_special_tokens(["<pad>", "</s>", "<unk>"])
    return tok, len(vocab)


def floats(t):
    return [float(x) for x in t.reshape(-1).tolist()]


def main():
    torch.manual_seed(SEED)
    gen = torch.Generator().manual_seed(SEED)
    tok, vocab_size = build_tokenizer()
    config = T5Config(vocab_size=vocab_size, d_model=32, d_kv=8, d_ff=48, num_layers=2, num_decoder_layers=2,
                      num_heads=4, relative_attention_num_buckets=8, relative_attention_max_distance=16,
                      feed_forward_proj="gated-gelu", tie_word_embeddings=False, decoder_start_token_id=0,
                      eos_token_id=1, pad_token_id=0, attn_implementation="eager")
    model = T5ForConditionalGeneration(config).eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=gen)
            if "layer_norm" in name:
                p.copy_(1.0 + 0.1 * noise)
            elif "relative_attention_bias" in name:
                p.copy_(1.5 * noise)   # positions matter, so a step does not repeat the one before
            elif name == "shared.weight":
                p.copy_(0.5 * noise)
            elif name == "lm_head.weight":
                p.copy_(2.0 * noise)
            elif name.endswith(".q.weight") or name.endswith(".k.weight"):
                p.copy_(0.15 * noise)
            else:
                p.copy_(0.25 * noise)
    folder = FIXTURES / "models" / "t5-text-d32h4"
    if folder.exists():
        shutil.rmtree(folder)
    model.save_pretrained(folder)
    tok.save(str(folder / "tokenizer.json"))

    out = {"versions": {"transformers": transformers.__version__, "torch": torch.__version__},
           "generator": "tools/make_seq2seq_text_fixture.py", "model": "t5-text-d32h4", "generation": [], "teacher_forced": []}
    for text in SOURCES:
        ids = tok.encode(text).ids
        for max_new in (3, 20):
            with torch.no_grad():
                seq = model.generate(torch.tensor([ids]), do_sample=False, num_beams=1, max_new_tokens=max_new,
                                     min_new_tokens=0, use_cache=False)[0].tolist()
            out["generation"].append({"text": text, "input_ids": ids, "max_new_tokens": max_new, "sequence": seq,
                                      "generated_text": tok.decode(seq[1:], skip_special_tokens=True)})
    for text, target in PAIRS:
        ids = tok.encode(text).ids
        labels = tok.encode(target).ids
        dec = [config.decoder_start_token_id] + labels[:-1]
        with torch.no_grad():
            o = model(input_ids=torch.tensor([ids]), decoder_input_ids=torch.tensor([dec]), output_attentions=True,
                      use_cache=False)
            o64 = model.double()(input_ids=torch.tensor([ids]), decoder_input_ids=torch.tensor([dec]),
                                 output_attentions=True, use_cache=False)
            model.float()
        # transformers' own float32 error against float64: the floor for any float32 implementation.
        own = max((a.double() - b).abs().max().item()
                  for kind in ("encoder_attentions", "decoder_attentions", "cross_attentions")
                  for a, b in zip(getattr(o, kind), getattr(o64, kind)))
        out["teacher_forced"].append({
            "text": text, "target_text": target, "input_ids": ids, "labels": labels, "decoder_input_ids": dec,
            "encoder_attentions": [floats(a[0]) for a in o.encoder_attentions],
            "decoder_attentions": [floats(a[0]) for a in o.decoder_attentions],
            "cross_attentions": [floats(a[0]) for a in o.cross_attentions],
            "logits_argmax": o.logits[0].argmax(-1).tolist(),
            "hf_float32_vs_float64_attention": own})
        print("teacher-forced", text, "->", target, "HF float32 vs float64:", own)
    with open(FIXTURES / "seq2seq" / "text.json", "w") as f:
        json.dump(out, f)
        f.write("\n")
    for g in out["generation"]:
        print(g["max_new_tokens"], g["sequence"], repr(g["generated_text"]))


if __name__ == "__main__":
    main()
