// SPDX-License-Identifier: GPL-3.0-or-later
// The equivariance and faithfulness documents (docs/json-format.md; docs/schema/equivariance.schema.json and
// faithfulness.schema.json). Numbers are float64 (JSON's own); NaN — an undefined statistic — is written as null.
#include <attnscope/comparison.h>
#include <attnscope/equivariance.h>
#include <attnscope/export.h>
#include <attnscope/faithfulness.h>
#include <attnscope/maskeffects.h>
#include <attnscope/provenance.h>

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>

namespace attn {

namespace {

using Json = nlohmann::ordered_json;

Json number(double v)
{
    return std::isfinite(v) ? Json(v) : Json(nullptr);
}

Json numbers(const std::vector<double> &v)
{
    Json a = Json::array();
    for (double x : v) a.push_back(number(x));
    return a;
}

Json modelBlock(const TextModel &m)
{
    const ModelConfig &c = m.model().config();
    const bool synthetic = c.architecture == Architecture::Synthetic;
    const auto path = synthetic ? Result<std::string>(Status::invalid("")) : resolveModelSpec(m.spec());
    return Json{{"name", m.displayName()},
                {"source", m.spec()},
                {"path", path ? Json(*path) : Json(nullptr)},
                {"architecture", architectureName(c.architecture)},
                {"architecture_class", c.architectureClass},
                {"head", headKindName(c.head)},
                {"layers", c.layers},
                {"heads", c.heads},
                {"d_model", c.dModel},
                {"d_head", c.dHead}};
}

Json inputBlock(const TokenizedText &t)
{
    Json special = Json::array();
    for (std::uint8_t s : t.special) special.push_back(s ? 1 : 0);
    Json in{{"text", t.text}, {"tokens", t.labels}, {"token_ids", t.ids}, {"special", special},
            {"length", t.ids.size()}, {"truncated", t.truncated}};
    if (t.truncated) in["untruncated_length"] = t.untruncatedLength;
    return in;
}

Json header(const TextModel &m, const TokenizedText &t, const char *kind)
{
    return Json{{"format", "attnscope"}, {"version", 1}, {"kind", kind}, {"model", modelBlock(m)}, {"input", inputBlock(t)}};
}

// Where the document came from (provenance.h); the backend is the one the settings asked for.
Json provenanceBlock(const TextModel &m, Backend backend, int threads)
{
    return Json::parse(provenanceJson(makeProvenance(m.spec(), backend, threads)));
}

} // namespace

std::string equivarianceExportJson(const TextModel &m, const EquivarianceSettings &s, const EquivarianceResult &r)
{
    Json doc = header(m, r.tokens, "equivariance");
    doc["settings"] = Json{{"permutation", permutationSpecText(s.permutation)},
                           {"keep_special_fixed", s.permutation.keepSpecialFixed},
                           {"positional", positionalChoiceName(s.positional)},
                           {"positions_used", positionKindName(r.positionsUsed)},
                           {"model_spec_used", r.modelSpecUsed.empty() ? Json(nullptr) : Json(r.modelSpecUsed)},
                           {"mask", Json{{"kind", r.maskUsed}, {"window", s.mask.window >= 0 ? Json(s.mask.window) : Json(nullptr)}}},
                           {"scope", equivarianceScopeText(s.scope)},
                           {"backend", backendName(r.backendUsed)},
                           {"dtype", "float32"}};
    doc["permutation"] = r.permutation;
    doc["permuted_token_ids"] = r.permutedIds;
    doc["max_abs_err_weights"] = r.maxAbsErrWeights;
    doc["max_abs_err_outputs"] = r.maxAbsErrOutputs;
    doc["max_abs_err_logits"] = r.maxAbsErrLogits >= 0 ? Json(r.maxAbsErrLogits) : Json(nullptr);
    doc["expected_equivariant"] = r.expectedEquivariant;
    doc["tolerance"] = 1e-5;
    doc["within_tolerance"] = r.maxAbsErrWeights <= 1e-5 && r.maxAbsErrOutputs <= 1e-5;
    Json heads = Json::array();
    for (const HeadEquivariance &h : r.heads)
        heads.push_back(Json{{"layer", h.head.layer}, {"head", h.head.head}, {"max_abs_err_weights", h.maxAbsErrWeights}});
    doc["heads"] = heads;
    doc["provenance"] = provenanceBlock(m, r.backendUsed, s.threads);
    return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

namespace {

// One metric block: {"parameters", "methods": [...], "random": {...}} built from the orderings.
template <typename PerMethod, typename Random>
Json metricBlock(const std::vector<MethodMetrics> &orderings, Json parameters, const PerMethod &perMethod,
                 const Random &random)
{
    Json methods = Json::array();
    Json rnd;
    for (const MethodMetrics &m : orderings) {
        if (m.method == "random") {
            rnd = random(m);
            rnd["seeds"] = m.seeds;
            continue;
        }
        Json e{{"method", m.method}};
        e.update(perMethod(m.metrics));
        methods.push_back(e);
    }
    return Json{{"parameters", std::move(parameters)}, {"methods", methods}, {"random", rnd}};
}

template <typename Get>
Json perSeed(const MethodMetrics &m, const char *name, const Get &get)
{
    Json a = Json::array();
    for (std::size_t i = 0; i < m.perSeed.size(); ++i) a.push_back(Json{{"seed", m.seeds[i]}, {name, get(m.perSeed[i])}});
    return a;
}

// The four ordering-metric blocks for one removal operator.
Json metricsJson(const FaithfulnessSettings &s, const FaithfulnessResult &r, const std::vector<MethodMetrics> &orderings,
                 const std::string &removal)
{
    Json bins = numbers(s.eraserBins);
    Json metrics;
    metrics["eraser"] = metricBlock(
        orderings, Json{{"bins", bins}, {"removal", removal}, {"k", "max(1, ceil(bin * n))"}, {"aopc", "mean over the bins (ERASER scorer)"}},
        [](const OrderingMetrics &o) {
            return Json{{"k", o.k}, {"comprehensiveness", numbers(o.comprehensiveness)}, {"sufficiency", numbers(o.sufficiency)},
                        {"aopc_comprehensiveness", number(o.aopcComprehensiveness)}, {"aopc_sufficiency", number(o.aopcSufficiency)}};
        },
        [](const MethodMetrics &mm) {
            const OrderingMetrics &o = mm.metrics;
            return Json{{"comprehensiveness", numbers(o.comprehensiveness)}, {"sufficiency", numbers(o.sufficiency)},
                        {"aopc_comprehensiveness", number(o.aopcComprehensiveness)}, {"aopc_sufficiency", number(o.aopcSufficiency)},
                        {"per_seed_aopc_comprehensiveness", perSeed(mm, "value", [](const OrderingMetrics &x) { return number(x.aopcComprehensiveness); })},
                        {"per_seed_aopc_sufficiency", perSeed(mm, "value", [](const OrderingMetrics &x) { return number(x.aopcSufficiency); })}};
        });
    metrics["curves"] = metricBlock(
        orderings, Json{{"step", r.curveStep}, {"removal", removal}, {"auc", "trapezoid on [0, 1]"}, {"unit", r.target.unit}},
        [](const OrderingMetrics &o) {
            return Json{{"deletion", numbers(o.deletion)}, {"insertion", numbers(o.insertion)},
                        {"auc_deletion", number(o.aucDeletion)}, {"auc_insertion", number(o.aucInsertion)}};
        },
        [](const MethodMetrics &mm) {
            const OrderingMetrics &o = mm.metrics;
            return Json{{"deletion", numbers(o.deletion)}, {"insertion", numbers(o.insertion)},
                        {"auc_deletion", number(o.aucDeletion)}, {"auc_insertion", number(o.aucInsertion)},
                        {"per_seed_auc_deletion", perSeed(mm, "value", [](const OrderingMetrics &x) { return number(x.aucDeletion); })},
                        {"per_seed_auc_insertion", perSeed(mm, "value", [](const OrderingMetrics &x) { return number(x.aucInsertion); })}};
        });
    metrics["decision_flip"] = metricBlock(
        orderings, Json{{"removal", removal}, {"order", "most important first, one token at a time"}},
        [](const OrderingMetrics &o) {
            return Json{{"tokens_to_flip", o.tokensToFlip}, {"fraction_to_flip", o.fractionToFlip}};
        },
        [](const MethodMetrics &mm) {
            return Json{{"mean_fraction_to_flip", mm.metrics.fractionToFlip}, {"never_flipped", mm.neverFlipped},
                        {"per_seed_tokens_to_flip", perSeed(mm, "value", [](const OrderingMetrics &x) { return x.tokensToFlip; })}};
        });
    metrics["faithfulness_correlation"] = metricBlock(
        orderings, Json{{"runs", s.bhattRuns}, {"subset_size", r.bhattSubsetSize}, {"seed", s.seed}, {"removal", removal},
                {"correlation", "pearson"}, {"drop", "signed m(x) - m(x_S)"}},
        [](const OrderingMetrics &o) { return Json{{"value", number(o.faithfulnessCorrelation)}}; },
        [](const MethodMetrics &mm) {
            return Json{{"value", number(mm.metrics.faithfulnessCorrelation)},
                        {"per_seed", perSeed(mm, "value", [](const OrderingMetrics &x) { return number(x.faithfulnessCorrelation); })}};
        });
    return metrics;
}

} // namespace

std::string faithfulnessExportJson(const TextModel &m, const FaithfulnessSettings &s, const FaithfulnessResult &r)
{
    Json doc = header(m, r.tokens, "faithfulness");
    Json methods = Json::array();
    for (ImportanceKind k : s.methods) methods.push_back(importanceKindName(k));
    const HeadRef head = s.head.value_or(HeadRef{m.model().config().layers - 1, 0});
    doc["settings"] = Json{{"methods", methods},
                           {"head", Json{{"layer", head.layer}, {"head", head.head}}},
                           {"removal", r.removal},
                           {"occlusion_baseline", r.occlusionBaseline},
                           {"occlusion_baseline_id", r.occlusionBaselineId >= 0 ? Json(r.occlusionBaselineId) : Json(nullptr)},
                           {"seed", s.seed},
                           {"random_seeds", s.randomSeeds},
                           {"backend", backendName(s.backend)},
                           {"distance", "tvd = 0.5 * sum |p - q| over the output distribution; logs natural"},
                           {"special_tokens", "excluded: no importance, never perturbed"}};
    doc["target"] = Json{{"kind", r.target.kind},   {"unit", r.target.unit},         {"index", r.target.index},
                         {"label", r.target.label}, {"position", r.target.position}, {"score", number(r.target.score)}};
    doc["scored_tokens"] = r.scoredTokens;

    Json imps = Json::array();
    for (const Importance &i : r.importances) imps.push_back(Json{{"method", i.name}, {"note", i.note}, {"scores", numbers(i.scores)}});
    doc["importances"] = imps;
    Json agree = Json::array();
    for (const AgreementScores &a : r.agreement)
        agree.push_back(Json{{"method", a.method}, {"reference", a.reference}, {"kendall_tau_b", number(a.kendallTauB)},
                             {"spearman", number(a.spearman)}, {"top_k_overlap", number(a.topKOverlap)}, {"k", a.k}});
    doc["agreement"] = Json{{"parameters", Json{{"reference_transform", "abs"}, {"top_k", "max(1, ceil(0.1 n))"}}}, {"results", agree}};

    // null: ordering metrics were not run (or no second operator was asked for).
    doc["metrics"] = r.orderings.empty() ? Json(nullptr) : metricsJson(s, r, r.orderings, r.removal);
    doc["second_removal"] = r.secondRemoval.empty() ? Json(nullptr) : Json(r.secondRemoval);
    doc["metrics_second"] = r.secondOrderings.empty() ? Json(nullptr) : metricsJson(s, r, r.secondOrderings, r.secondRemoval);

    Json heads = Json::array();
    for (const HeadTest &h : r.heads)
        heads.push_back(Json{{"layer", h.head.layer}, {"head", h.head.head},
                             {"permutation_median_tvd", number(h.permutationMedianTvd)},
                             {"max_attention", number(h.permutationMaxAttention)},
                             {"uniform_tvd", number(h.uniformTvd)}, {"uniform_flip", h.uniformFlip},
                             {"zero_ablation_delta", number(h.zeroAblationDelta)}, {"mean_ablation_delta", number(h.meanAblationDelta)},
                             {"zero_ablation_tvd", number(h.zeroAblationTvd)}, {"mean_ablation_tvd", number(h.meanAblationTvd)}});
    doc["heads"] = Json{{"parameters", Json{{"permutation_test", s.permutationTest}, {"permutations", s.permutations},
                                            {"permutation_seed", s.seed}, {"permutation_rows", "all rows, among allowed keys"},
                                            {"uniform_test", s.uniformTest}, {"ablations", s.headAblation ? Json{"zero", "mean"} : Json::array()},
                                            {"delta_unit", r.target.unit}}},
                        {"results", heads}};
    if (r.randomLogit) {
        Json res = Json::array();
        for (std::size_t i = 0; i < r.randomLogit->methods.size(); ++i)
            res.push_back(Json{{"method", r.randomLogit->methods[i]}, {"spearman", number(r.randomLogit->spearman[i])},
                               {"class_agnostic", static_cast<bool>(r.randomLogit->classAgnostic[i])}});
        doc["random_logit"] = Json{{"parameters", Json{{"other_index", r.randomLogit->otherIndex},
                                                       {"note", "RandomLogit variant of the randomization check; the cascading parameter randomization is under randomization"}}},
                                   {"results", res}};
    } else {
        doc["random_logit"] = nullptr;
    }
    if (r.randomization) {
        const RandomizationCheck &rc = *r.randomization;
        Json steps = Json::array();
        for (const RandomizationStep &st : rc.steps) {
            Json res = Json::array();
            for (std::size_t m = 0; m < rc.methods.size(); ++m)
                res.push_back(Json{{"method", rc.methods[m]}, {"spearman", number(st.spearman[m])},
                                   {"spearman_abs", number(st.spearmanAbs[m])}});
            steps.push_back(Json{{"top_layers", st.topLayers}, {"randomized", st.randomized},
                                 {"output_tvd", number(st.outputTvd)}, {"results", res}});
        }
        Json summary = Json::array();
        for (std::size_t m = 0; m < rc.methods.size(); ++m)
            summary.push_back(Json{{"method", rc.methods[m]}, {"fails", static_cast<bool>(rc.fails[m])},
                                   {"structural", static_cast<bool>(rc.structural[m])},
                                   {"first_changed_step", rc.firstChangedStep[m] >= 0 ? Json(rc.firstChangedStep[m]) : Json(nullptr)}});
        doc["randomization"] = Json{
            {"parameters", Json{{"mode", "cascade"}, {"order", "top_down"}, {"seed", rc.seed}, {"init", rc.init},
                                {"reset_layer_norms", rc.resetLayerNorms}, {"steps", rc.steps.size()},
                                {"threshold", rc.threshold},
                                {"similarity", "spearman over the scored tokens, original vs randomized; spearman_abs on |importance|"},
                                {"fails", "|spearman| >= threshold after the output head alone is randomized (step 0)"}}},
            {"steps", steps},
            {"summary", summary},
            {"forward_passes", rc.forwardPasses}};
    } else {
        doc["randomization"] = nullptr;
    }
    doc["skipped"] = r.skipped;
    doc["forward_passes"] = r.forwardPasses;
    doc["seconds"] = r.seconds;
    doc["provenance"] = provenanceBlock(m, s.backend, s.threads);
    return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

namespace {

// A float32 as the double of its shortest decimal, so that the document shows "0.1" and not 0.10000000149011612;
// np.float32 of the written number is the engine's value.
double shortFloat(float x)
{
    if (!std::isfinite(x)) return x;
    char buf[32];
    const auto end = std::to_chars(buf, buf + sizeof buf, x).ptr;
    double d = 0.0;
    std::from_chars(buf, end, d);
    return d;
}

// [rows][cols] of a row-major matrix; float32 values as their shortest decimal.
Json floatMatrix(const std::vector<float> &m, std::int64_t rows, std::int64_t cols)
{
    Json out = Json::array();
    for (std::int64_t i = 0; i < rows; ++i) {
        Json row = Json::array();
        for (std::int64_t j = 0; j < cols; ++j) {
            const auto k = static_cast<std::size_t>(i * cols + j);
            row.push_back(k < m.size() ? number(shortFloat(m[k])) : Json(nullptr));
        }
        out.push_back(std::move(row));
    }
    return out;
}

Json flagMatrix(const std::vector<std::uint8_t> &m, std::int64_t n)
{
    Json out = Json::array();
    for (std::int64_t i = 0; i < n; ++i) {
        Json row = Json::array();
        for (std::int64_t j = 0; j < n; ++j) {
            const auto k = static_cast<std::size_t>(i * n + j);
            row.push_back(k < m.size() && m[k] ? 1 : 0);
        }
        out.push_back(std::move(row));
    }
    return out;
}

Json leakageBlock(const std::optional<TokenLeakage> &l)
{
    if (!l) return nullptr;
    return Json{{"position", l->position},
                {"original_id", l->originalId},
                {"replacement_id", l->replacementId},
                {"max_diff", numbers(l->maxDiff)},
                {"max_diff_before", number(l->maxDiffBefore)},
                {"max_diff_from_position", number(l->maxDiffFromJ)}};
}

} // namespace

std::string maskEffectsExportJson(const TextModel &m, const MaskEffectsReport &r)
{
    Json doc = header(m, r.tokens, "masks");
    const MaskComparison &c = r.comparison;
    const std::int64_t L = c.length;
    doc["settings"] = Json{{"head", Json{{"layer", r.head.layer}, {"head", r.head.head}}},
                           {"baseline", c.baseline < c.variants.size() ? Json(c.variants[c.baseline].name) : Json(nullptr)},
                           {"backend", backendName(r.backend)},
                           {"dtype", "float32"}};
    Json variants = Json::array();
    for (const HeadUnderMask &v : c.variants)
        variants.push_back(Json{{"name", v.name},
                                {"mask", v.mask.describe()},
                                {"weights", floatMatrix(v.weights, L, L)},
                                {"blocked", flagMatrix(v.blocked, L)},
                                {"output", floatMatrix(v.output, L, c.dHead)},
                                {"weight_diff", floatMatrix(v.weightDiff, L, L)},
                                {"output_delta", numbers(v.outputDelta)},
                                {"max_abs_weight_diff", number(v.maxAbsWeightDiff)},
                                {"max_output_delta", number(v.maxOutputDelta)}});
    doc["variants"] = variants;
    doc["leakage"] = Json{{"causal", leakageBlock(r.leakCausal)},
                          {"bidirectional", leakageBlock(r.leakBidirectional)},
                          {"note", r.leakNote.empty() ? Json(nullptr) : Json(r.leakNote)}};
    if (r.padding) {
        const PaddingResult &p = *r.padding;
        doc["padding"] = Json{{"real_length", p.realLength},
                              {"pad_count", p.padCount},
                              {"pad_id", p.padId},
                              {"max_diff_masked", numbers(p.maxDiffMasked)},
                              {"max_diff_unmasked", numbers(p.maxDiffUnmasked)},
                              {"max_masked", number(p.maxMasked)},
                              {"max_unmasked", number(p.maxUnmasked)},
                              {"tolerance", number(p.invisibleTolerance())},
                              {"masked_is_invisible", p.maskedIsInvisible()}};
    } else {
        doc["padding"] = nullptr;
    }
    doc["padding_note"] = r.paddingNote.empty() ? Json(nullptr) : Json(r.paddingNote);
    doc["provenance"] = provenanceBlock(m, r.backend, 0);
    return doc.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";   // matrices: compact
}

std::string comparisonExportJson(const TextModel &m, const AttentionComparison &c)
{
    Json doc{{"format", "attnscope"}, {"version", 1}, {"kind", "compare"}, {"model", modelBlock(m)}};
    doc["settings"] = Json{{"mode", c.mode}, {"backend", backendName(c.backend)}, {"dtype", "float32"}};
    const auto side = [](const ComparedMatrix &s) {
        return Json{{"label", s.label},
                    {"tokens", s.tokens},
                    {"length", s.length()},
                    {"weights", floatMatrix(s.weights, s.length(), s.length())},
                    {"masked", flagMatrix(s.masked, s.length())}};
    };
    doc["a"] = side(c.a);
    doc["b"] = side(c.b);
    doc["common"] = c.common;
    doc["diff"] = floatMatrix(c.diff, c.common, c.common);
    doc["max_abs_diff"] = number(c.maxAbsDiff);
    doc["note"] = c.note.empty() ? Json(nullptr) : Json(c.note);
    doc["provenance"] = provenanceBlock(m, c.backend, 0);
    return doc.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";   // matrices: compact
}

} // namespace attn
