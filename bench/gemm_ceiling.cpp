// SPDX-License-Identifier: GPL-3.0-or-later
#include "gemm_ceiling.h"

#include <Eigen/Core>

#include <algorithm>
#include <chrono>
#include <sstream>
#include <thread>
#include <vector>

#if ATTNSCOPE_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace attn::bench {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

template <typename Fn>
double bestSeconds(int reps, Fn &&run)
{
    run();   // warm-up: first-touch of C, packing buffers, thread start-up
    double best = 1e300;
    for (int r = 0; r < reps; ++r) {
        const auto start = Clock::now();
        run();
        best = std::min(best, secondsSince(start));
    }
    return best;
}

double eigenGemm(const Eigen::MatrixXf &A, const Eigen::MatrixXf &B, Eigen::MatrixXf &C, int threads, int reps)
{
    const Eigen::Index n = B.cols();
    const int workers = static_cast<int>(std::clamp<Eigen::Index>(threads, 1, n));
    auto panel = [&](int t) {
        const Eigen::Index begin = n * t / workers;
        const Eigen::Index end = n * (t + 1) / workers;
        C.middleCols(begin, end - begin).noalias() = A * B.middleCols(begin, end - begin);
    };
    return bestSeconds(reps, [&] {
        std::vector<std::thread> pool;
        for (int t = 1; t < workers; ++t) pool.emplace_back(panel, t);
        panel(0);
        for (auto &th : pool) th.join();
    });
}

std::string versionFromConfig(const std::string &config)
{
    // "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Zen MAX_THREADS=64" → "0.3.21"
    std::istringstream words(config);
    std::string name, version;
    words >> name >> version;
    return name == "OpenBLAS" ? version : std::string();
}

} // namespace

bool openblasBuilt() { return ATTNSCOPE_HAVE_OPENBLAS != 0; }

std::string eigenVersion()
{
    return std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
           std::to_string(EIGEN_MINOR_VERSION);
}

GemmCeiling measureGemmCeiling(int threads, long size, int reps)
{
    threads = std::max(1, threads);
    const Eigen::Index n = std::max<long>(16, size);
    const double flops = 2.0 * double(n) * double(n) * double(n);
    const Eigen::MatrixXf A = Eigen::MatrixXf::Random(n, n);
    const Eigen::MatrixXf B = Eigen::MatrixXf::Random(n, n);
    Eigen::MatrixXf C = Eigen::MatrixXf::Zero(n, n);
    const std::string shape = "sgemm " + std::to_string(n) + "^3 best of " + std::to_string(reps) + ", " +
                              std::to_string(threads) + (threads == 1 ? " thread" : " threads");

    GemmCeiling ceiling;
    ceiling.eigenGflops = flops / eigenGemm(A, B, C, threads, reps) * 1e-9;
    ceiling.gflops = ceiling.eigenGflops;
    ceiling.source = "eigen-" + eigenVersion() + " " + shape + " (column panels)";

#if ATTNSCOPE_HAVE_OPENBLAS
    openblas_set_num_threads(threads);
    ceiling.openblasCore = openblas_get_corename();
    ceiling.openblasConfig = openblas_get_config();
    const double seconds = bestSeconds(reps, [&] {
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, int(n), int(n), int(n), 1.0f, A.data(), int(n),
                    B.data(), int(n), 0.0f, C.data(), int(n));
    });
    ceiling.openblasGflops = flops / seconds * 1e-9;
    if (ceiling.openblasGflops > ceiling.gflops) {
        std::string version = versionFromConfig(ceiling.openblasConfig);
        if (version.empty()) version = ATTNSCOPE_OPENBLAS_VERSION;
        ceiling.gflops = ceiling.openblasGflops;
        ceiling.source = "openblas-" + version + " " + ceiling.openblasCore + " " + shape;
    }
#endif
    return ceiling;
}

} // namespace attn::bench
