// SPDX-License-Identifier: GPL-3.0-or-later
#include "runner/enginerunner.h"
#include "runner/workpool.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QFutureWatcher>
#include <QPointer>
#include <QThread>
#include <QtConcurrent/QtConcurrentRun>

#include <exception>

namespace attnui {

struct EngineRunner::Outcome {
    attn::Status status;
    std::shared_ptr<Snapshot> snapshot;
};

std::function<bool()> JobContext::cancelFn() const
{
    // Copies the shared flag: the callback may outlive this context on engine worker threads.
    return [flag = m_cancel] { return flag->load(std::memory_order_relaxed); };
}

std::function<void(double)> JobContext::progressFn() const
{
    return m_progress;
}

EngineRunner::EngineRunner(QObject *parent) : QObject(parent)
{
    qRegisterMetaType<attnui::SnapshotPtr>();
}

EngineRunner::~EngineRunner()
{
    if (m_currentCancel) m_currentCancel->store(true);
    // Jobs hold no pointer to this object (progress goes through a QPointer), but their watchers are children:
    // wait so that no job outlives the libraries' state it uses.
    for (auto *watcher : findChildren<QFutureWatcherBase *>()) watcher->waitForFinished();
}

quint64 EngineRunner::submit(Job job)
{
    if (m_currentCancel) m_currentCancel->store(true);   // the previous job's result would be dropped anyway
    const quint64 generation = ++m_generation;
    auto cancelFlag = std::make_shared<std::atomic<bool>>(false);
    m_currentCancel = cancelFlag;
    m_currentActive = true;

    JobContext ctx;
    ctx.m_cancel = cancelFlag;
    ctx.m_generation = generation;
    // Progress crosses threads as queued calls; throttled to ~1% steps so a fine-grained engine cannot flood the
    // event loop. The engine never calls it concurrently, so the plain `last` is safe.
    QPointer<EngineRunner> self(this);
    auto last = std::make_shared<double>(-1.0);
    ctx.m_progress = [self, generation, last](double fraction) {
        if (fraction < 1.0 && fraction - *last < 0.01) return;
        *last = fraction;
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [self, generation, fraction] {
                if (self && generation == self->m_generation && self->m_currentActive) emit self->progress(fraction);
            },
            Qt::QueuedConnection);
    };

    auto *watcher = new QFutureWatcher<std::shared_ptr<Outcome>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
        deliver(generation, watcher->result());
        watcher->deleteLater();
    });
    ++m_running;
    emit started(generation);
    watcher->setFuture(runInBackground([job = std::move(job), ctx]() -> std::shared_ptr<Outcome> {
        auto outcome = std::make_shared<Outcome>();
        QElapsedTimer timer;
        timer.start();
        try {
            if (ctx.isCancelled()) {
                outcome->status = attn::Status::cancelled();
                return outcome;
            }
            auto result = job(ctx);
            if (!result) {
                outcome->status = result.status();
            } else {
                outcome->snapshot = std::move(result).value();
                if (!outcome->snapshot)
                    outcome->status = attn::Status(attn::ErrorCode::Internal, "the job returned no result");
            }
        } catch (const std::bad_alloc &) {
            outcome->status = attn::Status(attn::ErrorCode::OutOfMemory, "out of memory");
        } catch (const std::exception &e) {
            outcome->status = attn::Status(attn::ErrorCode::Internal, e.what());
        }
        if (outcome->snapshot) {
            outcome->snapshot->generation = ctx.generation();
            outcome->snapshot->elapsedMs = double(timer.nsecsElapsed()) / 1e6;
        }
        return outcome;
    }));
    return generation;
}

void EngineRunner::cancel()
{
    if (m_currentCancel) m_currentCancel->store(true);
}

void EngineRunner::deliver(quint64 generation, const std::shared_ptr<Outcome> &outcome)
{
    --m_running;
    if (generation != m_generation || !m_currentActive) return;   // stale: a newer request replaced it
    m_currentActive = false;
    if (outcome->status.isOk())
        emit finished(SnapshotPtr(outcome->snapshot));
    else if (outcome->status.code() == attn::ErrorCode::Cancelled)
        emit cancelled();
    else
        emit failed(QString::fromStdString(outcome->status.message()));
    emit idle();
}

bool EngineRunner::waitForIdle(int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs);
    while (m_running > 0 && !deadline.hasExpired())
        QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents, 20);
    return m_running == 0;
}

} // namespace attnui
