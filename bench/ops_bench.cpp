// SPDX-License-Identifier: GPL-3.0-or-later
// ops: the model's vectorised elementwise kernels (engine/src/cpu/elementwise.h) beside the plain scalar loops a
// forward pass would otherwise run (std::erf / std::tanh / std::exp per element, scalar norm loops), at GPT-2-small
// shapes: activations on n × 3072, norms on n × 768, the logits softmax on n × 50257 (n = --n, default 512).
// Both are checked against double precision first (max relative error over the outputs above 1e-30).
#include "kernelbench.h"

#include "cpu/elementwise.h"

#include <cmath>
#include <random>

namespace attn::bench {

namespace {

double maxRelErr(const std::vector<float> &y, const std::vector<double> &ref)
{
    double e = 0.0;
    for (std::size_t i = 0; i < y.size(); ++i)
        if (std::abs(ref[i]) > 1e-30) e = std::max(e, std::abs(y[i] - ref[i]) / std::abs(ref[i]));
    return e;
}

} // namespace

int opsBench(const KernelBenchArgs &a)
{
    const std::int64_t n = a.n.empty() ? 512 : a.n.front();
    std::mt19937_64 rng(a.seed);
    std::normal_distribution<float> normal(0.0f, 2.0f);
    const auto randomVec = [&](std::size_t size) {
        std::vector<float> v(size);
        for (float &x : v) x = normal(rng);
        return v;
    };
    struct Op {
        const char *name;
        std::int64_t rows, cols;
        std::function<void(const std::vector<float> &, std::vector<float> &, int)> fast, scalar;
        std::function<double(const std::vector<float> &, std::size_t)> exact;   // element i, from the input
    };
    const std::int64_t C = 768, F = 3072, V = 50257;
    const std::vector<float> gamma = randomVec(C), beta = randomVec(C);
    const float eps = 1e-5f;
    const auto lnExact = [&](const std::vector<float> &x, std::size_t i) {
        const std::size_t r = i / C, c = i % C;
        double mean = 0, var = 0;
        for (std::int64_t k = 0; k < C; ++k) mean += x[r * C + k];
        mean /= C;
        for (std::int64_t k = 0; k < C; ++k) var += (x[r * C + k] - mean) * (x[r * C + k] - mean);
        return (x[i] - mean) / std::sqrt(var / C + eps) * gamma[c] + beta[c];
    };
    const std::vector<Op> ops = {
        {"gelu_erf", n, F, [](auto &x, auto &y, int t) { detail::geluErf(x.data(), y.data(), std::int64_t(x.size()), t); },
         [](auto &x, auto &y, int) { for (std::size_t i = 0; i < x.size(); ++i) y[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * 0.70710678f)); },
         [](auto &x, std::size_t i) { return 0.5 * x[i] * std::erfc(-x[i] / std::sqrt(2.0)); }},
        {"gelu_tanh", n, F, [](auto &x, auto &y, int t) { detail::geluTanh(x.data(), y.data(), std::int64_t(x.size()), t); },
         [](auto &x, auto &y, int) {
             for (std::size_t i = 0; i < x.size(); ++i)
                 y[i] = 0.5f * x[i] * (1.0f + std::tanh(0.7978845608f * (x[i] + 0.044715f * x[i] * x[i] * x[i])));
         },
         [](auto &x, std::size_t i) { const double v = x[i]; return 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v))); }},
        {"silu", n, F, [](auto &x, auto &y, int t) { detail::silu(x.data(), y.data(), std::int64_t(x.size()), t); },
         [](auto &x, auto &y, int) { for (std::size_t i = 0; i < x.size(); ++i) y[i] = x[i] / (1.0f + std::exp(-x[i])); },
         [](auto &x, std::size_t i) { return x[i] / (1.0 + std::exp(-double(x[i]))); }},
        {"layer_norm", n, C,
         [&](auto &x, auto &y, int t) { detail::layerNorm(x.data(), n, C, C, gamma.data(), beta.data(), eps, y.data(), C, t); },
         [&](auto &x, auto &y, int) {
             for (std::int64_t r = 0; r < n; ++r) {
                 float mean = 0, var = 0;
                 for (std::int64_t k = 0; k < C; ++k) mean += x[r * C + k];
                 mean /= C;
                 for (std::int64_t k = 0; k < C; ++k) var += (x[r * C + k] - mean) * (x[r * C + k] - mean);
                 const float rstd = 1.0f / std::sqrt(var / C + eps);
                 for (std::int64_t k = 0; k < C; ++k) y[r * C + k] = (x[r * C + k] - mean) * rstd * gamma[k] + beta[k];
             }
         },
         lnExact},
        {"rms_norm", n, C,
         [&](auto &x, auto &y, int t) { detail::rmsNorm(x.data(), n, C, C, gamma.data(), 0.0f, eps, y.data(), C, t); },
         [&](auto &x, auto &y, int) {
             for (std::int64_t r = 0; r < n; ++r) {
                 float ms = 0;
                 for (std::int64_t k = 0; k < C; ++k) ms += x[r * C + k] * x[r * C + k];
                 const float rinv = 1.0f / std::sqrt(ms / C + eps);
                 for (std::int64_t k = 0; k < C; ++k) y[r * C + k] = x[r * C + k] * rinv * gamma[k];
             }
         },
         [&](auto &x, std::size_t i) {
             const std::size_t r = i / C;
             double ms = 0;
             for (std::int64_t k = 0; k < C; ++k) ms += double(x[r * C + k]) * x[r * C + k];
             return x[i] / std::sqrt(ms / C + eps) * gamma[i % C];
         }},
        {"softmax_logits", n, V,
         [&](auto &x, auto &y, int t) { y = x; detail::softmaxRows(y.data(), n, V, V, t); },
         [&](auto &x, auto &y, int) {
             for (std::int64_t r = 0; r < n; ++r) {
                 float mx = -INFINITY, sum = 0;
                 for (std::int64_t k = 0; k < V; ++k) mx = std::max(mx, x[r * V + k]);
                 for (std::int64_t k = 0; k < V; ++k) sum += (y[r * V + k] = std::exp(x[r * V + k] - mx));
                 for (std::int64_t k = 0; k < V; ++k) y[r * V + k] /= sum;
             }
         },
         nullptr},
    };
    for (const Op &op : ops) {
        const std::vector<float> x = randomVec(static_cast<std::size_t>(op.rows * op.cols));
        std::vector<float> yFast(x.size()), yScalar(x.size());
        // Double-precision check on a sample of rows (the norms' exact value costs a row per element).
        std::vector<double> ref;
        std::vector<float> fastS, scalarS;
        op.fast(x, yFast, 1);
        op.scalar(x, yScalar, 1);
        const std::size_t sampleRows = 4;
        for (std::size_t r = 0; r < sampleRows; ++r) {
            const std::size_t row = r * static_cast<std::size_t>(op.rows - 1) / (sampleRows - 1);
            double mx = -INFINITY, sum = 0;
            if (!op.exact) {
                for (std::int64_t k = 0; k < op.cols; ++k) mx = std::max(mx, double(x[row * op.cols + k]));
                for (std::int64_t k = 0; k < op.cols; ++k) sum += std::exp(double(x[row * op.cols + k]) - mx);
            }
            for (std::int64_t k = 0; k < op.cols; ++k) {
                const std::size_t i = row * static_cast<std::size_t>(op.cols) + static_cast<std::size_t>(k);
                ref.push_back(op.exact ? op.exact(x, i) : std::exp(double(x[i]) - mx) / sum);
                fastS.push_back(yFast[i]);
                scalarS.push_back(yScalar[i]);
            }
        }
        for (int threads : a.threads) {
            Json line = benchLine("ops");
            line["op"] = op.name;
            line["rows"] = op.rows;
            line["cols"] = op.cols;
            line["threads"] = threads;
            line["max_rel_err_vectorised"] = maxRelErr(fastS, ref);
            line["max_rel_err_scalar"] = maxRelErr(scalarS, ref);
            std::vector<double> fastMs, scalarMs;
            for (int rep = 0; rep < a.reps; ++rep) {
                Stopwatch w;
                op.fast(x, yFast, threads);
                fastMs.push_back(w.ms());
                if (threads == 1) {
                    Stopwatch s;
                    op.scalar(x, yScalar, 1);
                    scalarMs.push_back(s.ms());
                }
            }
            line["vectorised"] = timingJson(summarize(fastMs));
            if (threads == 1) {
                line["scalar_1_thread"] = timingJson(summarize(scalarMs));
                line["speedup_vs_scalar"] = std::round(summarize(scalarMs).median / summarize(fastMs).median * 100) / 100;
            }
            emitLine(line);
        }
    }
    return 0;
}

} // namespace attn::bench
