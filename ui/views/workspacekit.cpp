// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/workspacekit.h"

#include <QEvent>
#include <QLabel>
#include <QTimer>
#include <QWidget>

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
