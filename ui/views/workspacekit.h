// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Pieces the workspaces build the same way: the explanation line at the top, the error banner, a debounced run
// that waits while its workspace is hidden (a tab nobody looks at does not recompute on every edit in Explore; it
// catches up when shown), and how layers and heads are numbered on screen.

#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>

class QLabel;
class QSpinBox;
class QTimer;
class QWidget;

namespace attnui {

QLabel *makeExplanationLabel(const QString &text);
QLabel *makeErrorBanner();   // hidden until it has something to say
// Sets *error (when given) and returns false: for restoreSessionState() and showView().
bool failWith(QString *error, const QString &message);

// Layer and head numbers: what a person reads counts from 1 ("layer 2 · head 3", spin boxes showing 1..N, grid
// ticks L1…, H1…), like Explore; what a machine reads (session state, view specs such as pipeline:1.2, CLI options,
// JSON) counts from 0. Every index below is 0-based; these functions are where the display adds its 1.
QSpinBox *makeIndexSpinBox(const QString &prefix);   // e.g. tr("layer ")
void setIndexCount(QSpinBox *spin, int count);       // shows 1..count (at least 1)
// Widens the range when needed: a session restores its head before its model (and so the real count) is open.
void setIndex(QSpinBox *spin, int index);
int indexOf(const QSpinBox *spin);
QString headName(int layer, int head);               // "layer 2 · head 3" for (1, 2)
QStringList layerTickLabels(int layers);             // "L1" … "Ln"
QStringList headTickLabels(int heads);               // "H1" … "Hn"

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
