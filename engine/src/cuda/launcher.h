// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Host side of the CUDA backend (launcher.cpp). cudaAttention itself is declared in backends.h, with the other
// backends; this header adds what only the CUDA files share.
#include "backends.h"

namespace attn::detail {

// InvalidArgument when the problem is outside what the CUDA kernels handle (head dims > 256, lengths >= 2^30).
Status checkCudaProblem(std::int64_t B, std::int64_t H, std::int64_t Lq, std::int64_t Lk, std::int64_t D,
                        std::int64_t Dv);

} // namespace attn::detail
