// SPDX-License-Identifier: GPL-3.0-or-later
#include "parallel.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

namespace attn::detail {

Status parallelFor(std::int64_t items, int threads, const std::function<void(std::int64_t, int)> &body,
                   const CancelFn &cancel, const ProgressFn &progress)
{
    if (items <= 0) return Status::ok();
    const int workers = static_cast<int>(std::clamp<std::int64_t>(threads, 1, items));
    std::atomic<std::int64_t> next{0};
    std::atomic<std::int64_t> done{0};
    std::atomic<bool> stop{false};
    std::mutex progressMutex;
    std::int64_t lastReported = 0; // guarded by progressMutex
    const std::int64_t reportEvery = std::max<std::int64_t>(1, items / 100);

    auto run = [&](int t) {
        for (;;) {
            if (stop.load(std::memory_order_relaxed)) return;
            if (cancel && cancel()) { stop = true; return; }
            const std::int64_t item = next.fetch_add(1, std::memory_order_relaxed);
            if (item >= items) return;
            body(item, t);
            const std::int64_t finished = done.fetch_add(1, std::memory_order_relaxed) + 1;
            if (progress && (finished % reportEvery == 0 || finished == items)) {
                // Two workers can finish items k and k+1 and reach this lock in either order; the one holding the
                // smaller count must not report after the larger, or the fraction seen by the caller goes down.
                std::lock_guard lock(progressMutex);
                if (finished > lastReported) {
                    lastReported = finished;
                    progress(static_cast<double>(finished) / static_cast<double>(items));
                }
            }
        }
    };

    std::vector<std::thread> pool;
    pool.reserve(static_cast<std::size_t>(workers - 1));
    for (int t = 1; t < workers; ++t) pool.emplace_back(run, t);
    run(0);
    for (auto &th : pool) th.join();
    return stop ? Status::cancelled() : Status::ok();
}

} // namespace attn::detail
