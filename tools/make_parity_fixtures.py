#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Make the Hugging Face parity fixtures for AttnScope's model tests (tests/tst_model_parity.cpp).

Builds tiny, randomly initialised models with fixed seeds -- GPT-2 and BERT here, the newer families (the LLaMA
family with every RoPE variant, GPT-NeoX, RoBERTa, DistilBERT) in tools/parity_families.py -- saves each as a
checkpoint folder
(config.json + model.safetensors, as transformers' save_pretrained writes it) under tests/fixtures/models/<name>/,
runs transformers on a few inputs and writes what the C++ tests compare against:

  tests/fixtures/parity/index.json    versions, models, and one entry per case: inputs, head mask, and the
                                      arrays stored in the case's .bin file (offset in floats, shape)
  tests/fixtures/parity/<case>.bin    the arrays as raw little-endian float32, one after the other

Arrays per case: attentions [layers, heads, L, L] (transformers' output_attentions), hidden_states
[layers + 1, L, D] (output_hidden_states), logits ([L, vocab] for LM heads, [num_labels] for classifiers),
pooled [D] (encoders with a pooler or a classification head's dense layer) and, for RoPE models, inv_freq
[rotary_dim / 2] as the forward pass used it (Gemma 3: inv_freq of its full-attention layers and
inv_freq_local of its sliding layers).

Head-mask cases: transformers 5 removed the head_mask argument, so the script registers an attention function
("attnscope_headmask") that is transformers' eager attention plus the old head_mask semantics (the softmaxed
weights are multiplied by the head's 0/1 entry before they multiply V, and returned that way), with the eager
function's grouped-query repeat and Gemma 2's soft-cap. The plain cases run through the same function with an
all-ones mask, and the script checks that they equal stock "eager".

Gemma's embedding scale: transformers multiplies by sqrt(hidden_size) cast to the weights' dtype, so a BF16
Gemma run in its own dtype uses bf16(sqrt(H)). The fixtures run in float32 on the rounded weights, with the
embed_scale buffer set to that rounded value, which is what AttnScope computes for a BF16 checkpoint.

Weights are rounded to each model's storage dtype (F32, F16 or BF16) before the forward pass, so the C++ side,
which widens them on load, sees exactly the numbers transformers used.

Usage (from the repository root):  tools/.venv/bin/python tools/make_parity_fixtures.py
"""

import copy
import json
import math
import os
import shutil
import sys

import numpy as np
import safetensors
import tokenizers
import torch
import transformers
from transformers import (AttentionInterface, BertConfig, BertForMaskedLM, BertForSequenceClassification, BertModel,
                          DistilBertForSequenceClassification, GPT2Config, GPT2LMHeadModel, GPT2Model,
                          RobertaForSequenceClassification)
from transformers.masking_utils import AttentionMaskInterface, eager_mask

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from parity_families import FAMILY_MODELS, GEMMA_FAMILIES  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
SEED = 20240611

# --- attention with head_mask semantics ----------------------------------------------------------------------
HEAD_MASK = {}   # layer index -> float tensor [heads]; empty: no ablation


def repeat_kv(x, groups):
    if groups == 1:
        return x
    b, h, t, d = x.shape
    return x[:, :, None, :, :].expand(b, h, groups, t, d).reshape(b, h * groups, t, d)


def attention_with_head_mask(module, query, key, value, attention_mask, scaling=None, dropout=0.0, softcap=None,
                             **kwargs):
    if scaling is None:
        scaling = query.size(-1) ** -0.5
    groups = getattr(module, "num_key_value_groups", 1)
    key, value = repeat_kv(key, groups), repeat_kv(value, groups)
    weights = torch.matmul(query, key.transpose(-1, -2)) * scaling
    if softcap is not None:
        weights = weights / softcap
        weights = torch.tanh(weights)
        weights = weights * softcap
    if attention_mask is not None:
        weights = weights + attention_mask[:, :, :, : key.shape[-2]]
    weights = torch.nn.functional.softmax(weights, dim=-1).type(value.dtype)
    mask = HEAD_MASK.get(module.layer_idx)
    if mask is not None:
        weights = weights * mask.view(1, -1, 1, 1)
    out = torch.matmul(weights, value).transpose(1, 2)
    return out, weights


AttentionInterface.register("attnscope_headmask", attention_with_head_mask)
AttentionMaskInterface.register("attnscope_headmask", eager_mask)

# --- models --------------------------------------------------------------------------------------------------
MODELS = [
    # GPT-2 family
    dict(name="gpt2-tiny", cls=GPT2LMHeadModel, dtype="F32",
         config=GPT2Config(vocab_size=96, n_positions=24, n_embd=64, n_layer=2, n_head=4, n_inner=128,
                           bos_token_id=95, eos_token_id=95)),
    dict(name="gpt2-odd-d72h3", cls=GPT2Model, dtype="F16",
         config=GPT2Config(vocab_size=80, n_positions=20, n_embd=72, n_layer=2, n_head=3, n_inner=96,
                           activation_function="gelu", scale_attn_by_inverse_layer_idx=True,
                           layer_norm_epsilon=1e-6, bos_token_id=79, eos_token_id=79)),
    dict(name="gpt2-d40h5", cls=GPT2LMHeadModel, dtype="BF16",
         config=GPT2Config(vocab_size=97, n_positions=16, n_embd=40, n_layer=3, n_head=5, n_inner=None,
                           bos_token_id=96, eos_token_id=96)),
    # BERT family
    dict(name="bert-mlm", cls=BertForMaskedLM, dtype="F32",
         config=BertConfig(vocab_size=90, hidden_size=48, num_hidden_layers=2, num_attention_heads=4,
                           intermediate_size=96, max_position_embeddings=24, type_vocab_size=2)),
    dict(name="bert-cls-d72h3", cls=BertForSequenceClassification, dtype="F16",
         config=BertConfig(vocab_size=70, hidden_size=72, num_hidden_layers=2, num_attention_heads=3,
                           intermediate_size=80, max_position_embeddings=20, type_vocab_size=2, num_labels=3,
                           hidden_act="gelu_new")),
    dict(name="bert-base-d48h6", cls=BertModel, dtype="BF16",
         config=BertConfig(vocab_size=60, hidden_size=48, num_hidden_layers=3, num_attention_heads=6,
                           intermediate_size=64, max_position_embeddings=18, type_vocab_size=3,
                           layer_norm_eps=1e-7)),
    # Last, so that adding it left the seeds (SEED + index) of the models above unchanged.
    dict(name="gpt2-untied", cls=GPT2LMHeadModel, dtype="F32",
         config=GPT2Config(vocab_size=88, n_positions=20, n_embd=48, n_layer=2, n_head=4, n_inner=64,
                           tie_word_embeddings=False, bos_token_id=87, eos_token_id=87)),
] + FAMILY_MODELS

TORCH_DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}


def randomise(model, generator, gemma=False):
    """Weights far from the near-uniform default init, so attention is sharp and every parameter matters.
    Gemma stores its RMSNorm gains as w with the scale 1 + w, so they are drawn around 0."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() == 1:
                if name.endswith("weight"):      # LayerNorm / RMSNorm gains
                    p.copy_((0.0 if gemma else 1.0) + 0.2 * torch.randn(p.shape, generator=generator))
                else:
                    p.copy_(0.1 * torch.randn(p.shape, generator=generator))
            elif "embeddings" in name or name.endswith(("wte.weight", "wpe.weight", "embed_tokens.weight",
                                                        "embed_in.weight")):
                p.copy_(0.5 * torch.randn(p.shape, generator=generator))
            else:
                fan_in = p.shape[0] if ".c_" in name else p.shape[1]   # Conv1D is [in, out], Linear [out, in]
                p.copy_(torch.randn(p.shape, generator=generator) * (1.5 / math.sqrt(fan_in)))


def round_to(model, dtype):
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(p.to(TORCH_DTYPES[dtype]).to(torch.float32))


def head_mask_for(layers, heads):
    hm = [[1.0] * heads for _ in range(layers)]
    hm[0][1 % heads] = 0.0
    hm[layers - 1][0] = 0.0
    hm[layers - 1][heads - 1] = 0.0
    return hm


def family_cases(spec, generator):
    """The (kind, length) cases of a newer family's model; ids avoid the padding id except where padding."""
    cfg = spec["config"]
    layers, heads = cfg.num_hidden_layers, cfg.num_attention_heads
    pad = cfg.pad_token_id if cfg.pad_token_id is not None else 0
    out = []
    for kind, n in spec["cases"]:
        ids = torch.randint(0, cfg.vocab_size - 1, (n,), generator=generator)
        ids = [int(i) + (1 if i >= pad else 0) for i in ids]   # never the padding id
        mask = [1] * n
        if kind == "padded":
            ids[-3:] = [pad] * 3
            mask[-3:] = [0] * 3
        types = [0] * n if cfg.model_type in ("bert", "roberta") else None
        hm = head_mask_for(layers, heads) if kind == "headmask" else None
        out.append(dict(kind=kind if kind != "long" else f"long{n}", input_ids=ids, attention_mask=mask,
                        token_type_ids=types, head_mask=hm))
    return out


def cases_for(spec, generator):
    if "cases" in spec:
        return family_cases(spec, generator)
    cfg = spec["config"]
    layers, heads = cfg.num_hidden_layers, cfg.num_attention_heads
    bert = cfg.model_type == "bert"
    max_pos = cfg.max_position_embeddings

    def ids(n):
        return torch.randint(0, cfg.vocab_size, (n,), generator=generator).tolist()

    def types(n):
        if not bert:
            return None
        split = n // 2
        return [0] * split + [min(1, cfg.type_vocab_size - 1)] * (n - split)

    out = []
    n = 11 if max_pos >= 11 else max_pos
    out.append(dict(kind="plain", input_ids=ids(n), attention_mask=[1] * n, token_type_ids=types(n), head_mask=None))
    # Right padding: the last three tokens are padding (masked as keys).
    n = 13 if max_pos >= 13 else max_pos
    out.append(dict(kind="padded", input_ids=ids(n), attention_mask=[1] * (n - 3) + [0] * 3,
                    token_type_ids=types(n), head_mask=None))
    # Head ablation (head_mask zeros) on a few heads.
    hm = head_mask_for(layers, heads)
    n = 9
    out.append(dict(kind="headmask", input_ids=ids(n), attention_mask=[1] * n, token_type_ids=types(n), head_mask=hm))
    # The full context: every position the model has.
    out.append(dict(kind="fullcontext", input_ids=ids(max_pos), attention_mask=[1] * max_pos,
                    token_type_ids=types(max_pos), head_mask=None))
    return out


def run(model, case, implementation):
    model.config._attn_implementation = implementation
    for module in model.modules():
        if hasattr(module, "config"):
            module.config._attn_implementation = implementation
    HEAD_MASK.clear()
    if case["head_mask"] is not None:
        for layer, row in enumerate(case["head_mask"]):
            HEAD_MASK[layer] = torch.tensor(row, dtype=torch.float32)
    kwargs = dict(input_ids=torch.tensor([case["input_ids"]]),
                  attention_mask=torch.tensor([case["attention_mask"]]),
                  output_attentions=True, output_hidden_states=True)
    if case["token_type_ids"] is not None:
        kwargs["token_type_ids"] = torch.tensor([case["token_type_ids"]])
    with torch.no_grad():
        result = model(**kwargs)
    HEAD_MASK.clear()
    return result


def rotary_of(model):
    """The rotary embedding module of a RoPE model, or None."""
    for module in model.modules():
        if type(module).__name__.endswith("RotaryEmbedding"):
            return module
    return None


def arrays_of(model, result):
    arrays = {"attentions": torch.stack([a[0] for a in result.attentions]),
              "hidden_states": torch.stack([h[0] for h in result.hidden_states])}
    if getattr(result, "logits", None) is not None:
        arrays["logits"] = result.logits[0]
    if getattr(result, "pooler_output", None) is not None:
        arrays["pooled"] = result.pooler_output[0]
    if isinstance(model, GPT2Model):
        # The base model has no head; the tied LM head is what AttnScope shows for it.
        arrays["logits"] = result.last_hidden_state[0] @ model.wte.weight.T
    if isinstance(model, BertForSequenceClassification):
        arrays["pooled"] = model.bert.pooler(result.hidden_states[-1])[0]
    with torch.no_grad():
        first = result.hidden_states[-1][0, 0]
        if isinstance(model, RobertaForSequenceClassification):
            arrays["pooled"] = torch.tanh(model.classifier.dense(first))
        if isinstance(model, DistilBertForSequenceClassification):
            arrays["pooled"] = torch.relu(model.pre_classifier(first))
    rotary = rotary_of(model)
    if rotary is not None:
        if hasattr(rotary, "inv_freq"):
            arrays["inv_freq"] = rotary.inv_freq
        else:   # Gemma 3: one set per layer type
            arrays["inv_freq"] = rotary.full_attention_inv_freq
            arrays["inv_freq_local"] = rotary.sliding_attention_inv_freq
    return arrays


def set_embed_scale(model, spec):
    """sqrt(hidden_size) in the checkpoint's dtype, as transformers uses it when the model runs in that dtype."""
    embed = model.get_input_embeddings()
    value = torch.tensor(spec["config"].hidden_size ** 0.5).to(TORCH_DTYPES[spec["dtype"]]).to(torch.float32)
    embed.embed_scale.copy_(value)
    embed.scalar_embed_scale = float(value)


def save_model(model, spec, folder):
    if os.path.isdir(folder):
        shutil.rmtree(folder)
    model.to(TORCH_DTYPES[spec["dtype"]]).save_pretrained(folder, safe_serialization=True)
    model.to(torch.float32)
    for extra in os.listdir(folder):
        if extra not in ("config.json", "model.safetensors"):
            os.remove(os.path.join(folder, extra))


def main():
    torch.manual_seed(SEED)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    parity_dir = os.path.join(FIXTURES, "parity")
    os.makedirs(parity_dir, exist_ok=True)
    for f in os.listdir(parity_dir):
        if f.endswith(".bin"):
            os.remove(os.path.join(parity_dir, f))

    index = {
        "format": "attnscope-parity", "version": 1,
        "generator": "tools/make_parity_fixtures.py", "seed": SEED,
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__,
                     "tokenizers": tokenizers.__version__, "safetensors": safetensors.__version__,
                     "numpy": np.__version__, "python": sys.version.split()[0]},
        "layout": "raw little-endian float32; offsets and shapes in elements",
        "models": [], "cases": [],
    }
    for m, spec in enumerate(MODELS):
        generator = torch.Generator().manual_seed(SEED + m)
        torch.manual_seed(SEED + m)
        model = spec["cls"](spec["config"]).eval()
        if spec.get("family") == "distilbert":   # its attention modules do not know their layer (for HEAD_MASK)
            for i, layer in enumerate(model.distilbert.transformer.layer):
                layer.attention.layer_idx = i
        gemma = spec.get("family") in GEMMA_FAMILIES
        randomise(model, generator, gemma)
        round_to(model, spec["dtype"])
        if gemma:
            set_embed_scale(model, spec)
        folder = os.path.join(FIXTURES, "models", spec["name"])
        entry = {"name": spec["name"], "folder": "models/" + spec["name"], "class": spec["cls"].__name__,
                 "dtype": spec["dtype"]}
        if "family" in spec:
            entry["family"] = spec["family"]
        index["models"].append(entry)
        for case in cases_for(spec, generator):
            # A fresh instance per case: dynamic and longrope RoPE change state with the input length.
            fresh = (lambda: copy.deepcopy(model)) if "cases" in spec else (lambda: model)
            if case["head_mask"] is None:
                stock_instance = fresh()
                stock = arrays_of(stock_instance, run(stock_instance, case, "eager"))
            instance = fresh()
            result = run(instance, case, "attnscope_headmask")
            arrays = arrays_of(instance, result)
            if case["head_mask"] is None:
                for key in arrays:
                    if not torch.equal(arrays[key], stock[key]):
                        raise SystemExit(f"{spec['name']} {case['kind']}: {key} differs from stock eager attention")
            name = f"{spec['name']}-{case['kind']}"
            offset, entries, blob = 0, {}, []
            for key, value in arrays.items():
                v = value.detach().to(torch.float32).contiguous().numpy()
                entries[key] = {"offset": offset, "shape": list(v.shape)}
                offset += v.size
                blob.append(v.astype("<f4").ravel())
            np.concatenate(blob).tofile(os.path.join(parity_dir, name + ".bin"))
            index["cases"].append({"name": name, "model": spec["name"], "kind": case["kind"],
                                   "file": "parity/" + name + ".bin",
                                   "input_ids": case["input_ids"], "attention_mask": case["attention_mask"],
                                   "token_type_ids": case["token_type_ids"], "head_mask": case["head_mask"],
                                   "arrays": entries})
        save_model(model, spec, folder)
    with open(os.path.join(parity_dir, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
        f.write("\n")
    total = 0
    for base, _, files in os.walk(FIXTURES):
        for f in files:
            if "parity" in base or "models" in base:
                total += os.path.getsize(os.path.join(base, f))
    print(f"wrote {len(index['cases'])} cases for {len(MODELS)} models; {total / 1024:.0f} KiB in total")


if __name__ == "__main__":
    main()
