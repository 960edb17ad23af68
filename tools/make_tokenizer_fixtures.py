#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Trains AttnScope's small test tokenizers and writes their parity fixtures.

Everything here comes from Hugging Face `tokenizers` (pinned in the report / tools/requirements.txt), never from
AttnScope's own code: the C++ tests compare the engine against these files.

Writes under tests/fixtures/tokenizers/:
  bert-uncased/   WordPiece, lower-casing + accent stripping: vocab.txt, tokenizer_config.json, tokenizer.json
  bert-cased/     WordPiece, cased:                           vocab.txt, tokenizer_config.json, tokenizer.json
  gpt2-bpe/       byte-level BPE: vocab.json, merges.txt, tokenizer_config.json, tokenizer.json
  variants.json   more tokenizer.json forms as changes to those files: a Sequence normalizer, merges as legacy
                  "a b" strings, add_prefix_space + trim_offsets, RobertaProcessing with an lstrip added token
  expected.json   for every tokenizer form: the encoding of every test string (ids, byte offsets, special flags)
                  and its decoding

Offsets in expected.json are BYTE offsets into the UTF-8 text (HF Python reports character offsets; they are
converted here). Each row is [ids, offsets, special, decoded]: offsets flattened [begin0, end0, begin1, ...];
special lists the positions of special tokens (those the post-processor added and special added tokens found in the
text); decoded is decode(ids, skip_special_tokens=True), null where it equals the text; an optional fifth element maps
positions to Hugging Face's token string where it is not the vocabulary's.
The forms of newer model families are tools/make_tokenizer_forms.py's.

Training happens only with --retrain (or when a tokenizer is missing): WordPiece training in tokenizers is not
deterministic (the order of its "##" alphabet comes from a hash set), so the committed vocabularies are the
reference and a plain run only rewrites the derived forms and expected.json, which are deterministic.

Usage: tools/.venv/bin/python tools/make_tokenizer_fixtures.py [--retrain]
"""

import json
import random
import unicodedata
from pathlib import Path

import tokenizers
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "tokenizers"
SEED = 1234

WORDS = """the a an of to in is was it for on with as at by from this that be are were his her they we you
he she not but or all can had one there their what so up out if about who get which go me when make like time
no just him know take people into year your good some could them see other than then now look only come its
over think also back after use two how our work first well way even new want because any these give day most
attention model token head layer query key value softmax weight matrix mask causal bidirectional position
embedding transformer encoder decoder sequence vector gradient train learn loss batch tensor kernel memory
running jumped happily unbelievable tokenization international understanding preprocessing reconstructed
café naïve résumé façade jalapeño Zürich São Paulo Ångström crème brûlée déjà vu Björk Dvořák Łódź Škoda
Straße Müller über groß Fußball señor niño mañana coração ação português français español
Москва привет мир Ελλάδα καλημέρα σοφία 東京 中文 日本語 漢字 学生 北京大学 한국어 안녕하세요 서울
مرحبا שלום नमस्ते हिन्दी ไทย
Hello World OpenAI BERT GPT iPhone McDonald eBay NASA UNESCO JavaScript CamelCase snake_case
don't can't won't it's I'm you're we've they'll she'd O'Brien rock'n'roll
1 2 3 42 100 2024 3.14 1,000 10% $5 €20 £3 ¥100 #1 @user 1st 2nd 3rd 50km 9am
""".split()
PUNCT = list(".,;:!?-()[]{}\"'/\\*&^%$#@~`|<>+=_…—–«»¿¡·")
EMOJI = ["😀", "🙂", "🚀", "👍", "❤️", "🎉", "🐍", "👩‍💻", "👍🏽", "🇫🇷", "🥰"]


def corpus(n_lines: int) -> list[str]:
    rng = random.Random(SEED)
    lines = []
    for _ in range(n_lines):
        parts = []
        for _ in range(rng.randint(4, 16)):
            r = rng.random()
            w = rng.choice(WORDS)
            if r < 0.10:
                w = w.upper()
            elif r < 0.25:
                w = w.capitalize()
            parts.append(w)
            if rng.random() < 0.15:
                parts.append(rng.choice(PUNCT))
            if rng.random() < 0.03:
                parts.append(rng.choice(EMOJI))
        sep = rng.choice([" ", " ", " ", "  ", "\t", "\n"])
        lines.append(sep.join(parts) + rng.choice([".", "!", "?", "", "\n"]))
    return lines


SPECIAL_WP = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def train_wordpiece(lines, lowercase: bool, template: bool) -> Tokenizer:
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]", max_input_chars_per_word=100))
    tok.normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=None,
                                                lowercase=lowercase)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.WordPieceTrainer(vocab_size=1500, special_tokens=SPECIAL_WP)
    tok.train_from_iterator(lines, trainer)
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    if template:
        tok.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
                                                           special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
    else:
        tok.post_processor = processors.BertProcessing(("[SEP]", sep), ("[CLS]", cls))
    tok.decoder = decoders.WordPiece(prefix="##")
    return tok


def train_bpe(lines) -> Tokenizer:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(vocab_size=1800, special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(lines, trainer)
    return tok


def write_json(path: Path, obj) -> None:
    path.write_text(json.dumps(obj, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def save_wordpiece(tok: Tokenizer, folder: Path, lowercase: bool) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    tok.save(str(folder / "tokenizer.json"), pretty=False)
    tok.model.save(str(folder))  # vocab.txt
    write_json(folder / "tokenizer_config.json", {
        "tokenizer_class": "BertTokenizer", "do_lower_case": lowercase, "strip_accents": None,
        "tokenize_chinese_chars": True, "unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]",
        "cls_token": "[CLS]", "mask_token": "[MASK]", "model_max_length": 512})


def save_bpe(tok: Tokenizer, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    tok.save(str(folder / "tokenizer.json"), pretty=False)
    tok.model.save(str(folder))  # vocab.json, merges.txt
    write_json(folder / "tokenizer_config.json", {
        "tokenizer_class": "GPT2Tokenizer", "add_prefix_space": False, "bos_token": "<|endoftext|>",
        "eos_token": "<|endoftext|>", "unk_token": "<|endoftext|>", "model_max_length": 1024})


# Other tokenizer.json forms of the same models, stored as changes to the base file (tests/fixtures/tokenizers/
# variants.json) rather than as copies: top-level fields replaced, and optionally the merges written the legacy
# way ("a b" strings instead of pairs). tst_tokenizer applies them the same way.
def variants(gpt2_added: list) -> dict:
    lstrip_added = [dict(t, lstrip=True) for t in gpt2_added]
    return {
        "bert-uncased/tokenizer_sequence": {
            "base": "bert-uncased", "expected": "bert-uncased/tokenizer_sequence",
            "replace": {"normalizer": {"type": "Sequence", "normalizers": [
                {"type": "NFD"}, {"type": "Lowercase"}, {"type": "StripAccents"}]}}},
        "gpt2-bpe/tokenizer_merge_strings": {
            "base": "gpt2-bpe", "expected": "gpt2-bpe/tokenizer", "merges_as_strings": True, "replace": {}},
        "gpt2-bpe/tokenizer_prefix_trim": {
            "base": "gpt2-bpe", "expected": "gpt2-bpe/tokenizer_prefix_trim",
            "replace": {"pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                                          "use_regex": True},
                        "post_processor": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                                           "use_regex": True}}},
        # RoBERTa-style framing with <|endoftext|> as <s> and </s>; the token also takes the whitespace on its left.
        "gpt2-bpe/tokenizer_roberta": {
            "base": "gpt2-bpe", "expected": "gpt2-bpe/tokenizer_roberta",
            "replace": {"post_processor": {"type": "RobertaProcessing", "sep": ["<|endoftext|>", 0],
                                           "cls": ["<|endoftext|>", 0], "trim_offsets": True,
                                           "add_prefix_space": False},
                        "added_tokens": lstrip_added}},
    }


def apply_variant(variant: dict) -> Tokenizer:
    spec = json.loads((OUT / variant["base"] / "tokenizer.json").read_text(encoding="utf-8"))
    spec.update(variant["replace"])
    if variant.get("merges_as_strings"):
        spec["model"]["merges"] = [m if isinstance(m, str) else " ".join(m) for m in spec["model"]["merges"]]
    return Tokenizer.from_str(json.dumps(spec))


def test_strings() -> list[str]:
    fixed = [
        "", " ", "   ", "\t", "\n", "\r\n", " \t \n ", "a", "A", "hello", "Hello, world!", "Hello world's café",
        "Hello world's  café 123!!  ünïcode\n", "x!\u00a0y\u3000z \u2003!", "a\t\tb", "a  b", "a   b   ", "  leading",
        "trailing  ", "tabs\tand\nnewlines\r\nmixed", "multiple\n\n\nnewlines", "word\u00a0nbsp", "ideographic\u3000space",
        # accents and case
        "café", "CAFÉ", "Café", "cafe\u0301", "CAFE\u0301", "naïve résumé", "NAÏVE RÉSUMÉ", "façade", "jalapeño",
        "Zürich", "São Paulo", "Ångström", "crème brûlée", "déjà vu", "Björk", "Dvořák", "Łódź", "Škoda",
        "Straße", "STRASSE", "ẞ", "İstanbul", "ı", "ΑΣ ας", "Σίσυφος", "ǅ ǆ Ǆ", "ﬁ ﬂ", "Ⅻ", "K Å",
        "MiXeD CaSe WoRdS", "iPhone McDonald eBay", "HELLO WORLD", "hElLo WoRlD",
        # combining characters
        "e\u0301\u0302", "a\u0308\u0301", "o\u0323\u0302", "\u0301", "\u0301abc", "x\u20dd", "a\u0338",
        "Z\u0351\u0308\u034c\u0310a\u0308\u033flgo", "\u1e09", "\u1e0b\u0323", "\u0958", "q\u0307\u0323",
        # punctuation and symbols
        "!", "...", "?!?!", "Hello...world", "(parentheses)", "[brackets]", "{braces}", "\"quotes\"", "'single'",
        "don't", "can't won't", "it's I'm you're", "we've they'll she'd", "O'Brien", "rock'n'roll", "'s 't 're",
        "IT'S DON'T", "''s", "'", "' s", "a-b_c", "snake_case_name", "e-mail", "a/b\\c", "x*y&z^w", "50%",
        "$5.00", "€20", "£3", "¥100", "#hashtag", "@user", "user@example.com", "https://example.com/path?q=1",
        "a+b=c", "<tag>", "~tilde~", "`code`", "|pipe|", "…", "—dash–", "«guillemets»", "¿Qué?", "¡Hola!",
        "·middle·dot", "§1", "©2024", "®™", "°C", "±1", "×÷", "∑∫√", "→←↑↓", "★☆", "♠♥", "„Zitat“",
        # numbers
        "0", "42", "3.14", "1,000,000", "2024-01-01", "12:30", "1st 2nd 3rd", "50km", "9am", "007", "1e10",
        "٣٤٥", "०१२", "①②③", "½ ¾", "²³", "１２３", "123abc456", "abc123def",
        # emoji
        "😀", "🙂🙂🙂", "I ❤️ NY", "🚀 launch", "👍🏽", "👩‍💻", "🇫🇷🇩🇪", "🥰🫠", "emoji😀inside", "😀!", "#️⃣",
        # CJK and other scripts
        "東京", "中文", "日本語のテキスト", "漢字かな交じり文", "北京大学的学生", "한국어", "안녕하세요 세계", "서울",
        "Москва", "Привет, мир!", "Ελλάδα", "καλημέρα", "مرحبا بالعالم", "שלום עולם", "नमस्ते", "हिन्दी",
        "ไทย", "中文English混合", "tokyo東京tokyo", "𠀀𠀁", "\U0002a700", "カタカナ", "ｶﾀｶﾅ", "ㄅㄆㄇ",
        # controls and format characters
        "a\u0000b", "a\ufffdb", "a\u200bb", "a\u200db", "a\u0007b", "a\u000bb\u000cc", "a\u0085b", "a\u00adb",
        "\ufeffbom", "a\ue000b", "a\u2028b\u2029c", "a\u0378b", "\u001b[31mred\u001b[0m",
        # where Hugging Face's Unicode data is older than ours, or its CJK ranges differ from Google's BERT
        "a\U0001e944b", "a\U00011a01b", "a\u2e53b", "a\u0890b", "a\U0001da00b", "\U0002b8ce\U0002b920x",
        "<|endoftext|>\uac14K", "ab<|endoftext|>  \uac14",
        # special tokens in text
        "[CLS]", "[SEP]", "[MASK]", "[PAD]", "[UNK]", "the [MASK] sat", "[mask]", "[MASK][MASK]", "x[MASK]y",
        "<|endoftext|>", "a<|endoftext|>b", "<|endoftext|> <|endoftext|>", "<|endoftext|",
        # long words
        "a" * 99, "b" * 100, "c" * 101, "supercalifragilisticexpialidocious", "antidisestablishmentarianism",
        "x" * 300, "é" * 101, "pneumonoultramicroscopicsilicovolcanoconiosis" * 3,
        "the " * 60, "ab" * 120, "😀" * 30, "東" * 40,
    ]
    # Generated sentences from the training vocabulary, with random case, spacing and punctuation.
    rng = random.Random(SEED + 1)
    spaces = [" ", " ", " ", "  ", "\t", "\n", " \n ", "\u00a0"]
    generated = []
    for _ in range(90):
        parts = []
        for _ in range(rng.randint(1, 12)):
            w = rng.choice(WORDS)
            r = rng.random()
            if r < 0.15:
                w = w.upper()
            elif r < 0.3:
                w = w.capitalize()
            elif r < 0.35:
                w = unicodedata.normalize("NFD", w)
            parts.append(w)
            if rng.random() < 0.2:
                parts.append(rng.choice(PUNCT) * rng.randint(1, 3))
            if rng.random() < 0.05:
                parts.append(rng.choice(EMOJI))
        text = ""
        for p in parts:
            text += p + (rng.choice(spaces) if rng.random() < 0.8 else "")
        generated.append(text)
    return fixed + generated


def byte_offsets(text: str, offsets) -> list[list[int]]:
    starts = [0]
    for ch in text:
        starts.append(starts[-1] + len(ch.encode("utf-8")))
    return [[starts[a], starts[b]] for a, b in offsets]


def expectations(tok: Tokenizer, texts: list[str]) -> list[dict]:
    special_ids = {i for i, t in tok.get_added_tokens_decoder().items() if t.special}
    rows = []
    for text in texts:
        enc = tok.encode(text)
        decoded = tok.decode(enc.ids, skip_special_tokens=True)
        row = [
            enc.ids,
            [x for pair in byte_offsets(text, enc.offsets) for x in pair],
            [k for k, (m, i) in enumerate(zip(enc.special_tokens_mask, enc.ids)) if m or i in special_ids],
            None if decoded == text else decoded,
        ]
        # Hugging Face's token strings where they are not the vocabulary's (an lstrip added token keeps its spaces).
        odd = {str(k): t for k, (t, i) in enumerate(zip(enc.tokens, enc.ids)) if t != tok.id_to_token(i)}
        if odd:
            row.append(odd)
        rows.append(row)
    return rows


def write_expected(path: Path, texts: list[str], results: dict) -> None:
    """One JSON value per line, so that the file stays small and a diff shows which string changed."""
    dump = lambda v: json.dumps(v, ensure_ascii=False, separators=(",", ":"))
    out = ['{"generator":"tools/make_tokenizer_fixtures.py",',
           f'"tokenizers_version":{dump(tokenizers.__version__)},',
           '"rows":"[ids, byte offsets flattened [begin0,end0,...], positions of special tokens, decoded or null if '
           'equal to the text]",',
           '"texts":[', ",\n".join(dump(t) for t in texts), '],', '"tokenizers":{']
    names = list(results)
    for n, name in enumerate(names):
        out.append(f'{dump(name)}:[')
        out.append(",\n".join(dump(r) for r in results[name]))
        out.append("]" + ("," if n + 1 < len(names) else ""))
    out.append("}}")
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


def check_legacy_forms(name: str, folder: Path, texts: list[str], reference: Tokenizer) -> None:
    """The legacy files, loaded by HF's own implementations, must give the same ids as tokenizer.json."""
    from tokenizers.implementations import BertWordPieceTokenizer, ByteLevelBPETokenizer
    if (folder / "vocab.txt").exists():
        lower = json.loads((folder / "tokenizer_config.json").read_text())["do_lower_case"]
        legacy = BertWordPieceTokenizer(str(folder / "vocab.txt"), lowercase=lower, strip_accents=None)
    else:
        legacy = ByteLevelBPETokenizer(str(folder / "vocab.json"), str(folder / "merges.txt"))
        legacy.add_special_tokens(["<|endoftext|>"])
    for text in texts:
        a, b = legacy.encode(text), reference.encode(text)
        assert a.ids == b.ids and a.offsets == b.offsets, (name, text, a.tokens, b.tokens)


def check_transformers(texts: list[str], forms: dict) -> None:
    """When transformers is installed: AutoTokenizer on a copy of each folder without tokenizer.json (so it reads
    the legacy files and tokenizer_config.json) agrees with tokenizer.json."""
    try:
        import shutil
        import tempfile
        import transformers
    except ImportError:
        print("transformers not installed: legacy files checked with tokenizers only")
        return
    legacy_files = {"bert-uncased": ["vocab.txt"], "bert-cased": ["vocab.txt"],
                    "gpt2-bpe": ["vocab.json", "merges.txt"]}
    for name, files in legacy_files.items():
        with tempfile.TemporaryDirectory() as tmp:
            for f in files + ["tokenizer_config.json"]:
                shutil.copy(OUT / name / f, tmp)
            auto = transformers.AutoTokenizer.from_pretrained(tmp)
            reference = forms[name if name != "gpt2-bpe" else "gpt2-bpe/tokenizer"]
            for text in texts:
                assert auto(text)["input_ids"] == reference.encode(text).ids, (name, text)
        print(f"transformers {transformers.__version__} AutoTokenizer on the legacy files of {name}: exact")


def main() -> None:
    import argparse
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--retrain", action="store_true",
                        help="train new tokenizers (WordPiece training is not deterministic: new vocabularies)")
    args = parser.parse_args()
    texts = test_strings()
    names = ("bert-uncased", "bert-cased", "gpt2-bpe")
    retrain = args.retrain or not all((OUT / n / "tokenizer.json").exists() for n in names)
    if retrain:
        lines = corpus(3000)
        for name, lower, template in (("bert-uncased", True, False), ("bert-cased", False, True)):
            save_wordpiece(train_wordpiece(lines, lower, template), OUT / name, lower)
        save_bpe(train_bpe(lines), OUT / "gpt2-bpe")
    gpt2_added = json.loads((OUT / "gpt2-bpe" / "tokenizer.json").read_text(encoding="utf-8"))["added_tokens"]
    all_variants = variants(gpt2_added)
    write_json(OUT / "variants.json", all_variants)

    forms = {}
    for name in ("bert-uncased", "bert-cased"):
        forms[name] = Tokenizer.from_file(str(OUT / name / "tokenizer.json"))
        check_legacy_forms(name, OUT / name, texts, forms[name])
    forms["gpt2-bpe/tokenizer"] = Tokenizer.from_file(str(OUT / "gpt2-bpe" / "tokenizer.json"))
    for name, variant in all_variants.items():
        tok = apply_variant(variant)
        if variant["expected"] == name:
            forms[name] = tok
        else:  # must agree with the form it names
            for text in texts:
                assert tok.encode(text).ids == forms[variant["expected"]].encode(text).ids, (name, text)
    check_legacy_forms("gpt2-bpe", OUT / "gpt2-bpe", texts, forms["gpt2-bpe/tokenizer"])
    check_transformers(texts, forms)

    write_expected(OUT / "expected.json", texts, {name: expectations(tok, texts) for name, tok in forms.items()})
    print(f"{len(texts)} strings, {len(forms)} tokenizer forms, tokenizers {tokenizers.__version__}"
          f"{' (retrained)' if retrain else ''}")


if __name__ == "__main__":
    main()
