// SPDX-License-Identifier: GPL-3.0-or-later
#include "kit/paddingstrip.h"

#include <QHBoxLayout>
#include <QToolButton>

#include <algorithm>

namespace attnui {

PaddingStrip::PaddingStrip(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addStretch(1);
    setStyleSheet(QStringLiteral("QToolButton:checked { background: palette(highlight); color: palette(highlighted-text); "
                                 "border: 1px solid palette(highlight); border-radius: 3px; padding: 2px 4px; }"));
}

void PaddingStrip::setTokens(const QStringList &tokens, const std::vector<int> &padding)
{
    auto *layout = static_cast<QHBoxLayout *>(this->layout());
    while (m_buttons.size() > tokens.size()) delete m_buttons.takeLast();
    for (int i = 0; i < tokens.size(); ++i) {
        if (i == m_buttons.size()) {
            auto *b = new QToolButton(this);
            b->setCheckable(true);
            b->setAutoRaise(false);
            connect(b, &QToolButton::clicked, this, [this, i] { emit toggled(i); });
            layout->insertWidget(i, b);
            m_buttons << b;
        }
        QToolButton *b = m_buttons[i];
        b->setText(tokens[i]);
        const bool pad = std::find(padding.begin(), padding.end(), i) != padding.end();
        b->setChecked(pad);
        b->setToolTip(pad ? tr("token %1 is a padding key: no query attends to it (click to make it a real token)").arg(i)
                          : tr("token %1: click to mark it as padding").arg(i));
    }
}

} // namespace attnui
