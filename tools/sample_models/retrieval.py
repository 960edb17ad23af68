# SPDX-License-Identifier: GPL-3.0-or-later
"""retrieval-qwen2: a 2-layer Qwen2 (RoPE, grouped-query attention, a sliding-window layer 0 and a full layer 1)
trained on in-context key -> value retrieval: "ka 3 mo 7 ri 1 mo" -> "7". The intended circuit: in the sliding
layer, each value attends to the key just before it (a window of 3 keys is enough); in the full layer, the query
key attends to the value that followed its earlier occurrence and copies it (a retrieval head)."""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import torch

from . import common

NAME = "retrieval-qwen2"
DATA_SEED = 7
TORCH_SEED = 7
EVAL_SEED = 4242
N_EVAL = 500

KEYS = [c + v for c in "bdfghklm" for v in "aeiou"]     # 40 syllables: ba, be, ..., mu
VALUES = [str(d) for d in range(10)]                     # 0 ... 9
CFG = dict(hidden=64, layers=2, heads=4, kv_heads=2, head_dim=16, intermediate=128, window=3, positions=64,
           min_pairs=3, max_pairs=8, max_queries=4, steps=3000, batch=64, lr=3e-3, warmup=200, weight_decay=0.01)
LAYER_TYPES = ["sliding_attention", "full_attention"]


def word_list() -> list[str]:
    return KEYS + VALUES


def make_episode(rng: np.random.Generator, pairs: int, queries: int):
    """Words of `pairs` key-value pairs with distinct keys, then `queries` keys drawn from them, each followed by
    its value. Returns (words, indices of the query keys)."""
    keys = rng.choice(len(KEYS), size=pairs, replace=False)
    vals = rng.integers(0, len(VALUES), size=pairs)
    words = []
    for k, v in zip(keys, vals):
        words += [KEYS[k], VALUES[v]]
    query_pos = []
    for q in rng.integers(0, pairs, size=queries):
        query_pos.append(len(words))
        words += [KEYS[keys[q]], VALUES[vals[q]]]
    return words, query_pos


def maps(tok):
    plain, spaced = common.word_ids_for(tok, word_list())
    return dict(zip(word_list(), plain.tolist())), dict(zip(word_list(), spaced.tolist()))


def encode(words, pm, sm):
    """Ids as the tokenizer encodes ' '.join(words): the first word without a leading space."""
    return [pm[w] if i == 0 else sm[w] for i, w in enumerate(words)]


def batch(rng, n, pm, sm):
    """Padded ids [n, T] and labels (-100 except at the positions that predict a query's value)."""
    seqs, labels = [], []
    for _ in range(n):
        pairs = int(rng.integers(CFG["min_pairs"], CFG["max_pairs"] + 1))
        words, qpos = make_episode(rng, pairs, int(rng.integers(1, CFG["max_queries"] + 1)))
        ids = encode(words, pm, sm)
        lab = [-100] * len(ids)
        for p in qpos:
            lab[p + 1] = ids[p + 1]   # the model's output at the query key predicts this
        seqs.append(ids)
        labels.append(lab)
    T = max(len(s) for s in seqs)
    x = torch.zeros(n, T, dtype=torch.long)
    y = torch.full((n, T), -100, dtype=torch.long)
    for i, (s, lab) in enumerate(zip(seqs, labels)):
        x[i, :len(s)] = torch.tensor(s)
        y[i, :len(lab)] = torch.tensor(lab)
    return x, y


def train(out_dir: Path, threads: int, steps: int | None = None, log=print) -> dict:
    from transformers import Qwen2Config, Qwen2ForCausalLM

    cfg = dict(CFG)
    if steps:
        cfg["steps"] = steps
    common.seed_everything(TORCH_SEED, threads)
    common.clean_model_dir(out_dir)
    tok = common.build_word_bpe(word_list(), out_dir, model_max_length=cfg["positions"])
    pm, sm = maps(tok)
    eot = tok.eos_token_id
    config = Qwen2Config(vocab_size=len(tok), hidden_size=cfg["hidden"], intermediate_size=cfg["intermediate"],
                         num_hidden_layers=cfg["layers"], num_attention_heads=cfg["heads"],
                         num_key_value_heads=cfg["kv_heads"], head_dim=cfg["head_dim"],
                         max_position_embeddings=cfg["positions"], use_sliding_window=True,
                         sliding_window=cfg["window"], layer_types=LAYER_TYPES, max_window_layers=0,
                         tie_word_embeddings=True, rope_theta=10000.0, bos_token_id=eot, eos_token_id=eot,
                         attn_implementation="eager")
    torch.manual_seed(TORCH_SEED)
    model = Qwen2ForCausalLM(config)
    assert model.config.layer_types == LAYER_TYPES, model.config.layer_types
    opt = common.adamw_on_matrices(model, cfg)
    rng = np.random.default_rng(DATA_SEED)

    lr_at = common.warmup_cosine(cfg)

    model.train()
    t0 = time.time()
    for step in range(cfg["steps"]):
        x, y = batch(rng, cfg["batch"], pm, sm)
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        logits = model(x).logits
        loss = torch.nn.functional.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), y[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 250 == 0 or step == cfg["steps"] - 1:
            model.eval()
            ev = retrieval_metrics(model, tok, n=100)
            model.train()
            log(f"step {step:5d} loss {loss.item():.3f} accuracy {ev['accuracy']:.3f} "
                f"retrieval head {ev['best_retrieval_head']} {ev['best_retrieval_score']:.3f} ({time.time() - t0:.0f}s)")
    model.eval()
    model.save_pretrained(str(out_dir), safe_serialization=True)
    return {"cfg": cfg, "layer_types": LAYER_TYPES, "train_seconds": round(time.time() - t0, 1)}


def eval_episodes(n=N_EVAL, seed=EVAL_SEED):
    """Held-out episodes of 8 pairs and one final query key: (words, query value position)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        words, qpos = make_episode(rng, CFG["max_pairs"], 1)
        words = words[:-1]                       # drop the answer: the text ends at the query key
        key = words[-1]
        value_pos = words.index(key) + 1         # the value that followed the key's first occurrence
        out.append((words, value_pos, words[value_pos]))
    return out


@torch.no_grad()
def retrieval_metrics(model, tok, n=N_EVAL, seed=EVAL_SEED) -> dict:
    """Accuracy of the next-token argmax at the query key; per head, the mean attention weight from the query key
    (the last token) to the matching value (retrieval score) and, in every head, from each value to its key
    (previous-token score)."""
    pm, sm = maps(tok)
    value_ids = [sm[v] for v in VALUES]
    L, H = model.config.num_hidden_layers, model.config.num_attention_heads
    retrieval = np.zeros((L, H))
    previous = np.zeros((L, H))
    correct = 0
    for words, vpos, answer in eval_episodes(n, seed):
        ids = torch.tensor([encode(words, pm, sm)])
        out = model(ids, output_attentions=True)
        logits = out.logits[0, -1]
        pred = VALUES[int(torch.argmax(logits[value_ids]))]
        correct += pred == answer and int(torch.argmax(logits)) in value_ids
        for l in range(L):
            a = out.attentions[l][0]                         # [H, T, T]
            retrieval[l] += a[:, -1, vpos].numpy()
            vals = list(range(1, len(words) - 1, 2))         # value positions of the pairs
            previous[l] += a[:, vals, [p - 1 for p in vals]].mean(dim=1).numpy()
    retrieval /= n
    previous /= n
    best = np.unravel_index(np.argmax(retrieval), retrieval.shape)
    best_prev = np.unravel_index(np.argmax(previous[0]), previous[0].shape)
    return {"n": n, "accuracy": correct / n, "retrieval_score": retrieval.round(4).tolist(),
            "previous_token_score": previous.round(4).tolist(),
            "best_retrieval_head": [int(best[0]), int(best[1])], "best_retrieval_score": float(retrieval[best]),
            "best_previous_token_head": [0, int(best_prev[0])], "best_previous_token_score": float(previous[0][best_prev])}


def load(out_dir: Path):
    """The saved folder with the tokenizer it was trained with. transformers 5 turns AutoTokenizer on a qwen2
    folder into Qwen2Tokenizer, whose own split regex (digits alone, no leading space) replaces tokenizer.json's
    ByteLevel pre-tokenizer; tokenizer_config.json names GPT2Tokenizer, which reads tokenizer.json as written
    (as tokenizers.Tokenizer.from_file and AttnScope do)."""
    from transformers import AutoModelForCausalLM, GPT2TokenizerFast

    tok = GPT2TokenizerFast.from_pretrained(str(out_dir))
    model = AutoModelForCausalLM.from_pretrained(str(out_dir), attn_implementation="eager").eval()
    return model, tok


def evaluate(out_dir: Path) -> dict:
    model, tok = load(out_dir)
    return retrieval_metrics(model, tok)


def summary(ev: dict) -> dict:
    return {k: ev[k] for k in ("accuracy", "best_retrieval_head", "best_retrieval_score", "best_previous_token_head",
                               "best_previous_token_score")}


def examples() -> list[dict]:
    return [
        {"text": "ka 3 mo 7 ri 1 di 5 mo",
         "what_to_look_for": "The last token 'mo' asks for its value. In layer 1 (full attention) the retrieval "
                             "head's row at the last 'mo' puts its weight on '7', the value after the first 'mo'; "
                             "the next-token prediction is 7."},
        {"text": "ba 0 le 9 gu 4 fo 2 ha 8 ki 6 de 1 mi 3 gu",
         "what_to_look_for": "Eight pairs, as in training's longest episodes: 'gu' retrieves 4. Layer 0 is a "
                             "sliding-window layer (3 keys): its rows end three tokens back; a previous-token head "
                             "there lets each value carry its key."},
        {"text": "he 2 bo 5 he",
         "what_to_look_for": "Two key-value heads (K/V groups) serve four query heads: heads 0-1 share one K/V "
                             "head, heads 2-3 the other."},
    ]


def write_card(out_dir: Path, info: dict, ev: dict) -> None:
    cfg = info["cfg"]
    model, tok = load(out_dir)
    n_params = sum(p.numel() for p in model.parameters())
    rs, ps = ev["retrieval_score"], ev["previous_token_score"]
    rows = [[l, h, f"{rs[l][h]:.3f}", f"{ps[l][h]:.3f}"] for l in range(len(rs)) for h in range(len(rs[l]))]
    bl, bh = ev["best_retrieval_head"]
    card = f"""---
license: gpl-3.0
library_name: transformers
pipeline_tag: text-generation
tags: [attnscope, retrieval-heads, sliding-window, gqa, rope, synthetic]
---

# retrieval-qwen2 (AttnScope sample model)

A {cfg['layers']}-layer Qwen2 (`Qwen2ForCausalLM`, d_model {cfg['hidden']}, {cfg['heads']} query heads sharing
{cfg['kv_heads']} key/value heads (grouped-query attention), head_dim {cfg['head_dim']}, RoPE θ 10000, tied
embeddings, {n_params:,} parameters) with per-layer attention: `layer_types` {info['layer_types']} — layer 0
slides over a window of **{cfg['window']} keys** (Hugging Face's `sliding_window`: the query and the 2 keys before
it), layer 1 attends to everything before it. Trained from scratch on in-context key → value retrieval:
`ka 3 mo 7 ri 1 mo` → `7`.

Layers and heads are numbered from 0 (`outputs.attentions[l][:, h]` in transformers).
Licence of the weights, tokenizer and data: **GPL-3.0-or-later** (part of AttnScope). Trained by
`tools/train_sample_models.py --model retrieval-qwen2`; nothing downloaded.

**Pin transformers 5.24.0** (or any version ≥ 4.53 that honours `layer_types`): older Qwen2 code applied the window
to every layer, which is a different model. Load the tokenizer with `GPT2TokenizerFast.from_pretrained` (the class
`tokenizer_config.json` names) or `tokenizers.Tokenizer.from_file("tokenizer.json")`: transformers 5's
`AutoTokenizer` makes a `Qwen2Tokenizer` from a qwen2 folder, whose own split regex encodes " 3" as two tokens.

## Results

{ev['n']} held-out episodes (seed {EVAL_SEED}) of {CFG['max_pairs']} pairs and one final query key:

| | |
|---|---|
| **retrieval accuracy** (next-token argmax at the query key is its value) | **{ev['accuracy'] * 100:.1f} %** |
| **retrieval-head score**, best head (layer {bl}, head {bh}): mean attention from the query key to its value | **{ev['best_retrieval_score']:.3f}** |
| previous-token score, best head of layer 0 (head {ev['best_previous_token_head'][1]}): mean attention from each value to its key | {ev['best_previous_token_score']:.3f} |

Per head (retrieval: query key → matching value; previous-token: value → its key, over the pairs):

{common.fmt_table(["layer", "head", "retrieval", "previous-token"], rows)}

AttnScope's `tests/tst_textmodel.cpp` recomputes the retrieval-head score with the engine on episodes of the same
generator and asserts it.

## Vocabulary and tokenizer

40 key syllables (`ba be … mu`: b d f g h k l m × a e i o u) and 10 values (`0` … `9`). GPT-2 byte-level BPE
(`vocab.json`, `merges.txt`, `tokenizer.json`) in which every key and value is one token, with and without a leading
space; other text encodes byte by byte into tokens that were never trained. Write texts as words separated by
single spaces.

## Data (`make_episode`, seed {DATA_SEED})

An episode is {CFG['min_pairs']} … {CFG['max_pairs']} pairs `key value` with distinct keys and uniform values,
then 1 … {CFG['max_queries']} queries: a key of the episode followed by its value. The loss is on the value
after each query key only (nothing else is predictable).

## Training

AdamW (lr {cfg['lr']}, warm-up {cfg['warmup']} steps then cosine to 5 %, β 0.9/0.98, weight decay
{cfg['weight_decay']} on matrices), {cfg['steps']} steps of {cfg['batch']} episodes, gradient clip 1.0, eager
attention. Seeds: data {DATA_SEED}, torch {TORCH_SEED}; deterministic torch algorithms, CPU,
{info.get('threads', 1)} thread(s), {info['train_seconds']} s. Versions: {common.versions_md()}.
"""
    (out_dir / "README.md").write_text(card)
