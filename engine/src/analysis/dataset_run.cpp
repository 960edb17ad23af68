// SPDX-License-Identifier: GPL-3.0-or-later
// Dataset runs (dataset.h): the examples checked against the model, then one analysis per example with its own
// seed. The metric names written here are the ones dataset_summary.cpp describes (group, unit, better side).
#include <attnscope/dataset.h>

#include <attnscope/analysis.h>
#include <attnscope/metrics.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <set>

namespace attn {

namespace {

using Json = nlohmann::ordered_json;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string where(const Dataset &d, const DatasetExample &ex)
{
    return ex.line > 0 ? d.path + ":" + std::to_string(ex.line) : d.path + ": examples[" + std::to_string(ex.index) + "]";
}

// Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on the one-expression concatenation.
std::string headName(HeadRef h)
{
    std::string s = "L";
    s += std::to_string(h.layer);
    s += " H";
    s += std::to_string(h.head);
    return s;
}

Json nullable(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

// Byte offset of each code point of `text` (and of its end).
std::vector<std::size_t> codePointOffsets(const std::string &text)
{
    std::vector<std::size_t> off;
    for (std::size_t i = 0; i < text.size(); ++i)
        if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) off.push_back(i);
    off.push_back(text.size());
    return off;
}

// "predicted", "gold", "class:N", "position:P" → the target fields; false with `error` otherwise.
bool resolveTarget(const std::string &spec, const std::optional<std::int64_t> &gold, bool lm, PreparedExample &out, std::string &error)
{
    if (spec == "predicted") return true;
    if (spec == "gold") {
        if (lm) { error = "'target': gold needs a classifier"; return false; }
        if (!gold) { error = "'target': gold, but the example has no 'label'"; return false; }
        out.targetClass = gold;
        return true;
    }
    std::int64_t v = 0;
    const auto number = [&](std::size_t prefix) {
        const std::string s = spec.substr(prefix);
        return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }) && s.size() < 18
                   ? (v = std::stoll(s), true) : false;
    };
    if (spec.rfind("class:", 0) == 0 && number(6)) {
        if (lm) { error = "'target': class:N needs a classifier"; return false; }
        out.targetClass = v;
        return true;
    }
    if (spec.rfind("position:", 0) == 0 && number(9)) {
        if (!lm) { error = "'target': position:P needs a language model"; return false; }
        out.targetPosition = v;
        return true;
    }
    error = "'target': '" + spec + "' is not predicted, gold, class:N or position:P";
    return false;
}

// Random importances over the scored positions (for the plausibility baselines): a seeded shuffle, ranks as scores.
std::vector<double> randomScores(const std::vector<std::uint8_t> &special, std::uint64_t seed)
{
    std::vector<std::size_t> pos;
    for (std::size_t i = 0; i < special.size(); ++i)
        if (!special[i]) pos.push_back(i);
    std::vector<double> scores(special.size(), kNaN);
    std::vector<double> ranks(pos.size());
    std::iota(ranks.begin(), ranks.end(), 1.0);
    std::uint64_t state = seed;
    for (std::size_t k = ranks.size(); k > 1; --k) {
        state = stats::deriveSeed(state, k);
        std::swap(ranks[k - 1], ranks[state % k]);
    }
    for (std::size_t i = 0; i < pos.size(); ++i) scores[pos[i]] = ranks[i];
    return scores;
}

struct Collector {
    ExampleRecord &r;
    void add(const std::string &metric, const std::string &method, double v) { r.metrics.push_back({metric, method, v}); }
};

// token_f1, iou_f1, auprc, precision_at_k of each named score vector (|score|), and of random orderings.
void addPlausibility(Collector &c, const PreparedExample &p, const std::vector<std::pair<std::string, std::vector<double>>> &scores,
                     int k, int randomSeeds, std::uint64_t seed)
{
    if (!p.hasRationale) return;
    const auto put = [&](const std::string &method, const stats::Plausibility &q) {
        c.add("token_f1", method, q.tokenF1);
        c.add("iou_f1", method, q.iouF1);
        c.add("auprc", method, q.auprc);
        c.add("precision_at_k", method, q.precisionAtK);
    };
    for (const auto &[name, s] : scores) {
        std::vector<double> a = s;
        for (double &v : a) v = std::abs(v);
        put(name, stats::plausibility(a, p.gold, k, p.goldSpans));
    }
    stats::Plausibility mean;
    mean.tokenF1 = mean.iouF1 = mean.auprc = mean.precisionAtK = 0.0;
    for (int j = 1; j <= randomSeeds; ++j) {
        const stats::Plausibility q = stats::plausibility(randomScores(p.tokens.special, stats::deriveSeed(seed, 1000 + j)), p.gold, k, p.goldSpans);
        mean.tokenF1 += q.tokenF1 / randomSeeds, mean.iouF1 += q.iouF1 / randomSeeds;
        mean.auprc += q.auprc / randomSeeds, mean.precisionAtK += q.precisionAtK / randomSeeds;
    }
    put("random", mean);
}

Json importancesJson(const std::vector<Importance> &imps)
{
    Json o = Json::object();
    for (const Importance &i : imps) {
        Json a = Json::array();
        for (double v : i.scores) a.push_back(nullable(v));
        o[i.name] = a;
    }
    return o;
}

Status faithfulnessExample(const TextModel &model, const PreparedExample &p, const DatasetSettings &s, ExampleRecord &r,
                           const ProgressFn &progress, const CancelFn &cancel)
{
    FaithfulnessSettings fs = s.faithfulness;
    fs.seed = r.seed;
    fs.threads = s.threads;
    fs.backend = s.backend;
    fs.targetClass = p.targetClass;
    fs.targetPosition = p.targetPosition;
    auto res = runFaithfulness(model, p.tokens, fs, progress, cancel);
    if (!res) return res.status();
    r.scoredTokens = res->scoredTokens;
    r.targetKind = res->target.kind, r.targetUnit = res->target.unit;
    r.targetIndex = res->target.index, r.targetScore = res->target.score;
    const auto &P0 = res->baseDistribution;
    r.predicted = std::max_element(P0.begin(), P0.end()) - P0.begin();
    Collector c{r};
    c.add("target_score", "model", res->target.score);
    if (r.label && model.model().config().head == ModelHead::Classification) c.add("accuracy", "model", r.predicted == *r.label ? 1.0 : 0.0);
    for (const MethodMetrics &m : res->orderings) {
        const OrderingMetrics &o = m.metrics;
        c.add("aopc_comprehensiveness", m.method, o.aopcComprehensiveness);
        c.add("aopc_sufficiency", m.method, o.aopcSufficiency);
        c.add("auc_deletion", m.method, o.aucDeletion);
        c.add("auc_insertion", m.method, o.aucInsertion);
        c.add("faithfulness_correlation", m.method, o.faithfulnessCorrelation);
        c.add("fraction_to_flip", m.method, o.fractionToFlip >= 0 ? o.fractionToFlip : kNaN);
        const double flipped = m.method == "random" ? 1.0 - static_cast<double>(m.neverFlipped) / static_cast<double>(m.perSeed.size())
                                                    : (o.tokensToFlip >= 0 ? 1.0 : 0.0);
        c.add("flip_rate", m.method, flipped);
    }
    for (const AgreementScores &a : res->agreement) {
        c.add("kendall_tau_b:" + a.reference, a.method, a.kendallTauB);
        c.add("spearman:" + a.reference, a.method, a.spearman);
        c.add("top_k_overlap:" + a.reference, a.method, a.topKOverlap);
    }
    std::vector<std::pair<std::string, std::vector<double>>> scores;
    for (const Importance &i : res->importances) scores.emplace_back(i.name, i.scores);
    addPlausibility(c, p, scores, s.precisionK, s.randomSeeds, r.seed);
    for (const HeadTest &h : res->heads) {
        const std::string n = headName(h.head);
        if (fs.permutationTest) c.add("permutation_median_tvd", n, h.permutationMedianTvd);
        if (fs.uniformTest) c.add("uniform_tvd", n, h.uniformTvd);
        if (fs.headAblation) {
            c.add("zero_ablation_delta", n, h.zeroAblationDelta);
            c.add("mean_ablation_delta", n, h.meanAblationDelta);
        }
    }
    if (res->randomLogit)
        for (std::size_t m = 0; m < res->randomLogit->methods.size(); ++m)
            c.add("random_logit_spearman", res->randomLogit->methods[m], res->randomLogit->spearman[m]);
    if (res->randomization && !res->randomization->steps.empty())
        for (std::size_t m = 0; m < res->randomization->methods.size(); ++m)
            c.add("randomization_head_spearman", res->randomization->methods[m], res->randomization->steps.front().spearman[m]);
    r.detailsJson = Json{{"target_label", res->target.label}, {"importances", importancesJson(res->importances)},
                         {"skipped", res->skipped}, {"forward_passes", res->forwardPasses}}.dump();
    return Status::ok();
}

Status runExample(const TextModel &model, const PreparedExample &p, const DatasetSettings &s, ExampleRecord &r, const CancelFn &cancel)
{
    const ModelConfig &c = model.model().config();
    const ForwardInput in = model.forwardInput(p.tokens);   // a pair's token types included
    ForwardOptions opt;
    opt.backend = s.backend;
    opt.threads = s.threads;
    opt.weightsMode = WeightsRequest::Mode::All;
    opt.maskOverride = s.mask.override();
    opt.computeLogits = c.head != ModelHead::None;
    opt.cancel = cancel;
    if (Status st = model.model().validate(in, opt); !st) return st;
    auto res = model.model().forward(in, opt);
    if (!res) return res.status();
    const auto L = static_cast<int>(res->length);
    Collector col{r};
    if (c.head == ModelHead::Classification) {
        const auto it = std::max_element(res->logits.begin(), res->logits.end());
        r.predicted = it - res->logits.begin();
        if (r.label) col.add("accuracy", "model", r.predicted == *r.label ? 1.0 : 0.0);
    }
    for (const CapturedHead &h : res->heads) {
        const HeadStatistics hs = headStatistics(h.weights.data(), p.tokens.ids);
        const std::string n = headName(h.head);
        col.add("entropy", n, hs.entropy);
        col.add("mean_distance", n, hs.meanDistance);
        col.add("first_token", n, hs.firstToken);
        col.add("self", n, hs.self);
        col.add("previous_token", n, hs.previousToken);
        col.add("duplicate_token", n, hs.duplicateToken);
        col.add("induction", n, hs.induction);
    }
    // Rollout (with the residual) of the head means; row o = [CLS] / the first position for encoders, the last
    // position for causal models.
    std::vector<std::vector<double>> layers(static_cast<std::size_t>(c.layers));
    for (std::int64_t l = 0; l < c.layers; ++l) {
        std::vector<const float *> heads;
        for (const CapturedHead &h : res->heads)
            if (h.head.layer == l) heads.push_back(h.weights.data());
        layers[static_cast<std::size_t>(l)] = meanOverHeads(heads, L);
    }
    auto rollout = attentionRollout(layers, L);
    if (!rollout) return rollout.status();
    const bool causal = s.mask.kind == MaskChoice::Kind::Causal || (s.mask.kind == MaskChoice::Kind::Model && c.causal);
    const int o = causal ? L - 1 : 0;
    const double *row = rollout->data() + static_cast<std::size_t>(o) * L;
    double entropy = 0.0;
    for (int j = 0; j < L; ++j)
        if (row[j] > 0) entropy -= row[j] * std::log(row[j]);
    col.add("rollout_first_token", "rollout", row[0]);
    col.add("rollout_entropy", "rollout", entropy);
    std::vector<double> rolloutScores(static_cast<std::size_t>(L), kNaN), meanScores(static_cast<std::size_t>(L), kNaN);
    const std::vector<double> &last = layers.back();
    for (int j = 0; j < L; ++j)
        if (!p.tokens.special[static_cast<std::size_t>(j)]) {
            rolloutScores[static_cast<std::size_t>(j)] = row[j];
            meanScores[static_cast<std::size_t>(j)] = last[static_cast<std::size_t>(o) * L + j];
        }
    addPlausibility(col, p, {{"head_mean", meanScores}, {"rollout", rolloutScores}}, s.precisionK, s.randomSeeds, r.seed);
    Json rj = Json::array();
    for (int j = 0; j < L; ++j) rj.push_back(row[j]);
    r.detailsJson = Json{{"rollout_row", o}, {"rollout", rj}}.dump();
    return Status::ok();
}

Status equivarianceExample(const TextModel &model, const PreparedExample &p, const DatasetSettings &s, ExampleRecord &r,
                           const CancelFn &cancel)
{
    EquivarianceSettings es = s.equivariance;
    if (es.permutation.kind == PermutationSpec::Kind::Random) es.permutation.seed = r.seed;
    es.backend = s.backend;
    es.threads = s.threads;
    auto res = runEquivariance(model, p.tokens, es, {}, cancel);
    if (!res) return res.status();
    Collector c{r};
    c.add("max_abs_err_weights", "model", res->maxAbsErrWeights);
    c.add("max_abs_err_outputs", "model", res->maxAbsErrOutputs);
    c.add("max_abs_err_logits", "model", res->maxAbsErrLogits >= 0 ? res->maxAbsErrLogits : kNaN);
    c.add("within_tolerance", "model", res->maxAbsErrWeights <= 1e-5 && res->maxAbsErrOutputs <= 1e-5 ? 1.0 : 0.0);
    for (const HeadEquivariance &h : res->heads) c.add("head_max_abs_err_weights", headName(h.head), h.maxAbsErrWeights);
    r.detailsJson = Json{{"permutation", res->permutation}, {"expected_equivariant", res->expectedEquivariant}}.dump();
    return Status::ok();
}

} // namespace

std::string datasetAnalysisName(DatasetAnalysis a)
{
    switch (a) {
    case DatasetAnalysis::Faithfulness: return "faithfulness";
    case DatasetAnalysis::Run: return "run";
    case DatasetAnalysis::Equivariance: return "equivariance";
    }
    return "faithfulness";
}

Result<Shard> parseShard(const std::string &text)
{
    const std::size_t slash = text.find('/');
    Shard s;
    const auto digits = [](const std::string &t) { return !t.empty() && t.size() < 10 && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; }); };
    if (slash == std::string::npos || !digits(text.substr(0, slash)) || !digits(text.substr(slash + 1)))
        return Status::invalid("'" + text + "' is not i/N (shard i of N, 0 <= i < N)");
    s.index = std::stoll(text.substr(0, slash));
    s.count = std::stoll(text.substr(slash + 1));
    if (s.count < 1 || s.index >= s.count) return Status::invalid("'" + text + "': need 0 <= i < N (shards count from 0)");
    return s;
}

Result<std::vector<PreparedExample>> prepareDataset(const TextModel &model, const Dataset &d, const DatasetSettings &s)
{
    const ModelConfig &c = model.model().config();
    const bool lm = c.head == ModelHead::CausalLM || c.head == ModelHead::MaskedLM;
    if (s.analysis == DatasetAnalysis::Faithfulness && c.head == ModelHead::None)
        return Status::invalid("model: faithfulness needs an output head (a classifier or a language model); '" + model.displayName() + "' has none");
    std::vector<std::string> labels = c.head == ModelHead::Classification ? c.labels : std::vector<std::string>{};
    std::vector<PreparedExample> out;
    std::vector<std::string> problems;
    std::size_t count = 0;
    const auto fail = [&](const DatasetExample &ex, const std::string &m) {
        ++count;
        if (problems.size() < 20) problems.push_back(where(d, ex) + ": " + m);
    };
    for (const DatasetExample &ex : d.examples) {
        PreparedExample p;
        p.example = &ex;
        if (ex.targetText) { fail(ex, "'target_text': " + model.displayName() + " is not an encoder-decoder; seq2seq targets need one (none is supported yet)"); continue; }
        // A pair goes through the tokenizer's pair template, with its token types (BERT: 0, then 1).
        TokenizeOptions pairOptions;
        if (ex.textPair) pairOptions.pair = *ex.textPair;
        auto tokens = model.tokenize(ex.text, pairOptions);
        if (!tokens) { fail(ex, std::string(ex.textPair ? "'text', 'text_pair': " : "'text': ") + tokens.status().message()); continue; }
        p.tokens = std::move(tokens).value();
        // The pair's tokens cover no bytes of `text`, so character rationales (offsets into `text`) never select them.
        for (std::size_t i = 0; i < p.tokens.ids.size(); ++i)
            if (p.tokens.sequence[i] == 1) p.tokens.begins[i] = p.tokens.ends[i] = p.tokens.text.size();
        const auto L = static_cast<std::int64_t>(p.tokens.ids.size());
        if (!ex.expectedTokenIds.empty() && ex.expectedTokenIds != p.tokens.ids) { fail(ex, "'input_ids': the tokenizer gives other ids than the file recorded"); continue; }
        if (ex.labelIndex) {
            if (!labels.empty() && *ex.labelIndex >= static_cast<std::int64_t>(labels.size())) { fail(ex, "'label': class " + std::to_string(*ex.labelIndex) + " is outside the model's " + std::to_string(labels.size()) + " classes"); continue; }
            p.goldClass = ex.labelIndex;
        } else if (ex.labelName) {
            const std::vector<std::string> &names = labels.empty() ? d.labelNames : labels;
            const auto it = std::find(names.begin(), names.end(), *ex.labelName);
            if (it == names.end()) { fail(ex, "'label': '" + *ex.labelName + "' is not a class of " + model.displayName()); continue; }
            p.goldClass = it - names.begin();
        }
        std::string error;
        if (!resolveTarget(ex.target.value_or(s.target), p.goldClass, lm, p, error)) { fail(ex, error); continue; }
        if (p.targetClass && !labels.empty() && *p.targetClass >= static_cast<std::int64_t>(labels.size())) { fail(ex, "'target': class " + std::to_string(*p.targetClass) + " is outside the model's classes"); continue; }
        if (p.targetPosition && *p.targetPosition >= L) { fail(ex, "'target': position " + std::to_string(*p.targetPosition) + " is outside the " + std::to_string(L) + " tokens"); continue; }
        int scored = 0;
        for (std::uint8_t sp : p.tokens.special) scored += sp ? 0 : 1;
        if (s.analysis == DatasetAnalysis::Faithfulness && scored < 2) { fail(ex, "'text': faithfulness needs at least 2 non-special tokens; it has " + std::to_string(scored)); continue; }
        // The gold rationale as token positions.
        p.gold.assign(static_cast<std::size_t>(L), 0);
        bool bad = false;
        if (!ex.rationale.empty()) {
            const std::vector<std::size_t> off = codePointOffsets(ex.text);
            for (std::size_t k = 0; k < ex.rationale.size(); ++k) {
                const std::size_t b = off[static_cast<std::size_t>(ex.rationale[k].begin)], e = off[static_cast<std::size_t>(ex.rationale[k].end)];
                std::int64_t first = -1, last = -1;
                for (std::int64_t t = 0; t < L; ++t) {
                    const auto u = static_cast<std::size_t>(t);
                    if (p.tokens.special[u] || p.tokens.ends[u] <= p.tokens.begins[u]) continue;
                    if (p.tokens.begins[u] < e && p.tokens.ends[u] > b) {
                        p.gold[u] = 1;
                        if (first < 0) first = t;
                        last = t;
                    }
                }
                if (first < 0) { fail(ex, "'rationale'[" + std::to_string(k) + "]: covers no token (only spaces?)"); bad = true; break; }
                p.goldSpans.push_back({first, last + 1});
            }
        }
        if (bad) continue;
        if (ex.rationaleTokens) {
            std::vector<std::uint8_t> fromTokens(static_cast<std::size_t>(L), 0);
            for (std::int64_t t : *ex.rationaleTokens) {
                if (t < 0 || t >= L) { fail(ex, "'rationale_tokens': " + std::to_string(t) + " is outside the " + std::to_string(L) + " tokens"); bad = true; break; }
                if (p.tokens.special[static_cast<std::size_t>(t)]) { fail(ex, "'rationale_tokens': " + std::to_string(t) + " is a special token (" + p.tokens.labels[static_cast<std::size_t>(t)] + "), which is never scored"); bad = true; break; }
                fromTokens[static_cast<std::size_t>(t)] = 1;
            }
            if (bad) continue;
            if (!ex.rationale.empty() && fromTokens != p.gold) { fail(ex, "'evidence_token_indices': the character spans select other tokens"); continue; }
            p.gold = fromTokens;
        }
        p.hasRationale = std::any_of(p.gold.begin(), p.gold.end(), [](std::uint8_t g) { return g != 0; });
        out.push_back(std::move(p));
    }
    if (count) {
        std::string m = d.path + ": " + std::to_string(count) + (count == 1 ? " example does" : " examples do") + " not fit " + model.displayName();
        for (const std::string &pr : problems) m += "\n  " + pr;
        if (count > problems.size()) m += "\n  ... and " + std::to_string(count - problems.size()) + " more";
        return Status::invalid(m);
    }
    return out;
}

Status runDataset(const TextModel &model, const std::vector<PreparedExample> &examples, const DatasetSettings &s,
                  const std::set<std::int64_t> &skip, const ExampleSink &sink, const DatasetProgressFn &progress,
                  const CancelFn &cancel)
{
    std::vector<const PreparedExample *> todo;
    for (const PreparedExample &p : examples)
        if (s.shard.contains(p.example->index) && !skip.count(p.example->index)) todo.push_back(&p);
    const auto t0 = std::chrono::steady_clock::now();
    const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    DatasetProgress pr;
    pr.total = static_cast<std::int64_t>(todo.size());
    const auto report = [&](double inside) {
        if (!progress) return;
        pr.fraction = pr.total ? (static_cast<double>(pr.done) + inside) / static_cast<double>(pr.total) : 1.0;
        pr.elapsedSeconds = elapsed();
        pr.etaSeconds = pr.done > 0 ? pr.elapsedSeconds / (static_cast<double>(pr.done) + inside) * (static_cast<double>(pr.total) - pr.done - inside) : -1.0;
        progress(pr);
    };
    report(0.0);
    for (const PreparedExample *p : todo) {
        if (cancel && cancel()) return Status::cancelled();
        const DatasetExample &ex = *p->example;
        ExampleRecord r;
        r.index = ex.index;
        r.id = ex.id;
        r.idIsNumber = ex.idIsNumber;
        r.seed = stats::deriveSeed(s.seed, static_cast<std::uint64_t>(ex.index));
        r.tokens = static_cast<std::int64_t>(p->tokens.ids.size());
        for (std::uint8_t sp : p->tokens.special) r.scoredTokens += sp ? 0 : 1;
        r.label = p->goldClass;
        r.threads = s.threads;
        for (std::size_t t = 0; t < p->gold.size(); ++t)
            if (p->gold[t]) r.rationaleTokens.push_back(static_cast<std::int64_t>(t));
        const auto e0 = std::chrono::steady_clock::now();
        Status st;
        switch (s.analysis) {
        case DatasetAnalysis::Faithfulness: st = faithfulnessExample(model, *p, s, r, [&](double f) { report(f); }, cancel); break;
        case DatasetAnalysis::Run: st = runExample(model, *p, s, r, cancel); break;
        case DatasetAnalysis::Equivariance: st = equivarianceExample(model, *p, s, r, cancel); break;
        }
        if (!st) return st.code() == ErrorCode::Cancelled ? st : Status(st.code(), "example " + std::to_string(ex.index) + " (id " + ex.id + "): " + st.message());
        r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - e0).count();
        if (Status w = sink(r); !w) return w;
        ++pr.done;
        report(0.0);
    }
    return Status::ok();
}

Result<DatasetRunOutput> runDatasetCollecting(const TextModel &model, const Dataset &dataset,
                                              const std::vector<PreparedExample> &examples, const DatasetSettings &s,
                                              const DatasetRunOptions &options, const ExampleSink &onRecord,
                                              const DatasetProgressFn &progress, const CancelFn &cancel)
{
    const auto t0 = std::chrono::steady_clock::now();
    DatasetRunOutput out;
    out.header = datasetResultsHeader(model, dataset, s);
    std::optional<ResultsWriter> writer;
    if (!options.outPath.empty()) {
        auto opened = ResultsWriter::open(options.outPath, out.header, options.resume, &out.records);
        if (!opened) return opened.status();
        writer.emplace(std::move(opened.value()));
    }
    out.resumed = out.records.size();
    std::set<std::int64_t> skip;
    for (const ExampleRecord &r : out.records) skip.insert(r.index);
    if (options.limit >= 0) {
        std::int64_t inShard = 0;
        for (const PreparedExample &p : examples)
            if (s.shard.contains(p.example->index) && inShard++ >= options.limit) skip.insert(p.example->index);
    }
    const Status st = runDataset(model, examples, s, skip, [&](const ExampleRecord &r) {
        if (writer)
            if (Status w = writer->append(r); !w) return w;
        out.records.push_back(r);
        return onRecord ? onRecord(r) : Status::ok();
    }, progress, cancel);
    if (!st && st.code() != ErrorCode::Cancelled) return st;
    out.cancelled = !st;
    std::sort(out.records.begin(), out.records.end(), [](const ExampleRecord &a, const ExampleRecord &b) { return a.index < b.index; });
    out.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

} // namespace attn
