// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A debounced run that waits while its owner is hidden: a tab nobody looks at does not recompute on every edit
// elsewhere; it catches up when it is shown. Workspace uses one for scheduleRun().

#include <QObject>

#include <functional>

class QTimer;
class QWidget;

namespace attnui {

class DeferredRun : public QObject {
    Q_OBJECT
public:
    // `run` is called after `debounceMs` without another schedule(), once `owner` is visible (or at once with
    // `whileHidden`).
    DeferredRun(QWidget *owner, int debounceMs, std::function<void()> run, bool whileHidden = false);

    void schedule();        // something changed: run later
    void cancelPending();   // a run is starting now anyway (rerun()); nothing is pending any more
    bool isPending() const { return m_stale; }
    void setInterval(int ms);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QWidget *m_owner = nullptr;
    QTimer *m_timer = nullptr;
    std::function<void()> m_run;
    bool m_whileHidden = false;
    bool m_stale = true;    // the first show runs
};

} // namespace attnui
