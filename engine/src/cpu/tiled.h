// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The tiled CPU flash backend: FlashAttention-2 style online softmax over (batch, head, query block) work
// items, SIMD microkernels from cpu/simd/. Scratch memory per thread is independent of the sequence length,
// except for heads whose weights were requested: those run a row-block exact softmax that holds one
// [Lk, query block] score panel per thread.

#include "kernel_args.h"

namespace attn::detail {

// Fills args.out, args.lse and the requested weight buffers. Returns Cancelled when args.cancel fired.
Status tiledAttention(const KernelArgs &args);

// The instruction set the tiled kernels were compiled for: "avx512", "avx2" or "scalar".
const char *tiledSimdLevel();

} // namespace attn::detail
