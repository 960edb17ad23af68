// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the encoder–decoder families (t5.cpp, bart.cpp) share behind Seq2SeqModel (seq2seq.h): the loaded weights
// as one polymorphic object, the id checks, and multi-head attention from projected rows through attention().
#include "model/weights.h"

#include <attnscope/seq2seq.h>

#include <memory>
#include <string>
#include <vector>

namespace attn::detail {

struct Seq2SeqWeights {
    Seq2SeqShape shape;
    std::string source;   // the folder
    virtual ~Seq2SeqWeights() = default;
    virtual const T5Config *t5() const { return nullptr; }
    virtual const BartConfig *bart() const { return nullptr; }
    // Called with ids already checked (checkSeq2SeqInputs).
    virtual Result<Seq2SeqResult> forward(const std::vector<std::int64_t> &source, const std::vector<std::int64_t> &decoderInput,
                                          const Seq2SeqOptions &options) const = 0;
};

Result<std::shared_ptr<const Seq2SeqWeights>> loadT5Weights(const std::string &folder);
Result<std::shared_ptr<const Seq2SeqWeights>> loadBartWeights(const std::string &folder);

// Non-empty, at most 65536 (and maxPositions when the shape has one), every id in its vocabulary.
Status checkSeq2SeqInputs(const Seq2SeqShape &shape, const std::vector<std::int64_t> &source,
                          const std::vector<std::int64_t> &decoderInput);

// One multi-head attention sublayer: x_q [Lq, D] attends over x_kv [Lk, D] through q, k, v (heads × dHead columns,
// biases when the Linear has them) and the output projection o; returns [Lq, D]. scale 0: dHead^-½. The weights
// of every head go to `out` when options.captureAttentions; `ran` gets the backend that ran.
struct AttendArgs {
    const Linear &q, &k, &v, &o;
    std::int64_t heads, dHead;
    float scale;
};
Result<std::vector<float>> seq2seqAttend(const AttendArgs &a, const std::vector<float> &xq, const std::vector<float> &xkv,
                                         const MaskSpec &mask, const Seq2SeqOptions &options,
                                         std::vector<std::vector<float>> &out, Backend &ran);

} // namespace attn::detail
