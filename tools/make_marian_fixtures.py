#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A tiny Marian with its SentencePiece tokenizer, for Marian from text (MarianTokenizer's source.spm / target.spm
+ vocab.json, read through Debian's libsentencepiece): tests/fixtures/models/marian-text-d32 and
tests/fixtures/seq2seq_bart/marian_text.json, the known answers made by transformers' MarianTokenizer and
MarianMTModel:

- strings: 240 texts (words of both made-up languages, punctuation, digits, capitals, accents, full-width forms
  and ligatures that nmt_nfkc folds, CJK and emoji that neither spm covers, runs of spaces, tabs, newlines,
  leading and trailing spaces, language codes >>xx<< known and unknown, special tokens inside the text, the empty
  string), each with MarianTokenizer's source ids and tokens (tokenize()), its target-side ids
  (text_target=) and the target ids decoded (skip_special_tokens=True);
- generation: per source text, the ids and greedy generate() (8 new tokens at most, every rule off);
- pairs: per (source, target) the labels, the decoder input [start] + labels[:-1] and the eager attentions of the
  teacher-forced pass, encoder / decoder / cross.

The two spm models are Unigram models trained here on seeded sentences of the two languages (vocabulary 96 and
90, character coverage 0.995, nmt_nfkc); vocab.json is NOT in spm's order (as in Opus-MT): </s> 0, <unk> 1, the
pieces of both models shuffled, two language codes, a few pieces left out (they become <unk>), <pad> last.
Random weights as tools/make_bart_fixtures.py, the LM head untied and drawn larger so generation does not copy.

    tools/.venv/bin/python tools/make_marian_fixtures.py
"""
import io
import json
import pathlib
import random
import shutil
import tempfile

import numpy as np
import sentencepiece as spm
import torch
import transformers
from transformers import MarianConfig, MarianMTModel, MarianTokenizer

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SEED = 20261205
SRC_WORDS = ("the a cat dog sat ran on in mat park big small red blue sees likes and with house tree bird eats "
             "fish green old new").split()
TGT_WORDS = ("le la chat chien assis courait sur dans tapis parc grand petit rouge bleu voit aime et avec maison "
             "arbre oiseau mange poisson vert vieux neuf").split()
SOURCES = ["the cat sat on the mat", "a big dog ran in the park", ">>fr<< the old bird eats fish"]
PAIRS = [("the cat sat on the mat", "le chat assis sur le tapis"), ("the small dog sees a red house", "le petit chien voit la maison rouge")]


def sentences(words, rng, n):
    out = []
    for _ in range(n):
        s = " ".join(rng.choice(words) for _ in range(rng.randint(2, 8)))
        if rng.random() < 0.3:
            s = s.capitalize()
        out.append(s + rng.choice(["", ".", "!", "?", ","]))
    return out


def train_spm(lines, vocab_size, path):
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=model, vocab_size=vocab_size,
                                   model_type="unigram", character_coverage=0.995, normalization_rule_name="nmt_nfkc",
                                   unk_id=0, bos_id=-1, eos_id=1, pad_id=-1, unk_piece="<unk>", eos_piece="</s>",
                                   seed_sentencepiece_size=2000, minloglevel=2, num_threads=1)
    path.write_bytes(model.getvalue())
    return spm.SentencePieceProcessor(model_proto=model.getvalue())


def test_strings(rng):
    words = SRC_WORDS + TGT_WORDS
    extras = ["", "   ", "\t", "cat\n\ndog", "  the cat  ", "THE CAT", "Ｔｈｅ ｃａｔ", "ﬁsh ﬂat", "café déjà",
              "猫 sat", "the 🙂 cat", "42 cats, 7 dogs.", ">>fr<< the cat", ">>de<<le chat", ">>xx<< dog",
              ">><<", ">>fr<<", "the cat </s> sat", "<unk> dog", "a <pad> b", "x>>fr<< y", "...", "!!", "ñ ü ß",
              "zzzz qqq", "the\u00a0cat", "tab\tcat"]
    out = list(extras)
    punct = ["", ".", ",", "!", "?", " ;", "'s", "-"]
    while len(out) < 240:
        k = rng.randint(1, 9)
        s = " ".join(rng.choice(words) + (rng.choice(punct) if rng.random() < 0.2 else "") for _ in range(k))
        r = rng.random()
        if r < 0.1:
            s = s.upper()
        elif r < 0.2:
            s = "  " + s.replace(" ", "   ", 1)
        elif r < 0.25:
            s = ">>fr<< " + s
        elif r < 0.3:
            s = s + " " + str(rng.randint(0, 999))
        out.append(s)
    return out


def randomize(model, gen):
    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=gen)
            if "embed_positions" in name:
                continue
            if "layer_norm" in name:
                p.copy_(1.0 + 0.1 * noise if name.endswith("weight") else 0.1 * noise)
            elif "embed_tokens" in name or name.endswith("shared.weight"):
                p.copy_(noise)
            elif name == "lm_head.weight":
                p.copy_(3.0 * noise)
            elif ("q_proj" in name or "k_proj" in name) and name.endswith("weight"):
                p.copy_(0.3 * noise)
            else:
                p.copy_(0.1 * noise)
        model.final_logits_bias.copy_(0.5 * torch.randn(model.final_logits_bias.shape, generator=gen))


def main():
    rng = random.Random(SEED)
    gen = torch.Generator().manual_seed(SEED)
    folder = FIXTURES / "models" / "marian-text-d32"
    if folder.exists():
        shutil.rmtree(folder)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        src = train_spm(sentences(SRC_WORDS, rng, 3000), 96, tmp / "source.spm")
        tgt = train_spm(sentences(TGT_WORDS, rng, 3000), 90, tmp / "target.spm")
        pieces = sorted(({src.id_to_piece(i) for i in range(src.get_piece_size())} |
                         {tgt.id_to_piece(i) for i in range(tgt.get_piece_size())}) - {"<unk>", "</s>"})
        rng.shuffle(pieces)
        # Four spm pieces vocab.json does not know (MarianTokenizer maps them to <unk>): inner pieces of two
        # letters or more, so most strings still have none.
        dropped = [p for p in pieces if not p.startswith("\u2581") and len(p) >= 2][:4]
        vocab = {"</s>": 0, "<unk>": 1}
        for p in [p for p in pieces if p not in dropped] + [">>fr<<", ">>de<<"]:
            vocab[p] = len(vocab)
        vocab["<pad>"] = len(vocab)
        (tmp / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False, indent=1))
        tok = MarianTokenizer(source_spm=str(tmp / "source.spm"), target_spm=str(tmp / "target.spm"),
                              vocab=str(tmp / "vocab.json"))
        V = len(vocab)
        config = MarianConfig(vocab_size=V, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                              decoder_attention_heads=2, encoder_ffn_dim=48, decoder_ffn_dim=40,
                              max_position_embeddings=64, scale_embedding=True, activation_function="swish",
                              pad_token_id=vocab["<pad>"], eos_token_id=0, decoder_start_token_id=vocab["<pad>"],
                              forced_eos_token_id=None, tie_word_embeddings=False, attn_implementation="eager")
        model = MarianMTModel(config).eval()
        randomize(model, gen)
        model.save_pretrained(folder)
        tok.save_pretrained(folder)
    for extra in folder.iterdir():
        if extra.name == "generation_config.json":
            extra.unlink()
    tok = MarianTokenizer.from_pretrained(folder)   # what a user's folder gives
    print("files", sorted(p.name for p in folder.iterdir()), "vocab", V, "dropped", dropped)

    strings = []
    for text in test_strings(rng):
        ids = tok(text)["input_ids"]
        target = tok(text_target=text)["input_ids"]
        strings.append({"text": text, "ids": ids, "tokens": tok.tokenize(text), "target_ids": target,
                        "decoded": tok.decode(target, skip_special_tokens=True)})
    unk = vocab["<unk>"]
    print("strings", len(strings), "with <unk>", sum(unk in s["ids"] for s in strings))

    def attentions(o, field):
        return [x[0].reshape(-1).tolist() for x in getattr(o, field)]

    generation = []
    for text in SOURCES:
        ids = tok(text, return_tensors="pt")["input_ids"]
        with torch.no_grad():
            out = model.generate(ids, max_new_tokens=8, do_sample=False, num_beams=1, min_length=0,
                                 no_repeat_ngram_size=0, repetition_penalty=1.0, bad_words_ids=None,
                                 forced_bos_token_id=None, forced_eos_token_id=None, use_cache=False)
        generation.append({"text": text, "ids": ids[0].tolist(), "generated_8": out[0, 1:].tolist()})
        print("generate", text, out[0, 1:].tolist())
    pairs = []
    for source, target in PAIRS:
        enc = tok(source, text_target=target, return_tensors="pt")
        labels = enc["labels"]
        dec = torch.cat([torch.full((1, 1), config.decoder_start_token_id), labels[:, :-1]], 1)
        with torch.no_grad():
            o = model(input_ids=enc["input_ids"], decoder_input_ids=dec, output_attentions=True, use_cache=False)
        pairs.append({"source": source, "target": target, "labels": labels[0].tolist(), "decoder_input_ids": dec[0].tolist(),
                      "encoder_attentions": attentions(o, "encoder_attentions"),
                      "decoder_attentions": attentions(o, "decoder_attentions"),
                      "cross_attentions": attentions(o, "cross_attentions")})
    doc = {"versions": {"transformers": transformers.__version__, "torch": torch.__version__,
                        "sentencepiece": spm.__version__},
           "dropped_pieces": dropped, "strings": strings, "generation": generation, "pairs": pairs}
    out = FIXTURES / "seq2seq_bart" / "marian_text.json"
    out.write_text(json.dumps(doc, ensure_ascii=False) + "\n")
    print(out, out.stat().st_size, "bytes")


if __name__ == "__main__":
    main()
