// SPDX-License-Identifier: GPL-3.0-or-later
#include "kit/deferredrun.h"

#include <QEvent>
#include <QTimer>
#include <QWidget>

namespace attnui {

DeferredRun::DeferredRun(QWidget *owner, int debounceMs, std::function<void()> run, bool whileHidden)
    : QObject(owner), m_owner(owner), m_timer(new QTimer(this)), m_run(std::move(run)), m_whileHidden(whileHidden)
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
    if (m_whileHidden || m_owner->isVisible()) m_timer->start();
}

void DeferredRun::cancelPending()
{
    m_timer->stop();
    m_stale = false;
}

void DeferredRun::setInterval(int ms)
{
    m_timer->setInterval(ms);
}

bool DeferredRun::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_owner && event->type() == QEvent::Show && m_stale && !m_timer->isActive()) m_timer->start();
    return QObject::eventFilter(watched, event);
}

} // namespace attnui
