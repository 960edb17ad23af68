# SPDX-License-Identifier: GPL-3.0-or-later
"""rationale-bert: a small BERT sequence classifier on generated review-like sentences whose label is decided
only by 1-4 known evidence words of either polarity among neutral filler (label = sign(#positive - #negative)),
trained on soft targets sigmoid(C * (#positive - #negative)) so that every evidence token matters on its own;
ships ground-truth rationales."""
from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import torch

from . import common

NAME = "rationale-bert"
TRAIN_SEED = 2024      # training sentences
TEST_SEED = 77         # held-out sentences (disjoint: duplicates of training texts are dropped)
TORCH_SEED = 11
N_TRAIN = 24000
N_TEST = 4000
N_RATIONALES = 150
LABELS = ["negative", "positive"]

CFG = dict(num_hidden_layers=3, num_attention_heads=4, hidden_size=64, intermediate_size=256,
           max_position_embeddings=128, batch=32, steps=3000, lr=1e-3, warmup=100, weight_decay=0.01,
           dropout=0.1, evidence_scale=1.5, token_deletion_prob=0.3)
MAX_EVIDENCE = 4       # k in {1, ..., MAX_EVIDENCE} evidence words; #positive != #negative

# ---- lexicon --------------------------------------------------------------------------------------------------
# Evidence words. Some are NOT in the vocabulary as whole words and split into WordPiece pieces
# (masterful -> master ##ful, unwatchable -> un ##watch ##able); all their pieces are evidence tokens.
POS_ADJ = ["excellent", "wonderful", "superb", "brilliant", "delightful", "fantastic", "charming", "beautiful",
           "masterful", "unforgettable", "breathtaking"]
NEG_ADJ = ["awful", "terrible", "horrible", "dull", "tedious", "bland", "mediocre", "lousy",
           "pointless", "unwatchable", "dreadful"]
POS_NOUN = ["masterpiece", "gem", "triumph", "delight"]
NEG_NOUN = ["disaster", "mess", "failure", "letdown"]
# Neutral filler (no sentiment). Some split into pieces too (screenplay -> screen ##play).
NOUNS = ["movie", "film", "plot", "story", "actor", "director", "scene", "music", "camera", "ending", "character",
         "dialogue", "cast", "script", "sequel", "studio", "audience", "theater", "ticket", "seat", "night",
         "friend", "brother", "sister", "city", "house", "car", "train", "book", "song", "dog", "garden", "evening",
         "morning", "crowd", "critic", "trailer", "costume", "village", "river", "screenplay", "soundtrack",
         "weekend", "countryside", "table", "window", "hat", "letter", "island", "teacher"]
COPULA = ["was", "seemed", "felt", "looked", "became", "stayed", "is", "remains"]
TVERBS = ["met", "watched", "followed", "visited", "described", "showed", "mentioned", "carried", "found",
          "painted", "opened", "called"]
ADJ = ["old", "new", "blue", "red", "green", "quiet", "early", "late", "small", "large", "french", "local",
       "second", "final", "tall", "wooden", "recent", "modern", "rural", "northern", "yellow", "famous", "long",
       "short"]
INTENS = ["very", "really", "quite", "rather", "truly", "mostly", "somewhat"]
DET = ["the", "a", "this", "that", "my", "our", "their"]
PREP = ["with", "in", "near", "behind", "after", "before", "during", "about"]
PRON = ["i", "we", "they", "she", "he"]
CONJ = [" and", ",", ";", ".", " and then", ", while"]

PIECES = ["master", "##ful", "un", "##forget", "##table", "breath", "##taking", "point", "##less", "##watch",
          "##able", "##piece", "screen", "##play", "sound", "##track", "week", "##end", "country", "##side", "dread"]
WHOLE_WORDS_NOT_IN_VOCAB = {"masterful", "unforgettable", "breathtaking", "pointless", "unwatchable", "dreadful",
                            "masterpiece", "screenplay", "soundtrack", "weekend", "countryside"}


def vocab_list() -> list[str]:
    """The committed vocab.txt, line by line (230 lines). It is FROZEN: the C++ tokenizer parity fixtures depend on
    it. "a" and "i" occur twice (as words and as single letters); the fast tokenizer maps each to its later line
    (178, 186), so ids 133 and 147 are never produced and the model's vocab_size is the line count, 230."""
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    punct = [".", ",", ";", "!", "?", "'", "-"]
    words = []
    for group in (POS_ADJ, NEG_ADJ, POS_NOUN, NEG_NOUN, NOUNS, COPULA, TVERBS, ADJ, INTENS, DET, PREP, PRON,
                  ["it", "and", "then", "while", "an"]):
        for w in group:
            if w not in WHOLE_WORDS_NOT_IN_VOCAB and w not in words:
                words.append(w)
    pieces = [p for p in PIECES if p not in words]
    letters = list("abcdefghijklmnopqrstuvwxyz") + ["##" + c for c in "abcdefghijklmnopqrstuvwxyz"]
    return specials + punct + words + pieces + letters


# ---- generator ------------------------------------------------------------------------------------------------

def _clause(rng: np.random.Generator):
    """A list of (word, slot) with slot in {None, 'ADJ', 'NOUN'}: evidence may replace ADJ / NOUN slots."""
    c = lambda xs: xs[int(rng.integers(len(xs)))]
    t = int(rng.integers(6))
    if t == 0:    # the plot was (very) ADJ
        out = [(c(DET), None), (c(NOUNS), None), (c(COPULA), None)]
        if rng.random() < 0.4:
            out.append((c(INTENS), None))
        return out + [(c(ADJ), "ADJ")]
    if t == 1:    # a ADJ actor met the director
        return [(c(DET), None), (c(ADJ), "ADJ"), (c(NOUNS), None), (c(TVERBS), None), ("the", None),
                (c(NOUNS), None)]
    if t == 2:    # we watched the ADJ film with the dog
        return [(c(PRON), None), (c(TVERBS), None), ("the", None), (c(ADJ), "ADJ"), (c(NOUNS), None),
                (c(PREP), None), ("the", None), (c(NOUNS), None)]
    if t == 3:    # it was a NOUN
        return [("it", None), (c(COPULA), None), ("a", None), (c(NOUNS), "NOUN")]
    if t == 4:    # the story in the village was ADJ
        return [("the", None), (c(NOUNS), None), (c(PREP), None), ("the", None), (c(NOUNS), None),
                (c(COPULA), None), (c(ADJ), "ADJ")]
    return [(c(PRON), None), (c(TVERBS), None), (c(DET), None), (c(NOUNS), None)]   # no slot


def draw_counts(rng: np.random.Generator) -> tuple[int, int]:
    """(#positive, #negative) evidence words: k uniform in 1..MAX_EVIDENCE, #positive uniform in 0..k without the
    ties (#positive == #negative), so the label sign(#positive - #negative) is never ambiguous."""
    k = int(rng.integers(1, MAX_EVIDENCE + 1))
    choices = [n for n in range(k + 1) if 2 * n != k]
    n_pos = choices[int(rng.integers(len(choices)))]
    return n_pos, k - n_pos


def make_example(rng: np.random.Generator) -> dict:
    """Text, label and the evidence words with their polarities (+1 / -1). Label = 1 (positive) when there are more
    positive than negative evidence words, else 0; 1-4 evidence words, mixed polarity allowed, never a tie."""
    n_pos, n_neg = draw_counts(rng)
    k = n_pos + n_neg
    while True:
        n_cl = int(rng.integers(2, 6))
        clauses = [_clause(rng) for _ in range(n_cl)]
        slots = [(ci, wi) for ci, cl in enumerate(clauses) for wi, (_, s) in enumerate(cl) if s]
        if len(slots) >= k:
            break
    chosen = rng.choice(len(slots), size=k, replace=False)
    signs = [1] * n_pos + [-1] * n_neg
    signs = [signs[i] for i in rng.permutation(k)]
    evidence = {}
    for j, sign in zip(chosen, signs):
        ci, wi = slots[int(j)]
        kind = clauses[ci][wi][1]
        if kind == "ADJ":
            pool = POS_ADJ if sign > 0 else NEG_ADJ
        else:
            pool = POS_NOUN if sign > 0 else NEG_NOUN
        clauses[ci][wi] = (pool[int(rng.integers(len(pool)))], kind)
        evidence[(ci, wi)] = sign
    text, words, polarity = "", [], []
    for ci, cl in enumerate(clauses):
        if ci:
            text += CONJ[int(rng.integers(len(CONJ)))] + " "
        for wi, (w, _) in enumerate(cl):
            if wi:
                text += " "
            if (ci, wi) in evidence:
                words.append(w)
                polarity.append(evidence[(ci, wi)])
            text += w
    text += "."
    return {"text": text, "label": int(n_pos > n_neg), "evidence_words": words, "polarity": polarity}


def finalize(ex: dict) -> dict:
    """Replace 'a' + vowel-initial word with 'an' and recompute the evidence character spans."""
    toks = ex["text"].split(" ")
    for i in range(len(toks) - 1):
        if toks[i] == "a" and toks[i + 1][:1] in "aeiou":
            toks[i] = "an"
    text = " ".join(toks)
    spans, pos = [], 0
    # evidence words occur in order; find each as a whole word, left to right
    for w in ex["evidence_words"]:
        while True:
            j = text.index(w, pos)
            before = text[j - 1] if j else " "
            after = text[j + len(w)] if j + len(w) < len(text) else " "
            pos = j + len(w)
            if not before.isalpha() and not after.isalpha():
                spans.append((j, j + len(w)))
                break
    return {"text": text, "label": ex["label"], "evidence_words": ex["evidence_words"], "polarity": ex["polarity"],
            "spans": spans}


def soft_target(margin: float) -> float:
    """p(positive) the model is trained towards: sigmoid(C * (#positive - #negative))."""
    return 1.0 / (1.0 + math.exp(-CFG["evidence_scale"] * margin))


def make_split(seed: int, n: int, exclude: set | None = None) -> list[dict]:
    rng = np.random.default_rng(seed)
    out, seen = [], set(exclude or ())
    while len(out) < n:
        ex = finalize(make_example(rng))
        if ex["text"] in seen:
            continue
        seen.add(ex["text"])
        out.append(ex)
    return out


def evidence_token_indices(enc, spans) -> list[int]:
    idx = []
    for t, (a, b) in enumerate(enc["offset_mapping"]):
        if b > a and any(a >= s and b <= e for s, e in spans):
            idx.append(t)
    return idx


# ---- tokenizer ------------------------------------------------------------------------------------------------

def build_tokenizer(out_dir: Path):
    from transformers import BertTokenizerFast

    vocab = vocab_list()
    tok = BertTokenizerFast(vocab={w: i for i, w in enumerate(vocab)}, do_lower_case=True,
                            model_max_length=CFG["max_position_embeddings"])
    tok.save_pretrained(str(out_dir))
    # vocab.txt line by line, duplicates included (save_pretrained writes none for a vocabulary with id gaps).
    (out_dir / "vocab.txt").write_text("\n".join(vocab) + "\n")
    tok = BertTokenizerFast.from_pretrained(str(out_dir))
    # sanity: the intended splits
    assert tok.tokenize("masterful unwatchable screenplay") == ["master", "##ful", "un", "##watch", "##able",
                                                               "screen", "##play"], tok.tokenize("masterful unwatchable screenplay")
    return tok


# ---- training -------------------------------------------------------------------------------------------------

def tokenized(tok, exs) -> list[dict]:
    """Per example: input_ids and, per token, the index of the evidence word it belongs to (-1: not evidence)."""
    enc = tok([e["text"] for e in exs], return_offsets_mapping=True)
    out = []
    for e, ids, offs in zip(exs, enc["input_ids"], enc["offset_mapping"]):
        word = [-1] * len(ids)
        for t, (a, b) in enumerate(offs):
            for w, (s, t_end) in enumerate(e["spans"]):
                if b > a and a >= s and b <= t_end:
                    word[t] = w
        out.append({"ids": ids, "word": word, "polarity": e["polarity"]})
    return out


def training_item(item: dict, rng: np.random.Generator, p_delete: float) -> tuple[list[int], float]:
    """(ids, soft target p(positive)). With probability p_delete one random non-special token is deleted first; if
    it is a piece of an evidence word, that word no longer counts (a fragment such as 'master' or '##ful' is not
    the word 'masterful'), so the target moves by one evidence step. Deleting a filler token changes nothing."""
    ids, word = item["ids"], item["word"]
    gone = -2
    if rng.random() < p_delete and len(ids) > 3:
        j = int(rng.integers(1, len(ids) - 1))
        gone = word[j]
        ids = ids[:j] + ids[j + 1:]
    margin = sum(sign for w, sign in enumerate(item["polarity"]) if w != gone)
    return ids, soft_target(margin)


def pad(batch: list[list[int]], pad_id: int = 0):
    n = max(len(x) for x in batch)
    ids = torch.full((len(batch), n), pad_id, dtype=torch.long)
    mask = torch.zeros((len(batch), n), dtype=torch.long)
    for i, x in enumerate(batch):
        ids[i, :len(x)] = torch.tensor(x)
        mask[i, :len(x)] = 1
    return ids, mask


def train(out_dir: Path, threads: int, steps: int | None = None, log=print) -> dict:
    from transformers import BertConfig, BertForSequenceClassification

    cfg = dict(CFG)
    if steps:
        cfg["steps"] = steps
    common.seed_everything(TORCH_SEED, threads)
    common.clean_model_dir(out_dir)
    tok = build_tokenizer(out_dir)
    train_set = tokenized(tok, make_split(TRAIN_SEED, N_TRAIN))
    config = BertConfig(
        vocab_size=len(vocab_list()), hidden_size=cfg["hidden_size"], num_hidden_layers=cfg["num_hidden_layers"],
        num_attention_heads=cfg["num_attention_heads"], intermediate_size=cfg["intermediate_size"],
        max_position_embeddings=cfg["max_position_embeddings"], hidden_dropout_prob=cfg["dropout"],
        attention_probs_dropout_prob=cfg["dropout"], pad_token_id=tok.pad_token_id, num_labels=2,
        id2label={0: LABELS[0], 1: LABELS[1]}, label2id={LABELS[0]: 0, LABELS[1]: 1},
        problem_type="single_label_classification",
    )
    torch.manual_seed(TORCH_SEED)
    model = BertForSequenceClassification(config)
    opt = common.adamw_on_matrices(model, cfg, betas=(0.9, 0.999))   # torch's default betas
    rng = np.random.default_rng(TRAIN_SEED + 1)   # batch order and token deletions

    lr_at = common.warmup_cosine(cfg, floor=0.0)

    model.train()
    t0 = time.time()
    for step in range(cfg["steps"]):
        idx = rng.integers(0, len(train_set), size=cfg["batch"])
        items = [training_item(train_set[i], rng, cfg["token_deletion_prob"]) for i in idx]
        ids, mask = pad([x for x, _ in items], tok.pad_token_id)
        q = torch.tensor([t for _, t in items], dtype=torch.float32)
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        logp = torch.log_softmax(model(input_ids=ids, attention_mask=mask).logits, -1)
        loss = -(q * logp[:, 1] + (1 - q) * logp[:, 0]).mean()   # cross-entropy with the soft target
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 250 == 0 or step == cfg["steps"] - 1:
            log(f"step {step:5d} loss {loss.item():.4f} ({time.time() - t0:.0f}s)")
    model.eval()
    model.save_pretrained(str(out_dir), safe_serialization=True)
    return {"cfg": cfg, "train_seconds": time.time() - t0, "n_train": N_TRAIN}


# ---- evaluation -----------------------------------------------------------------------------------------------

def load(out_dir: Path):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(out_dir))
    model = AutoModelForSequenceClassification.from_pretrained(str(out_dir), attn_implementation="eager").eval()
    return model, tok


@torch.no_grad()
def predict(model, tok, texts, bs=256):
    probs = []
    for i in range(0, len(texts), bs):
        enc = tok(texts[i:i + bs], padding=True, return_tensors="pt")
        probs.append(torch.softmax(model(**enc).logits, -1))
    return torch.cat(probs)


@torch.no_grad()
def predict_ids(model, seqs: list[list[int]], bs=512):
    probs = []
    for i in range(0, len(seqs), bs):
        ids, mask = pad(seqs[i:i + bs])
        probs.append(torch.softmax(model(input_ids=ids, attention_mask=mask).logits, -1))
    return torch.cat(probs)


def held_out():
    train_texts = {e["text"] for e in make_split(TRAIN_SEED, N_TRAIN)}
    return make_split(TEST_SEED, N_TEST, exclude=train_texts)


def remove_spans(text, spans):
    for s, e in sorted(spans, reverse=True):
        text = text[:s] + text[e:]
    return " ".join(text.split())


def token_faithfulness(model, tok, exs) -> dict:
    """On token ids, as AttnScope's Faithfulness workspace does it: leave-one-out by deletion (delete one token,
    |change| of p(class predicted on the full input)), token F1 of its top-|gold| tokens against the evidence tokens
    ([CLS]/[SEP] never deleted or ranked), and ERASER comprehensiveness (delete all evidence tokens) and sufficiency
    (keep only them, with [CLS]/[SEP]), both as drops of that probability."""
    items = tokenized(tok, exs)
    full = predict_ids(model, [it["ids"] for it in items])
    pred = full.argmax(-1)
    seqs, owner = [], []
    for n, it in enumerate(items):
        ids = it["ids"]
        for j in range(1, len(ids) - 1):
            seqs.append(ids[:j] + ids[j + 1:])
            owner.append((n, j))
    loo = predict_ids(model, seqs)
    delta, delta_signed = [dict() for _ in items], [dict() for _ in items]
    for (n, j), p in zip(owner, loo):
        delta_signed[n][j] = float(full[n, pred[n]] - p[pred[n]])
        delta[n][j] = abs(delta_signed[n][j])
    f1s, f1s_signed, by_k, min_gold_over_max_filler = [], [], {}, []
    for n, it in enumerate(items):
        gold = {j for j, w in enumerate(it["word"]) if w >= 0}
        order = sorted(delta[n], key=lambda j: -delta[n][j])
        f1 = len(gold & set(order[:len(gold)])) / len(gold)
        f1s.append(f1)
        signed = sorted(delta_signed[n], key=lambda j: (-delta_signed[n][j], j))
        f1s_signed.append(len(gold & set(signed[:len(gold)])) / len(gold))
        by_k.setdefault(str(len(it["polarity"])), []).append(f1)
        filler = [delta[n][j] for j in delta[n] if j not in gold]
        min_gold_over_max_filler.append(min(delta[n][j] for j in gold) > max(filler, default=0.0))
    comp_seqs = [[t for t, w in zip(it["ids"], it["word"]) if w < 0] for it in items]
    suff_seqs = [[it["ids"][0]] + [t for t, w in zip(it["ids"], it["word"]) if w >= 0] + [it["ids"][-1]]
                 for it in items]
    comp = predict_ids(model, comp_seqs)
    suff = predict_ids(model, suff_seqs)
    ar = torch.arange(len(items))
    p_full = full[ar, pred]
    return {
        "n": len(items),
        "loo_deletion_token_f1": float(np.mean(f1s)),
        "loo_deletion_token_f1_signed_ranking": float(np.mean(f1s_signed)),
        "loo_deletion_token_f1_by_n_evidence_words": {k: float(np.mean(v)) for k, v in sorted(by_k.items())},
        "loo_every_evidence_token_above_every_filler_token": float(np.mean(min_gold_over_max_filler)),
        "loo_mean_abs_change_evidence": float(np.mean([delta[n][j] for n, it in enumerate(items)
                                                       for j, w in enumerate(it["word"]) if w >= 0])),
        "loo_mean_abs_change_filler": float(np.mean([delta[n][j] for n, it in enumerate(items)
                                                     for j in delta[n] if it["word"][j] < 0])),
        "comprehensiveness": float((p_full - comp[ar, pred]).mean()),
        "sufficiency": float((p_full - suff[ar, pred]).mean()),
    }


def evaluate(out_dir: Path) -> dict:
    model, tok = load(out_dir)
    test = held_out()
    p = predict(model, tok, [e["text"] for e in test])
    y = torch.tensor([e["label"] for e in test])
    margin = torch.tensor([float(sum(e["polarity"])) for e in test])
    target = torch.sigmoid(CFG["evidence_scale"] * margin)
    pred = p.argmax(-1)
    acc = (pred == y).float().mean().item()
    by_k = {}
    for k in range(1, MAX_EVIDENCE + 1):
        sel = torch.tensor([len(e["evidence_words"]) == k for e in test])
        by_k[str(k)] = {"n": int(sel.sum()), "accuracy": (pred[sel] == y[sel]).float().mean().item()}
    by_margin = {}
    for m in sorted({int(x) for x in margin.tolist()}):
        sel = margin == m
        by_margin[str(m)] = {"n": int(sel.sum()), "target_p_positive": round(float(target[sel][0]), 4),
                             "mean_p_positive": p[sel, 1].mean().item()}
    p_true = p[torch.arange(len(test)), y]
    # evidence removed (all evidence words deleted from the text): the model should fall to p = 0.5
    p_rm = predict(model, tok, [remove_spans(e["text"], e["spans"]) for e in test])
    # only the evidence words kept (sufficiency)
    p_only = predict(model, tok, [" ".join(e["evidence_words"]) for e in test])
    p_only_true = p_only[torch.arange(len(test)), y]
    lens = [len(tok(e["text"])["input_ids"]) for e in test]
    return {
        "n_test": len(test), "accuracy": acc, "accuracy_by_n_evidence": by_k,
        "mean_p_label": p_true.mean().item(),
        "mean_abs_error_p_positive_vs_soft_target": (p[:, 1] - target).abs().mean().item(),
        "p_positive_by_margin": by_margin,
        "mean_p_positive_evidence_removed": p_rm[:, 1].mean().item(),
        "max_abs_p_positive_minus_half_evidence_removed": (p_rm[:, 1] - 0.5).abs().max().item(),
        "mean_p_label_evidence_only": p_only_true.mean().item(),
        "accuracy_evidence_only": (p_only.argmax(-1) == y).float().mean().item(),
        "tokens_min_mean_max": [min(lens), float(np.mean(lens)), max(lens)],
        "rationales": token_faithfulness(model, tok, test[:N_RATIONALES]),
    }


def summary(ev: dict) -> dict:
    out = {k: ev[k] for k in ("n_test", "accuracy", "mean_abs_error_p_positive_vs_soft_target",
                              "mean_p_positive_evidence_removed", "mean_p_label_evidence_only")}
    out["rationales"] = ev["rationales"]
    return out


def write_rationales(out_dir: Path) -> dict:
    model, tok = load(out_dir)
    test = held_out()[:N_RATIONALES]
    p = predict(model, tok, [e["text"] for e in test])
    items = []
    for i, e in enumerate(test):
        enc = tok(e["text"], return_offsets_mapping=True)
        idx = evidence_token_indices(enc, e["spans"])
        toks = tok.convert_ids_to_tokens(enc["input_ids"])
        assert idx and all(toks[j] not in ("[CLS]", "[SEP]") for j in idx)
        items.append({
            "id": i, "text": e["text"], "label": e["label"], "label_name": LABELS[e["label"]],
            "tokens": toks, "input_ids": enc["input_ids"],
            "evidence_token_indices": idx,
            "evidence_words": e["evidence_words"],
            "evidence_polarities": e["polarity"],
            "evidence_char_spans": [list(s) for s in e["spans"]],
            "target_probability_positive": round(soft_target(sum(e["polarity"])), 6),
            "predicted_label": int(p[i].argmax()), "predicted_probability": round(float(p[i].max()), 6),
        })
    doc = {
        "format": "attnscope-rationales", "version": 1,
        "model": NAME, "licence": common.LICENCE,
        "description": "Held-out examples of the rationale-bert generator with ground-truth rationales. 'tokens' "
                       "and 'input_ids' are what the WordPiece tokenizer in this folder produces, including "
                       "[CLS] (index 0) and [SEP] (last). 'evidence_token_indices' index into 'tokens' and list "
                       "every piece of every evidence word, of both polarities ('evidence_polarities': +1 positive, "
                       "-1 negative, one per evidence word); every other token is filler whose removal cannot "
                       "change the label or the target. label = positive iff there are more positive than negative "
                       "evidence words (never a tie); the model was trained towards p(positive) = "
                       "sigmoid(1.5 * (#positive - #negative)) ('target_probability_positive'), so deleting any "
                       "one evidence token moves the target by one step. 'evidence_char_spans' are [start, end) "
                       "character offsets in 'text'.",
        "label_names": LABELS,
        "generator": {"split": "test", "seed": TEST_SEED, "first_n": N_RATIONALES},
        "examples": items,
    }
    common.write_json_compact_items(out_dir / "rationales.json", doc, "examples")
    return doc


def examples() -> list[dict]:
    return [
        {"text": "the plot was excellent and we watched the old film with the dog.",
         "what_to_look_for": "Positive, one evidence word (excellent); target p(positive) = sigmoid(1.5) = 0.82. "
                             "Leave-one-out: deleting 'excellent' drops p to about 0.5 (no evidence left, chance), "
                             "deleting any other token changes almost nothing. Look whether [CLS] attends to it in "
                             "the last layer."},
        {"text": "a quiet actor met the director, it was a disaster; the ending seemed rather dull.",
         "what_to_look_for": "Negative, two evidence words (disaster, dull) among a neutral adjective (quiet) and "
                             "an intensifier (rather); target p(negative) = 0.95. Each evidence word counts: "
                             "deleting either one drops p(negative) to about 0.82."},
        {"text": "the story was superb and the ending seemed dull; it was a gem.",
         "what_to_look_for": "Mixed polarity: two positive (superb, gem) and one negative (dull) evidence word, so "
                             "positive with target 0.82. Leave-one-out gives all three a large |change| but in "
                             "opposite directions: deleting 'superb' or 'gem' drops p(positive) to about 0.5, "
                             "deleting 'dull' raises it to about 0.96. Compare signed and absolute importance: "
                             "ranked on the signed change, 'dull' comes last."},
        {"text": "they visited the masterful studio in the village and the soundtrack was very blue.",
         "what_to_look_for": "Positive: 'masterful' splits into master ##ful, and both pieces are gold evidence. "
                             "The model does not treat them alike: deleting 'master' drops p(positive) from 0.83 "
                             "to about 0.5, deleting '##ful' barely moves it (master alone still reads as "
                             "positive): leave-one-out gives ##ful 0.008 against 0.32 for 'master', barely above the "
                             "filler. Gold rationale and model disagree at the subword level. 'soundtrack' (sound ##track) is a split neutral word."},
        {"text": "the red critic watched an unwatchable sequel; the music stayed truly pointless.",
         "what_to_look_for": "Negative: multi-piece evidence words un ##watch ##able and point ##less (five gold "
                             "tokens for two words). Leave-one-out spreads unevenly over the pieces: ##watch, "
                             "##less and point matter, 'un' and '##able' hardly at all."},
    ]


def write_card(out_dir: Path, info: dict, ev: dict) -> None:
    doc = write_rationales(out_dir)
    cfg = info["cfg"]
    model, tok = load(out_dir)
    n_params = sum(p.numel() for p in model.parameters())
    ex = examples()
    probs = predict(model, tok, [e["text"] for e in ex])
    size = common.dir_size_kib(out_dir)
    byk = ev["accuracy_by_n_evidence"]
    rat = ev["rationales"]
    r0 = doc["examples"][0]
    C = cfg["evidence_scale"]
    margin_rows = "\n".join(
        f"| {int(m):+d} | {v['n']} | {v['target_p_positive']:.4f} | {v['mean_p_positive']:.4f} |"
        for m, v in sorted(ev["p_positive_by_margin"].items(), key=lambda kv: int(kv[0])))
    f1k = rat["loo_deletion_token_f1_by_n_evidence_words"]
    card = f"""---
license: gpl-3.0
library_name: transformers
pipeline_tag: text-classification
tags: [attnscope, rationales, faithfulness, synthetic]
---

# rationale-bert (AttnScope sample model)

A small bidirectional BERT classifier (`BertForSequenceClassification`: {cfg['num_hidden_layers']} layers,
{cfg['num_attention_heads']} heads, hidden {cfg['hidden_size']}, intermediate {cfg['intermediate_size']},
max positions {cfg['max_position_embeddings']}, {n_params:,} parameters, GELU, post-LN) trained from scratch on
generated review-like sentences whose label depends **only on known evidence words**, of both polarities. It ships
`rationales.json`: {len(doc['examples'])} held-out examples with the ground-truth evidence tokens, so that
attention-based and perturbation-based explanations (ERASER, AOPC, deletion curves, LOO, rollout) can be scored
against the truth.

The model is trained on **soft targets**: p(positive) = sigmoid({C} · (#positive − #negative evidence words)).
Every evidence word moves the logit by about {C}, so **each evidence word matters on its own** (deleting it
changes p(predicted class) visibly; some pieces of multi-piece words matter less, see below) and the output is not
saturated (target at most {ev['p_positive_by_margin'][str(MAX_EVIDENCE)]['target_p_positive']:.4f}), while deleting a filler token changes almost nothing. A model trained on hard labels with same-polarity evidence (this
sample's first version) was saturated at p ≈ 0.9997 with redundant evidence: deleting one of two or three evidence
words moved p by ~1e-9, and leave-one-out recovered the evidence with token F1 0.40 only.

Licence of the weights, tokenizer, generator output and `rationales.json`: **GPL-3.0-or-later** (part of
AttnScope). Trained by `tools/train_sample_models.py --model rationale-bert`; nothing downloaded.

Labels: 0 = `negative`, 1 = `positive` (`id2label` in `config.json`).

## Held-out results

| metric | value |
|---|---|
| accuracy (argmax vs sign(#pos − #neg)), held-out split ({ev['n_test']} sentences, none identical to a training sentence) | **{ev['accuracy'] * 100:.2f} %** |
| accuracy with 1 / 2 / 3 / 4 evidence words | {' / '.join(f"{byk[k]['accuracy'] * 100:.2f} % (n={byk[k]['n']})" for k in sorted(byk))} |
| mean \\|p(positive) − soft target\\| | {ev['mean_abs_error_p_positive_vs_soft_target']:.4f} |
| mean p(true label), full text | {ev['mean_p_label']:.4f} |
| mean p(positive), all evidence words deleted | {ev['mean_p_positive_evidence_removed']:.4f} (target 0.5; largest deviation {ev['max_abs_p_positive_minus_half_evidence_removed']:.4f}) |
| mean p(true label), evidence words only | {ev['mean_p_label_evidence_only']:.4f} (accuracy {ev['accuracy_evidence_only'] * 100:.1f} %) |
| tokens per example incl. [CLS]/[SEP] (min / mean / max) | {ev['tokens_min_mean_max'][0]} / {ev['tokens_min_mean_max'][1]:.1f} / {ev['tokens_min_mean_max'][2]} |

Mean p(positive) by evidence margin #pos − #neg (held-out split):

| margin | n | target sigmoid({C}·margin) | mean p(positive) |
|---|---|---|---|
{margin_rows}

### The {rat['n']} rationale examples, scored on token ids (Python, `token_faithfulness`)

| metric | value |
|---|---|
| leave-one-out by deletion: token F1 of the top-\\|gold\\| tokens by \\|Δ p(predicted class)\\| ([CLS]/[SEP] excluded) | **{rat['loo_deletion_token_f1']:.4f}** |
| the same, by number of evidence words 1 / 2 / 3 / 4 | {' / '.join(f"{f1k[k]:.4f}" for k in sorted(f1k))} |
| the same, ranked on the signed change p(full) − p(deleted) (what AttnScope's rationale F1 uses) | {rat['loo_deletion_token_f1_signed_ranking']:.4f} |
| examples where every evidence token's \\|Δp\\| exceeds every filler token's | {rat['loo_every_evidence_token_above_every_filler_token'] * 100:.1f} % |
| mean \\|Δp\\| when deleting one evidence token / one filler token | {rat['loo_mean_abs_change_evidence']:.4f} / {rat['loo_mean_abs_change_filler']:.5f} |
| ERASER comprehensiveness (delete all evidence tokens; drop of p(predicted class)) | {rat['comprehensiveness']:.4f} |
| ERASER sufficiency (keep only [CLS], the evidence tokens, [SEP]) | {rat['sufficiency']:.4f} |

The signed ranking scores lower because in a mixed-polarity example the minority evidence word (e.g. the one
negative word of a positive review) raises p(predicted class) when deleted: a large negative leave-one-out score,
ranked last. The deletion rows are the ground truth's own faithfulness check: without its evidence the model falls
to p ≈ 0.5 (no information), and the evidence alone keeps the prediction (sufficiency near 0; it can be negative
when the evidence alone gives a slightly higher probability than the full sentence).

## Data generator (`make_example`; train seed {TRAIN_SEED}, held-out seed {TEST_SEED})

1. Draw k ∈ {{1, …, {MAX_EVIDENCE}}} evidence words (uniform) and the number of positive ones, uniform over 0…k
   **without ties** (#pos ≠ #neg; so k = 2 is always 2+0 or 0+2, k = 4 is 4+0, 3+1, 1+3 or 0+4). Label = positive
   iff #pos > #neg. Mixed polarity occurs for k = 3 (2+1, 1+2) and k = 4 (3+1, 1+3).
2. Draw 2–5 clauses from six templates over neutral words, e.g. `the NOUN COPULA [INTENSIFIER] ADJ`,
   `DET ADJ NOUN VERB the NOUN`, `PRON VERB the ADJ NOUN PREP the NOUN`, `it COPULA a NOUN`,
   `the NOUN PREP the NOUN COPULA ADJ`, `PRON VERB DET NOUN`; join them with `and`, `,`, `;`, `.`,
   `and then`, `, while`; end with `.`. Redraw until there are at least k ADJ/NOUN slots.
3. Put the k evidence words (polarities in random order) into k random slots (adjective slots take evidence
   adjectives, the `it was a NOUN` slot takes evidence nouns); fill the other slots with neutral words. The
   evidence words sit in exactly the syntactic positions neutral words also fill, and only their identity decides
   the label. There is no negation and no sentiment in the filler, so the rationale is unambiguous: the evidence
   tokens (both polarities), and only they.
4. `a` before a vowel becomes `an`. Held-out sentences that also occur in the training set are dropped.

Training target: p(positive) = sigmoid({C} · (#pos − #neg)), i.e. {', '.join(f"{m:+d}: {soft_target(m):.3f}" for m in range(1, MAX_EVIDENCE + 1))}
(and the mirror image for negative margins). **Token-deletion augmentation:** with probability
{cfg['token_deletion_prob']} one random non-[CLS]/[SEP] token of a training sentence is deleted before the step; when it is a
piece of an evidence word, that word no longer counts (a fragment like `master` or `##ful` is not the word
`masterful`) and the target moves by one step; when it is a filler token the target is unchanged. This trains the
model on exactly the single-token deletions that leave-one-out applies, so good leave-one-out scores here are
partly by construction, not a result about natural models. Pieces of multi-piece evidence words are rarely the
deleted token, and the model still keys on some pieces more than others (example texts 4 and 5): deleting `##ful`
from `masterful` or `un` from `unwatchable` barely changes p.

Lexicon (all lower case):
- positive evidence: {', '.join(POS_ADJ + POS_NOUN)}
- negative evidence: {', '.join(NEG_ADJ + NEG_NOUN)}
- neutral adjectives: {', '.join(ADJ)}; intensifiers (distractors): {', '.join(INTENS)}
- neutral nouns: {', '.join(NOUNS)}
- verbs: {', '.join(COPULA + TVERBS)}; plus determiners, pronouns and prepositions.

## Tokenizer

WordPiece, lower case (`vocab.txt`, {len(vocab_list())} lines: `[PAD]` 0, `[UNK]` 1, `[CLS]` 2, `[SEP]` 3, `[MASK]` 4,
punctuation, the lexicon's words, the pieces below, and single letters with and without `##` so that any
lower-case ASCII word still tokenizes). Some words are deliberately **not** whole vocabulary entries and split into
pieces: masterful → master ##ful, unforgettable → un ##forget ##table, breathtaking → breath ##taking,
masterpiece → master ##piece, pointless → point ##less, unwatchable → un ##watch ##able, dreadful → dread ##ful
(evidence), and screenplay, soundtrack, weekend, countryside (neutral). Every piece of an evidence word is an
evidence token. The tokenizer files (`vocab.txt`, `tokenizer.json`, `tokenizer_config.json`) are unchanged from
the first version of this sample (the C++ tokenizer parity fixtures depend on them): `a` and `i` occur twice in
`vocab.txt` (as words and as single letters), the tokenizer maps them to their later lines (ids 178 and 186),
ids 133 and 147 are never produced, and `vocab_size` is the line count, {len(vocab_list())}.

## rationales.json

`{{"format": "attnscope-rationales", "version": 1, "label_names": [...], "examples": [...]}}`; each example has
`text`, `label`, `label_name`, `tokens` (as the tokenizer splits them, with `[CLS]` at 0 and `[SEP]` last),
`input_ids`, `evidence_token_indices` (into `tokens`; every piece of every evidence word, both polarities),
`evidence_words`, `evidence_polarities` (+1 / −1 per word), `evidence_char_spans` ([start, end) in `text`),
`target_probability_positive` (the soft target), `predicted_label`, `predicted_probability`. They are the first
{len(doc['examples'])} held-out sentences. Example:

```
text:   {r0['text']}
tokens: {' '.join(r0['tokens'])}
label:  {r0['label_name']}; evidence_token_indices {r0['evidence_token_indices']} = {[r0['tokens'][j] for j in r0['evidence_token_indices']]}; polarities {r0['evidence_polarities']}
```

## Training

AdamW (weight decay {cfg['weight_decay']} on matrices), peak lr {cfg['lr']}, {cfg['warmup']} warm-up steps then cosine decay to
0, gradient clip 1.0, batch {cfg['batch']}, {cfg['steps']} steps (batches sampled with replacement from {info['n_train']:,}
generated training sentences), dropout {cfg['dropout']}, cross-entropy against the soft target on the pooled [CLS]
output, token-deletion augmentation probability {cfg['token_deletion_prob']}. Seeds: data {TRAIN_SEED} / {TEST_SEED}, batch order and
deletions {TRAIN_SEED + 1}, torch {TORCH_SEED}; deterministic torch algorithms, CPU, {info.get('threads', 1)} thread(s),
{info['train_seconds']:.0f} s on a shared, busy machine. Versions: {common.versions_md()}. Bitwise reproducibility across
machines and library versions is not guaranteed.

## Example texts (also in `examples.json`)

""" + "\n".join(f"{i + 1}. `{e['text']}` — predicted {LABELS[int(probs[i].argmax())]} "
                f"(p = {float(probs[i].max()):.3f}).\n   {e['what_to_look_for']}" for i, e in enumerate(ex)) + f"""

## Reproduce

```
tools/.venv/bin/python tools/train_sample_models.py --model rationale-bert                # retrain (CPU, minutes)
tools/.venv/bin/python tools/train_sample_models.py --model rationale-bert --eval         # recompute the metrics
```

Files: `config.json`, `model.safetensors` (F32), `vocab.txt`, `tokenizer.json`, `tokenizer_config.json`,
`special_tokens_map.json`, `rationales.json`, `examples.json`, `metrics.json`; {size:.0f} KiB in all.
"""
    (out_dir / "README.md").write_text(card)
