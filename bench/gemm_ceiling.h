// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The yardstick for attention GFLOP/s: the best fp32 GEMM this build has, measured in the calling process at
// the thread count the kernels used (a ceiling measured elsewhere, or with more threads, flatters nothing).
//
// Candidates, N×N×N sgemm, column-major, best of `reps` after one warm-up:
//   eigen     Eigen compiled for this CPU, split by column panels over `threads` std::threads, Eigen itself
//             single-threaded in each (the same way the engine's kernels use it)
//   openblas  cblas_sgemm with openblas_set_num_threads(threads), when libopenblas was found at configure time;
//             the core type it picked is logged, and its OPENBLAS_* environment is left exactly as the user set it

#include <string>

namespace attn::bench {

struct GemmCeiling {
    double gflops = 0.0;            // the best of the candidates
    std::string source;             // "openblas-0.3.21 Zen sgemm 2048^3 best of 5, 2 threads"
    double eigenGflops = 0.0;
    double openblasGflops = 0.0;    // 0 when OpenBLAS is not built in
    std::string openblasCore;       // openblas_get_corename(), empty without OpenBLAS
    std::string openblasConfig;     // openblas_get_config()
};

GemmCeiling measureGemmCeiling(int threads, long size = 2048, int reps = 5);

bool openblasBuilt();
std::string eigenVersion();   // "3.4.0"

} // namespace attn::bench
