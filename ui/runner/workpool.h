// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The thread pool that AttnScope's own background work runs on: engine jobs (EngineRunner), heatmap preparation
// (HeatmapPlot::setDataAsync) and the freeing of large buffers. Never QThreadPool::globalInstance(): Qt's raster
// engine splits a large fill or line drawing into pieces on the global pool and the UI thread waits for them
// (QSemaphore::acquire under QRasterPaintEngine). With jobs of hundreds of milliseconds holding the global pool's
// threads, one repaint of the window waited 0.3 s (Masks at n = 4096) to 2 s (during a run) for a thread.

#include <QtConcurrent/QtConcurrentRun>

#include <utility>

class QThreadPool;

namespace attnui {

QThreadPool *workPool();

// Lowers the calling thread's scheduling priority once (Linux: nice + kBackgroundNice for this thread only; threads
// it starts, such as the engine's parallelFor workers, inherit it). On a machine with few cores the UI thread then
// gets a core ahead of the computation instead of waiting in the run queue behind it (attnscope-uibench's
// ui_wait_ms: up to 20 ms of a 39 ms stall on 2 cores before).
void enterBackgroundPriority();
inline constexpr int kBackgroundNice = 5;

// QtConcurrent::run on the work pool, at background priority. Use this, not QtConcurrent::run, in ui/.
template <class F>
auto runInBackground(F &&f)
{
    return QtConcurrent::run(workPool(), [f = std::forward<F>(f)]() mutable {
        enterBackgroundPriority();
        return f();
    });
}

// Destroys `value` on the work pool: where a view lets go of the last reference to a large result (hundreds of
// MB at n = 4096), the memory is given back there and not on the UI thread.
template <class T>
void releaseInBackground(T value)
{
    (void)runInBackground([v = std::move(value)]() mutable { v = T(); });
}

} // namespace attnui
