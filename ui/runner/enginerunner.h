// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// EngineRunner: the one object that owns background work. Each submit() starts a job on the Qt thread pool
// (QtConcurrent::run, watched by a QFutureWatcher) and gets a new generation number; only the newest
// generation's outcome is delivered — older ones are stale, are asked to cancel and are dropped silently.
// Results are immutable snapshots shared with the UI (std::shared_ptr<const Snapshot>); the UI thread never
// computes attention.

#include <attnscope/status.h>

#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <string>

namespace attnui {

// What every job returns; workspaces derive their own snapshot types and downcast on delivery.
struct Snapshot {
    virtual ~Snapshot() = default;
    quint64 generation = 0;   // set by the runner
    double elapsedMs = 0.0;   // wall time of the job, set by the runner
    std::string backend;      // the engine backend that ran, if any
};
using SnapshotPtr = std::shared_ptr<const Snapshot>;

// Handed to a job on its worker thread: cancellation and progress, in the engine's callback types.
// A default-constructed context never cancels and drops progress, for running a job synchronously.
class JobContext {
public:
    bool isCancelled() const { return m_cancel->load(std::memory_order_relaxed); }
    void reportProgress(double fraction) const { if (m_progress) m_progress(fraction); }
    // Ready-made callbacks for attn::AttentionOptions.
    std::function<bool()> cancelFn() const;
    std::function<void(double)> progressFn() const;
    quint64 generation() const { return m_generation; }

private:
    friend class EngineRunner;
    std::shared_ptr<std::atomic<bool>> m_cancel = std::make_shared<std::atomic<bool>>(false);
    std::function<void(double)> m_progress;
    quint64 m_generation = 0;
};

using Job = std::function<attn::Result<std::shared_ptr<Snapshot>>(const JobContext &)>;

class EngineRunner : public QObject {
    Q_OBJECT
public:
    explicit EngineRunner(QObject *parent = nullptr);
    ~EngineRunner() override;   // cancels and waits for running jobs

    // Starts `job` off the UI thread; the previous job, if still running, becomes stale. Returns the generation.
    quint64 submit(Job job);
    // Cancels the current job (its outcome is reported as cancelled()).
    void cancel();
    bool isBusy() const { return m_running > 0 && m_currentActive; }
    quint64 currentGeneration() const { return m_generation; }
    // Waits (spinning the event loop) until no job runs; for tests and shutdown.
    bool waitForIdle(int timeoutMs = 30000);

signals:
    void started(quint64 generation);
    void progress(double fraction);       // of the current job, throttled
    void finished(attnui::SnapshotPtr snapshot);
    void failed(const QString &message);
    void cancelled();
    void idle();                          // the current job's outcome has been delivered

private:
    struct Outcome;
    void deliver(quint64 generation, const std::shared_ptr<Outcome> &outcome);

    quint64 m_generation = 0;
    std::shared_ptr<std::atomic<bool>> m_currentCancel;
    bool m_currentActive = false;
    int m_running = 0;
};

} // namespace attnui

Q_DECLARE_METATYPE(attnui::SnapshotPtr)
