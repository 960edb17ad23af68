// SPDX-License-Identifier: GPL-3.0-or-later
// The faithfulness suite (faithfulness.h; reference/faithfulness.md §1–§4): importances, agreement, ordering
// metrics with random baselines, per-head attention tests, and the sanity checks (RandomLogit; cascading
// parameter randomization in randomization.cpp).
#include <attnscope/faithfulness.h>

#include "importances.h"
#include "perturb.h"
#include "randomization.h"
#include "rng.h"

#include <attnscope/analysis.h>
#include <attnscope/metrics.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>

namespace attn {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
using detail::Outcome;
using detail::PassSpec;
using detail::Perturber;
using detail::attentionRow;

// The suite's shared state: the scored positions S and the runner.
struct Suite {
    const FaithfulnessSettings &s;
    Perturber &p;
    std::vector<std::int64_t> scored;   // S: non-special positions
    std::int64_t L = 0;
    std::function<Status()> runQueued;   // runs the queued passes with progress and cancel

    // kept over S → kept over all positions.
    std::vector<std::uint8_t> expand(const std::vector<std::uint8_t> &keptS) const
    {
        std::vector<std::uint8_t> kept(static_cast<std::size_t>(L), 1);
        for (std::size_t i = 0; i < scored.size(); ++i) kept[static_cast<std::size_t>(scored[i])] = keptS[i];
        return kept;
    }
    PassSpec spec(const std::vector<std::uint8_t> &keptS, RemovalOperator op) const { return {expand(keptS), op, {}, {}}; }

    // Runs `metric(score)` once recording, then runs the passes, then again reading the cache.
    template <typename Metric>
    Status twoPhase(RemovalOperator op, const Metric &metric)
    {
        metric([&](const std::vector<std::uint8_t> &k) { p.request(spec(k, op)); return 0.0; });
        if (Status st = runQueued(); !st) return st;
        metric([&](const std::vector<std::uint8_t> &k) { return p.lookup(spec(k, op)).score; });
        return Status::ok();
    }
};

std::vector<double> restrict(const std::vector<double> &full, const std::vector<std::int64_t> &scored)
{
    std::vector<double> v;
    for (std::int64_t i : scored) v.push_back(full[static_cast<std::size_t>(i)]);
    return v;
}

// The most probable index other than `target` (the first of equals); −1 when there is none.
std::int64_t runnerUp(const std::vector<double> &p, std::int64_t target)
{
    std::int64_t other = -1;
    for (std::size_t k = 0; k < p.size(); ++k)
        if (static_cast<std::int64_t>(k) != target && (other < 0 || p[k] > p[static_cast<std::size_t>(other)]))
            other = static_cast<std::int64_t>(k);
    return other;
}

std::vector<int> shuffled(int n, std::uint64_t seed)
{
    std::vector<int> v(static_cast<std::size_t>(n));
    std::iota(v.begin(), v.end(), 0);
    detail::SplitMix64 rng(seed);
    for (std::size_t k = v.size(); k > 1; --k) std::swap(v[k - 1], v[rng.next() % k]);
    return v;
}

struct OrderingInput {
    std::vector<int> order;   // indices into S, most important first
    std::vector<double> g;    // importance over S (for the faithfulness correlation)
};

// Every ordering metric of every ordering, with all their passes run in one parallel batch.
Status orderingMetrics(Suite &suite, RemovalOperator op, const std::vector<OrderingInput> &inputs,
                       const std::vector<std::vector<int>> &subsets, int step, std::vector<OrderingMetrics> &outs)
{
    const int n = static_cast<int>(suite.scored.size());
    const std::vector<std::uint8_t> all(static_cast<std::size_t>(n), 1);
    outs.assign(inputs.size(), {});
    std::vector<std::vector<double>> drops(inputs.size());
    Status st = suite.twoPhase(op, [&](const SetScoreFn &score) {
        for (std::size_t m = 0; m < inputs.size(); ++m) {
            const std::vector<int> &order = inputs[m].order;
            const Curves curves = deletionInsertionCurves(score, order, step);
            const EraserScores eraser = eraserScores(score, order, suite.s.eraserBins);
            OrderingMetrics &out = outs[m];
            out.bins = eraser.bins, out.k = eraser.k;
            out.comprehensiveness = eraser.comprehensiveness, out.sufficiency = eraser.sufficiency;
            out.aopcComprehensiveness = eraser.aopcComprehensiveness, out.aopcSufficiency = eraser.aopcSufficiency;
            out.deletion = curves.deletion, out.insertion = curves.insertion;
            out.aucDeletion = curves.aucDeletion, out.aucInsertion = curves.aucInsertion;
            // Prefix sets for the first flip (the deletion curve's own sets when step = 1).
            std::vector<std::uint8_t> kept = all;
            for (int k = 0; k < n; ++k) {
                kept[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])] = 0;
                score(kept);
            }
            const double full = score(all);
            drops[m].clear();
            for (const auto &sub : subsets) {
                std::vector<std::uint8_t> k = all;
                for (int i : sub) k[static_cast<std::size_t>(i)] = 0;
                drops[m].push_back(full - score(k));
            }
        }
    });
    if (!st) return st;
    const std::int64_t predicted = suite.p.lookup(suite.spec(all, op)).argmax;
    for (std::size_t m = 0; m < inputs.size(); ++m) {
        OrderingMetrics &out = outs[m];
        std::vector<std::uint8_t> kept = all;
        out.tokensToFlip = -1;
        out.fractionToFlip = -1.0;
        for (int k = 0; k < n; ++k) {
            kept[static_cast<std::size_t>(inputs[m].order[static_cast<std::size_t>(k)])] = 0;
            if (suite.p.lookup(suite.spec(kept, op)).argmax != predicted) {
                out.tokensToFlip = k + 1;
                out.fractionToFlip = static_cast<double>(k + 1) / n;
                break;
            }
        }
        out.faithfulnessCorrelation = faithfulnessCorrelation(inputs[m].g, subsets, drops[m]);
    }
    return Status::ok();
}

OrderingMetrics meanOf(const std::vector<OrderingMetrics> &v, int *neverFlipped)
{
    OrderingMetrics m = v.front();
    const auto avg = [&](auto get) {
        double s = 0.0;
        for (const auto &x : v) s += get(x);
        return s / static_cast<double>(v.size());
    };
    const auto avgVec = [&](auto get) {
        std::vector<double> out(get(v.front()).size(), 0.0);
        for (const auto &x : v)
            for (std::size_t i = 0; i < out.size(); ++i) out[i] += get(x)[i] / static_cast<double>(v.size());
        return out;
    };
    m.comprehensiveness = avgVec([](const OrderingMetrics &x) { return x.comprehensiveness; });
    m.sufficiency = avgVec([](const OrderingMetrics &x) { return x.sufficiency; });
    m.deletion = avgVec([](const OrderingMetrics &x) { return x.deletion; });
    m.insertion = avgVec([](const OrderingMetrics &x) { return x.insertion; });
    m.aopcComprehensiveness = avg([](const OrderingMetrics &x) { return x.aopcComprehensiveness; });
    m.aopcSufficiency = avg([](const OrderingMetrics &x) { return x.aopcSufficiency; });
    m.aucDeletion = avg([](const OrderingMetrics &x) { return x.aucDeletion; });
    m.aucInsertion = avg([](const OrderingMetrics &x) { return x.aucInsertion; });
    m.faithfulnessCorrelation = avg([](const OrderingMetrics &x) { return x.faithfulnessCorrelation; });
    *neverFlipped = 0;
    double flips = 0.0, tokens = 0.0, fraction = 0.0;
    for (const auto &x : v) {
        if (x.tokensToFlip < 0) ++*neverFlipped;
        else flips += 1.0, tokens += x.tokensToFlip, fraction += x.fractionToFlip;
    }
    m.tokensToFlip = flips > 0 ? static_cast<int>(std::lround(tokens / flips)) : -1;
    m.fractionToFlip = flips > 0 ? fraction / flips : -1.0;
    return m;
}

// Per-head attention tests (§3.3, §3.4, §3.11): permutation (median TVD), uniform rows, zero and mean ablation.
Status headTests(Suite &suite, const ForwardResult &base, std::int64_t o, const FaithfulnessSettings &s,
                 FaithfulnessResult &r)
{
    if (!s.permutationTest && !s.uniformTest && !s.headAblation) return Status::ok();
    const std::vector<std::uint8_t> all(static_cast<std::size_t>(suite.L), 1);
    const auto overrideSpec = [&](HeadRef h, HeadOverride::Kind kind, std::uint64_t seed) {
        return PassSpec{all, RemovalOperator::Deletion, {}, {HeadOverride{h, kind, seed}}};
    };
    const auto ablationSpec = [&](HeadRef h, HeadAblation::Kind kind) {
        return PassSpec{all, RemovalOperator::Deletion, {HeadAblation{h, kind, {}}}, {}};
    };
    const auto permSeed = [&](int k) { return s.seed * 1000003ull + static_cast<std::uint64_t>(k) + 1; };
    std::vector<HeadRef> heads;
    for (const CapturedHead &h : base.heads) heads.push_back(h.head);
    for (HeadRef h : heads) {
        if (s.permutationTest)
            for (int k = 0; k < s.permutations; ++k) suite.p.request(overrideSpec(h, HeadOverride::Kind::Permuted, permSeed(k)));
        if (s.uniformTest) suite.p.request(overrideSpec(h, HeadOverride::Kind::Uniform, 0));
        if (s.headAblation) {
            suite.p.request(ablationSpec(h, HeadAblation::Kind::Zero));
            suite.p.request(ablationSpec(h, HeadAblation::Kind::Mean));
        }
    }
    if (Status st = suite.runQueued(); !st) return st;
    const std::vector<double> &p0 = r.baseDistribution;
    const std::int64_t predicted = std::max_element(p0.begin(), p0.end()) - p0.begin();
    for (std::size_t k = 0; k < heads.size(); ++k) {
        HeadTest t;
        t.head = heads[k];
        const std::vector<float> &w = base.heads[k].weights;
        const std::vector<double> row = attentionRow(std::vector<double>(w.begin(), w.end()), suite.L, o, suite.scored);
        for (std::int64_t j : suite.scored) t.permutationMaxAttention = std::max(t.permutationMaxAttention, row[static_cast<std::size_t>(j)]);
        if (s.permutationTest) {
            std::vector<double> tvd;
            for (int q = 0; q < s.permutations; ++q)
                tvd.push_back(suite.p.lookup(overrideSpec(heads[k], HeadOverride::Kind::Permuted, permSeed(q))).tvd);
            t.permutationMedianTvd = median(tvd);
        }
        if (s.uniformTest) {
            const Outcome &u = suite.p.lookup(overrideSpec(heads[k], HeadOverride::Kind::Uniform, 0));
            t.uniformTvd = u.tvd;
            t.uniformFlip = u.argmax != predicted;
        }
        if (s.headAblation) {
            const Outcome &z = suite.p.lookup(ablationSpec(heads[k], HeadAblation::Kind::Zero));
            const Outcome &m = suite.p.lookup(ablationSpec(heads[k], HeadAblation::Kind::Mean));
            t.zeroAblationDelta = z.score - r.target.score;
            t.meanAblationDelta = m.score - r.target.score;
            t.zeroAblationTvd = z.tvd;
            t.meanAblationTvd = m.tvd;
        }
        r.heads.push_back(t);
    }
    return Status::ok();
}

// RandomLogit (§3.14; the cascading parameter randomization is randomization.cpp): every importance for the
// runner-up target, Spearman against the original. Attention importances take no target, so they are the same
// vector (class-agnostic by construction); perturbation importances are recomputed from the cached passes'
// distributions.
template <typename LooOp>
void randomLogit(Suite &suite, const FaithfulnessSettings &s, const LooOp &looOp, FaithfulnessResult &r)
{
    if (!s.randomLogitCheck) return;
    const std::vector<double> &p0 = r.baseDistribution;
    const std::int64_t other = runnerUp(p0, r.target.index);
    if (other < 0) return;
    RandomLogitCheck check;
    check.otherIndex = other;
    const std::vector<std::uint8_t> all(static_cast<std::size_t>(suite.L), 1);
    for (const Importance &imp : r.importances) {
        std::vector<double> a = restrict(imp.scores, suite.scored), b = a;
        if (!isAttentionImportance(imp.kind)) {
            const RemovalOperator op = looOp(imp.kind);
            const double full = suite.p.lookup({all, op, {}, {}}).otherScore;
            for (std::size_t i = 0; i < suite.scored.size(); ++i) {
                std::vector<std::uint8_t> kept = all;
                kept[static_cast<std::size_t>(suite.scored[i])] = 0;
                b[i] = full - suite.p.lookup({kept, op, {}, {}}).otherScore;
            }
        }
        const double rho = spearman(a, b);
        check.methods.push_back(imp.name);
        check.spearman.push_back(rho);
        check.classAgnostic.push_back(a == b || rho >= 1.0 - 1e-12);
    }
    r.randomLogit = std::move(check);
}

} // namespace

Result<FaithfulnessResult> runFaithfulness(const TextModel &model, const std::string &text,
                                           const FaithfulnessSettings &settings, const ProgressFn &progress,
                                           const CancelFn &cancel)
{
    auto tokens = model.tokenize(text);
    if (!tokens) return tokens.status();
    return runFaithfulness(model, *tokens, settings, progress, cancel);
}

Result<FaithfulnessResult> runFaithfulness(const TextModel &textModel, const TokenizedText &tokens,
                                           const FaithfulnessSettings &s, const ProgressFn &progress,
                                           const CancelFn &cancel)
{
    const auto t0 = std::chrono::steady_clock::now();
    const Model &model = textModel.model();
    const ModelConfig &c = model.config();
    if (c.head == ModelHead::None)
        return Status::invalid("model: faithfulness needs an output head (a classifier or a language model); '" +
                               textModel.displayName() + "' has none");
    const auto L = static_cast<std::int64_t>(tokens.ids.size());
    std::vector<std::uint8_t> special = tokens.special;
    if (static_cast<std::int64_t>(special.size()) != L) special.assign(static_cast<std::size_t>(L), 0);
    std::vector<std::int64_t> scored;
    for (std::int64_t i = 0; i < L; ++i)
        if (!special[static_cast<std::size_t>(i)]) scored.push_back(i);
    const int n = static_cast<int>(scored.size());
    if (n < 2) return Status::invalid("text: faithfulness needs at least 2 non-special tokens; it has " + std::to_string(n));
    for (double b : s.eraserBins)
        if (!(b > 0.0 && b <= 1.0)) return Status::invalid("eraser bins: " + std::to_string(b) + " is not in (0, 1]");
    if (s.randomSeeds < 1) return Status::invalid("random seeds: " + std::to_string(s.randomSeeds) + " (at least 1)");
    if (s.permutations < 1) return Status::invalid("permutations: " + std::to_string(s.permutations) + " (at least 1)");
    if (s.bhattRuns < 2) return Status::invalid("bhatt runs: " + std::to_string(s.bhattRuns) + " (at least 2)");
    if (s.randomization != RandomizationMode::None && !(s.randomizationThreshold > 0.0 && s.randomizationThreshold <= 1.0))
        return Status::invalid("randomization threshold: " + std::to_string(s.randomizationThreshold) + " is not in (0, 1]");
    const HeadRef head = s.head.value_or(HeadRef{c.layers - 1, 0});
    if (head.layer < 0 || head.layer >= c.layers || head.head < 0 || head.head >= c.heads)
        return Status::invalid("head: " + std::to_string(head.layer) + "." + std::to_string(head.head) +
                               " is outside the model's " + std::to_string(c.layers) + " layers × " +
                               std::to_string(c.heads) + " heads");
    const bool lm = c.head == ModelHead::CausalLM || c.head == ModelHead::MaskedLM;
    std::int64_t targetPosition = 0;
    if (lm) {
        targetPosition = s.targetPosition.value_or(c.head == ModelHead::CausalLM ? L - 1 : scored.back());
        if (targetPosition < 0 || targetPosition >= L)
            return Status::invalid("target position: " + std::to_string(targetPosition) + " is outside the " +
                                   std::to_string(L) + " tokens");
    }
    const int threads = s.threads > 0 ? s.threads : hardwareThreads();

    // The unperturbed pass: every head's weights, and the target fixed once.
    // A sentence pair's token types go with every pass (BERT; textModel decides whether the model takes them).
    const ForwardInput in = textModel.forwardInput(tokens);
    ForwardOptions opt;
    opt.backend = s.backend;
    opt.threads = threads;
    opt.weightsMode = WeightsRequest::Mode::All;
    opt.cancel = cancel;
    if (Status st = model.validate(in, opt); !st) return st;
    auto base = model.forward(in, opt);
    if (!base) return base.status();

    // The unperturbed output comes from a pass of the same kind as every perturbed pass (no weights requested):
    // the weights pass rounds differently (row-block softmax), and a no-op perturbation must change nothing.
    ForwardOptions plainOpt = opt;
    plainOpt.weightsMode = WeightsRequest::Mode::None;
    auto plain = model.forward(in, plainOpt);
    if (!plain) return plain.status();

    FaithfulnessResult r;
    r.tokens = tokens;
    {
        const std::size_t width = lm ? static_cast<std::size_t>(c.vocabSize) : plain->logits.size();
        const float *row = plain->logits.data() + (lm ? static_cast<std::size_t>(targetPosition) * width : 0);
        r.baseDistribution = softmax(std::vector<double>(row, row + width));
    }
    const auto &P0 = r.baseDistribution;
    std::int64_t targetIndex = std::max_element(P0.begin(), P0.end()) - P0.begin();
    if (!lm && s.targetClass) {
        if (*s.targetClass < 0 || *s.targetClass >= static_cast<std::int64_t>(P0.size()))
            return Status::invalid("target class: " + std::to_string(*s.targetClass) + " is outside the " +
                                   std::to_string(P0.size()) + " classes");
        targetIndex = *s.targetClass;
    }
    r.target.kind = lm ? "next_token_log_prob" : "class_probability";
    r.target.unit = lm ? "nats" : "probability";
    r.target.index = targetIndex;
    r.target.position = targetPosition;
    r.target.score = lm ? std::log(P0[static_cast<std::size_t>(targetIndex)]) : P0[static_cast<std::size_t>(targetIndex)];
    const auto &tok = textModel.tokenizer();
    if (!lm) r.target.label = targetIndex < static_cast<std::int64_t>(c.labels.size()) ? c.labels[static_cast<std::size_t>(targetIndex)] : "";
    else if (tok) r.target.label = tok->decode({static_cast<std::int32_t>(targetIndex)}, false);

    // Replacement ids for the operators.
    SpecialTokenIds ids;
    if (tok) ids = tok->specialTokenIds();
    const std::int64_t padId = ids.pad >= 0 ? ids.pad : c.padTokenId.value_or(ids.eos >= 0 ? ids.eos : c.eosTokenId.value_or(0));
    const std::int64_t fillerId = ids.bos >= 0 ? ids.bos : ids.eos >= 0 ? ids.eos : padId;
    const RemovalOperator occlusion = s.occlusionBaseline.value_or(ids.mask >= 0 ? RemovalOperator::MaskToken : RemovalOperator::ZeroEmbedding);
    for (auto [op, what] : {std::pair{s.removal, "removal"}, std::pair{s.secondRemoval.value_or(s.removal), "second removal"},
                            std::pair{occlusion, "occlusion baseline"}}) {
        if ((op == RemovalOperator::MaskToken && ids.mask < 0) || (op == RemovalOperator::UnkToken && ids.unk < 0))
            return Status::invalid(std::string(what) + ": the model's tokenizer has no " + removalOperatorName(op) + " token");
    }
    r.removal = removalOperatorName(s.removal);
    r.occlusionBaseline = removalOperatorName(occlusion);
    r.occlusionBaselineId = occlusion == RemovalOperator::MaskToken ? ids.mask
                            : occlusion == RemovalOperator::UnkToken ? ids.unk
                            : occlusion == RemovalOperator::PadToken ? padId : -1;
    r.scoredTokens = n;

    Perturber p(model, tokens.ids, special, Perturber::Target{targetPosition, targetIndex, std::max<std::int64_t>(runnerUp(P0, targetIndex), 0), P0},
                Perturber::Replacements{ids.mask, ids.unk, padId, fillerId}, s.backend);
    p.setTokenTypes(in.tokenTypeIds);
    const double total = static_cast<double>(estimateFaithfulnessPasses(model, n, s));
    Suite suite{s, p, scored, L, {}};
    suite.runQueued = [&]() -> Status {
        const double before = static_cast<double>(p.passes()), queued = static_cast<double>(p.queued());
        ProgressFn pf;
        if (progress) pf = [&, before, queued](double f) { progress(std::min(1.0, (before + f * queued) / total)); };
        return p.run(threads, cancel, pf);
    };

    // Importances; attention rows are row o = [CLS] (classifiers) or the target position (LMs).
    const std::int64_t o = lm ? targetPosition : 0;
    detail::ImportancePlan plan;
    for (ImportanceKind k : s.methods)
        if (std::find(plan.methods.begin(), plan.methods.end(), k) == plan.methods.end()) plan.methods.push_back(k);
    plan.head = head;
    plan.row = o;
    plan.scored = scored;
    plan.length = L;
    plan.occlusion = occlusion;
    plan.occlusionId = r.occlusionBaselineId;
    const auto looOp = [&](ImportanceKind k) { return plan.looOperator(k); };
    auto importances = detail::computeImportances(c, *base, p, suite.runQueued, plan, cancel, &r.skipped);
    if (!importances) return importances.status();
    r.importances = std::move(importances).value();

    // Agreement: each attention importance against |each perturbation importance| (§3.2).
    const int topK = std::max(1, static_cast<int>(std::ceil(0.1 * n - 1e-9)));
    for (const Importance &a : r.importances) {
        if (!isAttentionImportance(a.kind)) continue;
        for (const Importance &q : r.importances) {
            if (isAttentionImportance(q.kind)) continue;
            std::vector<double> x = restrict(a.scores, scored), y = restrict(q.scores, scored);
            for (double &v : y) v = std::abs(v);
            r.agreement.push_back({a.name, q.name, kendallTauB(x, y), spearman(x, y), topKOverlap(x, y, topK), topK});
        }
    }
    // The random baseline of each reference: random importances (the random orderings' seeds), mean over seeds.
    for (const Importance &q : r.importances) {
        if (isAttentionImportance(q.kind)) continue;
        std::vector<double> y = restrict(q.scores, scored);
        for (double &v : y) v = std::abs(v);
        AgreementScores mean{"random", q.name, 0.0, 0.0, 0.0, topK};
        for (int k = 1; k <= s.randomSeeds; ++k) {
            const std::vector<int> order = shuffled(n, s.seed + static_cast<std::uint64_t>(k));
            std::vector<double> x(static_cast<std::size_t>(n));
            for (int rank = 0; rank < n; ++rank) x[static_cast<std::size_t>(order[static_cast<std::size_t>(rank)])] = n - rank;
            mean.kendallTauB += kendallTauB(x, y) / s.randomSeeds;
            mean.spearman += spearman(x, y) / s.randomSeeds;
            mean.topKOverlap += topKOverlap(x, y, topK) / s.randomSeeds;
        }
        r.agreement.push_back(mean);
    }

    // Ordering metrics for each importance, then random orderings.
    r.curveStep = s.curveStep > 0 ? s.curveStep : (n > 100 ? (n + 19) / 20 : 1);
    r.bhattSubsetSize = s.bhattSubsetSize > 0 ? std::min(s.bhattSubsetSize, n) : std::max(1, static_cast<int>(std::lround(0.25 * n)));
    std::vector<std::vector<int>> subsets;
    detail::SplitMix64 subsetRng(s.seed ^ 0xB4A7F00Dull);
    for (int run = 0; run < s.bhattRuns; ++run) {
        std::vector<int> pool(static_cast<std::size_t>(n));
        std::iota(pool.begin(), pool.end(), 0);
        for (int k = 0; k < r.bhattSubsetSize; ++k)
            std::swap(pool[static_cast<std::size_t>(k)], pool[static_cast<std::size_t>(k) + subsetRng.next() % static_cast<std::size_t>(n - k)]);
        subsets.emplace_back(pool.begin(), pool.begin() + r.bhattSubsetSize);
    }
    std::vector<OrderingInput> inputs;
    for (const Importance &imp : r.importances) {
        std::vector<double> g = restrict(imp.scores, scored);
        inputs.push_back({descendingOrder(g), g});
    }
    std::vector<std::uint64_t> seeds;
    for (int k = 1; k <= s.randomSeeds; ++k) {
        seeds.push_back(s.seed + static_cast<std::uint64_t>(k));
        OrderingInput in{shuffled(n, seeds.back()), std::vector<double>(static_cast<std::size_t>(n))};
        for (int rank = 0; rank < n; ++rank) in.g[static_cast<std::size_t>(in.order[static_cast<std::size_t>(rank)])] = n - rank;
        inputs.push_back(std::move(in));
    }
    const auto runOrderings = [&](RemovalOperator op, std::vector<MethodMetrics> &out) -> Status {
        std::vector<OrderingMetrics> metrics;
        if (Status st = orderingMetrics(suite, op, inputs, subsets, r.curveStep, metrics); !st) return st;
        for (std::size_t m = 0; m < r.importances.size(); ++m) out.push_back({r.importances[m].name, metrics[m], {}, {}, 0});
        MethodMetrics random{"random", {}, seeds, std::vector<OrderingMetrics>(metrics.begin() + static_cast<std::ptrdiff_t>(r.importances.size()), metrics.end()), 0};
        random.metrics = meanOf(random.perSeed, &random.neverFlipped);
        out.push_back(std::move(random));
        return Status::ok();
    };
    if (s.orderingMetrics) {
        if (Status st = runOrderings(s.removal, r.orderings); !st) return st;
        if (s.secondRemoval) {
            r.secondRemoval = removalOperatorName(*s.secondRemoval);
            if (Status st = runOrderings(*s.secondRemoval, r.secondOrderings); !st) return st;
        }
    }

    if (Status st = headTests(suite, *base, o, s, r); !st) return st;
    randomLogit(suite, s, looOp, r);

    std::int64_t otherPasses = 0;   // passes on randomized copies (each with its own Perturber)
    if (s.randomization == RandomizationMode::Cascade) {
        const auto runOther = [&](Perturber &q) -> Status {
            const double before = static_cast<double>(p.passes() + otherPasses), queued = static_cast<double>(q.queued());
            ProgressFn pf;
            if (progress) pf = [&, before, queued](double f) { progress(std::min(1.0, (before + f * queued) / total)); };
            const std::int64_t had = q.passes();
            const Status st = q.run(threads, cancel, pf);
            otherPasses += q.passes() - had;
            return st;
        };
        const detail::RandomizationInput rin{model, tokens.ids, special, plan, r.importances,
                                             Perturber::Target{targetPosition, targetIndex, std::max<std::int64_t>(runnerUp(P0, targetIndex), 0), P0},
                                             Perturber::Replacements{ids.mask, ids.unk, padId, fillerId}, s.backend, threads,
                                             in.tokenTypeIds};
        auto check = detail::randomizationCheck(rin, s, runOther, cancel);
        if (!check) return check.status();
        r.randomization = std::move(check).value();
    }

    r.forwardPasses = p.passes() + 1 + (r.randomization ? r.randomization->forwardPasses : 0);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (progress) progress(1.0);
    return r;
}

} // namespace attn
