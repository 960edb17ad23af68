// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/workspacekit.h"

#include <QEvent>
#include <QLabel>
#include <QSpinBox>
#include <QTimer>
#include <QWidget>

#include <algorithm>

namespace attnui {

QLabel *makeExplanationLabel(const QString &text)
{
    auto *label = new QLabel(text);
    label->setWordWrap(true);
    return label;
}

QLabel *makeErrorBanner()
{
    auto *label = new QLabel;
    label->setWordWrap(true);
    label->setStyleSheet(QStringLiteral("QLabel { background: #fdecea; color: #611a15; padding: 4px; border-radius: 3px; }"));
    label->hide();
    return label;
}

bool failWith(QString *error, const QString &message)
{
    if (error) *error = message;
    return false;
}

QSpinBox *makeIndexSpinBox(const QString &prefix)
{
    auto *spin = new QSpinBox;
    spin->setPrefix(prefix);
    spin->setRange(1, 1);
    return spin;
}

void setIndexCount(QSpinBox *spin, int count)
{
    spin->setRange(1, std::max(1, count));
}

void setIndex(QSpinBox *spin, int index)
{
    spin->setMaximum(std::max(spin->maximum(), index + 1));
    spin->setValue(index + 1);
}

int indexOf(const QSpinBox *spin)
{
    return spin->value() - 1;
}

QString headName(int layer, int head)
{
    return QObject::tr("layer %1 · head %2").arg(layer + 1).arg(head + 1);
}

QStringList layerTickLabels(int layers)
{
    QStringList labels;
    for (int l = 0; l < layers; ++l) labels << QStringLiteral("L%1").arg(l + 1);
    return labels;
}

QStringList headTickLabels(int heads)
{
    QStringList labels;
    for (int h = 0; h < heads; ++h) labels << QStringLiteral("H%1").arg(h + 1);
    return labels;
}

DeferredRun::DeferredRun(QWidget *owner, int debounceMs, std::function<void()> run)
    : QObject(owner), m_owner(owner), m_timer(new QTimer(this)), m_run(std::move(run))
{
    m_timer->setSingleShot(true);
    m_timer->setInterval(debounceMs);
    connect(m_timer, &QTimer::timeout, this, [this] {
        m_stale = false;
        m_run();
    });
    owner->installEventFilter(this);
}

void DeferredRun::schedule()
{
    m_stale = true;
    if (m_owner->isVisible()) m_timer->start();
}

void DeferredRun::cancelPending()
{
    m_timer->stop();
    m_stale = false;
}

bool DeferredRun::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_owner && event->type() == QEvent::Show && m_stale) m_timer->start();
    return QObject::eventFilter(watched, event);
}

} // namespace attnui
