// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A model together with the tokenizer that turns text into its input: what the CLI and the GUI open.
//
// Model specs (DESIGN.md section 4):
//   a folder path        a Hugging Face checkpoint folder (config.json, model.safetensors, tokenizer files)
//   sample:NAME          one of the bundled sample models (see sampleModelDirs for where they are looked up)
//   random:layers=...    a synthetic model (model.h, parseSyntheticSpec); its "tokenizer" maps each UTF-8 byte
//                        of the text to one token id in [0, 256), labelled with the character it starts
//   a hub cache folder   models--Org--Name (its refs/main snapshot) or models--Org--Name/snapshots/<commit>
//   Org/Name[@rev]       a Hugging Face repo id, found offline in the local hub cache (hubCacheDirs); refs/<rev>
//                        (default main) or a commit names the snapshot. Nothing is ever downloaded.
//
// Token labels are the text each token covers (byte offsets into the UTF-8 input), not vocabulary strings, so
// "Ġcat" shows as " cat" and "##ing" as "ing"; special tokens show their vocabulary string ("[CLS]").

#include <attnscope/model.h>
#include <attnscope/tokenizer.h>

#include <optional>
#include <string>
#include <vector>

namespace attn {

struct SampleModelInfo {
    std::string name;     // "induction-gpt2"
    std::string folder;   // absolute path
    bool encoderDecoder = false;   // model_type "t5" (seq2seq.h): not a TextModel; the Encoder–Decoder workspace's
    bool vision = false;           // model_type "vit" or "deit" (vit.h): not a TextModel; the Vision workspace's
};

// Where sample models are looked up, in order: $ATTNSCOPE_SAMPLE_MODELS, <executable dir>/../share/attnscope/
// sample_models, and the source tree's sample_models/ this build was configured from.
std::vector<std::string> sampleModelDirs();
std::vector<SampleModelInfo> listSampleModels();   // folders with a config.json, sorted by name
// "sample:NAME" → the folder; a hub cache repo folder → its snapshot; a repo id that is not an existing path →
// its snapshot in the hub cache; "random:..." and other folders are returned unchanged. Unknown samples name the
// folders searched; a repo id not in the cache names the cache folders searched.
Result<std::string> resolveModelSpec(const std::string &spec);

// The Hugging Face hub caches looked in, in order: $HF_HUB_CACHE, $HUGGINGFACE_HUB_CACHE, $HF_HOME/hub,
// ${XDG_CACHE_HOME:-~/.cache}/huggingface/hub (duplicates dropped).
std::vector<std::string> hubCacheDirs();
// A models--Org--Name folder (it has snapshots/).
bool isHubRepoFolder(const std::string &path);
// Its snapshot for `revision` (empty: main; a ref name or a commit); IoError naming the snapshots there.
Result<std::string> resolveHubRepoFolder(const std::string &repoFolder, const std::string &revision = {});
// "Org/Name[@rev]" → the snapshot folder in the first cache that has the repo.
Result<std::string> resolveHubRepoId(const std::string &spec);
struct HubModelInfo {
    std::string repoId;     // "Qwen/Qwen2.5-0.5B"
    std::string snapshot;   // its main snapshot folder
};
// The models in the hub caches (repos whose main snapshot has a config.json), sorted by repo id; the first cache
// that has a repo wins, as for resolveHubRepoId. Reads only folder listings and refs.
std::vector<HubModelInfo> listHubModels();

struct TokenizedText {
    std::string text;
    std::vector<std::int64_t> ids;        // [L]
    std::vector<std::string> labels;      // [L] what each token covers in its text (special: its vocab string)
    std::vector<std::size_t> begins;      // [L] byte offsets into text (into textPair for the pair's tokens)
    std::vector<std::size_t> ends;
    std::vector<std::uint8_t> special;    // [L] 1 for special tokens ([CLS], [SEP], ...)
    // A sentence pair (TokenizeOptions::pair): the second text, which sequence each token belongs to (0 the text,
    // 1 the pair, -1 added by the post-processor) and the post-processor's token_type_ids (BERT: 0 up to the first
    // [SEP], then 1). Without a pair: nullopt, and every token is in sequence 0 (or -1) with type 0.
    std::optional<std::string> textPair;
    std::vector<std::int8_t> sequence;    // [L]
    std::vector<std::int64_t> typeIds;    // [L]
    // TokenizeOptions::truncate removed tokens: the input had untruncatedLength tokens, ids.size() are kept.
    bool truncated = false;
    std::size_t untruncatedLength = 0;
};

struct TokenizeOptions {
    std::optional<std::string> pair;   // a second text (NLI premise/hypothesis, QA question/context), framed by
                                       // the tokenizer's pair template ([CLS] a [SEP] b [SEP]; <s> a </s></s> b </s>)
    // A text longer than the model's positions is cut to them (Hugging Face truncation=True, longest_first: the
    // longer sequence of a pair loses tokens from its end first) instead of refused. Models without learned
    // positions (RoPE, ALiBi) are cut to max_position_embeddings when the config gives one.
    bool truncate = false;
};

class TextModel {
public:
    static Result<TextModel> open(const std::string &spec, const LoadOptions &options = {});

    const Model &model() const { return m_model; }
    const std::optional<Tokenizer> &tokenizer() const { return m_tokenizer; }
    const std::string &spec() const { return m_spec; }
    std::string displayName() const;   // "sample:induction-gpt2", a folder's name, or the random spec
    // The same tokenizer and spec around another model of the same architecture and vocabulary, e.g. a copy
    // from Model::withRandomizedParameters.
    TextModel withModel(Model model) const { return TextModel(std::move(model), m_tokenizer, m_spec); }

    // Text → tokens with the model's tokenizer (special tokens added as the tokenizer's post-processor says).
    // Fails with a message when the text is longer than the model's learned positions (RoPE models take any
    // length, as transformers does).
    Result<TokenizedText> tokenize(const std::string &text) const;
    // With a pair and/or truncation. A pair needs a tokenizer (a random: model has no pair template).
    Result<TokenizedText> tokenize(const std::string &text, const TokenizeOptions &options) const;
    // The longest input the model takes, special tokens included: its learned positions (less RoBERTa's offset),
    // else max_position_embeddings; 0 when unbounded.
    std::int64_t maxTokens() const;
    // The forward pass's input for these tokens: the ids, and the token type ids when the model has token type
    // embeddings (BERT; RoBERTa's single type and decoders take none, as in transformers).
    ForwardInput forwardInput(const TokenizedText &tokens) const;

private:
    TextModel(Model model, std::optional<Tokenizer> tokenizer, std::string spec)
        : m_model(std::move(model)), m_tokenizer(std::move(tokenizer)), m_spec(std::move(spec)),
          m_displayName(nameOf(m_spec, m_model)) {}
    static std::string nameOf(const std::string &spec, const Model &model);
    Model m_model;
    std::optional<Tokenizer> m_tokenizer;
    std::string m_spec;
    std::string m_displayName;   // displayName(), found once (it looks at the file system)
};

} // namespace attn
