// SPDX-License-Identifier: GPL-3.0-or-later
// The tensor-name tables of every supported family (tensornames.h).
#include "tensornames.h"

namespace attn::detail {

namespace {

bool endsWith(const std::string &s, const std::string &suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

TensorNames gpt2()
{
    TensorNames n;
    n.prefixes = {"transformer."};
    n.skipSuffixes = {".attn.bias", ".attn.masked_bias"};   // causal-mask buffers of old checkpoints
    n.conv1d = true;
    n.tokenEmbedding = "wte";
    n.positionEmbedding = "wpe";
    n.finalNorm = "ln_f";
    n.layer = "h.{}.";
    n.ln1 = "ln_1";
    n.ln2 = "ln_2";
    n.qkv = "attn.c_attn";
    n.qkvFusion = QkvFusion::Conv1DColumns;
    n.o = "attn.c_proj";
    n.up = "mlp.c_fc";
    n.down = "mlp.c_proj";
    n.lmHead = {"lm_head.weight"};
    return n;
}

// BERT and RoBERTa share the body; their heads differ.
TensorNames bertBody(const char *prefix)
{
    TensorNames n;
    n.prefixes = {prefix};
    n.skipSuffixes = {"embeddings.position_ids", "embeddings.token_type_ids"};
    n.renames = {{"LayerNorm.gamma", "LayerNorm.weight"}, {"LayerNorm.beta", "LayerNorm.bias"}};
    n.tokenEmbedding = "embeddings.word_embeddings";
    n.positionEmbedding = "embeddings.position_embeddings";
    n.typeEmbedding = "embeddings.token_type_embeddings";
    n.embeddingNorm = "embeddings.LayerNorm";
    n.layer = "encoder.layer.{}.";
    n.q = "attention.self.query";
    n.k = "attention.self.key";
    n.v = "attention.self.value";
    n.o = "attention.output.dense";
    n.ln1 = "attention.output.LayerNorm";
    n.up = "intermediate.dense";
    n.down = "output.dense";
    n.ln2 = "output.LayerNorm";
    n.pooler = "pooler.dense";
    return n;
}

TensorNames bert()
{
    TensorNames n = bertBody("bert.");
    n.classifierPooler = "pooler.dense";
    n.classifier = "classifier";
    n.mlmTransform = "cls.predictions.transform.dense";
    n.mlmNorm = "cls.predictions.transform.LayerNorm";
    n.mlmDecoder = "cls.predictions.decoder.weight";
    n.mlmBias = {"cls.predictions.bias", "cls.predictions.decoder.bias"};
    n.classifierMarker = "classifier.weight";
    n.mlmMarker = "cls.predictions.transform.dense.weight";
    return n;
}

TensorNames roberta()
{
    TensorNames n = bertBody("roberta.");
    n.classifierPooler = "classifier.dense";   // RobertaClassificationHead: dense → tanh → out_proj
    n.classifier = "classifier.out_proj";
    n.mlmTransform = "lm_head.dense";
    n.mlmNorm = "lm_head.layer_norm";
    n.mlmDecoder = "lm_head.decoder.weight";
    n.mlmBias = {"lm_head.bias", "lm_head.decoder.bias"};
    n.classifierMarker = "classifier.out_proj.weight";
    n.mlmMarker = "lm_head.dense.weight";
    return n;
}

TensorNames distilbert()
{
    TensorNames n;
    n.prefixes = {"distilbert."};
    n.skipSuffixes = {"embeddings.position_ids"};
    n.tokenEmbedding = "embeddings.word_embeddings";
    n.positionEmbedding = "embeddings.position_embeddings";
    n.embeddingNorm = "embeddings.LayerNorm";
    n.layer = "transformer.layer.{}.";
    n.q = "attention.q_lin";
    n.k = "attention.k_lin";
    n.v = "attention.v_lin";
    n.o = "attention.out_lin";
    n.ln1 = "sa_layer_norm";
    n.up = "ffn.lin1";
    n.down = "ffn.lin2";
    n.ln2 = "output_layer_norm";
    n.classifierPooler = "pre_classifier";   // dense → ReLU → classifier
    n.classifier = "classifier";
    n.mlmTransform = "vocab_transform";
    n.mlmNorm = "vocab_layer_norm";
    n.mlmDecoder = "vocab_projector.weight";
    n.mlmBias = {"vocab_projector.bias"};
    n.classifierMarker = "classifier.weight";
    n.mlmMarker = "vocab_transform.weight";
    return n;
}

// LLaMA family: Llama, Mistral, Qwen2/3, SmolLM2 share these names; Gemma 2/3 add the sandwich norms (and
// re-purpose post_attention_layernorm for the attention branch's output), Phi-3 fuses qkv and gate|up.
TensorNames llama(const std::string &modelType)
{
    TensorNames n;
    n.prefixes = {"model."};
    n.skipSuffixes = {"rotary_emb.inv_freq", "rotary_emb.original_inv_freq"};
    n.tokenEmbedding = "embed_tokens";
    n.finalNorm = "norm";
    n.layer = "layers.{}.";
    n.ln1 = "input_layernorm";
    n.ln2 = "post_attention_layernorm";
    n.q = "self_attn.q_proj";
    n.k = "self_attn.k_proj";
    n.v = "self_attn.v_proj";
    n.o = "self_attn.o_proj";
    n.qNorm = "self_attn.q_norm";
    n.kNorm = "self_attn.k_norm";
    n.gate = "mlp.gate_proj";
    n.up = "mlp.up_proj";
    n.down = "mlp.down_proj";
    n.lmHead = {"lm_head.weight"};
    if (modelType == "gemma2" || modelType == "gemma3_text") {
        n.postAttn = "post_attention_layernorm";
        n.ln2 = "pre_feedforward_layernorm";
        n.postMlp = "post_feedforward_layernorm";
    }
    if (modelType == "phi3") {
        n.q = n.k = n.v = {};
        n.qkv = "self_attn.qkv_proj";
        n.qkvFusion = QkvFusion::RowBlocks;
        n.gate = n.up = {};
        n.gateUp = "mlp.gate_up_proj";
    }
    return n;
}

TensorNames gptNeoX()
{
    TensorNames n;
    n.prefixes = {"gpt_neox."};
    n.skipSuffixes = {".attention.bias", ".attention.masked_bias", "rotary_emb.inv_freq"};
    n.tokenEmbedding = "embed_in";
    n.finalNorm = "final_layer_norm";
    n.layer = "layers.{}.";
    n.ln1 = "input_layernorm";
    n.ln2 = "post_attention_layernorm";
    n.qkv = "attention.query_key_value";
    n.qkvFusion = QkvFusion::PerHeadRows;
    n.o = "attention.dense";
    n.up = "mlp.dense_h_to_4h";
    n.down = "mlp.dense_4h_to_h";
    n.lmHead = {"embed_out.weight", "lm_head.weight"};   // transformers 5 renames it on load, not on save
    return n;
}

} // namespace

const TensorNames &tensorNames(const ModelConfig &c)
{
    static const TensorNames kGpt2 = gpt2(), kBert = bert(), kRoberta = roberta(), kDistil = distilbert(),
                             kNeoX = gptNeoX(), kLlama = llama("llama"), kGemma2 = llama("gemma2"),
                             kPhi3 = llama("phi3"), kNone{};
    switch (c.architecture) {
    case Architecture::Gpt2: return kGpt2;
    case Architecture::Bert: return kBert;
    case Architecture::Roberta: return kRoberta;
    case Architecture::DistilBert: return kDistil;
    case Architecture::GptNeoX: return kNeoX;
    case Architecture::Llama:
        if (c.modelType == "phi3") return kPhi3;
        if (c.sandwichNorms) return kGemma2;
        return kLlama;
    case Architecture::Synthetic: break;
    }
    return kNone;
}

std::string canonicalTensorName(const TensorNames &names, std::string name)
{
    for (const std::string &p : names.prefixes)
        if (name.rfind(p, 0) == 0) {
            name.erase(0, p.size());
            break;
        }
    for (const std::string &s : names.skipSuffixes)
        if (endsWith(name, s)) return {};
    for (const auto &[from, to] : names.renames)
        if (endsWith(name, from)) name = name.substr(0, name.size() - from.size()) + to;
    return name;
}

std::string layerName(const TensorNames &names, std::int64_t layer, const std::string &module)
{
    std::string p = names.layer;
    const std::size_t at = p.find("{}");
    if (at != std::string::npos) p.replace(at, 2, std::to_string(layer));
    return p + module;
}

} // namespace attn::detail
