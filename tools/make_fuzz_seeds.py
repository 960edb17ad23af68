#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes the committed seed corpora of the libFuzzer targets (tests/fuzz/corpus/<target>/) and the hand-made
hostile inputs among their regression inputs (tests/fuzz/regressions/<target>/issue14-*; inputs the fuzzers found
are copied there by hand as found-*, and the large ones are written at test time by tests/fuzz/make_inputs.cpp).

Seeds are small on purpose (a fuzzer mutates every byte of them): tiny GPT-2 and BERT checkpoints (width 8, one
layer, a 16-token vocabulary) in the archive form of tests/fuzz/fuzz_support.h, shrunken copies of the fixture
tokenizers, the fixture configs, sessions and the bundled lessons. Standard library only; deterministic (same bytes
on every run), so a regenerated corpus diffs cleanly.

    python3 tools/make_fuzz_seeds.py            # rewrites tests/fuzz/corpus/ and regressions/*/issue14-*
"""
import json
import random
import shutil
import struct
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
CORPUS = TESTS / "fuzz" / "corpus"
MARKER = b"\0FILE:"


def archive(files):
    """The multi-file input of fuzz_support.h: each file behind "\\0FILE:NAME\\n"."""
    out = b""
    for name, content in files:
        out += MARKER + name.encode() + b"\n" + (content if isinstance(content, bytes) else content.encode())
    return out


def f16(x):
    return struct.pack("<e", x)


def bf16(x):
    return struct.pack("<f", x)[2:]


def safetensors(tensors, metadata=None):
    """tensors: list of (name, dtype, shape, values). Written like the reference writer: header padded to 8."""
    header, data = {}, b""
    for name, dtype, shape, values in tensors:
        if dtype == "F32":
            raw = b"".join(struct.pack("<f", v) for v in values)
        elif dtype == "F16":
            raw = b"".join(f16(v) for v in values)
        elif dtype == "BF16":
            raw = b"".join(bf16(v) for v in values)
        elif dtype in ("U8", "BOOL"):
            raw = bytes(int(v) & 0xFF for v in values)
        else:
            raise ValueError(dtype)
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    if metadata is not None:
        header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def weights(rng, named_shapes, dtype="F32"):
    out = []
    for name, shape in named_shapes:
        if name.endswith("ln_1.weight") or name.endswith("ln_2.weight") or name.endswith("LayerNorm.weight") or \
                name == "ln_f.weight":
            values = [1.0] * numel(shape)
        else:
            values = [round(rng.uniform(-0.5, 0.5), 3) for _ in range(numel(shape))]
        out.append((name, dtype, shape, values))
    return out


V, D, H, I, P = 16, 8, 2, 16, 8   # vocabulary, width, heads, MLP width, positions


def gpt2_config(**extra):
    c = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "vocab_size": V, "n_embd": D, "n_head": H,
         "n_layer": 1, "n_positions": P, "n_inner": I, "activation_function": "gelu_new",
         "layer_norm_epsilon": 1e-5, "bos_token_id": 0, "eos_token_id": 0}
    c.update(extra)
    return json.dumps(c, indent=1)


def gpt2_tensors():
    return [("wte.weight", [V, D]), ("wpe.weight", [P, D]),
            ("h.0.ln_1.weight", [D]), ("h.0.ln_1.bias", [D]),
            ("h.0.attn.c_attn.weight", [D, 3 * D]), ("h.0.attn.c_attn.bias", [3 * D]),
            ("h.0.attn.c_proj.weight", [D, D]), ("h.0.attn.c_proj.bias", [D]),
            ("h.0.ln_2.weight", [D]), ("h.0.ln_2.bias", [D]),
            ("h.0.mlp.c_fc.weight", [D, I]), ("h.0.mlp.c_fc.bias", [I]),
            ("h.0.mlp.c_proj.weight", [I, D]), ("h.0.mlp.c_proj.bias", [D]),
            ("ln_f.weight", [D]), ("ln_f.bias", [D])]


def bert_config(arch, **extra):
    c = {"model_type": "bert", "architectures": [arch], "vocab_size": V, "hidden_size": D,
         "num_attention_heads": H, "num_hidden_layers": 1, "intermediate_size": I, "max_position_embeddings": P,
         "type_vocab_size": 2, "hidden_act": "gelu", "layer_norm_eps": 1e-12, "pad_token_id": 0}
    c.update(extra)
    return json.dumps(c, indent=1)


def bert_tensors(head):
    t = [("bert.embeddings.word_embeddings.weight", [V, D]), ("bert.embeddings.position_embeddings.weight", [P, D]),
         ("bert.embeddings.token_type_embeddings.weight", [2, D]),
         ("bert.embeddings.LayerNorm.weight", [D]), ("bert.embeddings.LayerNorm.bias", [D])]
    p = "bert.encoder.layer.0."
    for part in ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"):
        t += [(p + part + ".weight", [D, D]), (p + part + ".bias", [D])]
    t += [(p + "attention.output.LayerNorm.weight", [D]), (p + "attention.output.LayerNorm.bias", [D]),
          (p + "intermediate.dense.weight", [I, D]), (p + "intermediate.dense.bias", [I]),
          (p + "output.dense.weight", [D, I]), (p + "output.dense.bias", [D]),
          (p + "output.LayerNorm.weight", [D]), (p + "output.LayerNorm.bias", [D])]
    if head == "mlm":
        t += [("cls.predictions.transform.dense.weight", [D, D]), ("cls.predictions.transform.dense.bias", [D]),
              ("cls.predictions.transform.LayerNorm.weight", [D]), ("cls.predictions.transform.LayerNorm.bias", [D]),
              ("cls.predictions.bias", [V])]
    if head == "cls":
        t += [("bert.pooler.dense.weight", [D, D]), ("bert.pooler.dense.bias", [D]),
              ("classifier.weight", [3, D]), ("classifier.bias", [3])]
    return t


WORDPIECE_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "plot", "was", "excel", "##lent", "a", "b",
                   ",", ".", "!", "##s"]


def wordpiece_tokenizer_json():
    return json.dumps({
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True} for i, t in enumerate(WORDPIECE_VOCAB[:5])],
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {"type": "TemplateProcessing",
                           "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                                      {"Sequence": {"id": "A", "type_id": 0}},
                                      {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
                           "pair": [], "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]},
                                                          "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}}},
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": {t: i for i, t in enumerate(WORDPIECE_VOCAB)}},
    }, separators=(",", ":"))


def shrink_bpe(tokenizer, keep_merges):
    """The fixture's byte-level BPE with its byte alphabet, the first merges and the tokens they make."""
    model = tokenizer["model"]
    merges = model["merges"][:keep_merges]
    keep = {t for t, i in model["vocab"].items() if i < 257}
    for a, b in merges:
        keep.add(a + b)
    order = sorted(keep, key=lambda t: model["vocab"][t])
    model["vocab"] = {t: i for i, t in enumerate(order)}
    model["merges"] = merges
    for t in tokenizer["added_tokens"]:
        t["id"] = model["vocab"][t["content"]]
    return tokenizer


def shrink_wordpiece(tokenizer, keep):
    model = tokenizer["model"]
    vocab = {t: i for t, i in model["vocab"].items() if i < keep}
    for t in tokenizer["added_tokens"]:
        vocab.setdefault(t["content"], t["id"])
    model["vocab"] = vocab
    tokenizer["added_tokens"] = [t for t in tokenizer["added_tokens"] if t["id"] < keep]
    pp = tokenizer.get("post_processor")
    if pp and pp.get("type") == "TemplateProcessing":
        for st in pp.get("special_tokens", {}).values():
            st["ids"] = [vocab.get(st["id"], 0)]
    return tokenizer


def write(target, name, content):
    path = CORPUS / target / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content if isinstance(content, bytes) else content.encode())


def main():
    if CORPUS.exists():
        shutil.rmtree(CORPUS)
    rng = random.Random(14)

    # safetensors: every readable dtype, a scalar, an empty tensor, metadata, a skipped mask buffer.
    write("safetensors", "f32-matrix", safetensors([("w", "F32", [2, 3], [0.5, -1, 2, 3.25, 0, -0.125])]))
    write("safetensors", "mixed-dtypes", safetensors(
        [("half", "F16", [3], [1.0, -2.5, 65504.0]), ("brain", "BF16", [2, 2], [1.0, -0.5, 3.0, 1e-3]),
         ("scalar", "F32", [], [7.0]), ("empty", "F32", [0, 4], []), ("mask", "U8", [4], [1, 0, 1, 1]),
         ("flag", "BOOL", [2], [1, 0])], metadata={"format": "pt"}))
    write("safetensors", "gpt2-tiny", safetensors(weights(rng, gpt2_tensors())))

    # config.json: the fixture and sample-model configs as transformers wrote them, and the tiny seeds' configs.
    for folder in sorted((TESTS / "fixtures" / "models").iterdir()):
        if (folder / "config.json").exists():
            write("config", folder.name, (folder / "config.json").read_bytes())
    for folder in sorted((ROOT / "sample_models").iterdir()):
        if (folder / "config.json").exists():
            write("config", "sample-" + folder.name, (folder / "config.json").read_bytes())
    write("config", "gpt2-tiny", gpt2_config())
    write("config", "bert-cls-tiny", bert_config("BertForSequenceClassification",
                                                 id2label={"0": "NEG", "1": "NEU", "2": "POS"}))

    # model folders (archives): GPT-2 (F32, with a tokenizer), BERT MLM (F16) and classifier (BF16), sharded GPT-2.
    gpt2 = safetensors(weights(rng, gpt2_tensors()))
    write("model", "gpt2-tiny", archive([("config.json", gpt2_config()), ("model.safetensors", gpt2)]))
    write("model", "bert-mlm-tiny", archive([
        ("config.json", bert_config("BertForMaskedLM")),
        ("model.safetensors", safetensors(weights(rng, bert_tensors("mlm"), "F16"))),
        ("tokenizer.json", wordpiece_tokenizer_json())]))
    write("model", "bert-cls-tiny", archive([
        ("config.json", bert_config("BertForSequenceClassification", id2label={"0": "NEG", "1": "NEU", "2": "POS"})),
        ("model.safetensors", safetensors(weights(rng, bert_tensors("cls"), "BF16"))),
        ("vocab.txt", "\n".join(WORDPIECE_VOCAB) + "\n")]))
    shards = gpt2_tensors()
    first, second = shards[:8], shards[8:]
    shard1 = safetensors(weights(rng, first))
    shard2 = safetensors(weights(rng, second))
    index = {"metadata": {"total_size": len(shard1) + len(shard2)},
             "weight_map": {n: "model-00001-of-00002.safetensors" for n, _ in first} |
                           {n: "model-00002-of-00002.safetensors" for n, _ in second}}
    index_text = json.dumps(index, indent=1)
    write("model", "gpt2-sharded", archive([
        ("config.json", gpt2_config()), ("model.safetensors.index.json", index_text),
        ("model-00001-of-00002.safetensors", shard1), ("model-00002-of-00002.safetensors", shard2)]))
    write("safetensors_index", "gpt2-sharded", index_text)
    write("safetensors_index", "one-shard-named", json.dumps({"weight_map": {"wte.weight": "model-00001-of-00002.safetensors"}}))

    # synthetic specs.
    for i, spec in enumerate(["random:layers=2,heads=4,d_model=64,seed=7", "random:heads=2,d_model=8,pe=rope,causal=1",
                              "random:layers=1,heads=1,d_model=4,vocab=3,pe=alibi", "random:pe=sinusoidal,seed=0"]):
        write("synthetic", f"spec-{i}", spec)

    # tokenizer.json: shrunken fixtures (WordPiece uncased and cased, byte-level BPE) and the tiny one.
    fixtures = TESTS / "fixtures" / "tokenizers"
    write("tokenizer_json", "bert-uncased-small", json.dumps(
        shrink_wordpiece(json.loads((fixtures / "bert-uncased" / "tokenizer.json").read_text()), 120),
        separators=(",", ":")))
    write("tokenizer_json", "bert-cased-small", json.dumps(
        shrink_wordpiece(json.loads((fixtures / "bert-cased" / "tokenizer.json").read_text()), 120),
        separators=(",", ":")))
    bpe = shrink_bpe(json.loads((fixtures / "gpt2-bpe" / "tokenizer.json").read_text()), 40)
    write("tokenizer_json", "gpt2-bpe-small", json.dumps(bpe, separators=(",", ":"), ensure_ascii=False))
    write("tokenizer_json", "wordpiece-tiny", wordpiece_tokenizer_json())

    # legacy files (archives): vocab.txt with its config; vocab.json + merges.txt with config and special tokens.
    vocab_txt = "\n".join(WORDPIECE_VOCAB) + "\n"
    write("tokenizer_legacy", "vocab-txt", archive([
        ("vocab.txt", vocab_txt),
        ("tokenizer_config.json", (fixtures / "bert-uncased" / "tokenizer_config.json").read_text())]))
    bpe_vocab = json.dumps(bpe["model"]["vocab"], ensure_ascii=False, separators=(",", ":"))
    merges = "#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in bpe["model"]["merges"])
    write("tokenizer_legacy", "vocab-json-merges", archive([
        ("vocab.json", bpe_vocab), ("merges.txt", merges),
        ("tokenizer_config.json", (fixtures / "gpt2-bpe" / "tokenizer_config.json").read_text()),
        ("special_tokens_map.json", json.dumps({"bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>",
                                                "unk_token": "<|endoftext|>"}))]))

    # encode: a selector byte + text for the fixture tokenizers, and the tokenizer.json NUL text form.
    texts = ["Hello, world! the plot was excellent", "caf\u00e9 na\u00efve \u4e2d\u6587 \U0001F600",
             "[CLS] the [MASK] was <|endoftext|> good [SEP]", "  multiple   spaces\tand\nnewlines  ",
             "don't you're I'm 123 4.5", "\u0301\u0300 combining marks"]
    for i, text in enumerate(texts):
        write("encode", f"text-{i}", bytes([i]) + text.encode())
    write("encode", "tokenizer-and-text", wordpiece_tokenizer_json().encode() + b"\0" + "the plot was excellent".encode())

    # sessions: the documented example and a fuller one; lessons: the bundled ones.
    write("session", "documented", json.dumps({
        "current_workspace": "explore", "format": "attnscope-session", "model": "sample:induction-gpt2",
        "settings": {"backend": "auto", "color_map": "viridis", "theme": "light"}, "text": "a b c d a b c d",
        "version": 1, "workspaces": {"explore": {"head": 2, "layer": 1, "raw": False, "tab": "head"}}}, indent=4))
    write("session", "minimal", '{"format":"attnscope-session","version":1,"model":"","text":""}')
    write("session", "every-workspace", json.dumps({
        "format": "attnscope-session", "version": 1, "model": "random:layers=2,heads=4,d_model=64,seed=7",
        "text": "hello world", "settings": {"backend": "reference", "color_map": "cividis", "theme": "dark"},
        "current_workspace": "faithfulness",
        "workspaces": {"pipeline": {"layer": 0, "head": 3}, "masks": {"kind": "window", "window": 2},
                       "faithfulness": {"target_class": 1, "permutations": 100}, "compare": {"heads": [[0, 1]]}}}))
    for lesson in sorted((ROOT / "resources" / "lessons").glob("*.json")):
        write("lesson", lesson.stem, lesson.read_bytes())

    # datasets (fuzz_dataset.cpp: byte 0 picks the reader): JSONL, CSV, TSV, rationales.json, a results line,
    # CSV behind a column mapping.
    jsonl = ('{"text": "the lousy actor found the dog", "label": "negative", "rationale": [[4, 9]]}\n'
             '{"text": "their seat looked beautiful", "label": 1, "rationale_tokens": [4], "id": "b"}\n\n'
             '{"text": "a wonderful and horrible plot", "target": "class:0"}\n'
             '{"text": "it is a cast", "label": 0, "id": 17, "text_pair": "a plot"}\n')
    write("dataset", "jsonl", b"\0" + jsonl.encode())
    write("dataset", "csv", b"\1" + b'text,label,rationale\n"the lousy actor, again",0,4:9\nthe dog,1,\n')
    write("dataset", "tsv", b"\2" + b"text\tlabel\trationale_tokens\nthe lousy actor\tnegative\t1 2\n")
    sample = json.loads((ROOT / "sample_models" / "rationale-bert" / "rationales.json").read_text())
    sample["examples"] = sample["examples"][:2]
    write("dataset", "rationales", b"\3" + json.dumps(sample, separators=(",", ":")).encode())
    write("dataset", "results-line", b"\4" + json.dumps({
        "index": 3, "id": "b", "seed": 12345, "tokens": 7, "scored_tokens": 5, "label": 1, "predicted": 1,
        "target": {"kind": "predicted", "unit": "class", "index": 1, "score": 0.75}, "rationale_tokens": [2, 3],
        "metrics": {"aopc_comprehensiveness": {"attention": 0.25, "random": 0.125}},
        "details": {"skipped": [], "forward_passes": 12}, "seconds": 0.5, "threads": 1}).encode())
    write("dataset", "csv-mapped", b"\5" + b"text=review,label=y\nreview,y\nthe plot was excellent,1\n")


def regression(target, name, content):
    path = ROOT / "tests" / "fuzz" / "regressions" / target / ("issue14-" + name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content if isinstance(content, bytes) else content.encode())


def raw_safetensors(header_bytes, data=b"", length=None):
    return struct.pack("<Q", len(header_bytes) if length is None else length) + header_bytes + data


def write_regressions():
    rng = random.Random(1414)
    for old in (ROOT / "tests" / "fuzz" / "regressions").glob("*/issue14-*"):
        old.unlink()
    gpt2 = safetensors(weights(rng, gpt2_tensors()))
    bert_cls = safetensors(weights(rng, bert_tensors("cls")))

    # config.json (issue 14, "Limits"): sizes whose memory or arithmetic was never checked, non-finite numbers.
    bert_no_labels = json.loads(bert_config("BertForSequenceClassification"))
    for name, value in [("num_labels-9e18", 9e18), ("num_labels-int-9e18", 9 * 10**18)]:
        regression("config", name, json.dumps(bert_no_labels | {"num_labels": value}))
        regression("model", name, archive([("config.json", json.dumps(bert_no_labels | {"num_labels": value})),
                                           ("model.safetensors", bert_cls)]))
    for name, extra in [("n_layer-1e15", {"n_layer": 10**15}), ("n_layer-float-1e15", {"n_layer": 1e15}),
                        ("n_embd-times-4-overflows", {"n_embd": 2**61, "n_head": 1, "n_inner": None}),
                        ("n_embd-2e62-no-n_inner", {"n_embd": 2**62, "n_head": 2**61, "n_inner": None}),
                        ("vocab_size-2e62", {"vocab_size": 2**62}),
                        ("n_positions-2e62", {"n_positions": 2**62}),
                        ("n_inner-2e62", {"n_inner": 2**62}),
                        ("layer_norm_epsilon-1e300", {"layer_norm_epsilon": 1e300}),
                        ("layer_norm_epsilon-1e-50", {"layer_norm_epsilon": 1e-50})]:
        config = json.loads(gpt2_config()) | extra
        regression("config", name, json.dumps(config))
        regression("model", name, archive([("config.json", json.dumps(config)), ("model.safetensors", gpt2)]))
    regression("config", "layer_norm_eps-1e300-bert", json.dumps(json.loads(bert_config("BertModel")) |
                                                                 {"layer_norm_eps": 1e300}))
    regression("config", "id2label-gap", json.dumps(json.loads(bert_config("BertForSequenceClassification")) |
                                                    {"id2label": {"0": "a", "9223372036854775807": "b"}}))

    # model folders: a broken tokenizer beside a good model (info must say why), pickle only, nothing.
    regression("model", "broken-tokenizer-json", archive([("config.json", gpt2_config()), ("model.safetensors", gpt2),
                                                          ("tokenizer.json", '{"model": {"type": "BPE"')]))
    regression("model", "pickle-only", archive([("config.json", gpt2_config()), ("pytorch_model.bin", b"\x80\x02}q\x00.")]))
    regression("model", "config-only", archive([("config.json", gpt2_config())]))

    # sharded index: shard names that leave the folder or name nothing.
    for name, shard in [("dotdot", "../model.safetensors"), ("absolute", "/etc/passwd"), ("dot", "."),
                        ("backslash", "..\\x.safetensors"), ("empty", ""), ("missing", "model-00003-of-00003.safetensors"),
                        ("itself", "model.safetensors.index.json"), ("config", "config.json")]:
        regression("safetensors_index", "shard-" + name, json.dumps({"weight_map": {"wte.weight": shard}}))
    regression("safetensors_index", "weight_map-array", '{"weight_map": ["model-00001-of-00002.safetensors"]}')

    # safetensors: every header rule broken once, and sizes that overflow.
    entry = lambda shape, off, dtype="F32": {"dtype": dtype, "shape": shape, "data_offsets": off}
    h = lambda d: json.dumps(d).encode()
    regression("safetensors", "header-length-over-max", raw_safetensors(b"{}", length=100_000_001))
    regression("safetensors", "header-length-2e64", raw_safetensors(b"{}", length=2**64 - 1))
    regression("safetensors", "header-not-object", raw_safetensors(b"[1, 2]"))
    regression("safetensors", "duplicate-key", raw_safetensors(b'{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},'
                                                               b'"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}',
                                                               b"\0" * 4))
    regression("safetensors", "overlap", raw_safetensors(h({"a": entry([2], [0, 8]), "b": entry([1], [4, 8])}), b"\0" * 8))
    regression("safetensors", "gap", raw_safetensors(h({"a": entry([1], [4, 8])}), b"\0" * 8))
    regression("safetensors", "trailing-bytes", raw_safetensors(h({"a": entry([1], [0, 4])}), b"\0" * 9))
    regression("safetensors", "numel-overflow", raw_safetensors(h({"a": entry([2**32, 2**32, 2], [0, 0])})))
    regression("safetensors", "bytes-overflow", raw_safetensors(h({"a": entry([2**62], [0, 0], "F64")})))
    regression("safetensors", "offsets-2e64", raw_safetensors(h({"a": entry([1], [2**64 - 4, 2**64])}), b"\0" * 4))
    regression("safetensors", "f4-odd", raw_safetensors(h({"a": entry([3], [0, 1], "F4")}), b"\0"))
    regression("safetensors", "negative-shape", raw_safetensors(h({"a": entry([-1], [0, 4])}), b"\0" * 4))

    # synthetic specs (issue 14: ~69 GB of weights aborted the CLI and grew the GUI past 5 GB).
    regression("synthetic", "layers64-heads256-d8192", "random:layers=64,heads=256,d_model=8192")
    regression("synthetic", "d8192-vocab1M", "random:d_model=8192,vocab=1048576")
    regression("synthetic", "seed-int64-max", "random:seed=9223372036854775807,d_model=8,heads=2")
    regression("synthetic", "rope-odd-head", "random:heads=4,d_model=12,pe=rope")

    # encode: invalid UTF-8 (tokenizer.h: an error, never silently replaced), for each fixture tokenizer.
    for name, text in [("invalid-utf8-ff", b"abc \xff def"), ("invalid-utf8-truncated", b"abc \xe2\x82"),
                       ("invalid-utf8-overlong", b"\xc0\xaf"), ("invalid-utf8-surrogate", b"x\xed\xa0\x80y"),
                       ("invalid-utf8-over-10ffff", b"\xf4\x90\x80\x80"), ("invalid-utf8-lone-continuation", b"\x80")]:
        for selector in range(6):
            regression("encode", f"{name}-{selector}", bytes([selector]) + text)
    regression("encode", "nul-in-text", bytes([4]) + b"a\0b")

    # tokenizer files.
    regression("tokenizer_json", "id-2e31", json.dumps({"model": {"type": "WordPiece", "unk_token": "[UNK]",
                                                                  "vocab": {"[UNK]": 2**31}}}))
    regression("tokenizer_json", "id-int32-max", json.dumps({"model": {"type": "WordPiece", "unk_token": "[UNK]",
                                                                       "vocab": {"[UNK]": 2**31 - 1}}}))
    regression("tokenizer_legacy", "empty-vocab-txt", archive([("vocab.txt", "")]))
    regression("tokenizer_legacy", "merges-one-part", archive([("vocab.json", '{"a": 0, "b": 1}'), ("merges.txt", "a\n")]))

    # datasets: numbers past every limit.
    regression("dataset", "label-2e64", b"\0" + b'{"text": "x", "label": 18446744073709551616}\n')
    regression("dataset", "span-2e63", b"\0" + b'{"text": "abc", "rationale": [[0, 9223372036854775808]]}\n')
    regression("dataset", "span-negative", b"\0" + b'{"text": "abc", "rationale": [[-5, 2]]}\n')
    regression("dataset", "rationale-tokens-5000", b"\0" + json.dumps({"text": "abc", "rationale_tokens": list(range(5000))}).encode())
    regression("dataset", "id-300-bytes", b"\0" + json.dumps({"text": "abc", "id": "i" * 300}).encode())
    regression("dataset", "csv-unterminated-quote", b"\1" + b'text,label\n"the plot,1\n')
    regression("dataset", "results-line-huge-index", b"\4" + b'{"index": 1e308, "id": 1}')

    # sessions and lessons: an out-of-range target class (the workspace must refuse it, the file still reads),
    # numbers that are not versions, deep nesting.
    regression("session", "target_class-99", json.dumps({
        "format": "attnscope-session", "version": 1, "model": "sample:rationale-bert", "text": "x",
        "workspaces": {"faithfulness": {"target_class": 99}}}))
    for name, version in [("version-1e308", "1e308"), ("version-1.5", "1.5"), ("version-2", "2"), ("version-nan", "NaN")]:
        regression("session", name, '{"format":"attnscope-session","version":' + version + ',"model":"","text":""}')


if __name__ == "__main__":
    main()
    write_regressions()
