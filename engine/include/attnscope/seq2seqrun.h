// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// `attnscope-cli run` on an encoder–decoder folder (T5, BART, Marian): the source from text or ids, the decoder input from a
// target (teacher forcing) or from greedy generation, one pass capturing the three attention kinds, and the run
// document (docs/json-format.md, "Encoder–decoder runs"; docs/schema/seq2seq.schema.json). Qt-free.
//
// Decoder input, as transformers builds it:
//   --target-ids I,...   used exactly as given: decoder_input_ids, starting with the decoder start token
//   --target-text T      labels = the tokenizer's ids of T with its post-processor (ending in </s>); the decoder
//                        input is [start] + labels[:-1] (shift_tokens_right)
//   neither              greedy generation from [start]: the argmax of the last row's logits (the first maximum on
//                        ties, as torch.argmax) is appended until it is EOS or maxNewTokens tokens were made; the
//                        attentions come from one teacher-forced pass over [start] + generated[:-1], so row i is
//                        the step that produced generated token i.

#include <attnscope/provenance.h>
#include <attnscope/seq2seq.h>
#include <attnscope/tokenizer.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attn {

// An encoder–decoder model opened for runs (the CLI's run and info, the GUI's Encoder–Decoder workspace): "sample:NAME",
// a folder or a hub repo id (resolveModelSpec), the model, and its tokenizer when the folder has one (ids alone need
// none). Errors name the spec; a tokenizer with more tokens than config.json's vocab_size is one.
struct OpenedSeq2Seq {
    Seq2SeqModel model;
    std::optional<Tokenizer> tokenizer;
    std::optional<Tokenizer> targetTokenizer;   // Marian: target.spm (the target side's pieces); else none
    std::string folder;
    std::string tokenizerError;   // why there is no tokenizer; empty when there is one
    double loadSeconds = 0.0;
};
Result<OpenedSeq2Seq> openSeq2Seq(const std::string &spec);
// Whether `spec` names an encoder–decoder folder (config.json model_type "t5", "bart" or "marian"); false for
// anything unresolvable.
bool isSeq2SeqSpec(const std::string &spec);

// Which heads of each kind the document holds (the others are null): enc:L.H, dec:L.H, cross:L.H, a bare L.H for
// all three, comma-separated; "all" (or nothing) for every head.
struct Seq2SeqHeads {
    std::vector<HeadRef> encoder, decoder, cross;
};
// Checked against the model: the encoder's layers for enc, the decoder's for dec and cross. Messages name the item.
Result<std::optional<Seq2SeqHeads>> parseSeq2SeqHeads(const std::string &text, const Seq2SeqShape &shape);

struct Seq2SeqRunRequest {
    std::optional<std::string> text;                 // the source, tokenized, or
    std::vector<std::int64_t> ids;                   // source ids as given
    std::optional<std::string> targetText;           // teacher forcing from text, or
    std::optional<std::vector<std::int64_t>> targetIds;   // the decoder input as given; neither: generate
    int maxNewTokens = 20;                           // greedy generation only, 1..4096
    Backend backend = Backend::Auto;
    int threads = 0;
    int topK = 5;                                    // next-token predictions listed per target row
    std::optional<Seq2SeqHeads> heads;               // exported heads; nullopt: all (every head is computed)
    const Tokenizer *targetTokenizer = nullptr;      // tokenizes targetText when set (OpenedSeq2Seq::targetTokenizer)
};

struct Seq2SeqRunData {
    std::vector<std::int64_t> sourceIds;
    std::vector<std::string> sourceTokens;           // labels: the text each token covers, special tokens' strings
    std::vector<std::uint8_t> sourceSpecial;
    std::vector<std::int64_t> decoderInput;          // what the decoder ran on
    std::vector<std::string> targetTokens;           // its labels (vocabulary strings; "#ID" without a tokenizer)
    std::vector<std::int64_t> labels;                // --target-text: the tokenized target; else empty
    std::optional<std::vector<std::int64_t>> generated;   // greedy generation: the tokens made, EOS included
    bool stoppedAtEos = false;
    Seq2SeqResult result;                            // the teacher-forced pass over decoderInput
    Provenance provenance;
};

// Errors name the field: an empty source, ids outside the vocabulary, a target with no tokens, text without a
// tokenizer.
Result<Seq2SeqRunData> runSeq2Seq(const Seq2SeqModel &model, const Tokenizer *tokenizer, const std::string &modelSpec,
                                  const Seq2SeqRunRequest &request, const CancelFn &cancel = {});

// `run --npy`: one .npy per attention kind beside the JSON F.json — F.attention.npy (encoder), F.decoder_attention.npy,
// F.cross_attention.npy — float32 [layers, heads, rows, cols], or [k, rows, cols] for the heads --heads chose.
struct Seq2SeqNpyFile {
    std::string kind;     // "attention", "decoder_attention", "cross_attention": the document's field
    std::string name;     // the file name, relative to the JSON's folder
    std::string bytes;
    std::string sha256;   // of bytes
    std::vector<std::int64_t> shape;
    std::optional<std::vector<HeadRef>> heads;   // [k] when only some heads were chosen
};
std::vector<Seq2SeqNpyFile> seq2seqNpyFiles(const Seq2SeqModel &model, const Seq2SeqRunRequest &request,
                                            const Seq2SeqRunData &data, const std::string &jsonPath);

// The document: the run export's frame with `attention` (encoder self-attention [layer][head][S][S]),
// `decoder_attention` [layer][head][T][T], `cross_attention` [layer][head][T][S], the target in `input`. With `npy`
// each kind is a reference {"npy", "shape", "dtype", "sha256"[, "heads"]} to its file instead of the arrays.
std::string seq2seqExportJson(const Seq2SeqModel &model, const Tokenizer *tokenizer, const std::string &modelSpec,
                              const Seq2SeqRunRequest &request, const Seq2SeqRunData &data,
                              const std::vector<Seq2SeqNpyFile> *npy = nullptr);

// The `info` document of an encoder–decoder folder: architecture t5, both stacks' sizes, the relative-position
// buckets, the feed-forward kind, the decoder start and EOS ids, the tokenizer (null without one).
std::string seq2seqInfoJson(const Seq2SeqModel &model, const Tokenizer *tokenizer, const std::string &modelSpec,
                            double loadSeconds);

} // namespace attn
