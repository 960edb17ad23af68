// SPDX-License-Identifier: GPL-3.0-or-later
#include "cpu/gemm.h"

#include "parallel.h"

#include <Eigen/Core>

#include <algorithm>

#if ATTNSCOPE_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.h>
#include <omp.h>
#endif

namespace attn::detail {

namespace {

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Stride = Eigen::OuterStride<Eigen::Dynamic>;
using ConstMap = Eigen::Map<const RowMajor, Eigen::Unaligned, Stride>;
using Map = Eigen::Map<RowMajor, Eigen::Unaligned, Stride>;

constexpr std::int64_t kTileRows = 128;     // a multiple of Eigen's AVX2/AVX-512 register block heights
constexpr std::int64_t kTileCols = 256;
constexpr double kMinTileFlops = 4e6;       // below this a tile costs more to hand out than to compute

} // namespace

GemmTiles gemmTiles(std::int64_t M, std::int64_t N, std::int64_t K)
{
    // Small problems are one tile; otherwise fixed 128 x 256 tiles (each packs its own panels of A and B: the
    // redundant packing is ~10 % of the FLOPs at K = 768 and buys an M/N partition that depends on the shape only).
    if (2.0 * double(M) * double(N) * double(K) < 2 * kMinTileFlops) return {M, N};
    return {std::min(M, kTileRows), std::min(N, kTileCols)};
}

bool gemmKernelAvailable(GemmKernel kernel)
{
    return kernel == GemmKernel::Eigen || ATTNSCOPE_HAVE_ONEDNN;
}

GemmKernel gemmDefaultKernel()
{
    return gemmKernelAvailable(GemmKernel::OneDnn) ? GemmKernel::OneDnn : GemmKernel::Eigen;
}

const char *gemmKernelName(GemmKernel kernel) { return kernel == GemmKernel::OneDnn ? "onednn" : "eigen"; }

const char *gemmKernelIsa()
{
#if ATTNSCOPE_HAVE_ONEDNN
    switch (dnnl_get_effective_cpu_isa()) {
    case dnnl_cpu_isa_sse41: return "sse41";
    case dnnl_cpu_isa_avx: return "avx";
    case dnnl_cpu_isa_avx2: return "avx2";
    case dnnl_cpu_isa_avx2_vnni: return "avx2_vnni";
    case dnnl_cpu_isa_avx512_core: return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni: return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16: return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx: return "avx512_core_amx";
    default: return "other";
    }
#elif defined(__AVX512F__)
    return "eigen-avx512";
#elif defined(__AVX2__)
    return "eigen-avx2";
#else
    return "eigen-sse";
#endif
}

void gemm(bool transB, std::int64_t M, std::int64_t N, std::int64_t K, const float *A, std::int64_t lda,
          const float *B, std::int64_t ldb, float *C, std::int64_t ldc, float beta, int threads)
{
    gemmWith(gemmDefaultKernel(), transB, M, N, K, A, lda, B, ldb, C, ldc, beta, threads);
}

void gemmWith(GemmKernel kernel, bool transB, std::int64_t M, std::int64_t N, std::int64_t K, const float *A,
              std::int64_t lda, const float *B, std::int64_t ldb, float *C, std::int64_t ldc, float beta,
              int threads)
{
    if (M <= 0 || N <= 0) return;
    if (!gemmKernelAvailable(kernel)) kernel = GemmKernel::Eigen;
    const GemmTiles t = gemmTiles(M, N, K);
    const std::int64_t rowTiles = (M + t.rows - 1) / t.rows, colTiles = (N + t.cols - 1) / t.cols;
    auto tile = [&](std::int64_t item, int) {
        const std::int64_t m0 = (item / colTiles) * t.rows, n0 = (item % colTiles) * t.cols;
        const std::int64_t m = std::min(t.rows, M - m0), n = std::min(t.cols, N - n0);
        Map c(C + m0 * ldc + n0, m, n, Stride(ldc));
        if (K <= 0) {
            if (beta == 0.0f) c.setZero();
            else c *= beta;
            return;
        }
        const float *b0 = transB ? B + n0 * ldb : B + n0;
#if ATTNSCOPE_HAVE_ONEDNN
        if (kernel == GemmKernel::OneDnn) {
            // One OpenMP thread for this call on this thread (the ICV is per thread), restored afterwards: the
            // workers are ours, and oneDNN must not start a team inside each of them. beta == 0 never reads C.
            const int saved = omp_get_max_threads();
            omp_set_num_threads(1);
            dnnl_sgemm('N', transB ? 'T' : 'N', m, n, K, 1.0f, A + m0 * lda, lda, b0, ldb, beta,
                       C + m0 * ldc + n0, ldc);
            omp_set_num_threads(saved);
            return;
        }
#endif
        const ConstMap a(A + m0 * lda, m, K, Stride(lda));
        if (beta == 0.0f) c.setZero();
        else if (beta != 1.0f) c *= beta;
        if (transB) c.noalias() += a * ConstMap(b0, n, K, Stride(ldb)).transpose();   // rows n0.. of B [N, K]
        else c.noalias() += a * ConstMap(b0, K, n, Stride(ldb));
    };
    parallelFor(rowTiles * colTiles, std::max(1, threads), tile);
}

} // namespace attn::detail
