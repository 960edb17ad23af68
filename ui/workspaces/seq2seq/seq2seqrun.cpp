// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/seq2seq/seq2seqrun.h"

#include "kit/tokenlimits.h"

#include <attnscope/alignment.h>

#include <QDir>
#include <QObject>

#include <algorithm>

namespace attnui {

namespace {

// "▁hund" → "hund"; the text a source token covers, spaces trimmed; special tokens as they are.
QString displayLabel(const std::string &token)
{
    QString s = QString::fromStdString(token);
    s.replace(QChar(0x2581), QLatin1Char(' '));
    s = s.trimmed();
    return s.isEmpty() ? QString::fromStdString(token) : s;
}

std::string tokenString(const attn::OpenedSeq2Seq &m, std::int64_t id)
{
    std::string s = m.tokenizer && id >= 0 && id <= INT32_MAX ? m.tokenizer->idToToken(std::int32_t(id)) : std::string();
    return s.empty() ? "#" + std::to_string(id) : s;
}

const std::vector<std::vector<float>> &kindWeights(const attn::Seq2SeqResult &r, AttentionKind kind)
{
    switch (kind) {
    case AttentionKind::Encoder: return r.encoderAttentions;
    case AttentionKind::Decoder: return r.decoderAttentions;
    case AttentionKind::Cross: break;
    }
    return r.crossAttentions;
}

} // namespace

QString attentionKindName(AttentionKind kind)
{
    switch (kind) {
    case AttentionKind::Encoder: return QStringLiteral("enc");
    case AttentionKind::Decoder: return QStringLiteral("dec");
    case AttentionKind::Cross: break;
    }
    return QStringLiteral("cross");
}

std::optional<AttentionKind> attentionKindFromName(const QString &name)
{
    for (AttentionKind k : {AttentionKind::Encoder, AttentionKind::Decoder, AttentionKind::Cross})
        if (attentionKindName(k) == name) return k;
    return std::nullopt;
}

QString attentionKindTitle(AttentionKind kind)
{
    switch (kind) {
    case AttentionKind::Encoder: return QObject::tr("encoder self-attention");
    case AttentionKind::Decoder: return QObject::tr("decoder self-attention");
    case AttentionKind::Cross: break;
    }
    return QObject::tr("cross-attention");
}

int Seq2SeqSnapshot::layers(AttentionKind kind) const
{
    const attn::Seq2SeqShape &s = model->model.shape();
    return int(kind == AttentionKind::Encoder ? s.encoderLayers : s.decoderLayers);
}

int Seq2SeqSnapshot::heads(AttentionKind kind) const
{
    const attn::Seq2SeqShape &s = model->model.shape();
    return int(kind == AttentionKind::Encoder ? s.encoderHeads : s.decoderHeads);
}

int Seq2SeqSnapshot::rows(AttentionKind kind) const
{
    return int(kind == AttentionKind::Encoder ? data.result.sourceLength : data.result.targetLength);
}

int Seq2SeqSnapshot::cols(AttentionKind kind) const
{
    return int(kind == AttentionKind::Decoder ? data.result.targetLength : data.result.sourceLength);
}

QStringList Seq2SeqSnapshot::rowLabels(AttentionKind kind) const
{
    switch (kind) {
    case AttentionKind::Encoder: return sourceLabels;
    case AttentionKind::Decoder: return inputLabels;
    case AttentionKind::Cross: break;
    }
    return producedLabels;
}

QStringList Seq2SeqSnapshot::colLabels(AttentionKind kind) const
{
    return kind == AttentionKind::Decoder ? inputLabels : sourceLabels;
}

std::vector<float> Seq2SeqSnapshot::weights(AttentionKind kind, int layer, int head) const
{
    const auto &all = kindWeights(data.result, kind);
    const int H = heads(kind);
    if (layer < 0 || layer >= layers(kind) || head >= H) return {};
    if (head >= 0) return all[std::size_t(layer * H + head)];
    std::vector<const std::vector<float> *> list;
    for (int h = 0; h < H; ++h) list.push_back(&all[std::size_t(layer * H + h)]);
    return attn::meanOverHeads(list);
}

int Seq2SeqSnapshot::sourceWords() const
{
    const int S = int(sourceSpecial.size());
    return S > 0 && sourceSpecial.back() ? S - 1 : S;
}

int Seq2SeqSnapshot::targetWords() const
{
    const std::int64_t eos = model->model.shape().eosTokenId;
    const std::vector<std::int64_t> &produced = !data.labels.empty() ? data.labels
                                                : data.generated ? *data.generated
                                                                 : std::vector<std::int64_t>{};
    int T = int(data.result.targetLength);
    if (!produced.empty() && int(produced.size()) == T && produced.back() == eos) --T;
    return T;
}

QString seq2seqModelName(const QString &spec)
{
    if (spec.startsWith(QLatin1String("sample:")) || !QDir(spec).exists()) return spec;
    return QDir(spec).dirName();
}

attn::Result<std::shared_ptr<Snapshot>> runSeq2SeqJob(const Seq2SeqRequest &request, const JobContext &ctx)
{
    Seq2SeqModelPtr model = request.model;
    if (!model) {
        auto opened = attn::openSeq2Seq(request.spec.toStdString());
        if (!opened) return opened.status();
        model = std::make_shared<const attn::OpenedSeq2Seq>(std::move(opened).value());
    }
    if (ctx.isCancelled()) return attn::Status::cancelled();
    if (!model->tokenizer)
        return attn::Status::invalid(request.spec.toStdString() + " has no tokenizer to read a text with: " +
                                     model->tokenizerError);
    // Every head of every layer of the three kinds is kept for the views: long inputs are refused before running.
    const attn::Tokenizer &tokenizer = *model->tokenizer;
    for (const auto &[text, what] : {std::pair{&request.source, "the source"}, std::pair{&request.target, "the target"}}) {
        if (text->trimmed().isEmpty()) continue;
        auto enc = tokenizer.encode(text->toStdString());
        if (!enc) return attn::Status::invalid(std::string(what) + ": " + enc.status().message());
        if (attn::Status s = checkTokenLimit(int(enc->ids.size()), kSeq2SeqMaxTokens, "Encoder–Decoder",
                                             "every head of all three attention kinds is kept");
            !s)
            return attn::Status::invalid(std::string(what) + ": " + s.message());
    }
    attn::Seq2SeqRunRequest r;
    r.text = request.source.toStdString();
    if (!request.target.trimmed().isEmpty()) r.targetText = request.target.toStdString();
    r.maxNewTokens = request.maxNewTokens;
    r.backend = request.backend;
    const attn::Tokenizer *tok = &tokenizer;
    if (model->targetTokenizer) r.targetTokenizer = &*model->targetTokenizer;   // Marian's target.spm
    auto data = attn::runSeq2Seq(model->model, tok, request.spec.toStdString(), r, ctx.cancelFn());
    if (!data) return data.status();

    auto snap = std::make_shared<Seq2SeqSnapshot>();
    snap->model = model;
    snap->spec = request.spec;
    snap->request = request;
    snap->request.model = model;
    snap->data = std::move(data).value();
    const attn::Seq2SeqRunData &d = snap->data;
    for (const std::string &t : d.sourceTokens) snap->sourceLabels << displayLabel(t);
    snap->sourceSpecial = d.sourceSpecial;
    for (std::int64_t id : d.decoderInput) snap->inputLabels << displayLabel(tokenString(*model, id));
    const std::int64_t T = d.result.targetLength, V = model->model.shape().decoderVocabSize;
    for (std::int64_t t = 0; t < T; ++t) {
        std::int64_t id = 0;
        if (!d.labels.empty()) id = d.labels[std::size_t(t)];
        else if (d.generated && t < std::int64_t(d.generated->size())) id = (*d.generated)[std::size_t(t)];
        else {
            const float *row = d.result.logits.data() + t * V;
            id = std::max_element(row, row + V) - row;
        }
        snap->producedLabels << displayLabel(tokenString(*model, id));
    }
    if (d.generated) {
        snap->generated = true;
        std::vector<std::int32_t> ids(d.generated->begin(), d.generated->end());
        snap->generatedText = QString::fromStdString(tok->decode(ids, true));
    }
    snap->backend = attn::backendName(d.result.backend);
    return std::shared_ptr<Snapshot>(std::move(snap));
}

} // namespace attnui
