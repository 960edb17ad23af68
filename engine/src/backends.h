// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The backends dispatch can call. Each lives in its own folder (reference/, cpu/, cuda/); attention.cpp is the
// one place that chooses between them.
#include "kernel_args.h"

namespace attn::detail {

Status tiledAttention(const KernelArgs &args);     // cpu/tiled.cpp
Status unfusedAttention(const KernelArgs &args);   // cpu/unfused.cpp
Status cudaAttention(const KernelArgs &args);      // cuda/ (Unavailable when not built)

} // namespace attn::detail
