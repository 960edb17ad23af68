// SPDX-License-Identifier: GPL-3.0-or-later
#include "model_bench.h"

#include "system_info.h"

#include "cpu/gemm.h"

#include <attnscope/textmodel.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ostream>
#include <random>

#include <time.h>

namespace attn::bench {

namespace {

double maxAbsDiff(const std::vector<float> &a, const std::vector<float> &b)
{
    if (a.size() != b.size()) return std::numeric_limits<double>::infinity();
    double m = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(static_cast<double>(a[i]) - b[i]));
    return m;
}

double quantileOf(std::vector<double> v, double q)
{
    std::sort(v.begin(), v.end());
    const double pos = q * static_cast<double>(v.size() - 1);
    const std::size_t lo = static_cast<std::size_t>(pos);
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

double round3(double x) { return std::round(x * 1000.0) / 1000.0; }

} // namespace

int runModelBench(const ModelBenchConfig &config, std::ostream &out, std::ostream &err)
{
    auto source = resolveModelSpec(config.model);
    if (!source) { err << "bench: --model: " << source.status().message() << '\n'; return 1; }
    auto model = Model::open(*source);
    if (!model) { err << "bench: --model: " << model.status().message() << '\n'; return 1; }
    const ModelConfig &mc = model->config();

    ForwardInput input;
    std::mt19937_64 rng(config.seed);
    std::uniform_int_distribution<std::int64_t> id(0, mc.vocabSize - 1);
    for (std::int64_t i = 0; i < config.n; ++i) input.tokenIds.push_back(id(rng));

    ForwardOptions options;
    options.backend = config.backend;
    options.threads = config.threads;
    options.weightsMode = config.allWeights ? WeightsRequest::Mode::All : WeightsRequest::Mode::None;
    options.weightsBudgetBytes = std::size_t(8) << 30;
    if (Status s = model->validate(input, options); !s) { err << "bench: " << s.message() << '\n'; return 1; }

    nlohmann::json line;
    line["mode"] = "model";
    line["model"] = config.model;
    line["architecture"] = architectureName(mc.architecture);
    line["layers"] = mc.layers;
    line["heads"] = mc.heads;
    line["d_model"] = mc.dModel;
    line["n"] = config.n;
    line["weights"] = config.allWeights ? "all" : "none";
    line["backend"] = backendName(config.backend);
    line["threads"] = config.threads > 0 ? config.threads : hardwareThreads();
    line["gemm"] = std::string(detail::gemmKernelName(detail::gemmDefaultKernel())) + " " + detail::gemmKernelIsa();

    auto timed = model->forward(input, options);   // first call: also the validation subject
    if (!timed) { err << "bench: " << timed.status().message() << '\n'; return 1; }
    if (config.validate) {
        ForwardOptions ref = options;
        ref.backend = Backend::Reference;
        ref.weightsBudgetBytes = std::size_t(16) << 30;
        auto oracle = model->forward(input, ref);
        if (!oracle) { err << "bench: reference forward: " << oracle.status().message() << '\n'; return 1; }
        const double logitErr = maxAbsDiff(timed->logits, oracle->logits);
        double weightErr = 0.0;
        for (std::size_t h = 0; h < timed->heads.size() && h < oracle->heads.size(); ++h)
            weightErr = std::max(weightErr, maxAbsDiff(timed->heads[h].weights, oracle->heads[h].weights));
        // fp32 rounding grows with the logits' size (a model with large embeddings reaches |logit| ~ 60 on random
        // ids), so the logit tolerance is 1e-4 absolute or 1e-5 relative to the largest reference logit.
        double logitScale = 0.0;
        for (float v : oracle->logits) logitScale = std::max(logitScale, double(std::abs(v)));
        const double logitTol = std::max(1e-4, 1e-5 * logitScale);
        line["max_abs_logit_err_vs_reference"] = logitErr;
        line["max_abs_logit_reference"] = logitScale;
        line["logit_tolerance"] = logitTol;
        line["max_abs_weight_err_vs_reference"] = weightErr;
        line["validated"] = logitErr <= logitTol && weightErr <= 1e-5;
        if (!line["validated"].get<bool>()) {
            line["error"] = "validation failed: the forward pass disagrees with the fp64 reference backend";
            out << line.dump() << '\n';
            return 1;
        }
    }

    for (int w = 1; w < config.warmups; ++w) (void)model->forward(input, options);
    resetPeakRss();
    // Process CPU time beside wall time: on a shared, oversubscribed machine it is the steadier figure (at one
    // thread it is the forward's own time; at T threads it sums them).
    const auto cpuMs = [] {
        timespec ts{};
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
    };
    std::vector<double> ms, cpu;
    for (int r = 0; r < std::max(1, config.reps); ++r) {
        const double c0 = cpuMs();
        const auto t0 = std::chrono::steady_clock::now();
        auto res = model->forward(input, options);
        const auto t1 = std::chrono::steady_clock::now();
        cpu.push_back(cpuMs() - c0);
        if (!res) { err << "bench: " << res.status().message() << '\n'; return 1; }
        ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    line["reps"] = ms.size();
    line["ms_median"] = round3(quantileOf(ms, 0.5));
    line["ms_p10"] = round3(quantileOf(ms, 0.1));
    line["ms_p90"] = round3(quantileOf(ms, 0.9));
    line["cpu_ms_median"] = round3(quantileOf(cpu, 0.5));
    line["tokens_per_s"] = round3(static_cast<double>(config.n) / (quantileOf(ms, 0.5) / 1000.0));
    line["peak_rss_mib"] = round3(peakRssMib());
    line["cpu"] = cpuModelName();
    line["simd"] = cpuSimdLevel();
    line["date"] = utcDateTime();
    if (config.json) {
        out << line.dump() << '\n';
    } else {
        out << config.model << "  n=" << config.n << "  weights=" << line["weights"].get<std::string>()
            << "  median " << line["ms_median"] << " ms  (p10 " << line["ms_p10"] << ", p90 " << line["ms_p90"]
            << ")  peak RSS " << line["peak_rss_mib"] << " MiB\n";
    }
    return 0;
}

} // namespace attn::bench
