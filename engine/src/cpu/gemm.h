// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The multi-threaded fp32 GEMM of the model's projections and MLP (internal; namespace attn::detail).
//
//   C = A · op(B) + beta · C        row-major; A [M, K] (row stride lda), op(B) = B [K, N] (ldb) or, with transB,
//                                   Bᵀ for B [N, K] (ldb: a weight matrix stored [out, in]); C [M, N] (ldc).
//   beta == 0: C is only written (it may hold anything, NaN included, before the call).
//
// Results are the same bits whatever `threads` is: C is cut into tiles whose sizes depend on (M, N, K) only, every
// tile is one single-threaded kernel call over the whole K (K is never split across threads), and the tiles are
// handed out to `threads` workers (parallel.h). The tile kernel was chosen by measurement against OpenBLAS and
// oneDNN (docs/performance.md, "GEMM for the model"; bench: attnscope-kernelbench gemm). Scratch: the kernel's
// packing buffers, per call, per worker.

#include <cstdint>

namespace attn::detail {

void gemm(bool transB, std::int64_t M, std::int64_t N, std::int64_t K, const float *A, std::int64_t lda,
          const float *B, std::int64_t ldb, float *C, std::int64_t ldc, float beta, int threads);

// The per-tile kernels gemm() can run; gemm() uses gemmDefaultKernel(). Exposed for the bench and the tests.
//   Eigen    Eigen's GEMM (always built)
//   OneDnn   oneDNN's dnnl_sgemm, one OpenMP thread per call (so it never starts a team inside our workers),
//            when the engine was built with oneDNN (ATTNSCOPE_HAVE_ONEDNN)
enum class GemmKernel { Eigen, OneDnn };
bool gemmKernelAvailable(GemmKernel kernel);
GemmKernel gemmDefaultKernel();
const char *gemmKernelName(GemmKernel kernel);   // "eigen", "onednn"
// The instruction set the default kernel runs, as decided at run time by oneDNN ("avx2", "avx512_core", ...;
// ONEDNN_MAX_CPU_ISA caps it), or Eigen's compile-time one ("eigen-avx2", ...).
const char *gemmKernelIsa();
void gemmWith(GemmKernel kernel, bool transB, std::int64_t M, std::int64_t N, std::int64_t K, const float *A,
              std::int64_t lda, const float *B, std::int64_t ldb, float *C, std::int64_t ldc, float beta,
              int threads);

// The tile sizes gemm() uses for a shape (exposed for the bench and the tests).
struct GemmTiles {
    std::int64_t rows = 0, cols = 0;   // tile height and width
};
GemmTiles gemmTiles(std::int64_t M, std::int64_t N, std::int64_t K);

} // namespace attn::detail
