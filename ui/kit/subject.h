// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The subject every workspace looks at: one loaded model and one input text, shared across the workspace tabs.
// Explore's model picker and text box write it; Masks, Equivariance, Faithfulness, Pipeline and Compare start
// from it (a workspace may hold its own text on top, e.g. Compare's second input). UI thread only.

#include <attnscope/attention.h>
#include <attnscope/mask.h>
#include <attnscope/textmodel.h>

#include <QObject>
#include <QString>

#include <memory>
#include <optional>

namespace attnui {

using TextModelPtr = std::shared_ptr<const attn::TextModel>;

class Subject : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    TextModelPtr model() const { return m_model; }   // null until a model is open (or for the raw experiment)
    QString modelSpec() const { return m_spec; }     // "sample:NAME", a folder, "random:..."
    QString text() const { return m_text; }

    void setModel(const TextModelPtr &model, const QString &spec)
    {
        if (model == m_model && spec == m_spec) return;
        m_model = model;
        m_spec = spec;
        emit modelChanged();
    }
    void setText(const QString &text)
    {
        if (text == m_text) return;
        m_text = text;
        emit textChanged();
    }
    // The head a person last chose in Explore (a click in the overview, a row of the statistics), for workspaces
    // that follow it (Pipeline). Sessions and lessons never set it: each workspace restores its own head.
    std::optional<attn::HeadRef> chosenHead() const { return m_chosenHead; }
    void chooseHead(const attn::HeadRef &head)
    {
        m_chosenHead = head;
        emit headChosen();
    }
    // The compute backend of View ▸ Backend; workspaces pass it to the runs they submit.
    attn::Backend backend() const { return m_backend; }
    void setBackend(attn::Backend backend)
    {
        if (backend == m_backend) return;
        m_backend = backend;
        emit backendChanged();
    }

    // A mask that replaces the model's own (nullopt: the model's), and padding tokens appended to the text and
    // masked as keys. attnscope-cli figure's --mask and --pad set them; workspaces whose honoursRunOptions() is
    // true run with them, the others ignore them.
    const std::optional<attn::MaskSpec> &maskOverride() const { return m_maskOverride; }
    int padding() const { return m_padding; }
    void setRunOptions(const std::optional<attn::MaskSpec> &maskOverride, int padding)
    {
        m_maskOverride = maskOverride;
        m_padding = padding;
        emit runOptionsChanged();
    }

    // A text longer than the model's positions is cut to them (Hugging Face truncation, longest_first) instead of
    // refused: View ▸ Truncate Long Texts, Explore's Truncate box, attnscope-cli's --truncate. Every workspace
    // tokenizes the Subject's text with tokenizeOptions(); a workspace's own second text (Compare's B) too.
    bool truncate() const { return m_truncate; }
    void setTruncate(bool truncate)
    {
        if (truncate == m_truncate) return;
        m_truncate = truncate;
        emit truncateChanged();
    }
    attn::TokenizeOptions tokenizeOptions() const
    {
        attn::TokenizeOptions o;
        o.truncate = m_truncate;
        return o;
    }

    // A second text, as a sentence pair (NLI, QA): Explore's Pair box, attnscope-cli figure --text-pair. Explore
    // runs the pair ([CLS] text [SEP] pair [SEP], token types for BERT); the other workspaces take the text alone.
    // Empty: no pair.
    QString textPair() const { return m_textPair; }
    void setTextPair(const QString &pair)
    {
        if (pair == m_textPair) return;
        m_textPair = pair;
        emit textPairChanged();
    }

signals:
    void truncateChanged();
    void textPairChanged();
    void modelChanged();
    void textChanged();
    void headChosen();
    void backendChanged();
    void runOptionsChanged();

private:
    TextModelPtr m_model;
    QString m_spec;
    QString m_text;
    std::optional<attn::HeadRef> m_chosenHead;
    attn::Backend m_backend = attn::Backend::Auto;
    std::optional<attn::MaskSpec> m_maskOverride;
    int m_padding = 0;
    bool m_truncate = false;
    QString m_textPair;
};

} // namespace attnui
