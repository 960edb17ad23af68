// SPDX-License-Identifier: GPL-3.0-or-later
// The summary of a dataset run (dataset.h, docs/datasets.md "Statistics"): per metric and method the mean,
// median, standard deviation and a bootstrap interval over examples, the same for the random baseline, the paired
// Wilcoxon test of each method against it with Holm's correction over every test of the summary, and the
// rank-biserial effect size. Computed from the records sorted by index, so it does not depend on how the run was
// split, resumed or merged; only "timing" does.
#include <attnscope/dataset.h>

#include <attnscope/metrics.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace attn {

namespace {

using Json = nlohmann::ordered_json;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Json nullable(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

struct MetricInfo {
    const char *group;    // model, faithfulness, agreement, plausibility, heads, sanity, rollout, equivariance
    const char *better;   // higher, lower, none
    const char *unit;     // "target": the target's unit (probability or nats)
};

MetricInfo metricInfo(const std::string &name)
{
    static const std::map<std::string, MetricInfo> table = {
        {"target_score", {"model", "none", "target"}},
        {"accuracy", {"model", "higher", "fraction"}},
        {"aopc_comprehensiveness", {"faithfulness", "higher", "target"}},
        {"aopc_sufficiency", {"faithfulness", "lower", "target"}},
        {"auc_deletion", {"faithfulness", "lower", "target"}},
        {"auc_insertion", {"faithfulness", "higher", "target"}},
        {"faithfulness_correlation", {"faithfulness", "higher", "pearson r"}},
        {"fraction_to_flip", {"faithfulness", "lower", "fraction of scored tokens"}},
        {"flip_rate", {"faithfulness", "higher", "fraction"}},
        {"token_f1", {"plausibility", "higher", "f1"}},
        {"iou_f1", {"plausibility", "higher", "f1"}},
        {"auprc", {"plausibility", "higher", "average precision"}},
        {"precision_at_k", {"plausibility", "higher", "fraction"}},
        {"permutation_median_tvd", {"heads", "none", "tvd"}},
        {"uniform_tvd", {"heads", "none", "tvd"}},
        {"zero_ablation_delta", {"heads", "none", "target"}},
        {"mean_ablation_delta", {"heads", "none", "target"}},
        {"random_logit_spearman", {"sanity", "lower", "spearman rho"}},
        {"randomization_head_spearman", {"sanity", "lower", "spearman rho"}},
        {"entropy", {"heads", "none", "nats"}},
        {"mean_distance", {"heads", "none", "positions"}},
        {"first_token", {"heads", "none", "attention weight"}},
        {"self", {"heads", "none", "attention weight"}},
        {"previous_token", {"heads", "none", "attention weight"}},
        {"duplicate_token", {"heads", "none", "attention weight"}},
        {"induction", {"heads", "none", "attention weight"}},
        {"rollout_first_token", {"rollout", "none", "relevance"}},
        {"rollout_entropy", {"rollout", "none", "nats"}},
        {"max_abs_err_weights", {"equivariance", "none", "attention weight"}},
        {"max_abs_err_outputs", {"equivariance", "none", "hidden-state value"}},
        {"max_abs_err_logits", {"equivariance", "none", "logit"}},
        {"within_tolerance", {"equivariance", "higher", "fraction"}},
        {"head_max_abs_err_weights", {"equivariance", "none", "attention weight"}},
    };
    if (const auto it = table.find(name); it != table.end()) return it->second;
    for (const char *prefix : {"kendall_tau_b:", "spearman:", "top_k_overlap:"})
        if (name.rfind(prefix, 0) == 0) return {"agreement", "higher", prefix[0] == 't' ? "fraction" : "correlation"};
    return {"other", "none", ""};
}

std::uint64_t streamSeed(std::uint64_t seed, const std::string &name) { return stats::deriveSeed(seed, stats::nameHash(name.data(), name.size())); }

Json describe(const std::vector<double> &all, std::uint64_t seed, const std::string &stream)
{
    std::vector<double> v;
    for (double x : all)
        if (!std::isnan(x)) v.push_back(x);
    const stats::Interval ci = stats::bootstrapMeanInterval(v, streamSeed(seed, stream));
    return Json{{"n", v.size()},
                {"missing", all.size() - v.size()},
                {"mean", nullable(stats::mean(v))},
                {"median", nullable(v.empty() ? kNaN : median(v))},
                {"sd", nullable(stats::standardDeviation(v))},
                {"ci95", Json::array({nullable(ci.lo), nullable(ci.hi)})}};
}

} // namespace

Result<std::string> datasetSummaryJson(const std::string &headerLine, std::vector<ExampleRecord> records, const DatasetTiming &timing)
{
    const Json header = Json::parse(headerLine, nullptr, false);
    if (header.is_discarded() || !header.is_object() || !header.contains("seed"))
        return Status(ErrorCode::FormatError, "summary: the results header is not valid");
    const std::uint64_t seed = header["seed"].get<std::uint64_t>();
    std::sort(records.begin(), records.end(), [](const ExampleRecord &a, const ExampleRecord &b) { return a.index < b.index; });

    // metric → method → value per record (NaN where the record has none), in first-appearance order.
    std::vector<std::string> metricOrder;
    std::map<std::string, std::vector<std::string>> methodOrder;
    std::map<std::string, std::map<std::string, std::vector<double>>> values;
    for (std::size_t r = 0; r < records.size(); ++r)
        for (const MetricValue &v : records[r].metrics) {
            auto &byMethod = values[v.metric];
            if (byMethod.empty()) metricOrder.push_back(v.metric);
            auto &column = byMethod[v.method];
            if (column.empty()) {
                methodOrder[v.metric].push_back(v.method);
                column.assign(records.size(), kNaN);
            }
            column[r] = v.value;
        }
    std::string unit;
    for (const ExampleRecord &r : records)
        if (!r.targetUnit.empty()) { unit = r.targetUnit; break; }

    Json metrics = Json::array();
    std::vector<double> pValues;
    std::vector<std::pair<std::size_t, std::size_t>> testAt;   // (metric entry, test entry)
    for (const std::string &metric : metricOrder) {
        const MetricInfo info = metricInfo(metric);
        auto &byMethod = values[metric];
        const bool hasRandom = byMethod.count("random") > 0;
        Json methods = Json::array(), tests = Json::array();
        for (const std::string &method : methodOrder[metric]) {
            if (method == "random") continue;
            Json m{{"method", method}};
            m.update(describe(byMethod[method], seed, metric + "/" + method));
            methods.push_back(m);
            if (!hasRandom) continue;
            std::vector<double> x, y, d;
            for (std::size_t r = 0; r < records.size(); ++r) {
                const double a = byMethod[method][r], b = byMethod["random"][r];
                if (std::isnan(a) || std::isnan(b)) continue;
                x.push_back(a), y.push_back(b), d.push_back(a - b);
            }
            const stats::WilcoxonResult w = stats::wilcoxonSignedRank(x, y);
            Json t{{"method", method}, {"pairs", x.size()}, {"nonzero", w.n}, {"zeros", w.zeros},
                   {"test", w.n == 0 ? "none" : w.exact ? "exact" : "normal"}, {"ties", w.ties},
                   {"statistic", w.statistic}, {"z", nullable(w.z)}, {"p", nullable(w.p)}, {"p_holm", nullptr},
                   {"rank_biserial", nullable(w.rankBiserial)}};
            t["difference"] = describe(d, seed, metric + "/" + method + "-random");
            testAt.emplace_back(metrics.size(), tests.size());
            pValues.push_back(w.p);
            tests.push_back(t);
        }
        Json entry{{"metric", metric}, {"group", info.group}, {"better", info.better},
                   {"unit", std::string(info.unit) == "target" ? (unit.empty() ? "target" : unit) : info.unit},
                   {"methods", methods},
                   {"random", hasRandom ? describe(byMethod["random"], seed, metric + "/random") : Json(nullptr)},
                   {"tests", tests}};
        metrics.push_back(entry);
    }
    const std::vector<double> adjusted = stats::holm(pValues);
    for (std::size_t i = 0; i < testAt.size(); ++i) metrics[testAt[i].first]["tests"][testAt[i].second]["p_holm"] = nullable(adjusted[i]);

    std::size_t withRationale = 0;
    std::vector<double> seconds;
    std::set<int> threads;
    for (const ExampleRecord &r : records) {
        withRationale += r.rationaleTokens.empty() ? 0 : 1;
        seconds.push_back(r.seconds);
        threads.insert(r.threads);
    }
    double secondsSum = 0.0;
    for (double s : seconds) secondsSum += s;
    Json doc{{"format", "attnscope-dataset-summary"},
             {"version", 1},
             {"analysis", header.value("analysis", "")},
             {"model", header.value("model", Json())},
             {"dataset", header.value("dataset", Json())},
             {"seed", seed},
             {"settings", header.value("settings", Json())},
             {"versions", header.value("versions", Json())},
             {"examples", Json{{"in_dataset", header["dataset"].value("examples", std::int64_t{0})},
                               {"summarized", records.size()},
                               {"with_rationale", withRationale}}},
             {"statistics",
              Json{{"order", "examples sorted by index"},
                   {"mean_sd_median", "over the examples with a value (n); missing = examples where the metric is undefined"},
                   {"ci95", "bootstrap percentile interval of the mean: " + std::to_string(stats::kBootstrapResamples) +
                                " resamples, SplitMix64 seeded per statistic from the run seed, NumPy 'linear' percentiles 2.5 and 97.5"},
                   {"sd", "sample standard deviation (n - 1)"},
                   {"test", "paired two-sided Wilcoxon signed-rank of method - random over examples with both values; zeros dropped; "
                            "exact without ties for n <= 50 nonzero differences, else normal approximation with tie correction, no "
                            "continuity correction (scipy.stats.wilcoxon conventions)"},
                   {"p_holm", "Holm step-down adjustment over every test of this summary (" + std::to_string(pValues.size()) + " tests)"},
                   {"rank_biserial", "matched-pairs rank-biserial correlation (R+ - R-)/(R+ + R-), positive when the method exceeds random"},
                   {"plausibility", "prediction = the top-|gold| tokens by |importance|; iou_f1 at IOU >= 0.5 (ERASER); auprc = average precision"}}},
             {"metrics", metrics}};
    doc["timing"] = Json{{"examples", records.size()},
                         {"example_seconds", secondsSum},
                         {"examples_per_second", secondsSum > 0 ? Json(static_cast<double>(records.size()) / secondsSum) : Json(nullptr)},
                         {"median_example_seconds", nullable(seconds.empty() ? kNaN : median(seconds))},
                         {"wall_seconds", timing.wallSeconds >= 0 ? Json(timing.wallSeconds) : Json(nullptr)},
                         {"files", timing.files},
                         {"threads", Json(std::vector<int>(threads.begin(), threads.end()))}};
    return doc.dump(2) + "\n";
}

} // namespace attn
