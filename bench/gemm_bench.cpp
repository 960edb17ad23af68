// SPDX-License-Identifier: GPL-3.0-or-later
// gemm: the model's GEMM (engine/src/cpu/gemm.h: our M/N tiling around Eigen's kernel on our thread pool) beside
// the candidates it was chosen against, at the shapes of a GPT-2-small layer at n = 512 (QKV 512×768·768×2304,
// attention output 768×768, MLP up 768×3072 and down 3072×768, and the 512×768·(50257×768)ᵀ LM head):
//   eigen      one plain single-threaded Eigen product (what the model used before)
//   attn-tiles-eigen / attn-tiles-onednn   detail::gemmWith at T threads: our tiles, each one single-threaded
//              call of that kernel (the default one is marked)
//   openblas   cblas_sgemm with openblas_set_num_threads(T) (its own pthreads), when built with OpenBLAS
//   onednn     dnnl_sgemm with omp_set_num_threads(T) (OpenMP), when built with oneDNN
// Each result is checked against a double-precision GEMM on 256 sampled entries (2 × the error of a sequential fp32
// dot product + 1e-6) and for being the same bits at 1, 2 and 3 threads ("deterministic"); then timed (median).
#include "kernelbench.h"

#include "cpu/gemm.h"

#include <Eigen/Core>

#include <cmath>
#include <random>

#include <time.h>

#if ATTNSCOPE_HAVE_OPENBLAS
#include <cblas.h>
#endif
#if ATTNSCOPE_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.h>
#include <omp.h>
#endif

namespace attn::bench {

namespace {

struct Shape {
    const char *name;
    std::int64_t M, N, K;
    bool transB;
};

using Runner = std::function<void(const float *A, const float *B, float *C, int threads)>;

double r2(double x) { return std::round(x * 100) / 100; }

double processCpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}

} // namespace

int gemmBench(const KernelBenchArgs &args)
{
    const std::int64_t n = args.n.empty() ? 512 : args.n.front();
    const Shape shapes[] = {
        {"qkv", n, 2304, 768, false},   {"attn_out", n, 768, 768, false}, {"mlp_up", n, 3072, 768, false},
        {"mlp_down", n, 768, 3072, false}, {"lm_head", n, 50257, 768, true},
    };
    struct Candidate {
        std::string name;
        bool threaded;
        Runner run;
    };
    std::vector<Candidate> candidates;
    const Shape *current = nullptr;
    using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    candidates.push_back({"eigen", false, [&](const float *A, const float *B, float *C, int) {
        const Shape &s = *current;
        Eigen::Map<const RowMajor> a(A, s.M, s.K);
        Eigen::Map<RowMajor> c(C, s.M, s.N);
        if (s.transB) c.noalias() = a * Eigen::Map<const RowMajor>(B, s.N, s.K).transpose();
        else c.noalias() = a * Eigen::Map<const RowMajor>(B, s.K, s.N);
    }});
    for (detail::GemmKernel kernel : {detail::GemmKernel::Eigen, detail::GemmKernel::OneDnn}) {
        if (!detail::gemmKernelAvailable(kernel)) continue;
        std::string name = std::string("attn-tiles-") + detail::gemmKernelName(kernel);
        if (kernel == detail::gemmDefaultKernel()) name += " (default)";
        candidates.push_back({name, true, [&, kernel](const float *A, const float *B, float *C, int t) {
            const Shape &s = *current;
            detail::gemmWith(kernel, s.transB, s.M, s.N, s.K, A, s.K, B, s.transB ? s.K : s.N, C, s.N, 0.0f, t);
        }});
    }
#if ATTNSCOPE_HAVE_OPENBLAS
    candidates.push_back({std::string("openblas-") + openblas_get_corename(), true,
                          [&](const float *A, const float *B, float *C, int t) {
        const Shape &s = *current;
        openblas_set_num_threads(t);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, s.transB ? CblasTrans : CblasNoTrans, int(s.M), int(s.N), int(s.K),
                    1.0f, A, int(s.K), B, int(s.transB ? s.K : s.N), 0.0f, C, int(s.N));
    }});
#endif
#if ATTNSCOPE_HAVE_ONEDNN
    candidates.push_back({"onednn", true, [&](const float *A, const float *B, float *C, int t) {
        const Shape &s = *current;
        omp_set_num_threads(t);
        dnnl_sgemm('N', s.transB ? 'T' : 'N', s.M, s.N, s.K, 1.0f, A, s.K, B, s.transB ? s.K : s.N, 0.0f, C, s.N);
    }});
#endif

    int failures = 0;
    for (const Shape &s : shapes) {
        current = &s;
        std::mt19937_64 rng(args.seed);
        std::normal_distribution<float> normal(0.0f, 1.0f);
        std::vector<float> A(static_cast<std::size_t>(s.M * s.K)), B(static_cast<std::size_t>(s.K * s.N)),
            C(static_cast<std::size_t>(s.M * s.N));
        for (float &x : A) x = normal(rng);
        for (float &x : B) x = normal(rng);
        const auto b = [&](std::int64_t k, std::int64_t j) { return s.transB ? B[j * s.K + k] : B[k * s.N + j]; };
        // Sampled entries: fp64 reference and the sequential fp32 dot product's error.
        std::vector<std::pair<std::int64_t, std::int64_t>> samples;
        std::vector<double> exact;
        double naiveErr = 0.0;
        for (int e = 0; e < 256; ++e) {
            const std::int64_t i = static_cast<std::int64_t>(rng() % std::uint64_t(s.M)), j = static_cast<std::int64_t>(rng() % std::uint64_t(s.N));
            double d = 0.0;
            float f = 0.0f;
            for (std::int64_t k = 0; k < s.K; ++k) {
                d += double(A[i * s.K + k]) * double(b(k, j));
                f += A[i * s.K + k] * b(k, j);
            }
            samples.push_back({i, j});
            exact.push_back(d);
            naiveErr = std::max(naiveErr, std::abs(double(f) - d));
        }
        for (const Candidate &c : candidates) {
            for (int t : args.threads) {
                if (!c.threaded && t != 1) continue;
                Json line = benchLine("gemm");
                line["shape"] = s.name;
                line["M"] = s.M;
                line["N"] = s.N;
                line["K"] = s.K;
                line["transB"] = s.transB;
                line["kernel"] = c.name;
                line["default_kernel_isa"] = detail::gemmKernelIsa();
                line["threads"] = t;
                std::fill(C.begin(), C.end(), 0.0f);
                c.run(A.data(), B.data(), C.data(), t);
                double err = 0.0;
                for (std::size_t e = 0; e < samples.size(); ++e)
                    err = std::max(err, std::abs(double(C[samples[e].first * s.N + samples[e].second]) - exact[e]));
                line["max_abs_err_vs_fp64"] = err;
                line["naive_fp32_err"] = naiveErr;
                const bool accurate = err <= 2.0 * naiveErr + 1e-6;
                bool deterministic = true;
                if (c.threaded) {
                    std::vector<float> other(C.size());
                    for (int u : {1, 2, 3}) {
                        c.run(A.data(), B.data(), other.data(), u);
                        deterministic = deterministic && other == C;
                    }
                }
                line["deterministic_1_2_3_threads"] = deterministic;
                line["validated"] = accurate;
                if (!accurate) ++failures;
                std::vector<double> ms, cpu;
                for (int rep = 0; rep < args.reps && accurate; ++rep) {
                    const double c0 = processCpuMs();
                    const Stopwatch w;
                    c.run(A.data(), B.data(), C.data(), t);
                    ms.push_back(w.ms());
                    cpu.push_back(processCpuMs() - c0);
                }
                if (accurate) {
                    const Timing tm = summarize(ms), tc = summarize(cpu);
                    const double flop = 2.0 * double(s.M) * double(s.N) * double(s.K);
                    line["timing"] = timingJson(tm);
                    line["gflops"] = r2(flop / (tm.median * 1e6));
                    // Process CPU time (all threads): at 1 thread the kernel's own time, steady under load.
                    line["cpu_ms_min"] = r2(tc.min);
                    line["gflops_per_cpu_s"] = r2(flop / (tc.min * 1e6));
                }
                emitLine(line);
            }
        }
    }
    return failures ? 1 : 0;
}

} // namespace attn::bench
