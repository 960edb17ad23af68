// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Pieces the Equivariance and Faithfulness workspaces build the same way: the explanation line at the top, the
// error banner, and a debounced run that waits while its workspace is hidden (a tab nobody looks at does not
// recompute on every edit in Explore; it catches up when shown).

#include <QObject>
#include <QString>

#include <functional>

class QLabel;
class QTimer;
class QWidget;

namespace attnui {

QLabel *makeExplanationLabel(const QString &text);
QLabel *makeErrorBanner();   // hidden until it has something to say
// Sets *error (when given) and returns false: for restoreSessionState() and showView().
bool failWith(QString *error, const QString &message);

class DeferredRun : public QObject {
    Q_OBJECT
public:
    // `run` is called after `debounceMs` without another schedule(), once `owner` is visible.
    DeferredRun(QWidget *owner, int debounceMs, std::function<void()> run);

    void schedule();        // something changed: run later
    void cancelPending();   // a run is starting now anyway (rerun()); nothing is pending any more
    bool isPending() const { return m_stale; }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QWidget *m_owner = nullptr;
    QTimer *m_timer = nullptr;
    std::function<void()> m_run;
    bool m_stale = true;
};

} // namespace attnui
