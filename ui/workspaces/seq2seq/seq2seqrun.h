// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Encoder–Decoder workspace's job, on a worker thread through EngineRunner: open the model when the request
// names a spec rather than a loaded one, then attn::runSeq2Seq — the source through the encoder, the decoder
// teacher-forced on a target or generating greedily — capturing all three attention kinds.
//
// Rows of the decoder and cross-attention are decoder steps: step t reads decoder input t ([start] + the target's
// tokens so far) and produces target token t (the label under teacher forcing, the generated token otherwise).

#include "runner/enginerunner.h"

#include <attnscope/attention.h>
#include <attnscope/seq2seqrun.h>

#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

namespace attnui {

using Seq2SeqModelPtr = std::shared_ptr<const attn::OpenedSeq2Seq>;

// The three attention kinds of an encoder–decoder layer.
enum class AttentionKind { Encoder, Decoder, Cross };
QString attentionKindName(AttentionKind kind);                      // "enc", "dec", "cross" (view specs, sessions)
std::optional<AttentionKind> attentionKindFromName(const QString &name);
QString attentionKindTitle(AttentionKind kind);                     // "encoder self-attention", ...

struct Seq2SeqRequest {
    Seq2SeqModelPtr model;      // loaded; null: open `spec` first
    QString spec;
    QString source;
    QString target;             // empty: generate
    int maxNewTokens = 20;
    attn::Backend backend = attn::Backend::Auto;
};

struct Seq2SeqSnapshot : Snapshot {
    Seq2SeqModelPtr model;
    QString spec;
    Seq2SeqRequest request;
    attn::Seq2SeqRunData data;
    QStringList sourceLabels;   // [S] for display: SentencePiece's ▁ and surrounding spaces dropped
    QStringList inputLabels;    // [T] the decoder input
    QStringList producedLabels; // [T] the token each step produces (label, generated token, or argmax)
    std::vector<std::uint8_t> sourceSpecial;   // [S]
    QString generatedText;      // decoded generation; empty under teacher forcing
    bool generated = false;

    int layers(AttentionKind kind) const;
    int heads(AttentionKind kind) const;   // cross-attention has the decoder's
    int rows(AttentionKind kind) const;
    int cols(AttentionKind kind) const;
    QStringList rowLabels(AttentionKind kind) const;
    QStringList colLabels(AttentionKind kind) const;
    // One head's weights [rows, cols]; head −1: the mean over the layer's heads.
    std::vector<float> weights(AttentionKind kind, int layer, int head) const;
    // Source words (every source token but a final special one) and target words (every step but the one that
    // produces </s>): the part an alignment links.
    int sourceWords() const;
    int targetWords() const;
};

// A model name for captions: the sample's name, the folder's last component, or the spec.
QString seq2seqModelName(const QString &spec);

attn::Result<std::shared_ptr<Snapshot>> runSeq2SeqJob(const Seq2SeqRequest &request, const JobContext &ctx);

} // namespace attnui
