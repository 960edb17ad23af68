# SPDX-License-Identifier: GPL-3.0-or-later
"""agreement-gpt2: a small causal GPT-2 on a generated English-like grammar in which the main verb agrees in
number with the subject across distractor ("attractor") nouns in prepositional phrases and relative clauses."""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import torch

from . import common

NAME = "agreement-gpt2"
DATA_SEED = 555
TORCH_SEED = 8
EVAL_SEED = 31337
N_EVAL_PER_TYPE = 400

NOUNS = [("dog", "dogs"), ("cat", "cats"), ("bird", "birds"), ("farmer", "farmers"), ("teacher", "teachers"),
         ("king", "kings"), ("girl", "girls"), ("boy", "boys"), ("doctor", "doctors"), ("horse", "horses"),
         ("friend", "friends"), ("painter", "painters"), ("pilot", "pilots"), ("student", "students"),
         ("author", "authors"), ("baker", "bakers")]
IVERBS = [("runs", "run"), ("sleeps", "sleep"), ("sings", "sing"), ("laughs", "laugh"), ("waits", "wait"),
          ("smiles", "smile"), ("falls", "fall"), ("swims", "swim"), ("is", "are"), ("was", "were")]
TVERBS = [("sees", "see"), ("likes", "like"), ("chases", "chase"), ("helps", "help"), ("knows", "know"),
          ("follows", "follow")]
PREPS = ["near", "behind", "with", "beside"]
ADVS = ["today", "again", "quietly", "often", "here", "outside"]
ADJ_AFTER_BE = {"is": ["happy", "tired", "late"], "are": ["happy", "tired", "late"],
                "was": ["happy", "tired", "late"], "were": ["happy", "tired", "late"]}
TYPES = ["simple", "pp", "pp2", "orc", "src"]   # sentence constructions (see the card)

CFG = dict(n_layer=2, n_head=4, n_embd=64, n_positions=256, seq_len=128, batch=16, steps=1200, lr=2e-3,
           warmup=100, weight_decay=0.01)


def word_list() -> list[str]:
    ws = ["the", "that", "."]
    for a, b in NOUNS + IVERBS + TVERBS:
        ws += [a, b]
    ws += PREPS + ADVS + ["happy", "tired", "late"]
    out = []
    for w in ws:
        if w not in out:
            out.append(w)
    return out


def make_sentence(rng: np.random.Generator, kind: str | None = None, attractor: bool | None = None):
    """Returns (words, info): info has the index of the main verb, of the subject noun, of the attractor noun (or
    None), the subject's number (0 = singular, 1 = plural) and the correct/incorrect verb forms."""
    c = lambda xs: xs[int(rng.integers(len(xs)))]
    kind = kind or c(TYPES)
    n1 = int(rng.integers(2))
    if attractor is None:
        n2 = int(rng.integers(2))
    else:
        n2 = 1 - n1 if attractor else n1
    s = c(NOUNS)
    o = c(NOUNS)
    words = ["the", s[n1]]
    subj, attr = 1, None
    if kind == "pp":            # the dog near the cats runs
        words += [c(PREPS), "the", o[n2]]
        attr = len(words) - 1
    elif kind == "pp2":         # the dog near the cats with the birds runs
        words += [c(PREPS), "the", o[int(rng.integers(2))], c(PREPS), "the", c(NOUNS)[n2]]
        attr = len(words) - 1
    elif kind == "orc":         # the dog that the cats chase runs     (object relative clause)
        words += ["that", "the", o[n2], c(TVERBS)[n2]]
        attr = len(words) - 2
    elif kind == "src":         # the dog that chases the cats runs    (subject relative clause)
        words += ["that", c(TVERBS)[n1], "the", o[n2]]
        attr = len(words) - 1
    v = c(IVERBS)
    verb = len(words)
    words.append(v[n1])
    if v[0] in ADJ_AFTER_BE:
        words.append(c(ADJ_AFTER_BE[v[0]]))
    elif rng.random() < 0.5:
        words.append(c(ADVS))
    words.append(".")
    info = {"kind": kind, "verb": verb, "subject": subj, "attractor": attr, "number": n1,
            "attractor_number": (None if attr is None else n2), "correct": v[n1], "wrong": v[1 - n1]}
    return words, info


def words_to_text(words: list[str]) -> str:
    return " ".join(words).replace(" .", ".")


def encode_words(words, plain_map, spaced_map):
    """Token ids as the tokenizer encodes words_to_text(words): '.' attaches to the previous word (no space)."""
    ids = []
    for i, w in enumerate(words):
        if i == 0 or w == ".":
            ids.append(plain_map[w])
        else:
            ids.append(spaced_map[w])
    return ids


def make_training_seq(rng, L, plain_map, spaced_map):
    ids: list[int] = []
    words: list[str] = []
    while len(ids) < L + 1:
        w, _ = make_sentence(rng)
        words += w
        ids = encode_words(words, plain_map, spaced_map)
    return np.array(ids[:L], dtype=np.int64)


def maps(tok):
    words = word_list()
    plain, spaced = common.word_ids_for(tok, words)
    return dict(zip(words, plain.tolist())), dict(zip(words, spaced.tolist()))


def train(out_dir: Path, threads: int, steps: int | None = None, log=print) -> dict:
    from transformers import GPT2Config, GPT2LMHeadModel

    cfg = dict(CFG)
    if steps:
        cfg["steps"] = steps
    common.seed_everything(TORCH_SEED, threads)
    common.clean_model_dir(out_dir)
    tok = common.build_word_bpe(word_list(), out_dir, model_max_length=cfg["n_positions"])
    pm, sm = maps(tok)
    eot = tok.eos_token_id
    config = GPT2Config(vocab_size=len(tok), n_positions=cfg["n_positions"], n_embd=cfg["n_embd"],
                        n_layer=cfg["n_layer"], n_head=cfg["n_head"], resid_pdrop=0.0, embd_pdrop=0.0,
                        attn_pdrop=0.0, bos_token_id=eot, eos_token_id=eot)
    torch.manual_seed(TORCH_SEED)
    model = GPT2LMHeadModel(config)
    opt = common.adamw_on_matrices(model, cfg)
    rng = np.random.default_rng(DATA_SEED)

    lr_at = common.warmup_cosine(cfg)

    model.train()
    t0 = time.time()
    for step in range(cfg["steps"]):
        x = torch.from_numpy(np.stack([make_training_seq(rng, cfg["seq_len"], pm, sm)
                                       for _ in range(cfg["batch"])]))
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        loss = model(x, labels=x).loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 200 == 0 or step == cfg["steps"] - 1:
            model.eval()
            acc = agreement_accuracy(model, tok, n=60)
            model.train()
            log(f"step {step:5d} loss {loss.item():.3f} agreement {acc['overall']:.3f} "
                f"attractor {acc['with_attractor']:.3f} ({time.time() - t0:.0f}s)")
    model.eval()
    model.save_pretrained(str(out_dir), safe_serialization=True)
    return {"cfg": cfg, "train_seconds": time.time() - t0}


@torch.no_grad()
def agreement_accuracy(model, tok, n=N_EVAL_PER_TYPE, seed=EVAL_SEED, with_heads=False) -> dict:
    """Each held-out sentence alone (its first word without a leading space). Correct if the model gives the
    right verb form a higher probability than the wrong one at the main-verb position."""
    pm, sm = maps(tok)
    rng = np.random.default_rng(seed)
    res = {}
    all_ok, attr_ok, noattr_ok = [], [], []
    head_subj, head_attr = [], []
    for kind in TYPES:
        for attractor in ([None] if kind == "simple" else [True, False]):
            ok = []
            for _ in range(n):
                words, info = make_sentence(rng, kind, attractor)
                ids = encode_words(words, pm, sm)
                v = info["verb"]
                x = torch.tensor([ids[:v]])
                out = model(x, output_attentions=with_heads)
                logits = out.logits[0, -1]
                good = logits[sm[info["correct"]]] > logits[sm[info["wrong"]]]
                ok.append(bool(good))
                if with_heads and attractor:
                    # attention from the last token before the verb to the subject / to the attractor noun
                    head_subj.append(torch.stack([a[0, :, -1, info["subject"]] for a in out.attentions]))
                    head_attr.append(torch.stack([a[0, :, -1, info["attractor"]] for a in out.attentions]))
            key = kind if attractor is None else f"{kind}_{'attractor' if attractor else 'no_attractor'}"
            res[key] = float(np.mean(ok))
            all_ok += ok
            (attr_ok if attractor else noattr_ok).extend(ok)
    res["overall"] = float(np.mean(all_ok))
    res["with_attractor"] = float(np.mean(attr_ok))
    res["without_attractor"] = float(np.mean(noattr_ok))
    res["n_per_cell"] = n
    if with_heads:
        res["head_attention_to_subject"] = torch.stack(head_subj).mean(0).tolist()
        res["head_attention_to_attractor"] = torch.stack(head_attr).mean(0).tolist()
    return res




def evaluate(out_dir: Path) -> dict:
    model, tok = common.load_causal_lm(out_dir)
    common.check_word_bpe(tok, word_list())
    # the tokenizer must encode the text exactly as training did
    rng = np.random.default_rng(1)
    pm, sm = maps(tok)
    for _ in range(20):
        w, _ = make_sentence(rng)
        w2, _ = make_sentence(rng)
        assert tok(words_to_text(w + w2))["input_ids"] == encode_words(w + w2, pm, sm)
    return agreement_accuracy(model, tok, with_heads=True)


def summary(ev: dict) -> dict:
    return {k: ev[k] for k in ("overall", "with_attractor", "without_attractor")}


def examples() -> list[dict]:
    return [
        {"text": "the dog near the cats runs.",
         "what_to_look_for": "Singular subject, plural attractor (cats). The model prefers 'runs' over 'run' at "
                             "the verb; look for a head whose row at 'cats' (the token before the verb) attends "
                             "back to 'dog'."},
        {"text": "the teachers that the king sees are happy.",
         "what_to_look_for": "Object relative clause: 'sees' agrees with 'king', 'are' with 'teachers'."},
        {"text": "the girl that chases the horses sleeps often. the pilots behind the baker wait.",
         "what_to_look_for": "Two sentences: subject relative clause, then a plural subject with a singular "
                             "attractor."},
        {"text": "the farmers with the dog beside the birds swim today.",
         "what_to_look_for": "Two prepositional phrases between subject and verb (the nearest noun, birds, "
                             "happens to match; the middle one, dog, does not)."},
    ]


def write_card(out_dir: Path, info: dict, ev: dict) -> None:
    cfg = info["cfg"]
    model, tok = common.load_causal_lm(out_dir)
    n_params = sum(p.numel() for p in model.parameters())
    size = common.dir_size_kib(out_dir)
    rows = []
    for k, v in ev.items():
        if isinstance(v, float) and k not in ("overall", "with_attractor", "without_attractor"):
            rows.append([k, f"{v * 100:.1f} %"])
    hs, ha = ev["head_attention_to_subject"], ev["head_attention_to_attractor"]
    hrows = [[l, h, f"{hs[l][h]:.3f}", f"{ha[l][h]:.3f}"] for l in range(len(hs)) for h in range(len(hs[l]))]
    words = word_list()
    card = f"""---
license: gpl-3.0
library_name: transformers
pipeline_tag: text-generation
tags: [attnscope, agreement, syntax, synthetic]
---

# agreement-gpt2 (AttnScope sample model)

A {cfg['n_layer']}-layer, {cfg['n_head']}-head GPT-2 (`GPT2LMHeadModel`, d_model {cfg['n_embd']}, n_positions
{cfg['n_positions']}, {n_params:,} parameters) trained from scratch on a generated English-like grammar in which the
main verb must agree in number with the subject across distractor nouns ("attractors") in prepositional phrases
and relative clauses — for looking at syntax-tracking heads.

Licence of the weights, tokenizer and data: **GPL-3.0-or-later** (part of AttnScope). Trained by
`tools/train_sample_models.py --model agreement-gpt2`; nothing downloaded.

## Agreement accuracy

{ev['n_per_cell']} held-out sentences per cell (seed {EVAL_SEED}), each given alone; a sentence counts as correct
when, at the main verb, p(correct form) > p(wrong form) (e.g. `runs` vs `run`, `is` vs `are`). "attractor" = the
distractor noun has the other number.

| | accuracy |
|---|---|
| **overall** | **{ev['overall'] * 100:.1f} %** |
| with an attractor | {ev['with_attractor'] * 100:.1f} % |
| without an attractor (incl. simple) | {ev['without_attractor'] * 100:.1f} % |
{chr(10).join('| ' + r[0] + ' | ' + r[1] + ' |' for r in rows)}

Constructions: `simple` = the N V; `pp` = the N PREP the N2 V; `pp2` = the N PREP the N' PREP the N2 V;
`orc` = the N that the N2 TV(N2) V; `src` = the N that TV(N) the N2 V.

## Heads: where the verb position looks

Mean attention, on the attractor sentences, from the last token before the main verb (the position that predicts
the verb) to the subject noun and to the attractor noun:

{common.fmt_table(["layer", "head", "→ subject", "→ attractor"], hrows)}

## Grammar and data (`make_sentence`, seed {DATA_SEED})

Sentence = `the N1 [modifier] V [adverb | adjective].` with N1 singular or plural (uniform), the construction
uniform over {', '.join(TYPES)}, and the distractor's number uniform (independent of N1). 16 noun pairs
(dog/dogs, cat/cats, …), 10 intransitive verb pairs (runs/run, …, is/are, was/were), 6 transitive verb pairs
(sees/see, …), prepositions {', '.join(PREPS)}, adverbs {', '.join(ADVS)}; after is/are/was/were an adjective
(happy, tired, late). Training sequences are {cfg['seq_len']} tokens of consecutive sentences.

Tokenizer: GPT-2 byte-level BPE trained on the {len(words)} words so that each is one token, at the start of a
text and after a space (`vocab.json`, `merges.txt`, `tokenizer.json`); the period attaches to the word before it
(`runs.` → `Ġruns`, `.`). Write lower-case words from the grammar separated by single spaces.

## Training

AdamW (β = 0.9, 0.98; weight decay {cfg['weight_decay']} on matrices), peak lr {cfg['lr']}, {cfg['warmup']} warm-up steps then
cosine decay to 5 %, gradient clip 1.0, batch {cfg['batch']} × {cfg['seq_len']} tokens, {cfg['steps']} steps, dropout 0.
Seeds: data {DATA_SEED}, torch {TORCH_SEED}; deterministic torch algorithms, CPU, {info.get('threads', 1)} thread(s),
{info['train_seconds']:.0f} s. Versions: {common.versions_md()}. Bitwise reproducibility across machines is not
guaranteed.

## Example texts (also in `examples.json`)

""" + "\n".join(f"{i + 1}. `{e['text']}` — {e['what_to_look_for']}" for i, e in enumerate(examples())) + f"""

## Reproduce

```
tools/.venv/bin/python tools/train_sample_models.py --model agreement-gpt2
tools/.venv/bin/python tools/train_sample_models.py --model agreement-gpt2 --eval
```

Files: `config.json`, `model.safetensors` (F32), `vocab.json`, `merges.txt`, `tokenizer.json`,
`tokenizer_config.json`, `special_tokens_map.json`, `examples.json`, `metrics.json`; {size:.0f} KiB in all.
"""
    (out_dir / "README.md").write_text(card)
