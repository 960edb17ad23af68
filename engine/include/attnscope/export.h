// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Exports: what the CLI's `info` and `run` verbs compute and write, Qt-free so the GUI can reuse it.
//
//   openModel      a model spec (folder, sample:NAME, random:...) → the model and, when it has one, its tokenizer
//   runModel       tokens (from text or given ids) + K padding tokens → one forward pass with the chosen captures
//   runExportJson  the `run` document of docs/json-format.md (schema: docs/schema/run.schema.json), version 1
//   modelInfoJson  the `info` summary (docs/cli.md)
// Writing the documents: attnscope/fileio.h (writeFileAtomically, FileTransaction for the JSON + .npy pair).
//
// Layouts in the run document: attention is [layer][head][query][key], BertViz's order, row-major like the
// engine's [L, L] weights; a head that was not captured is `null` in its place. Floats are written as the
// shortest decimal that reads back to the same float32 (std::to_chars), so nothing is lost.

#include <attnscope/analysis.h>
#include <attnscope/attention.h>
#include <attnscope/fileio.h>
#include <attnscope/mask.h>
#include <attnscope/model.h>
#include <attnscope/provenance.h>
#include <attnscope/status.h>
#include <attnscope/textmodel.h>
#include <attnscope/tokenizer.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attn {

// --mask: the attention structure of a run. Padding keys are added on top of any choice.
struct MaskChoice {
    enum class Kind {
        Model,          // the model's own: causal for GPT-2, bidirectional for BERT and synthetic models
        Bidirectional,  // every key
        Causal,         // keys j <= i
        Window,         // |i - j| <= window (both sides)
        CausalWindow,   // i - window <= j <= i
    };
    Kind kind = Kind::Model;
    std::int64_t window = -1;   // Window, CausalWindow: >= 0

    std::optional<MaskSpec> override() const;   // for ForwardOptions::maskOverride; nullopt for Model
    std::string kindName() const;               // "model", "bidirectional", "causal", "window", "causal_window"
};
// "model", "bidirectional", "causal", "window:W", "causal-window:W". The message names the bad part.
Result<MaskChoice> parseMaskChoice(const std::string &text);

// --heads: "all" → nullopt (every head), or "L.H,L.H,..." in the given order (duplicates dropped).
Result<std::optional<std::vector<HeadRef>>> parseHeadList(const std::string &text);
// Each head inside the model's layers × heads; the message names the first one outside.
Status checkHeadList(const std::vector<HeadRef> &heads, const ModelConfig &config);

// --analyses: what the run document's `analyses` section holds besides the weights. Rollout and flow fuse each
// layer's heads by their mean (as Explore does) and need every head; flow is limited to kMaxFlowTokens tokens.
struct RunAnalyses {
    bool stats = false;     // head statistics (analysis.h) of every captured head
    bool rollout = false;   // attention rollout through all layers, with the residual
    bool flow = false;      // attention flow through all layers, with the residual
    bool any() const { return stats || rollout || flow; }
};
// "none" or a comma-separated subset of "stats,rollout,flow" (also "all"). The message names the bad part.
Result<RunAnalyses> parseRunAnalyses(const std::string &text);

struct OpenedModel {
    std::string spec;                       // as given: a folder, "sample:NAME" or "random:..."
    std::string path;                       // the resolved folder; empty for random: specs
    std::string name;                       // display name: the sample spec, the folder's name, the random spec
    Model model;
    std::optional<TextModel> textModel;     // when opened with a tokenizer (or a synthetic byte "tokenizer")
    std::optional<Tokenizer> tokenizer;     // the folder's tokenizer, when it has one
    std::string tokenizerError;             // why there is none (folders without tokenizer files); else empty
    double loadSeconds = 0.0;               // wall time openModel took: headers, weights read and converted, tokenizer
};
// requireTokenizer: folders must have tokenizer files (for text input); otherwise a missing or broken tokenizer
// is recorded in tokenizerError and the model still opens (for token-id input and `info`).
Result<OpenedModel> openModel(const std::string &spec, bool requireTokenizer);
// The same, around a model that is already open (the GUI's): nothing is read again.
OpenedModel openedModelOf(const TextModel &model);

std::string headKindName(ModelHead head);          // "causal_lm", "masked_lm", "classifier", "none"
std::string positionKindName(PositionKind kind);   // "none", "learned", "sinusoidal", "rope", "alibi"

// The `info` document: one JSON object, pretty-printed (docs/cli.md lists the fields).
std::string modelInfoJson(const OpenedModel &m);

struct RunRequest {
    std::optional<std::string> text;             // tokenized with the model's tokenizer, or
    std::optional<std::string> textPair;         // with text: a sentence pair (token_type_ids for BERT-style models)
    bool truncate = false;                       // with text: cut to the model's positions instead of refusing
    std::vector<std::int64_t> ids;               // token ids as given (when text is nullopt)
    MaskChoice mask;
    std::int64_t padding = 0;                    // padding tokens appended and masked as keys
    Backend backend = Backend::Auto;
    std::optional<std::vector<HeadRef>> heads;   // captured heads; nullopt: all
    int threads = 0;                             // 0: all hardware threads
    int topK = 5;                                // predictions listed per position in "outputs"
    RunAnalyses analyses;                        // what goes into "analyses"
};

struct RunData {
    TokenizedText tokens;              // [L] including the padding tokens (special = 1)
    std::vector<std::uint8_t> attentionMask;   // [L] 1 = token, 0 = padding
    std::int64_t padId = 0;            // the id the padding tokens carry
    ForwardOptions options;            // what the forward pass ran with
    ForwardResult result;
    Backend backendUsed = Backend::Reference;
    Provenance provenance;             // version, commit, file digests, backend, kernel, threads
    // RunRequest::analyses: per captured head (result.heads' order), and the [L, L] rollout and flow.
    std::vector<HeadStatistics> headStats;
    std::vector<double> rollout, flow;
};

// The padding id: the tokenizer's pad, config pad_token_id, the tokenizer's eos, config eos_token_id, else 0.
std::int64_t paddingTokenId(const OpenedModel &m);
std::int64_t paddingTokenId(const ModelConfig &config, const Tokenizer *tokenizer);   // tokenizer may be null

// Tokenize (or take the ids), append the padding, run the forward pass, the analyses asked for and the
// provenance. Errors name the field (the text's length against the model's positions, an id outside the
// vocabulary, an unavailable backend, rollout without every head, flow over kMaxFlowTokens tokens, ...).
Result<RunData> runModel(const OpenedModel &m, const RunRequest &request);

// The `run` document for one forward pass. `data.result.heads` must hold the captured heads' weights.
// With `npyFile` (a file name, relative to the JSON's folder), "attention" is a reference object
// {"npy": npyFile, "shape": […], "dtype": "float32", "missing": "nan"} instead of the arrays, with "heads":
// [[layer, head], …] when the file holds only some heads, and the weights go into that file (attentionNpy()).
// `npySha256` (of the .npy file's bytes), when given, goes into the reference as "sha256".
std::string runExportJson(const OpenedModel &m, const RunRequest &request, const RunData &data,
                          const std::optional<std::string> &npyFile = std::nullopt, const std::string &npySha256 = {});

// The attention weights as a NumPy .npy file (format version 1.0): float32 little-endian, C order. Every head
// captured: shape [layers, heads, n, n]. Some heads: shape [k, n, n], the k captured heads in capture order
// (result.heads; the JSON's "heads" list names them), so that one head of 16384 tokens is 1 GiB, not the whole
// model's worth of NaN.
std::string attentionNpy(const ModelConfig &config, const ForwardResult &result);
// A .npy file (format 1.0, '<f4', C order) of `shape` whose data are the blocks of perBlock floats in order.
std::string npyFloat32(const std::vector<std::int64_t> &shape, const std::vector<const float *> &blocks, std::size_t perBlock);
// Whether attentionNpy() writes the [layers, heads, n, n] layout (every head captured).
bool npyHoldsEveryHead(const ModelConfig &config, const ForwardResult &result);
// "runs/F.json" → "F.attention.npy" (the side file's name, beside the JSON); a name without ".json" keeps it whole.
std::string npySideFileName(const std::string &jsonPath);

} // namespace attn
