# SPDX-License-Identifier: GPL-3.0-or-later
"""The parity-fixture models of the newer families (used by tools/make_parity_fixtures.py).

One tiny random checkpoint per family and RoPE variant, with odd sizes: head_dim != hidden/heads where the family
allows it, grouped-query attention, inputs longer than each sliding window, a 70-token input that crosses the tiled
backend's 64-row query block, and short/long inputs (in fresh model instances) for the length-dependent RoPE kinds.
Recipes: reference/models-and-tokenizers.md section 6.
"""

from transformers import (DistilBertConfig, DistilBertForMaskedLM, DistilBertForSequenceClassification, Gemma2Config,
                          Gemma2ForCausalLM, Gemma3ForCausalLM, Gemma3TextConfig, GemmaConfig, GemmaForCausalLM,
                          GPTNeoXConfig, GPTNeoXForCausalLM, LlamaConfig, LlamaForCausalLM, MistralConfig,
                          MistralForCausalLM, Phi3Config, Phi3ForCausalLM, Qwen2Config, Qwen2ForCausalLM, Qwen3Config,
                          Qwen3ForCausalLM, RobertaConfig, RobertaForMaskedLM, RobertaForSequenceClassification)

# Small on purpose: the checkpoints and what transformers computed for them are committed.
D = dict(vocab_size=61, hidden_size=48, intermediate_size=72, num_hidden_layers=2, num_attention_heads=4,
         max_position_embeddings=96)
TOKENS = dict(bos_token_id=1, eos_token_id=2, pad_token_id=0)


def kw(**changes):
    out = dict(D, **TOKENS)
    out.update(changes)
    return out


# cases: (kind, length) pairs; kinds other than "plain" are "padded" (last 3 tokens padding), "headmask" and
# "long". Every case runs in a fresh copy of the model (dynamic and longrope RoPE keep state between calls).
FAMILY_MODELS = [
    dict(name="llama-gqa-d48h4", cls=LlamaForCausalLM, dtype="F32", family="llama",
         config=LlamaConfig(**kw(num_key_value_heads=2, head_dim=16, attention_bias=True, mlp_bias=True,
                                 tie_word_embeddings=False, rms_norm_eps=1e-5)),
         cases=[("plain", 11), ("padded", 13), ("headmask", 9), ("long", 70)]),
    dict(name="llama3-rope", cls=LlamaForCausalLM, dtype="BF16", family="llama",
         config=LlamaConfig(**kw(max_position_embeddings=128, num_key_value_heads=1, head_dim=16,
                                 tie_word_embeddings=True, rope_theta=5e5,
                                 rope_scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                               "high_freq_factor": 4.0, "original_max_position_embeddings": 64})),
         cases=[("plain", 11), ("long", 40)]),
    dict(name="llama-rope-linear", cls=LlamaForCausalLM, dtype="F16", family="llama",
         config=LlamaConfig(**kw(num_key_value_heads=2, rope_scaling={"rope_type": "linear", "factor": 2.0})),
         cases=[("plain", 11)]),
    dict(name="llama-rope-dynamic", cls=LlamaForCausalLM, dtype="F32", family="llama",
         config=LlamaConfig(**kw(max_position_embeddings=16, num_key_value_heads=2,
                                 rope_scaling={"rope_type": "dynamic", "factor": 2.0})),
         cases=[("plain", 8), ("long", 20)]),
    dict(name="llama-rope-yarn", cls=LlamaForCausalLM, dtype="F32", family="llama",
         config=LlamaConfig(**kw(max_position_embeddings=64, num_key_value_heads=2,
                                 rope_scaling={"rope_type": "yarn", "factor": 4.0,
                                               "original_max_position_embeddings": 16})),
         cases=[("plain", 8), ("long", 20)]),
    dict(name="smollm2-d36h3", cls=LlamaForCausalLM, dtype="BF16", family="llama",
         config=LlamaConfig(**kw(hidden_size=36, num_attention_heads=3, num_key_value_heads=1, intermediate_size=60,
                                 tie_word_embeddings=True, rope_theta=1e5, rms_norm_eps=1e-5)),
         cases=[("plain", 11)]),
    dict(name="mistral-window4", cls=MistralForCausalLM, dtype="F32", family="mistral",
         config=MistralConfig(**kw(num_key_value_heads=2, sliding_window=4)),
         cases=[("plain", 11), ("padded", 13), ("long", 70)]),
    dict(name="qwen2-layertypes", cls=Qwen2ForCausalLM, dtype="BF16", family="qwen2",
         config=Qwen2Config(**kw(num_key_value_heads=2, use_sliding_window=True, sliding_window=5,
                                 max_window_layers=1, tie_word_embeddings=False)),
         cases=[("plain", 11), ("headmask", 9), ("long", 70)]),
    dict(name="qwen3-qknorm", cls=Qwen3ForCausalLM, dtype="F16", family="qwen3",
         config=Qwen3Config(**kw(num_key_value_heads=2, head_dim=20, tie_word_embeddings=True)),
         cases=[("plain", 11), ("padded", 13)]),
    # Gemma: √72 = 8.485 becomes 8.5 in bf16, the checkpoint's dtype (see the embed_scale patch in the script).
    dict(name="gemma-d72", cls=GemmaForCausalLM, dtype="BF16", family="gemma",
         config=GemmaConfig(**kw(hidden_size=72, num_key_value_heads=1, head_dim=16, hidden_act="gelu_pytorch_tanh")),
         cases=[("plain", 11), ("padded", 13)]),
    # Caps small enough to bend the random scores and logits.
    dict(name="gemma2-softcap", cls=Gemma2ForCausalLM, dtype="F32", family="gemma2",
         config=Gemma2Config(**kw(num_key_value_heads=2, head_dim=16, query_pre_attn_scalar=20, sliding_window=4,
                                  attn_logit_softcapping=4.0, final_logit_softcapping=3.0)),
         cases=[("plain", 11), ("headmask", 9), ("long", 20)]),
    dict(name="gemma3-text", cls=Gemma3ForCausalLM, dtype="F16", family="gemma3_text",
         config=Gemma3TextConfig(**kw(num_hidden_layers=6, num_key_value_heads=2, head_dim=16,
                                      query_pre_attn_scalar=16, sliding_window=4,
                                      rope_scaling={"rope_type": "linear", "factor": 8.0})),
         cases=[("plain", 11), ("long", 20)]),
    dict(name="phi3-fused", cls=Phi3ForCausalLM, dtype="F32", family="phi3",
         config=Phi3Config(**kw(num_key_value_heads=2, sliding_window=5, partial_rotary_factor=0.5)),
         cases=[("plain", 11), ("padded", 13)]),
    dict(name="phi3-longrope", cls=Phi3ForCausalLM, dtype="BF16", family="phi3",
         config=Phi3Config(**kw(max_position_embeddings=64, original_max_position_embeddings=16,
                                rope_scaling={"type": "longrope", "short_factor": [1.0, 1.1, 1.3, 1.7, 2.0, 2.5],
                                              "long_factor": [2.0, 2.5, 3.0, 4.0, 6.0, 8.0]})),
         cases=[("plain", 8), ("long", 20)]),
    dict(name="neox-parallel", cls=GPTNeoXForCausalLM, dtype="F32", family="gpt_neox",
         config=GPTNeoXConfig(vocab_size=61, hidden_size=64, intermediate_size=72, num_hidden_layers=2,
                              num_attention_heads=4, max_position_embeddings=96, rotary_pct=0.25,
                              bos_token_id=1, eos_token_id=2),
         cases=[("plain", 11), ("padded", 13), ("headmask", 9)]),
    dict(name="neox-serial", cls=GPTNeoXForCausalLM, dtype="F16", family="gpt_neox",
         config=GPTNeoXConfig(vocab_size=61, hidden_size=40, intermediate_size=56, num_hidden_layers=2,
                              num_attention_heads=5, max_position_embeddings=96, rotary_pct=0.5,
                              use_parallel_residual=False, rotary_emb_base=5000, bos_token_id=1, eos_token_id=2),
         cases=[("plain", 11)]),
    dict(name="roberta-mlm", cls=RobertaForMaskedLM, dtype="F32", family="roberta",
         config=RobertaConfig(vocab_size=61, hidden_size=48, num_hidden_layers=2, num_attention_heads=4,
                              intermediate_size=72, max_position_embeddings=30, pad_token_id=1, type_vocab_size=1,
                              layer_norm_eps=1e-5),
         cases=[("plain", 11), ("padded", 13), ("headmask", 9), ("full", 28)]),
    dict(name="roberta-cls", cls=RobertaForSequenceClassification, dtype="F16", family="roberta",
         config=RobertaConfig(vocab_size=61, hidden_size=36, num_hidden_layers=2, num_attention_heads=3,
                              intermediate_size=60, max_position_embeddings=24, pad_token_id=1, type_vocab_size=1,
                              num_labels=3, layer_norm_eps=1e-5),
         cases=[("plain", 11), ("padded", 13)]),
    dict(name="distilbert-mlm", cls=DistilBertForMaskedLM, dtype="F32", family="distilbert",
         config=DistilBertConfig(vocab_size=61, dim=48, n_layers=2, n_heads=4, hidden_dim=72,
                                 max_position_embeddings=24),
         cases=[("plain", 11), ("padded", 13), ("headmask", 9)]),
    dict(name="distilbert-cls", cls=DistilBertForSequenceClassification, dtype="BF16", family="distilbert",
         config=DistilBertConfig(vocab_size=61, dim=40, n_layers=2, n_heads=5, hidden_dim=56,
                                 max_position_embeddings=20, num_labels=2, activation="relu"),
         cases=[("plain", 11), ("padded", 13)]),
]

GEMMA_FAMILIES = ("gemma", "gemma2", "gemma3_text")
