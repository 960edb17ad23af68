// SPDX-License-Identifier: GPL-3.0-or-later
#include "bench.h"

#include "gemm_ceiling.h"
#include "system_info.h"
#include "validation.h"

#include <attnscope/reference.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <limits>
#include <ostream>
#include <sstream>

namespace attn::bench {
namespace {

using Clock = std::chrono::steady_clock;
using Json = nlohmann::ordered_json;

constexpr double kMib = 1024.0 * 1024.0;
constexpr double kSlowCallMs = 2000.0;   // a call this slow needs no further warm-ups to reach steady state

double msSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Deterministic N(0, 1) on every platform (std::normal_distribution is not): splitmix64 + Box–Muller.
class Gaussian {
public:
    explicit Gaussian(std::uint64_t seed) : m_state(seed) {}
    double next()
    {
        if (m_hasSpare) {
            m_hasSpare = false;
            return m_spare;
        }
        const double u1 = (double(nextBits() >> 11) + 1.0) * 0x1.0p-53;   // (0, 1]: log(u1) is finite
        const double u2 = double(nextBits() >> 11) * 0x1.0p-53;
        const double radius = std::sqrt(-2.0 * std::log(u1));
        const double angle = 2.0 * 3.14159265358979323846 * u2;
        m_spare = radius * std::sin(angle);
        m_hasSpare = true;
        return radius * std::cos(angle);
    }

private:
    std::uint64_t nextBits()
    {
        std::uint64_t z = (m_state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    std::uint64_t m_state;
    bool m_hasSpare = false;
    double m_spare = 0.0;
};

Tensor randomTensor(Shape4 shape, double amplitude, std::uint64_t seed)
{
    Tensor t(shape);
    Gaussian gauss(seed);
    for (float &x : t.values) x = static_cast<float>(amplitude * gauss.next());
    return t;
}

// Linear interpolation between order statistics; `sorted` is ascending and non-empty.
double quantile(const std::vector<double> &sorted, double q)
{
    const double pos = q * double(sorted.size() - 1);
    const std::size_t lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (pos - double(lo)) * (sorted[hi] - sorted[lo]);
}

std::string weightsName(WeightsChoice w)
{
    switch (w) {
    case WeightsChoice::None: return "none";
    case WeightsChoice::One: return "one";
    case WeightsChoice::All: return "all";
    }
    return "none";
}

WeightsRequest weightsRequest(WeightsChoice w)
{
    switch (w) {
    case WeightsChoice::None: return WeightsRequest::none();
    case WeightsChoice::One: return WeightsRequest::only({HeadIndex{0, 0}});
    case WeightsChoice::All: return WeightsRequest::all();
    }
    return {};
}

double round3(double x) { return std::round(x * 1e3) / 1e3; }

// Everything one backend accumulates between validation and its output line.
struct BackendRun {
    Backend backend;
    Json line;
    bool failed = false;
    bool skipped = false;
    int repsWanted = 0;
    std::vector<double> ms;
    std::vector<double> wallMs;   // CUDA: whole attention() calls; `ms` then holds the cudaEvent kernel times

    bool timing() const { return !failed && !skipped; }
};

class BenchSession {
public:
    BenchSession(const BenchConfig &config, std::ostream &out, std::ostream &err)
        : m_config(config), m_out(out), m_err(err)
    {
        m_threads = config.threads > 0 ? config.threads : hardwareThreads();
        m_baselineRss = currentRssMib();
        m_mask = config.causal ? MaskSpec::causalMask() : MaskSpec::bidirectional();
        m_options.threads = m_threads;
        m_options.computeDtype = config.dtype;
        m_options.weights = weightsRequest(config.weights);
        m_options.weightsBudgetBytes =
            std::max(m_options.weightsBudgetBytes,
                     weightsBytes(m_options.weights, config.batch, config.heads, config.n, config.n));
    }

    int run()
    {
        makeInputs();
        if (!validateReference()) return 1;
        std::vector<BackendRun> runs;
        for (Backend backend : m_config.backends) runs.push_back(prepare(backend));
        timeInterleaved(runs);
        // Last, so that neither its buffers nor OpenBLAS's spinning worker threads touch the kernels' numbers.
        const bool anyTimed = std::any_of(runs.begin(), runs.end(), [](const BackendRun &r) { return r.timing(); });
        const GemmCeiling ceiling = anyTimed ? measureGemmCeiling(m_threads, m_config.gemmSize) : GemmCeiling{};
        finish(runs, ceiling);
        bool anyFailed = false;
        for (const BackendRun &r : runs) {
            emit(r.line);
            anyFailed = anyFailed || r.failed;
        }
        return anyFailed ? 1 : 0;
    }

private:
    void makeInputs()
    {
        const BenchConfig &c = m_config;
        m_q = randomTensor({c.batch, c.heads, c.n, c.d}, c.amplitude, c.seed);
        m_k = randomTensor({c.batch, c.heads, c.n, c.d}, c.amplitude, c.seed + 1);
        m_v = randomTensor({c.batch, c.heads, c.n, c.d}, 1.0, c.seed + 2);
    }

    double qkvoMib() const
    {
        return 4.0 * double(m_q.numel() + m_k.numel() + m_v.numel() + m_q.numel()) / kMib;
    }

    // The fp64 oracle and the naive-fp32 yardstick, once per configuration, shared by every backend.
    bool validateReference()
    {
        const BenchConfig &c = m_config;
        // Memory mode samples even when the full oracle would be affordable: nothing there may be O(n²).
        ReferenceOptions options;
        options.keepWeights = c.weights != WeightsChoice::None;
        m_rows = validationRows(c.batch, c.heads, c.n, c.n, c.d, c.validateRows, c.memoryMode, options.keepWeights);
        options.rows = m_rows;
        auto ref = referenceAttention(m_q.view(), m_k.view(), m_v.view(), m_mask, options);
        if (!ref) {
            Json line = commonFields("reference-oracle");
            line["error"] = "fp64 reference failed: " + ref.status().message();
            emit(line);
            m_err << "attnscope-cli bench: fp64 reference failed: " << ref.status().message() << '\n';
            return false;
        }
        m_ref = std::move(ref.value());
        m_naive = naiveFp32Error(m_q.view(), m_k.view(), m_v.view(), m_mask, m_ref, m_rows, c.dtype);
        return true;
    }

    std::size_t unfusedScratchBytes() const
    {
        const std::int64_t items = m_config.batch * m_config.heads;
        return static_cast<std::size_t>(std::min<std::int64_t>(m_threads, items)) *
               static_cast<std::size_t>(m_config.n) * static_cast<std::size_t>(m_config.n) * sizeof(float);
    }

    Result<AttentionOutput> call(Backend backend)
    {
        AttentionOptions options = m_options;
        options.backend = backend;
        return attention(m_q.view(), m_k.view(), m_v.view(), m_mask, options);
    }

    // Skip, or validate, then read the peak RSS of one more call, then the remaining warm-ups.
    BackendRun prepare(Backend backend)
    {
        BackendRun run{backend, commonFields(backendName(backend)), false, false, 0, {}, {}};
        if (backend == Backend::Unfused) {
            const double gib = double(unfusedScratchBytes()) / (kMib * 1024.0);
            run.line["unfused_scratch_mib"] = round3(double(unfusedScratchBytes()) / kMib);
            if (m_config.memoryMode || gib > m_config.unfusedLimitGib) {
                run.skipped = true;
                run.line["skipped"] = true;
                std::ostringstream why;
                if (m_config.memoryMode) why << "memory mode: unfused allocates an n x n score matrix per thread";
                else why << "unfused needs " << std::setprecision(3) << gib << " GiB of scores, over the "
                         << m_config.unfusedLimitGib << " GiB limit";
                run.line["reason"] = why.str();
                return run;
            }
        }
        if (backend == Backend::Cuda && !cudaAvailable()) return fail(run, "unavailable: " + cudaUnavailableReason());
        if (backend == Backend::Cuda) run.line["cuda_device"] = cudaDeviceName();

        // Validate first. The output goes out of scope before the peak-RSS call below.
        KernelError e;
        double firstMs = 0.0;
        {
            const auto start = Clock::now();
            auto result = call(backend);
            firstMs = msSince(start);
            if (!result) return fail(run, result.status().message());
            run.line["backend_ran"] = backendName(result->backend);
            e = kernelError(*result, m_ref, m_rows, m_config.heads, m_config.n);
        }
        const double tolerance = 2.0 * m_naive.out + 1e-6;
        const double weightsTolerance = 2.0 * m_naive.weights + 1e-6;
        run.line["max_abs_err_vs_fp64"] = e.out;
        run.line["naive_fp32_err"] = m_naive.out;   // with --dtype f16/bf16: the same-precision naive path's error
        run.line["tolerance"] = tolerance;
        run.line["max_abs_err_lse"] = e.lse;
        if (m_config.weights != WeightsChoice::None) {
            run.line["max_abs_err_weights"] = e.weights;
            run.line["naive_fp32_err_weights"] = m_naive.weights;
        }
        run.line["validation_rows"] = m_rows.empty() ? Json("all") : Json(m_rows.size());
        if (!e.finite) return fail(run, "output contains NaN or Inf");
        if (!e.maskedRowsAgree) return fail(run, "LSE is +inf on different rows than the fp64 reference");
        const std::string naiveName = "naive " + dtypeName(m_config.dtype);
        if (!(e.out <= tolerance))
            return fail(run, "max |O - O_fp64| = " + toString(e.out) + " exceeds 2 x " + naiveName +
                                 " error + 1e-6 = " + toString(tolerance));
        if (m_config.weights != WeightsChoice::None && !(e.weights <= weightsTolerance))
            return fail(run, "max |P - P_fp64| = " + toString(e.weights) + " exceeds 2 x " + naiveName +
                                 " error + 1e-6 = " + toString(weightsTolerance));
        run.line["validated"] = true;

        // Then time: the first untimed call also gives this backend's own peak RSS.
        const bool reset = resetPeakRss();
        const double rssBefore = currentRssMib();
        double estimateMs = firstMs;
        {
            const auto t0 = Clock::now();
            auto again = call(backend);
            estimateMs = std::min(estimateMs, msSince(t0));
            run.line["peak_rss_mib"] = round3(peakRssMib());
            if (!again) return fail(run, again.status().message());
        }
        run.line["peak_rss_scope"] = reset ? "call" : "process";
        run.line["rss_before_mib"] = round3(rssBefore);
        const int warmups = firstMs > kSlowCallMs ? 1 : std::max(1, m_config.warmups);
        for (int w = 1; w < warmups; ++w) {
            const auto t0 = Clock::now();
            if (auto r = call(backend); !r) return fail(run, r.status().message());
            estimateMs = std::min(estimateMs, msSince(t0));
        }
        run.line["warmups"] = warmups;
        const int budgetReps = static_cast<int>(m_config.maxSeconds * 1e3 / std::max(estimateMs, 1e-3));
        run.repsWanted = m_config.reps < 3 ? m_config.reps : std::clamp(budgetReps, 3, m_config.reps);
        return run;
    }

    // A/B/A/B: one call of each backend per round, so slow drifts of a noisy machine hit all of them alike.
    void timeInterleaved(std::vector<BackendRun> &runs)
    {
        for (bool more = true; more;) {
            more = false;
            for (BackendRun &run : runs) {
                if (!run.timing() || int(run.ms.size()) >= run.repsWanted) continue;
                const auto start = Clock::now();
                auto result = call(run.backend);
                const double ms = msSince(start);
                if (!result) {
                    fail(run, result.status().message());
                    continue;
                }
                // CUDA: the kernels' own time from cudaEvents; the wall time (packing, copies) on the side.
                if (result->backend == Backend::Cuda) {
                    run.wallMs.push_back(ms);
                    run.ms.push_back(result->deviceMs);
                } else {
                    run.ms.push_back(ms);
                }
                more = more || int(run.ms.size()) < run.repsWanted;
            }
        }
    }

    void finish(std::vector<BackendRun> &runs, const GemmCeiling &ceiling)
    {
        const BenchConfig &c = m_config;
        double flops = 4.0 * double(c.batch) * double(c.heads) * double(c.n) * double(c.n) * double(c.d);
        if (c.causal) flops /= 2.0;
        double unfusedMs = 0.0;
        for (const BackendRun &r : runs)
            if (r.backend == Backend::Unfused && r.timing() && !r.ms.empty()) {
                std::vector<double> s = r.ms;
                std::sort(s.begin(), s.end());
                unfusedMs = quantile(s, 0.5);
            }

        for (BackendRun &run : runs) {
            Json &line = run.line;
            if (ceiling.gflops <= 0.0) continue;
            line["gemm_ceiling_gflops"] = round3(ceiling.gflops);
            line["gemm_ceiling_source"] = ceiling.source;
            line["gemm_eigen_gflops"] = round3(ceiling.eigenGflops);
            if (openblasBuilt()) {
                line["gemm_openblas_gflops"] = round3(ceiling.openblasGflops);
                line["openblas_corename"] = ceiling.openblasCore;
            }
            if (!run.timing() || run.ms.empty()) continue;
            std::vector<double> sorted = run.ms;
            std::sort(sorted.begin(), sorted.end());
            const double median = quantile(sorted, 0.5);
            const double gflops = flops / (median * 1e6);
            line["reps"] = sorted.size();
            line["ms_median"] = round3(median);
            line["ms_p10"] = round3(quantile(sorted, 0.1));
            line["ms_p90"] = round3(quantile(sorted, 0.9));
            line["ms_min"] = round3(sorted.front());
            line["flops"] = flops;
            line["gflops"] = round3(gflops);
            line["ratio_to_gemm"] = ceiling.gflops > 0 ? round3(gflops / ceiling.gflops) : 0.0;
            line["timing"] = run.wallMs.empty() ? "wall" : "cuda_event";
            if (!run.wallMs.empty()) {
                std::vector<double> wall = run.wallMs;
                std::sort(wall.begin(), wall.end());
                line["wall_ms_median"] = round3(quantile(wall, 0.5));
                line["tflops"] = round3(gflops / 1e3);
                // The ceiling above is the CPU's GEMM: a GPU kernel's ratio to it means nothing.
                line["ratio_to_gemm"] = nullptr;
                line["ratio_to_gemm_note"] = "gemm ceiling is the CPU's; not comparable with a GPU kernel";
            }
            if (unfusedMs > 0 && run.backend != Backend::Unfused)
                line["speedup_vs_unfused"] = round3(unfusedMs / median);
        }
    }

    BackendRun &fail(BackendRun &run, const std::string &message)
    {
        run.failed = true;
        if (!run.line["validated"].is_boolean()) run.line["validated"] = false;
        run.line["error"] = message;
        m_err << "attnscope-cli bench: " << run.line["backend"].get<std::string>() << ": " << message << '\n';
        return run;
    }

    Json commonFields(const std::string &backend) const
    {
        const BenchConfig &c = m_config;
        Json line;
        line["backend"] = backend;
        line["n"] = c.n;
        line["d"] = c.d;
        line["heads"] = c.heads;
        line["batch"] = c.batch;
        line["causal"] = c.causal;
        line["threads"] = m_threads;
        line["weights"] = weightsName(c.weights);
        line["dtype"] = dtypeName(c.dtype);
        line["mode"] = c.memoryMode ? "memory" : "time";
        // The headline fields come first in every line, null where this backend never got that far.
        for (const char *key : {"ms_median", "ms_p10", "ms_p90", "gflops", "gemm_ceiling_gflops",
                                "gemm_ceiling_source", "ratio_to_gemm", "peak_rss_mib", "max_abs_err_vs_fp64",
                                "naive_fp32_err", "validated"})
            line[key] = nullptr;
        line["qkvo_mib"] = round3(qkvoMib());
        line["baseline_rss_mib"] = round3(m_baselineRss);
        if (c.memoryMode) line["rss_target_mib"] = round3(qkvoMib() + 64.0);
        line["simd"] = cpuSimdLevel();
        line["cpu"] = cpuModelName();
        line["hardware_threads"] = hardwareThreads();
        line["compiler"] = compilerVersion();
        line["seed"] = c.seed;
        line["date"] = utcDateTime();
        return line;
    }

    void emit(Json line)
    {
        if (m_config.memoryMode && line.value("peak_rss_mib", Json()).is_number())
            line["rss_within_target"] = line["peak_rss_mib"].get<double>() <= line["rss_target_mib"].get<double>();
        if (m_config.json) {
            m_out << line.dump() << std::endl;
            return;
        }
        auto field = [&](const char *key, int width, int precision = 3) {
            std::ostringstream cell;
            if (!line.contains(key) || line[key].is_null()) cell << "-";
            else if (line[key].is_number_float()) cell << std::setprecision(precision) << line[key].get<double>();
            else if (line[key].is_string()) cell << line[key].get<std::string>();
            else cell << line[key].dump();
            m_out << std::setw(width) << cell.str();
        };
        if (!m_headerPrinted) {
            m_out << std::setw(10) << "backend" << std::setw(7) << "n" << std::setw(5) << "d" << std::setw(4) << "H"
                  << std::setw(4) << "B" << std::setw(7) << "causal" << std::setw(4) << "T" << std::setw(11)
                  << "ms_median" << std::setw(9) << "GFLOP/s" << std::setw(8) << "x_gemm" << std::setw(10)
                  << "peak_MiB" << std::setw(10) << "err_fp64" << '\n';
            m_headerPrinted = true;
        }
        if (line.contains("backend_ran") && line["backend_ran"] != line["backend"])
            line["backend"] = line["backend"].get<std::string>() + ":" + line["backend_ran"].get<std::string>();
        field("backend", 10); field("n", 7); field("d", 5); field("heads", 4); field("batch", 4);
        field("causal", 7); field("threads", 4); field("ms_median", 11, 4); field("gflops", 9, 4);
        field("ratio_to_gemm", 8, 2); field("peak_rss_mib", 10, 5); field("max_abs_err_vs_fp64", 10, 2);
        if (line.contains("error")) m_out << "  error: " << line["error"].get<std::string>();
        if (line.contains("reason")) m_out << "  skipped: " << line["reason"].get<std::string>();
        m_out << '\n' << std::flush;
    }

    static std::string toString(double x)
    {
        std::ostringstream s;
        s << std::setprecision(3) << x;
        return s.str();
    }

    const BenchConfig &m_config;
    std::ostream &m_out;
    std::ostream &m_err;
    int m_threads = 1;
    double m_baselineRss = 0.0;
    bool m_headerPrinted = false;
    MaskSpec m_mask;
    AttentionOptions m_options;
    Tensor m_q, m_k, m_v;
    std::vector<std::int64_t> m_rows;
    ReferenceOutput m_ref;
    NaiveError m_naive;
};

} // namespace

std::optional<std::vector<Backend>> parseBenchBackends(const std::string &name)
{
    if (name == "all") {
        std::vector<Backend> all{Backend::Tiled, Backend::Unfused};
        if (cudaAvailable()) all.push_back(Backend::Cuda);
        return all;
    }
    if (auto one = parseBackend(name)) return std::vector<Backend>{*one};
    return std::nullopt;
}

std::optional<WeightsChoice> parseWeightsChoice(const std::string &name)
{
    if (name == "none") return WeightsChoice::None;
    if (name == "one") return WeightsChoice::One;
    if (name == "all") return WeightsChoice::All;
    return std::nullopt;
}

std::string checkBenchConfig(const BenchConfig &c)
{
    if (c.n < 1) return "--n must be at least 1";
    if (c.d < 1) return "--d must be at least 1";
    if (c.heads < 1) return "--heads must be at least 1";
    if (c.batch < 1) return "--batch must be at least 1";
    if (c.threads < 0) return "--threads must be 0 (all) or more";
    if (c.reps < 1) return "--reps must be at least 1";
    if (c.warmups < 0) return "--warmups must be 0 or more";
    if (c.gemmSize < 16) return "--gemm-size must be at least 16";
    if (c.validateRows < 2) return "--validate-rows must be at least 2";
    if (c.backends.empty()) return "--backend selects no backend";
    if (c.memoryMode && c.weights != WeightsChoice::None)
        return "--weights must be none with --memory (weights are O(n^2))";
    return {};
}

int runBench(const BenchConfig &config, std::ostream &out, std::ostream &err)
{
    if (const std::string problem = checkBenchConfig(config); !problem.empty()) {
        err << "attnscope-cli bench: " << problem << '\n';
        return 2;
    }
    BenchSession session(config, out, err);
    return session.run();
}

} // namespace attn::bench
