// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A small work-sharing loop for the CPU kernels: `items` independent work items handed out through one atomic
// counter (dynamic scheduling, so causal's uneven items balance), on `threads` threads including the caller.
// Cancel is polled before each item; progress is reported (serialised) at most ~100 times.

#include <attnscope/attention.h>

#include <cstdint>
#include <functional>

namespace attn::detail {

// body(item, threadIndex) with threadIndex in [0, threads). Returns Cancelled if cancel() returned true;
// items not yet started are then skipped, items in flight finish.
Status parallelFor(std::int64_t items, int threads, const std::function<void(std::int64_t, int)> &body,
                   const CancelFn &cancel = {}, const ProgressFn &progress = {});

} // namespace attn::detail
