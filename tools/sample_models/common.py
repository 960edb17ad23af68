# SPDX-License-Identifier: GPL-3.0-or-later
"""Shared helpers for training AttnScope's sample models (tools only; the app never imports Python)."""
from __future__ import annotations

import json
import os
import platform
import random
import shutil
import tempfile
from pathlib import Path

import numpy as np
import torch

REPO_ROOT = Path(__file__).resolve().parents[2]
SAMPLE_DIR = REPO_ROOT / "sample_models"
LICENCE = "GPL-3.0-or-later"


def seed_everything(seed: int, threads: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True)


def versions() -> dict:
    import safetensors
    import tokenizers
    import transformers

    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "tokenizers": tokenizers.__version__,
        "safetensors": safetensors.__version__,
        "numpy": np.__version__,
    }


def versions_md() -> str:
    return ", ".join(f"{k} {v}" for k, v in versions().items())


# ---------------------------------------------------------------------------------------------------------------
# Tokenizers
# ---------------------------------------------------------------------------------------------------------------

def build_word_bpe(words: list[str], out_dir: Path, model_max_length: int):
    """Byte-level BPE (GPT-2 format) in which every word of `words` is ONE token both at the start of a text
    ("ka") and after a space ("Ġka"). Trained with the `tokenizers` BPE trainer on a corpus that holds every word
    in both forms; the full 256-byte alphabet is kept so any text still encodes (unknown text falls back to
    byte/partial tokens whose embeddings are untrained). Writes vocab.json, merges.txt, tokenizer.json,
    tokenizer_config.json and special_tokens_map.json."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import GPT2TokenizerFast

    eot = "<|endoftext|>"
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(
        vocab_size=100000,  # never reached: training stops when every word is a single token
        min_frequency=1,
        special_tokens=[],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    corpus = []
    for w in words:
        corpus.append(w)
        corpus.append(" " + w)
    tok.train_from_iterator(corpus, trainer=trainer)
    tmp = Path(tempfile.mkdtemp())
    try:
        tok.model.save(str(tmp))  # vocab.json + merges.txt
        # Put <|endoftext|> last, as GPT-2 does (id = vocab_size - 1).
        vocab = json.loads((tmp / "vocab.json").read_text())
        vocab[eot] = len(vocab)
        (tmp / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False))
        merges = []
        for line in (tmp / "merges.txt").read_text().splitlines():
            if line.startswith("#version") or not line.strip():
                continue
            a, b = line.split(" ")
            merges.append((a, b))
        hf = GPT2TokenizerFast(
            vocab=vocab,
            merges=merges,
            unk_token=eot, bos_token=eot, eos_token=eot,
            add_prefix_space=False,
            model_max_length=model_max_length,
        )
        out_dir.mkdir(parents=True, exist_ok=True)
        hf.save_pretrained(str(out_dir))
        # Make sure the classic GPT-2 files are present whatever save_pretrained wrote.
        for name in ("vocab.json", "merges.txt"):
            if not (out_dir / name).exists():
                shutil.copy(tmp / name, out_dir / name)
    finally:
        shutil.rmtree(tmp)
    hf = GPT2TokenizerFast.from_pretrained(str(out_dir))
    check_word_bpe(hf, words)
    return hf


def check_word_bpe(tok, words: list[str]) -> None:
    bad = []
    for w in words:
        if len(tok(w)["input_ids"]) != 1 or len(tok(" " + w)["input_ids"]) != 1:
            bad.append(w)
    if bad:
        raise SystemExit(f"tokenizer splits these words into several tokens: {bad[:20]}")
    text = " ".join(words[:10])
    assert len(tok(text)["input_ids"]) == 10, text


def word_ids_for(tok, words: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(ids of 'w', ids of ' w') for every word."""
    plain = np.array([tok(w)["input_ids"][0] for w in words], dtype=np.int64)
    spaced = np.array([tok(" " + w)["input_ids"][0] for w in words], dtype=np.int64)
    return plain, spaced


# ---------------------------------------------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------------------------------------------

def adamw_on_matrices(model, cfg: dict, betas=(0.9, 0.98)):
    """AdamW at cfg["lr"] with weight decay cfg["weight_decay"] on matrices (2-D and up) only."""
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    return torch.optim.AdamW([{"params": decay, "weight_decay": cfg["weight_decay"]},
                              {"params": no_decay, "weight_decay": 0.0}], lr=cfg["lr"], betas=betas)


def warmup_cosine(cfg: dict, floor: float = 0.05):
    """lr(step): linear warm-up over cfg["warmup"] steps to cfg["lr"], then a cosine down to floor * lr at
    cfg["steps"]."""
    import math

    def lr_at(step):
        if step < cfg["warmup"]:
            return cfg["lr"] * (step + 1) / cfg["warmup"]
        p = (step - cfg["warmup"]) / max(1, cfg["steps"] - cfg["warmup"])
        return cfg["lr"] * (floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * p)))
    return lr_at


# ---------------------------------------------------------------------------------------------------------------
# Output helpers
# ---------------------------------------------------------------------------------------------------------------

def write_json(path: Path, obj) -> None:
    path.write_text(json.dumps(obj, indent=2, ensure_ascii=False) + "\n")


def clean_model_dir(out_dir: Path) -> None:
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)


def dir_size_kib(out_dir: Path) -> float:
    return sum(p.stat().st_size for p in out_dir.rglob("*") if p.is_file()) / 1024.0


def assert_no_pickle(out_dir: Path) -> None:
    bad = [p.name for p in out_dir.iterdir() if p.suffix in (".bin", ".pt", ".pth", ".ckpt", ".pkl")]
    if bad:
        raise SystemExit(f"pickle files written to {out_dir}: {bad}")


def fmt_table(header: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for r in rows:
        lines.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(lines)


def finalize_dir(out_dir: Path) -> None:
    """World-readable files (save_pretrained writes model.safetensors 0600 through a temp file) and a
    special_tokens_map.json for loaders that still look for it (transformers 5 no longer writes it)."""
    cfg = json.loads((out_dir / "tokenizer_config.json").read_text())
    keys = ["bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"]
    stm = {k: cfg[k] for k in keys if cfg.get(k)}
    write_json(out_dir / "special_tokens_map.json", stm)
    for p in out_dir.iterdir():
        if p.is_file():
            os.chmod(p, 0o644)


def write_json_compact_items(path: Path, doc: dict, list_key: str) -> None:
    """JSON with one line per item of doc[list_key] (readable and diff-friendly, much smaller than indent=2)."""
    head = {k: v for k, v in doc.items() if k != list_key}
    text = json.dumps(head, indent=2, ensure_ascii=False)[:-2]
    items = ",\n".join("    " + json.dumps(it, ensure_ascii=False) for it in doc[list_key])
    text += f',\n  "{list_key}": [\n{items}\n  ]\n}}\n'
    json.loads(text)
    path.write_text(text)


def load_causal_lm(out_dir: Path):
    """A saved GPT-2 sample folder, with eager attention so that output_attentions works."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(out_dir))
    model = AutoModelForCausalLM.from_pretrained(str(out_dir), attn_implementation="eager").eval()
    return model, tok
