#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Builds one small tokenizer.json per tokenizer form real checkpoints ship, and their parity expectations.

Everything here comes from Hugging Face `tokenizers` (and, for the Precompiled charsmap, `sentencepiece`), pinned in
tools/requirements.txt, never from AttnScope's code: the C++ tests (tests/tst_tokenizer_forms.cpp) compare the engine
against these files. Each form has exactly the structure of the family's shipped file (models-and-tokenizers.md
§5.10), with a vocabulary trained here on generated text:

  llama2-legacy   Sequence[Prepend ▁, Replace " "→▁], no pre-tokenizer, BPE byte_fallback + fuse_unk, <s> template
  llama2-first    the same model, legacy: false: Metaspace(▁, prepend_scheme first, split false)
  mistral-always  Metaspace(always, split true) over the same model (older SentencePiece conversions)
  llama3          Split(Llama-3 regex) + ByteLevel(use_regex false), BPE ignore_merges, ByteLevel + template
  qwen2           NFC, Split(Qwen2 regex) + ByteLevel, BPE, ByteLevel post-processor, no BOS
  gemma           Replace " "→▁, BPE byte_fallback, <bos> template
  gemma-split     gemma with the newer Split(" ", MergedWithPrevious) pre-tokenizer
  smollm2         Digits(individual) + ByteLevel(use_regex), GPT-2 style BPE
  t5              Precompiled (SentencePiece nmt_nfkc), WhitespaceSplit + Metaspace, Unigram, $A </s> template
  t5-strip        Sequence[Precompiled, Strip(right), Replace(" {2,}"→▁)], Metaspace, Unigram
  unigram-bytes   Unigram with byte_fallback, NFKC, Metaspace
  roberta         ByteLevel pre-tokenizer, BPE, RobertaProcessing (trim offsets), <mask> with lstrip
  wordpiece-misc  NFKD, StripAccents, Lowercase, Strip, Replace; Punctuation, Whitespace, Digits, WordPiece + BERT pair
  bpe-affixes     BPE with continuing_subword_prefix and end_of_word_suffix, Split behaviours, BPEDecoder

Writes tests/fixtures/tokenizers/forms/<name>/tokenizer.json and tests/fixtures/tokenizers/forms.json: per form, per
test string [ids, byte offsets flattened, positions of special tokens, decoded or null, {position: token} where
Hugging Face's token string is not the vocabulary's]; pair rows [ids, byte offsets, type ids, sequence ids] and
truncation rows [max_length, ids, truncated]; and, where transformers v5 rebuilds the pipeline (§5.11), the strings
on which AutoTokenizer gives other ids (known differences; the C++ tests do not follow them).

Training happens only with --retrain (or for a form whose tokenizer.json is missing): BPE training with a limited
alphabet and Unigram training are not deterministic in tokenizers (hash-set order), so the committed tokenizer.json
files are the reference and a plain run only rewrites forms.json from them, which is deterministic.

Usage: tools/.venv/bin/python tools/make_tokenizer_forms.py [--retrain]
"""

import json
import random
import shutil
import sys
import tempfile
from pathlib import Path

import tokenizers
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_tokenizer_fixtures import corpus, test_strings  # noqa: E402  (the shared generated text and strings)

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "tokenizers"
SEED = 4321

LLAMA3 = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|"
          r"\s+(?!\S)|\s+")
QWEN2 = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|"
         r"\s+(?!\S)|\s+")
BYTE_TOKENS = [f"<0x{b:02X}>" for b in range(256)]


def extra_strings() -> list[str]:
    """The inputs of models-and-tokenizers.md §6 that the shared list lacks, and each form's special tokens."""
    return [
        "\u180e", "a\u180eb", "a \u180e b", "a\u001cb", "a \u001c b", "a\u0085b c", "'ſ", "x'ſ y", "I'M don't  go 1234567 x\n\n  y",
        "Hello  world!!\r\n\tnext", "$100.00€", "ﬁnance", "Ｆｕｌｌ ｗｉｄｔｈ", "①½", "ｶﾞ", "a\u3000b", "x\u200by",
        "e\u0301", "E\u0301\u0323", "\u0915\u094d\u0937\u093f", "👨‍👩‍👧‍👦 family", "👋🏿 👋🏻", "🇫🇷🇩🇪🇯", "龘靐齉",
        "😎🦀🪐", "\ufb01\u0301", "Ǆemal ǅ", "ΣΑΣ σας", "İİ ıI", "K\u212a Å\u212b", "  \t\r\n  ", "a\r\n\r\nb",
        "ab  cd   ef    gh", "tab\tsep\tvalues", "1 12 123 1234 12345 123456", "٣٤٥٦ ١٢", "x²³ ½", "snake-case-ish--word",
        "<s>", "</s>", "<unk>", "<s>Hello</s>", "Hello </s> world", "Hello</s>world", " </s> ", "<pad><pad>",
        "<|begin_of_text|>Hi", "<|end_of_text|>", "<|im_start|>user\nHi<|im_end|>", "a<|im_end|>b", "<bos>x",
        "<start_of_turn>user hi<end_of_turn>", "<extra_id_0> x <extra_id_1>", "<mask>", "the <mask> sat", "a  <mask>",
        "<|endoftext|>a", "word<|endoftext|>", "don't [MASK] me", "\u2581already\u2581metaspace", "▁▁", "▁ ▁",
    ]


def all_strings() -> list[str]:
    seen, out = set(), []
    for s in test_strings() + extra_strings():
        if s not in seen:
            seen.add(s)
            out.append(s)
    return out


def train_lines() -> list[str]:
    return corpus(2500)


def spm_charsmap() -> bytes:
    """SentencePiece's compiled nmt_nfkc rules: train a tiny model and read normalizer_spec.precompiled_charsmap
    (field 3 of ModelProto, field 2 inside) out of the serialized proto."""
    import io
    import sentencepiece as spm
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(train_lines()[:400]), model_writer=model, vocab_size=400, character_coverage=0.98,
                                   normalization_rule_name="nmt_nfkc", model_type="unigram", minloglevel=2)
    data = model.getvalue()

    def fields(buf):
        i = 0
        while i < len(buf):
            key, i = varint(buf, i)
            num, wire = key >> 3, key & 7
            if wire == 0:
                _, i = varint(buf, i)
            elif wire == 1:
                i += 8
            elif wire == 5:
                i += 4
            elif wire == 2:
                n, i = varint(buf, i)
                yield num, buf[i:i + n]
                i += n
            else:
                raise ValueError("unexpected wire type")

    def varint(buf, i):
        v, shift = 0, 0
        while True:
            b = buf[i]
            i += 1
            v |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                return v, i

    spec = next(v for n, v in fields(data) if n == 3)
    return next(v for n, v in fields(spec) if n == 2)


def bpe_with_bytes(trained: Tokenizer, specials: list[str], byte_fallback: bool, **kw) -> models.BPE:
    """The trained BPE's vocabulary behind `specials` and, for byte fallback, the 256 <0xXX> tokens (ids in that
    order, as SentencePiece conversions have them)."""
    model = json.loads(trained.to_str())["model"]
    vocab = {}
    for t in specials + (BYTE_TOKENS if byte_fallback else []):
        vocab.setdefault(t, len(vocab))
    for t, _ in sorted(model["vocab"].items(), key=lambda kv: kv[1]):
        vocab.setdefault(t, len(vocab))
    merges = [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in model["merges"]]
    return models.BPE(vocab, merges, byte_fallback=byte_fallback, **kw)


def train_bpe(pre, vocab_size: int, alphabet=None, limit_alphabet=None, normalizer=None, **model_kw) -> Tokenizer:
    tok = Tokenizer(models.BPE(**model_kw))
    tok.normalizer = normalizer
    tok.pre_tokenizer = pre
    kw = dict(vocab_size=vocab_size, show_progress=False)
    if alphabet is not None:
        kw["initial_alphabet"] = alphabet
    if limit_alphabet is not None:
        kw["limit_alphabet"] = limit_alphabet
    for k in ("continuing_subword_prefix", "end_of_word_suffix"):
        if k in model_kw:
            kw[k] = model_kw[k]
    tok.train_from_iterator(train_lines(), trainers.BpeTrainer(**kw))
    return tok


def special(content, **kw):
    return AddedToken(content, special=True, normalized=False, **kw)


def llama_like(name: str) -> Tokenizer:
    trained = train_bpe(pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=True), 900,
                        limit_alphabet=110)
    tok = Tokenizer(bpe_with_bytes(trained, ["<unk>", "<s>", "</s>"], True, unk_token="<unk>", fuse_unk=True))
    if name == "llama2-legacy":
        tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
        tok.pre_tokenizer = None
    elif name == "llama2-first":
        tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first", split=False)
    else:
        tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=True)
    tok.add_special_tokens([special("<unk>"), special("<s>"), special("</s>")])
    tok.post_processor = processors.TemplateProcessing(single="<s> $A", pair="<s> $A <s> $B:1",
                                                       special_tokens=[("<s>", 1)])
    if name == "mistral-always":
        tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always", split=True)
    else:
        tok.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(),
                                         decoders.Strip(" ", 1, 0)])
    return tok


def regex_byte_level(name: str) -> Tokenizer:
    pattern = LLAMA3 if name == "llama3" else QWEN2
    pre = pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(pattern), "isolated", invert=False),
                                   pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=False)])
    norm = normalizers.NFC() if name == "qwen2" else None
    trained = train_bpe(pre, 1500, alphabet=pre_tokenizers.ByteLevel.alphabet(), normalizer=norm)
    tok = Tokenizer(bpe_with_bytes(trained, [], False, ignore_merges=name == "llama3"))
    tok.normalizer = norm
    tok.pre_tokenizer = pre
    tok.decoder = decoders.ByteLevel()
    if name == "llama3":
        tok.add_special_tokens([special("<|begin_of_text|>"), special("<|end_of_text|>"),
                                special("<|reserved_special_token_0|>")])
        bot = tok.token_to_id("<|begin_of_text|>")
        tok.post_processor = processors.Sequence([
            processors.ByteLevel(trim_offsets=False),
            processors.TemplateProcessing(single="<|begin_of_text|> $A",
                                          pair="<|begin_of_text|> $A <|begin_of_text|> $B:1",
                                          special_tokens=[("<|begin_of_text|>", bot)])])
    else:
        tok.add_special_tokens([special("<|endoftext|>"), special("<|im_start|>"), special("<|im_end|>")])
        tok.post_processor = processors.ByteLevel(trim_offsets=False)
    return tok


def gemma(name: str) -> Tokenizer:
    trained = train_bpe(pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="never", split=True), 900,
                        limit_alphabet=110)
    specials = ["<pad>", "<eos>", "<bos>", "<unk>"]
    tok = Tokenizer(bpe_with_bytes(trained, specials, True, unk_token="<unk>", fuse_unk=True))
    tok.normalizer = normalizers.Replace(" ", "▁")
    tok.pre_tokenizer = pre_tokenizers.Split(" ", "merged_with_previous") if name == "gemma-split" else None
    tok.add_special_tokens([special(t) for t in specials] + [special("<start_of_turn>"), special("<end_of_turn>")])
    tok.post_processor = processors.TemplateProcessing(single="<bos> $A", pair="<bos> $A <bos> $B:1",
                                                       special_tokens=[("<bos>", 2)])
    tok.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse()])
    return tok


def smollm2() -> Tokenizer:
    pre = pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True),
                                   pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=True)])
    trained = train_bpe(pre, 1400, alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok = Tokenizer(bpe_with_bytes(trained, ["<|endoftext|>", "<|im_start|>", "<|im_end|>"], False))
    tok.pre_tokenizer = pre
    tok.add_special_tokens([special("<|endoftext|>"), special("<|im_start|>"), special("<|im_end|>")])
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    tok.decoder = decoders.ByteLevel()
    return tok


def unigram(name: str, charsmap: bytes) -> Tokenizer:
    specials = ["<pad>", "</s>", "<unk>"]
    if name == "unigram-bytes":
        norm = normalizers.NFKC()
        pre = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=True)
    elif name == "t5":
        norm = normalizers.Precompiled(charsmap)
        pre = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(),
                                       pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=True)])
    else:
        norm = normalizers.Sequence([normalizers.Precompiled(charsmap), normalizers.Strip(left=False, right=True),
                                     normalizers.Replace(Regex(" {2,}"), "▁")])
        pre = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=True)
    tok = Tokenizer(models.Unigram())
    tok.normalizer, tok.pre_tokenizer = norm, pre
    tok.train_from_iterator(train_lines(), trainers.UnigramTrainer(vocab_size=700, special_tokens=specials,
                                                                   unk_token="<unk>", show_progress=False,
                                                                   max_piece_length=8))
    model = json.loads(tok.to_str())["model"]
    vocab = [tuple(v) for v in model["vocab"]]
    if name == "unigram-bytes":
        vocab += [(t, -20.0) for t in BYTE_TOKENS]
    else:
        vocab += [(f"<extra_id_{i}>", 0.0) for i in range(8)]
    tok = Tokenizer(models.Unigram(vocab, unk_id=2, byte_fallback=name == "unigram-bytes"))
    tok.normalizer, tok.pre_tokenizer = norm, pre
    tok.add_special_tokens([special(t) for t in specials] +
                           ([special(f"<extra_id_{i}>") for i in range(8)] if name != "unigram-bytes" else []))
    eos = tok.token_to_id("</s>")
    tok.post_processor = processors.TemplateProcessing(single="$A </s>", pair="$A </s> $B:1 </s>:1",
                                                       special_tokens=[("</s>", eos)])
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always", split=True)
    if name == "unigram-bytes":
        tok.decoder = decoders.Sequence([decoders.Metaspace(replacement="▁", prepend_scheme="always", split=True),
                                         decoders.ByteFallback(), decoders.Fuse()])
    return tok


def roberta() -> Tokenizer:
    pre = pre_tokenizers.ByteLevel(add_prefix_space=False)
    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    trained = train_bpe(pre, 1400, alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok = Tokenizer(bpe_with_bytes(trained, specials, False))
    tok.pre_tokenizer = pre
    tok.add_special_tokens([special(t) for t in specials[:4]] + [special("<mask>", lstrip=True)])
    tok.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0), trim_offsets=True,
                                                      add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    return tok


def wordpiece_misc() -> Tokenizer:
    norm = normalizers.Sequence([normalizers.NFKD(), normalizers.StripAccents(), normalizers.Lowercase(),
                                 normalizers.Strip(left=True, right=True), normalizers.Replace("''", '"')])
    pre = pre_tokenizers.Sequence([pre_tokenizers.Punctuation("contiguous"), pre_tokenizers.Whitespace(),
                                   pre_tokenizers.Digits(individual_digits=False)])
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]", max_input_chars_per_word=24))
    tok.normalizer, tok.pre_tokenizer = norm, pre
    tok.train_from_iterator(train_lines(), trainers.WordPieceTrainer(
        vocab_size=900, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"], show_progress=False))
    vocab = json.loads(tok.to_str())["model"]["vocab"]
    # WordPiece training is not deterministic (hash order); a sorted vocabulary behind the specials is.
    ordered = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + sorted(t for t in vocab if not t.startswith("["))
    tok = Tokenizer(models.WordPiece({t: i for i, t in enumerate(ordered)}, unk_token="[UNK]",
                                     max_input_chars_per_word=24))
    tok.normalizer, tok.pre_tokenizer = norm, pre
    tok.add_special_tokens([special(t) for t in ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]] +
                           [special("[MASK]", single_word=True)])
    tok.post_processor = processors.BertProcessing(("[SEP]", 3), ("[CLS]", 2))
    tok.decoder = decoders.WordPiece(prefix="##", cleanup=True)
    return tok


def bpe_affixes() -> Tokenizer:
    pre = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(),
                                   pre_tokenizers.Split("-", "merged_with_next"),
                                   pre_tokenizers.Split(Regex(r"[.,!?]+"), "merged_with_previous"),
                                   pre_tokenizers.Split(Regex(r"\S+"), "removed", invert=True)])
    trained = train_bpe(pre, 1100, continuing_subword_prefix="##", end_of_word_suffix="</w>", unk_token="<unk>",
                        limit_alphabet=120)
    tok = Tokenizer(bpe_with_bytes(trained, ["<unk>"], False, unk_token="<unk>", fuse_unk=False,
                                   continuing_subword_prefix="##", end_of_word_suffix="</w>"))
    tok.normalizer = normalizers.Sequence([normalizers.NFC(), normalizers.Lowercase()])
    tok.pre_tokenizer = pre
    tok.add_special_tokens([special("<unk>")])
    tok.add_tokens([AddedToken("new york", normalized=True, single_word=True),
                    AddedToken("!!", normalized=False, rstrip=True)])
    tok.decoder = decoders.BPEDecoder(suffix="</w>")
    return tok


def byte_offsets(text: str, offsets) -> list[int]:
    starts = [0]
    for ch in text:
        starts.append(starts[-1] + len(ch.encode("utf-8")))
    out = []
    for a, b in offsets:
        out += [starts[a], starts[b]]
    return out


def single_rows(tok: Tokenizer, texts: list[str]) -> list:
    special_ids = {i for i, t in tok.get_added_tokens_decoder().items() if t.special}
    rows = []
    for text in texts:
        enc = tok.encode(text)
        decoded = tok.decode(enc.ids, skip_special_tokens=True)
        odd = {str(k): t for k, (t, i) in enumerate(zip(enc.tokens, enc.ids)) if t != tok.id_to_token(i)}
        rows.append([enc.ids, byte_offsets(text, enc.offsets),
                     [k for k, (m, i) in enumerate(zip(enc.special_tokens_mask, enc.ids)) if m or i in special_ids],
                     None if decoded == text else decoded, odd])
    return rows


def pair_rows(tok: Tokenizer, texts: list[str]) -> list:
    rng = random.Random(SEED)
    rows = []
    for _ in range(60):
        a, b = rng.choice(texts), rng.choice(texts)
        enc = tok.encode(a, b)
        offs = []
        for (s, e), seq in zip(enc.offsets, enc.sequence_ids):
            t = a if seq == 0 else b if seq == 1 else ""
            offs += byte_offsets(t, [(s, e)]) if seq is not None else [0, 0]
        rows.append([texts.index(a), texts.index(b), enc.ids, offs, enc.type_ids,
                     [-1 if s is None else s for s in enc.sequence_ids]])
    return rows


def truncation_rows(tok: Tokenizer, texts: list[str]) -> list:
    rng = random.Random(SEED + 1)
    rows = []
    long = [i for i, t in enumerate(texts) if len(tok.encode(t).ids) > 6]
    for _ in range(40):
        i, j = rng.choice(long), rng.choice(long) if rng.random() < 0.6 else None
        n = tok.post_processor.num_special_tokens_to_add(j is not None) if tok.post_processor else 0
        full = tok.encode(texts[i], texts[j]) if j is not None else tok.encode(texts[i])
        max_length = rng.randint(n + 1, max(n + 2, len(full.ids)))
        tok.enable_truncation(max_length)
        enc = tok.encode(texts[i], texts[j]) if j is not None else tok.encode(texts[i])
        tok.no_truncation()
        rows.append([i, -1 if j is None else j, max_length, enc.ids, len(enc.ids) < len(full.ids)])
    # Pairs of long texts under a tight limit: which sequence loses tokens depends on their full lengths (tokenizers
    # HEAD has an early exit that would rank them by lengths cut at the limit; the pinned wheel does not).
    longest = sorted(long, key=lambda k: -len(tok.encode(texts[k]).ids))[:12]
    for _ in range(20):
        i, j = rng.choice(longest), rng.choice(longest)
        n = tok.post_processor.num_special_tokens_to_add(True) if tok.post_processor else 0
        max_length = n + rng.randint(2, 12)
        full = tok.encode(texts[i], texts[j])
        tok.enable_truncation(max_length)
        enc = tok.encode(texts[i], texts[j])
        tok.no_truncation()
        rows.append([i, j, max_length, enc.ids, len(enc.ids) < len(full.ids)])
    return rows


TRANSFORMERS_CLASS = {"llama2-legacy": "LlamaTokenizerFast", "llama2-first": "LlamaTokenizerFast",
                      "gemma": "GemmaTokenizerFast", "qwen2": "Qwen2TokenizerFast", "t5": "T5TokenizerFast"}


def transformers_differences(name: str, folder: Path, tok: Tokenizer, texts: list[str], config: dict) -> dict:
    import transformers
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(folder / "tokenizer.json", tmp)
        (Path(tmp) / "tokenizer_config.json").write_text(json.dumps(config))
        auto = transformers.AutoTokenizer.from_pretrained(tmp)
        differ = {}
        for k, text in enumerate(texts):
            ids = auto(text)["input_ids"]
            if ids != tok.encode(text).ids:
                differ[str(k)] = ids
    return {"transformers": transformers.__version__, "class": type(auto).__name__, "differ": differ}


def main() -> None:
    retrain = "--retrain" in sys.argv[1:]
    texts = all_strings()
    charsmap = spm_charsmap() if retrain or not (OUT / "forms" / "t5" / "tokenizer.json").exists() else b""
    builders = {
        "llama2-legacy": lambda: llama_like("llama2-legacy"), "llama2-first": lambda: llama_like("llama2-first"),
        "mistral-always": lambda: llama_like("mistral-always"), "llama3": lambda: regex_byte_level("llama3"),
        "qwen2": lambda: regex_byte_level("qwen2"), "gemma": lambda: gemma("gemma"),
        "gemma-split": lambda: gemma("gemma-split"), "smollm2": smollm2, "t5": lambda: unigram("t5", charsmap),
        "t5-strip": lambda: unigram("t5-strip", charsmap), "unigram-bytes": lambda: unigram("unigram-bytes", charsmap),
        "roberta": roberta, "wordpiece-misc": wordpiece_misc, "bpe-affixes": bpe_affixes,
    }
    forms = {}
    for name, build in builders.items():
        folder = OUT / "forms" / name
        folder.mkdir(parents=True, exist_ok=True)
        if retrain or not (folder / "tokenizer.json").exists():
            if name.startswith("t5") and not charsmap:
                charsmap = spm_charsmap()
            build().save(str(folder / "tokenizer.json"), pretty=False)
        tok = Tokenizer.from_file(str(folder / "tokenizer.json"))  # exactly what the C++ side reads
        entry = {"single": single_rows(tok, texts), "pair": pair_rows(tok, texts),
                 "truncation": truncation_rows(tok, texts)}
        if name in TRANSFORMERS_CLASS:
            config = {"tokenizer_class": TRANSFORMERS_CLASS[name]}
            if name.startswith("llama2"):
                config.update({"legacy": name == "llama2-legacy", "add_bos_token": True, "add_eos_token": False,
                               "bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"})
            entry["known_differences"] = transformers_differences(name, folder, tok, texts, config)
        forms[name] = entry
        print(f"{name}: {len(tok.get_vocab())} tokens, "
              f"{len(entry.get('known_differences', {}).get('differ', {}))} AutoTokenizer differences")
    dump = lambda v: json.dumps(v, ensure_ascii=False, separators=(",", ":"))
    out = ['{"generator":"tools/make_tokenizer_forms.py",', f'"tokenizers_version":{dump(tokenizers.__version__)},',
           '"texts":[', ",\n".join(dump(t) for t in texts), '],', '"forms":{']
    for n, name in enumerate(forms):
        e = forms[name]
        out.append(f'{dump(name)}:{{"single":[')
        out.append(",\n".join(dump(r) for r in e["single"]))
        out.append('],"pair":[' + ",\n".join(dump(r) for r in e["pair"]) + "],")
        out.append('"truncation":[' + ",\n".join(dump(r) for r in e["truncation"]) + "]")
        if "known_differences" in e:
            out.append(',"known_differences":' + dump(e["known_differences"]))
        out.append("}" + ("," if n + 1 < len(forms) else ""))
    out.append("}}")
    (OUT / "forms.json").write_text("\n".join(out) + "\n", encoding="utf-8")
    print(f"{len(texts)} strings, {len(forms)} forms, tokenizers {tokenizers.__version__}")


if __name__ == "__main__":
    main()
