// SPDX-License-Identifier: GPL-3.0-or-later
// Seq2SeqModel (seq2seq.h): the loader by model_type, the input checks, and the attention sublayer the families share.
#include "model/hf_checkpoint.h"
#include "model/ops.h"
#include "model/seq2seq_common.h"

#include <attnscope/tensor.h>

namespace attn {

namespace detail {

Status checkSeq2SeqInputs(const Seq2SeqShape &shape, const std::vector<std::int64_t> &source,
                          const std::vector<std::int64_t> &decoderInput)
{
    struct Side {
        const std::vector<std::int64_t> *ids;
        const char *name;
        std::int64_t vocab;
    };
    for (const Side &side : {Side{&source, "source", shape.vocabSize}, Side{&decoderInput, "decoder input", shape.decoderVocabSize}}) {
        const std::vector<std::int64_t> &ids = *side.ids;
        const std::string name = side.name;
        if (ids.empty()) return Status::invalid(name + " ids: empty");
        const std::size_t limit = shape.maxPositions > 0 ? std::size_t(shape.maxPositions) : std::size_t(1) << 16;
        if (ids.size() > limit)
            return Status::invalid(name + " ids: " + std::to_string(ids.size()) + " tokens; the model takes at most " +
                                   std::to_string(limit) +
                                   (shape.maxPositions > 0 ? " (config.json max_position_embeddings)" : ""));
        for (std::size_t i = 0; i < ids.size(); ++i)
            if (ids[i] < 0 || ids[i] >= side.vocab)
                return Status::invalid(name + " ids: id " + std::to_string(ids[i]) + " at position " + std::to_string(i) +
                                       " is outside 0.." + std::to_string(side.vocab - 1));
    }
    return Status::ok();
}

Result<std::vector<float>> seq2seqAttend(const AttendArgs &a, const std::vector<float> &xq, const std::vector<float> &xkv,
                                         const MaskSpec &mask, const Seq2SeqOptions &options,
                                         std::vector<std::vector<float>> &out, Backend &ran)
{
    const std::int64_t D = a.q.in;
    const std::int64_t Lq = static_cast<std::int64_t>(xq.size()) / D, Lk = static_cast<std::int64_t>(xkv.size()) / D;
    const std::int64_t H = a.heads, dk = a.dHead;
    std::vector<float> Q = applyLinear(xq.data(), Lq, a.q), K = applyLinear(xkv.data(), Lk, a.k),
                       V = applyLinear(xkv.data(), Lk, a.v);
    AttentionOptions ao;
    ao.backend = options.backend;
    ao.scale = a.scale;
    ao.weights = options.captureAttentions ? WeightsRequest::all() : WeightsRequest::none();
    ao.weightsBudgetBytes = options.weightsBudgetBytes;
    ao.threads = options.threads;
    ao.cancel = options.cancel;
    auto r = attention(MutableTensorView::fromBLHD(Q.data(), 1, Lq, H, dk), MutableTensorView::fromBLHD(K.data(), 1, Lk, H, dk),
                       MutableTensorView::fromBLHD(V.data(), 1, Lk, H, dk), mask, ao);
    if (!r) return r.status();
    ran = r->backend;
    for (HeadWeights &hw : r->weights) out.push_back(std::move(hw.P));
    MutableTensorView O = r->out.view();   // [1, H, Lq, dHead]
    std::vector<float> concat(static_cast<std::size_t>(Lq * H * dk));
    for (std::int64_t i = 0; i < Lq; ++i)
        for (std::int64_t h = 0; h < H; ++h)
            for (std::int64_t d = 0; d < dk; ++d) concat[static_cast<std::size_t>((i * H + h) * dk + d)] = O.at(0, h, i, d);
    return applyLinear(concat.data(), Lq, a.o);
}

} // namespace detail

bool isSeq2SeqFolder(const std::string &folder)
{
    const std::string type = detail::hf::folderModelType(folder);
    return type == "t5" || type == "bart" || type == "marian";
}

Result<Seq2SeqModel> Seq2SeqModel::loadFolder(const std::string &folder)
{
    const std::string type = detail::hf::folderModelType(folder);
    auto w = type == "bart" || type == "marian" ? detail::loadBartWeights(folder) : detail::loadT5Weights(folder);
    if (!w) return w.status();
    return Seq2SeqModel(std::move(w).value());
}

const Seq2SeqShape &Seq2SeqModel::shape() const { return m_w->shape; }
const T5Config *Seq2SeqModel::t5Config() const { return m_w->t5(); }
const BartConfig *Seq2SeqModel::bartConfig() const { return m_w->bart(); }
const std::string &Seq2SeqModel::source() const { return m_w->source; }

Result<Seq2SeqResult> Seq2SeqModel::forward(const std::vector<std::int64_t> &source, const std::vector<std::int64_t> &decoderInput,
                                            const Seq2SeqOptions &options) const
{
    if (Status s = detail::checkSeq2SeqInputs(m_w->shape, source, decoderInput); !s) return s;
    return m_w->forward(source, decoderInput, options);
}

} // namespace attn
