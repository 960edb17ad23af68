# SPDX-License-Identifier: GPL-3.0-or-later
"""translation-t5: a 2 + 2-layer T5 (relative position buckets, RMS norm, gated GELU, no 1/sqrt(d) scaling)
trained to translate a small English-like language into an invented one whose word alignment is known:

    the big dog saw a red cat        ->   le hund gros un gato rojo ha vido
    (0)  (1) (2) (3) (4)(5) (6)            0    2    1   4   6    5   3  3

- reordering: adjectives follow their noun, and the verb moves to the end of the clause (subject object verb);
- one-to-many: a past-tense verb becomes two words, the auxiliary "ha" and a participle, both aligned to it;
- a place phrase ("in the park") stays at the end, after the verb.

Every target word has exactly one source word (the sure alignment, shipped with each evaluation sentence in
alignments.json), so cross-attention can be scored against the truth: the alignment error rate (AER, Och & Ney
2003) of each cross-attention head and of each layer's mean over heads."""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import torch

from . import common

NAME = "translation-t5"
DATA_SEED = 11
TORCH_SEED = 11
EVAL_SEED = 5151
N_EVAL = 300

DETS = {"the": "le", "a": "un"}
ADJS = {"big": "gros", "small": "peti", "red": "rojo", "old": "viejo", "new": "nuevo", "green": "verde"}
NOUNS = {"cat": "gato", "dog": "hund", "bird": "vogel", "house": "casa", "tree": "baum", "fish": "pez",
         "man": "homo", "girl": "nina"}
VERBS = {"saw": "vido", "ate": "comido", "liked": "amado", "found": "trovado", "took": "tomado"}
PREPS = {"in": "en", "on": "sur", "near": "pres"}
PLACES = {"park": "parque", "garden": "jardin", "river": "rio"}
AUX = "ha"
CFG = dict(d_model=64, d_kv=16, d_ff=128, layers=2, decoder_layers=2, heads=4, buckets=16, max_distance=32,
           steps=2500, batch=64, lr=3e-3, warmup=200, weight_decay=0.01, p_adj=0.5, p_place=0.4)


def source_words() -> list[str]:
    return [*DETS, *ADJS, *NOUNS, *VERBS, *PREPS, *PLACES]


def target_words() -> list[str]:
    return [*DETS.values(), *ADJS.values(), *NOUNS.values(), *VERBS.values(), *PREPS.values(), *PLACES.values(), AUX]


def noun_phrase(rng, start: int, nouns=NOUNS):
    """(source words, target words, alignment [(target offset, source index)]) of DET [ADJ] NOUN, source indices
    counted from `start`."""
    det = list(DETS)[rng.integers(len(DETS))]
    adj = list(ADJS)[rng.integers(len(ADJS))] if rng.random() < CFG["p_adj"] else None
    noun = list(nouns)[rng.integers(len(nouns))]
    src = [det] + ([adj] if adj else []) + [noun]
    tgt = [DETS[det], nouns[noun]] + ([ADJS[adj]] if adj else [])
    noun_at = start + len(src) - 1
    links = [(0, start), (1, noun_at)] + ([(2, start + 1)] if adj else [])
    return src, tgt, links


def make_pair(rng):
    """One sentence: source words, target words and the sure alignment [(target index, source index)]."""
    src, tgt, align = [], [], []

    def add_target(words, links, offset_src=0):
        base = len(tgt)
        tgt.extend(words)
        align.extend((base + t, s + offset_src) for t, s in links)

    subj_src, subj_tgt, subj_links = noun_phrase(rng, 0)
    src += subj_src
    verb = list(VERBS)[rng.integers(len(VERBS))]
    verb_at = len(src)
    src.append(verb)
    obj_src, obj_tgt, obj_links = noun_phrase(rng, len(src))
    src += obj_src
    add_target(subj_tgt, subj_links)
    add_target(obj_tgt, obj_links)
    add_target([AUX, VERBS[verb]], [(0, verb_at), (1, verb_at)])
    if rng.random() < CFG["p_place"]:
        prep = list(PREPS)[rng.integers(len(PREPS))]
        prep_at = len(src)
        src.append(prep)
        place_src, place_tgt, place_links = noun_phrase(rng, len(src), PLACES)
        src += place_src
        add_target([PREPS[prep]], [(0, prep_at)])
        add_target(place_tgt, place_links)
    align.sort()
    assert [t for t, _ in align] == list(range(len(tgt))), (src, tgt, align)
    return src, tgt, align


def build_tokenizer(out_dir: Path):
    """A Unigram tokenizer.json (T5's Metaspace and "$A </s>" template) in which every word of both languages is one
    piece "▁word"; letters keep other text encodable (into pieces that were never trained). Plus a
    tokenizer_config.json naming PreTrainedTokenizerFast, so transformers loads tokenizer.json as written."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    vocab = [("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0), ("\u2581", -3.0)]
    vocab += [("\u2581" + w, -2.0) for w in source_words() + target_words()]
    vocab += [(c, -6.0) for c in "abcdefghijklmnopqrstuvwxyz"]
    tok = Tokenizer(models.Unigram(vocab, unk_id=2, byte_fallback=False))
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always")
    tok.post_processor = processors.TemplateProcessing(single="$A </s>", pair="$A </s> $B </s>",
                                                       special_tokens=[("</s>", 1)])
    tok.decoder = decoders.Metaspace(replacement="\u2581", prepend_scheme="always")
    tok.add_special_tokens(["<pad>", "</s>", "<unk>"])
    hf = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", eos_token="</s>", unk_token="<unk>",
                                 model_max_length=64)
    hf.save_pretrained(str(out_dir))
    tok.save(str(out_dir / "tokenizer.json"))
    check = Tokenizer.from_file(str(out_dir / "tokenizer.json"))
    for w in source_words() + target_words():
        assert check.encode(w).tokens == ["\u2581" + w, "</s>"], w
    return check


def encode(tok, words: list[str]) -> list[int]:
    ids = tok.encode(" ".join(words)).ids
    assert len(ids) == len(words) + 1, words
    return ids


def batch(rng, n, tok):
    """Encoder ids [n, S] (padded with 0, with their mask), decoder input [n, T] and labels (-100 on padding)."""
    pairs = [make_pair(rng) for _ in range(n)]
    srcs = [encode(tok, s) for s, _, _ in pairs]
    labs = [encode(tok, t) for _, t, _ in pairs]
    S, T = max(map(len, srcs)), max(map(len, labs))
    x = torch.zeros(n, S, dtype=torch.long)
    m = torch.zeros(n, S, dtype=torch.long)
    y = torch.full((n, T), -100, dtype=torch.long)
    for i, (s, lab) in enumerate(zip(srcs, labs)):
        x[i, :len(s)] = torch.tensor(s)
        m[i, :len(s)] = 1
        y[i, :len(lab)] = torch.tensor(lab)
    return x, m, y


def train(out_dir: Path, threads: int, steps: int | None = None, log=print) -> dict:
    from transformers import T5Config, T5ForConditionalGeneration

    cfg = dict(CFG)
    if steps:
        cfg["steps"] = steps
    common.seed_everything(TORCH_SEED, threads)
    common.clean_model_dir(out_dir)
    tok = build_tokenizer(out_dir)
    config = T5Config(vocab_size=tok.get_vocab_size(), d_model=cfg["d_model"], d_kv=cfg["d_kv"], d_ff=cfg["d_ff"],
                      num_layers=cfg["layers"], num_decoder_layers=cfg["decoder_layers"], num_heads=cfg["heads"],
                      relative_attention_num_buckets=cfg["buckets"],
                      relative_attention_max_distance=cfg["max_distance"], feed_forward_proj="gated-gelu",
                      tie_word_embeddings=False, dropout_rate=0.0, decoder_start_token_id=0, eos_token_id=1,
                      pad_token_id=0, attn_implementation="eager")
    torch.manual_seed(TORCH_SEED)
    model = T5ForConditionalGeneration(config)
    opt = common.adamw_on_matrices(model, cfg)
    rng = np.random.default_rng(DATA_SEED)

    lr_at = common.warmup_cosine(cfg)

    model.train()
    t0 = time.time()
    for step in range(cfg["steps"]):
        x, m, y = batch(rng, cfg["batch"], tok)
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        loss = model(input_ids=x, attention_mask=m, labels=y).loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 250 == 0 or step == cfg["steps"] - 1:
            model.eval()
            ev = alignment_metrics(model, tok, n=60)
            model.train()
            log(f"step {step:5d} loss {loss.item():.3f} token accuracy {ev['token_accuracy']:.3f} "
                f"best head {ev['best_head']} AER {ev['best_head_aer']:.3f} ({time.time() - t0:.0f}s)")
    model.eval()
    model.save_pretrained(str(out_dir), safe_serialization=True)
    return {"cfg": cfg, "train_seconds": round(time.time() - t0, 1)}


def eval_pairs(n=N_EVAL, seed=EVAL_SEED):
    rng = np.random.default_rng(seed)
    return [make_pair(rng) for _ in range(n)]


def aer(predicted: set, sure: set) -> float:
    """Och & Ney's alignment error rate with every link sure (P = S): 1 - 2|A n S| / (|A| + |S|)."""
    return 1.0 - 2.0 * len(predicted & sure) / (len(predicted) + len(sure))


@torch.no_grad()
def alignment_metrics(model, tok, n=N_EVAL, seed=EVAL_SEED) -> dict:
    """Teacher-forced on the evaluation pairs: token accuracy of the argmax; per cross-attention head and for each
    layer's mean over heads, the AER of the alignment it predicts — each target word (the row of the decoder
    step that produces it) linked to the source word it weights most (the final </s> of either side is no word).
    Plus exact-match accuracy of greedy generation."""
    L, H = model.config.num_decoder_layers, model.config.num_heads
    pred_head = [[set() for _ in range(H)] for _ in range(L)]
    pred_mean = [set() for _ in range(L)]
    sure = set()
    correct = total = exact = 0
    for i, (src, tgt, align) in enumerate(eval_pairs(n, seed)):
        ids = torch.tensor([encode(tok, src)])
        labels = encode(tok, tgt)
        dec = torch.tensor([[model.config.decoder_start_token_id] + labels[:-1]])
        out = model(input_ids=ids, decoder_input_ids=dec, output_attentions=True, use_cache=False)
        pred = out.logits[0].argmax(-1).tolist()
        correct += sum(int(p == t) for p, t in zip(pred, labels))
        total += len(labels)
        sure |= {(i, t, s) for t, s in align}
        for l in range(L):
            a = out.cross_attentions[l][0][:, :len(tgt), :len(src)]     # [H, target words, source words]
            for h in range(H):
                pred_head[l][h] |= {(i, t, int(s)) for t, s in enumerate(a[h].argmax(-1).tolist())}
            pred_mean[l] |= {(i, t, int(s)) for t, s in enumerate(a.mean(0).argmax(-1).tolist())}
        gen = model.generate(ids, do_sample=False, num_beams=1, max_new_tokens=len(labels) + 4, use_cache=False)
        exact += gen[0, 1:].tolist() == labels
    head_aer = [[round(aer(pred_head[l][h], sure), 4) for h in range(H)] for l in range(L)]
    mean_aer = [round(aer(pred_mean[l], sure), 4) for l in range(L)]
    best = min(((l, h) for l in range(L) for h in range(H)), key=lambda lh: head_aer[lh[0]][lh[1]])
    return {"n": n, "token_accuracy": correct / total, "exact_match": exact / n, "head_aer": head_aer,
            "layer_mean_aer": mean_aer, "best_head": [best[0], best[1]],
            "best_head_aer": head_aer[best[0]][best[1]]}


def load(out_dir: Path):
    from tokenizers import Tokenizer
    from transformers import T5ForConditionalGeneration

    tok = Tokenizer.from_file(str(out_dir / "tokenizer.json"))
    model = T5ForConditionalGeneration.from_pretrained(str(out_dir), attn_implementation="eager").eval()
    return model, tok


def evaluate(out_dir: Path) -> dict:
    model, tok = load(out_dir)
    ev = alignment_metrics(model, tok)
    write_alignments(out_dir)
    return ev


def write_alignments(out_dir: Path) -> None:
    """alignments.json: the evaluation pairs with their sure alignment, for AttnScope's test and GUI."""
    doc = {"description": "translation-t5's evaluation pairs (seed %d) with the true word alignment: "
                          "[target word, source word], both counted from 0, over words (no </s>)" % EVAL_SEED,
           "pairs": [{"source": " ".join(s), "target": " ".join(t), "alignment": [list(a) for a in al]}
                     for s, t, al in eval_pairs()]}
    common.write_json_compact_items(out_dir / "alignments.json", doc, "pairs")


def summary(ev: dict) -> dict:
    return {k: ev[k] for k in ("token_accuracy", "exact_match", "best_head", "best_head_aer", "layer_mean_aer")}


EXAMPLES = [
    ("the big dog saw a red cat",
     "Cross-attention, last decoder layer: 'hund' looks at 'dog' and 'gros' back at 'big' (adjectives follow "
     "their noun); 'vido' looks at 'saw', which moved to the end. 'ha', the auxiliary that always follows the "
     "object, needs no source word, and its row looks elsewhere."),
    ("a girl found the old fish in the garden",
     "The place phrase stays last: 'en le jardin' looks at 'in the garden' after the verb's two words."),
    ("the man liked a green tree",
     "Without a target the decoder translates by itself, token by token: step through the generation to see "
     "where each new word looked in the source."),
]


def examples() -> list[dict]:
    return [{"text": s, "what_to_look_for": w} for s, w in EXAMPLES]


def write_card(out_dir: Path, info: dict, ev: dict) -> None:
    cfg = info["cfg"]
    model, _ = load(out_dir)
    n_params = sum(p.numel() for p in model.parameters())
    ha = ev["head_aer"]
    rows = [[l, h, f"{ha[l][h]:.3f}"] for l in range(len(ha)) for h in range(len(ha[l]))]
    rows += [[l, "mean of heads", f"{ev['layer_mean_aer'][l]:.3f}"] for l in range(len(ha))]
    bl, bh = ev["best_head"]
    lex = ", ".join(f"{s} → {t}" for d in (DETS, ADJS, NOUNS, PREPS, PLACES) for s, t in d.items())
    verbs = ", ".join(f"{s} → {AUX} {t}" for s, t in VERBS.items())
    card = f"""---
license: gpl-3.0
library_name: transformers
pipeline_tag: translation
tags: [attnscope, cross-attention, word-alignment, t5, synthetic]
---

# translation-t5 (AttnScope sample model)

A T5 encoder–decoder (`T5ForConditionalGeneration`: {cfg['layers']} encoder and {cfg['decoder_layers']} decoder
layers, d_model {cfg['d_model']}, {cfg['heads']} heads of {cfg['d_kv']}, gated-GELU feed-forward of {cfg['d_ff']},
{cfg['buckets']} relative-position buckets up to distance {cfg['max_distance']}, untied LM head, {n_params:,}
parameters) trained from scratch to translate a small English-like language into an invented one whose word
alignment is known. It is there to show **cross-attention**: decoder queries over the encoder's keys and values.

Layers and heads are numbered from 0 (`cross_attentions[l][:, h]` in transformers). Licence of the weights,
tokenizer and data: **GPL-3.0-or-later** (part of AttnScope). Trained by
`tools/train_sample_models.py --model translation-t5`; nothing downloaded.

## The task

`the big dog saw a red cat` → `le hund gros un gato rojo ha vido`

- **reordering**: adjectives follow their noun; the verb goes to the end of the clause (subject, object, verb);
- **one-to-many**: a past-tense verb becomes two words, `{AUX}` and a participle, both aligned to it;
- an optional place phrase (`in the park` → `en le parque`) comes last, after the verb.

Lexicon: {lex}; {verbs}.

## Results

{ev['n']} held-out pairs (seed {EVAL_SEED}, in `alignments.json` with their true alignment), teacher-forced:

| | |
|---|---|
| token accuracy (argmax of every target position, `</s>` included) | **{ev['token_accuracy'] * 100:.1f} %** |
| exact-match translations (greedy generation) | **{ev['exact_match'] * 100:.1f} %** |
| **alignment error rate**, best cross-attention head (layer {bl}, head {bh}) | **{ev['best_head_aer']:.3f}** |
| AER of each decoder layer's mean over heads | {', '.join(f'layer {l}: {a:.3f}' for l, a in enumerate(ev['layer_mean_aer']))} |

AER (Och & Ney 2003) is 1 − 2|A ∩ S| / (|A| + |S|) with every true link sure; A links each target word — the
row of the decoder step that produces it — to the source word its cross-attention weights most (the final `</s>`
of either side is not a word). 0 is a perfect alignment; a head that ignores the source scores near
1 − 1/(source length). Per head:

{common.fmt_table(["decoder layer", "head", "AER"], rows)}

AttnScope's `tests/tst_translation_sample.cpp` recomputes these alignment error rates with its own engine on
`alignments.json` and asserts them.

## Vocabulary and tokenizer

A Unigram `tokenizer.json` with T5's Metaspace pre-tokenizer and `$A </s>` template: every word of both languages
is one piece (`▁dog`); letters keep other text encodable, into pieces that were never trained. Write texts as
lower-case words separated by single spaces.

## Training

AdamW (lr {cfg['lr']}, warm-up {cfg['warmup']} steps then cosine to 5 %, β 0.9/0.98, weight decay
{cfg['weight_decay']} on matrices), {cfg['steps']} steps of {cfg['batch']} generated pairs (adjective
probability {cfg['p_adj']}, place phrase {cfg['p_place']}), dropout 0, gradient clip 1.0, eager attention.
Seeds: data {DATA_SEED}, torch {TORCH_SEED}; deterministic torch algorithms, CPU, {info.get('threads', 1)}
thread(s), {info['train_seconds']} s. Versions: {common.versions_md()}.
"""
    (out_dir / "README.md").write_text(card)
