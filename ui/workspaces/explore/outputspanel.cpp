// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/explore/outputspanel.h"
#include "kit/fontscale.h"

#include "kit/numbering.h"

#include "export/figureexport.h"
#include "workspaces/explore/experiment.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QTableWidget>
#include <QVBoxLayout>

#include <numeric>

namespace attnui {

namespace {

QWidget *probabilityBar(double p)
{
    auto *bar = new QProgressBar;
    bar->setRange(0, 1000);
    bar->setValue(int(p * 1000.0 + 0.5));
    bar->setFormat(QStringLiteral("%1 %").arg(p * 100.0, 0, 'f', p < 0.001 ? 3 : 1));
    bar->setAlignment(Qt::AlignCenter);
    return bar;
}

} // namespace

OutputsPanel::OutputsPanel(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    m_headline = new QLabel;
    setRelativeFont(m_headline, 1.15, true);
    m_headline->setWordWrap(true);
    layout->addWidget(m_headline);
    m_note = new QLabel;
    m_note->setWordWrap(true);
    m_note->setForegroundRole(QPalette::PlaceholderText);
    layout->addWidget(m_note);
    auto *row = new QHBoxLayout;
    m_positionLabel = new QLabel(tr("&Position"));
    m_position = new QComboBox;
    m_position->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_positionLabel->setBuddy(m_position);
    row->addWidget(m_positionLabel);
    row->addWidget(m_position);
    row->addStretch(1);
    layout->addLayout(row);
    m_table = new QTableWidget;
    m_table->setColumnCount(3);
    m_table->setHorizontalHeaderLabels({tr("Rank"), tr("Token"), tr("Probability")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Interactive);
    m_table->horizontalHeader()->setSectionResizeMode(2, QHeaderView::Stretch);
    m_table->setColumnWidth(1, 260);
    m_table->setMaximumWidth(900);
    layout->addWidget(m_table, 1);
    connect(m_position, &QComboBox::currentIndexChanged, this, &OutputsPanel::showPosition);
}

QSize OutputsPanel::figureSize() const
{
    constexpr int kWidth = 560;
    int height = 4 + tableFigureSize(m_table).height();
    for (const QLabel *label : {m_headline, m_note})
        if (label->isVisibleTo(this)) height += label->heightForWidth(kWidth) + 6;
    return QSize(kWidth, height);
}

QString OutputsPanel::headline() const
{
    return m_headline->text();
}

void OutputsPanel::setSnapshot(std::shared_ptr<const ExploreSnapshot> snapshot)
{
    m_snapshot = std::move(snapshot);
    const QSignalBlocker block(m_position);
    m_position->clear();
    m_table->setRowCount(0);
    if (!m_snapshot) return;
    const ExploreSnapshot &s = *m_snapshot;
    const ModelOutputs &o = s.outputs;
    m_note->setText(o.note);
    m_note->setVisible(!o.note.isEmpty());
    const bool perPosition = o.head == attn::ModelHead::CausalLM || o.head == attn::ModelHead::MaskedLM;
    m_position->setVisible(perPosition && !o.positions.empty());
    m_positionLabel->setVisible(m_position->isVisibleTo(this));
    switch (o.head) {
    case attn::ModelHead::None:
        m_headline->setText(!s.request.text.isEmpty() ? tr("A raw attention layer has no outputs to predict.")
                                                      : tr("This model has no output head."));
        m_note->hide();
        return;
    case attn::ModelHead::Classification: {
        std::vector<int> order(o.classProbabilities.size(), 0);
        std::iota(order.begin(), order.end(), 0);
        std::sort(order.begin(), order.end(),
                  [&o](int a, int b) { return o.classProbabilities[std::size_t(a)] > o.classProbabilities[std::size_t(b)]; });
        m_table->setHorizontalHeaderLabels({tr("Rank"), tr("Class"), tr("Probability")});
        m_table->setRowCount(int(order.size()));
        for (int r = 0; r < int(order.size()); ++r) {
            const int c = order[std::size_t(r)];
            m_table->setItem(r, 0, new QTableWidgetItem(QString::number(r + 1)));
            m_table->setItem(r, 1, new QTableWidgetItem(o.classLabels.value(c)));
            m_table->setCellWidget(r, 2, probabilityBar(o.classProbabilities[std::size_t(c)]));
        }
        if (!order.empty())
            m_headline->setText(tr("Classifier: “%1” with probability %2 %")
                                    .arg(o.classLabels.value(order.front()))
                                    .arg(o.classProbabilities[std::size_t(order.front())] * 100.0, 0, 'f', 1));
        return;
    }
    case attn::ModelHead::CausalLM:
    case attn::ModelHead::MaskedLM: break;
    }
    m_table->setHorizontalHeaderLabels({tr("Rank"), tr("Token"), tr("Probability")});
    for (int p : o.positions)
        m_position->addItem(tr("after %1 “%2”").arg(tokenName(p), s.tokens.value(p)), p);
    if (o.head == attn::ModelHead::MaskedLM) {
        for (int i = 0; i < m_position->count(); ++i)
            m_position->setItemText(i, tr("at %1 “%2”").arg(tokenName(o.positions[std::size_t(i)]), s.tokens.value(o.positions[std::size_t(i)])));
        m_position->setCurrentIndex(0);
    } else {
        m_position->setCurrentIndex(m_position->count() - 1);   // the next token after the whole text
    }
    showPosition();
}

void OutputsPanel::showPosition()
{
    if (!m_snapshot) return;
    const ModelOutputs &o = m_snapshot->outputs;
    const int idx = m_position->currentIndex();
    m_table->setRowCount(0);
    if (idx < 0 || idx >= int(o.topK.size())) return;
    const std::vector<TokenPrediction> &top = o.topK[std::size_t(idx)];
    m_table->setRowCount(int(top.size()));
    for (int r = 0; r < int(top.size()); ++r) {
        m_table->setItem(r, 0, new QTableWidgetItem(QString::number(r + 1)));
        auto *token = new QTableWidgetItem(top[std::size_t(r)].token);
        QFont mono(QStringLiteral("monospace"));
        mono.setStyleHint(QFont::Monospace);
        token->setFont(mono);
        m_table->setItem(r, 1, token);
        m_table->setCellWidget(r, 2, probabilityBar(top[std::size_t(r)].probability));
    }
    const int position = o.positions[std::size_t(idx)];
    const QString best = top.empty() ? QString() : top.front().token;
    if (o.head == attn::ModelHead::CausalLM)
        m_headline->setText(tr("Next token after position %1 “%2”: “%3” (%4 %)")
                                .arg(position).arg(m_snapshot->tokens.value(position)).arg(best)
                                .arg(top.empty() ? 0.0 : top.front().probability * 100.0, 0, 'f', 1));
    else
        m_headline->setText(tr("Masked-token prediction at position %1: “%2” (%3 %)")
                                .arg(position).arg(best)
                                .arg(top.empty() ? 0.0 : top.front().probability * 100.0, 0, 'f', 1));
}

} // namespace attnui
