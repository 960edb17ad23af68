// SPDX-License-Identifier: GPL-3.0-or-later
// Results files of dataset runs (dataset.h; docs/json-format.md "Dataset runs"): the header line, one line per
// example, reading them back (a cut-off last line is dropped), appending with a flush per line, and merging shards.
#include <attnscope/dataset.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>

namespace attn {

namespace {

using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

Json nullable(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

Json faithfulnessSettingsJson(const DatasetSettings &d)
{
    const FaithfulnessSettings &s = d.faithfulness;
    Json methods = Json::array();
    for (ImportanceKind k : s.methods) methods.push_back(importanceKindName(k));
    return Json{{"methods", methods},
                {"head", s.head ? Json{{"layer", s.head->layer}, {"head", s.head->head}} : Json(nullptr)},
                {"removal", removalOperatorName(s.removal)},
                {"second_removal", s.secondRemoval ? Json(removalOperatorName(*s.secondRemoval)) : Json(nullptr)},
                {"occlusion_baseline", s.occlusionBaseline ? Json(removalOperatorName(*s.occlusionBaseline)) : Json(nullptr)},
                {"eraser_bins", s.eraserBins},
                {"curve_step", s.curveStep},
                {"bhatt_runs", s.bhattRuns},
                {"bhatt_subset_size", s.bhattSubsetSize},
                {"ordering_metrics", s.orderingMetrics},
                {"permutation_test", s.permutationTest},
                {"permutations", s.permutations},
                {"uniform_test", s.uniformTest},
                {"head_ablation", s.headAblation},
                {"random_logit", s.randomLogitCheck},
                {"randomization", randomizationModeName(s.randomization)},
                {"randomization_threshold", s.randomizationThreshold},
                {"random_seeds", s.randomSeeds}};
}

std::string readFile(const std::string &path, bool &ok)
{
    std::ifstream in(path, std::ios::binary);
    ok = static_cast<bool>(in);
    return ok ? std::string(std::istreambuf_iterator<char>(in), {}) : std::string();
}

// The first path where a and b differ, "" when equal.
std::string firstDifference(const Json &a, const Json &b, const std::string &path)
{
    if (a.is_object() && b.is_object()) {
        for (const auto &[k, v] : a.items()) {
            const std::string p = path.empty() ? k : path + "." + k;
            if (!b.contains(k)) return p + ": only in the first";
            if (std::string d = firstDifference(v, b[k], p); !d.empty()) return d;
        }
        for (const auto &[k, v] : b.items())
            if (!a.contains(k)) return (path.empty() ? k : path + "." + k) + ": only in the second";
        return "";
    }
    return a == b ? "" : path + ": " + a.dump() + " vs " + b.dump();
}

Json comparable(const std::string &header, bool ignoreShard)
{
    Json h = Json::parse(header, nullptr, false);
    if (h.is_discarded() || !h.is_object()) return Json();
    if (h.contains("dataset") && h["dataset"].is_object()) h["dataset"].erase("path");
    if (ignoreShard) h.erase("shard");
    h.erase("merged_from");
    return h;
}

} // namespace

std::string datasetResultsHeader(const TextModel &m, const Dataset &d, const DatasetSettings &s)
{
    const ModelConfig &c = m.model().config();
    Json settings{{"target", s.target}, {"backend", backendName(s.backend)}, {"precision_k", s.precisionK},
                  {"plausibility_random_seeds", s.randomSeeds}, {"iou_threshold", stats::kIouThreshold}};
    switch (s.analysis) {
    case DatasetAnalysis::Faithfulness: settings["faithfulness"] = faithfulnessSettingsJson(s); break;
    case DatasetAnalysis::Run:
        settings["mask"] = Json{{"kind", s.mask.kindName()}, {"window", s.mask.window >= 0 ? Json(s.mask.window) : Json(nullptr)}};
        break;
    case DatasetAnalysis::Equivariance:
        settings["equivariance"] = Json{{"permutation", s.equivariance.permutation.kind == PermutationSpec::Kind::Random
                                                            ? Json("random (seed per example)")
                                                            : Json(permutationSpecText(s.equivariance.permutation))},
                                        {"positional", positionalChoiceName(s.equivariance.positional)},
                                        {"mask", s.equivariance.mask.kindName()},
                                        {"window", s.equivariance.mask.window >= 0 ? Json(s.equivariance.mask.window) : Json(nullptr)},
                                        {"scope", equivarianceScopeText(s.equivariance.scope)}};
        break;
    }
    const Json header{{"format", "attnscope-dataset-results"},
                      {"version", 1},
                      {"analysis", datasetAnalysisName(s.analysis)},
                      {"model", Json{{"name", m.displayName()}, {"source", m.spec()}, {"architecture", architectureName(c.architecture)},
                                     {"head", headKindName(c.head)}, {"layers", c.layers}, {"heads", c.heads}, {"d_model", c.dModel},
                                     {"labels", c.head == ModelHead::Classification ? Json(c.labels) : Json(nullptr)}}},
                      {"dataset", Json{{"path", d.path}, {"kind", d.kind}, {"sha256", d.sha256}, {"examples", d.examples.size()}}},
                      {"seed", s.seed},
                      {"settings", settings},
                      {"shard", Json{{"index", s.shard.index}, {"count", s.shard.count}}},
                      {"versions", Json{{"attnscope", s.version}, {"results_format", 1}}}};
    return header.dump();
}

std::string exampleRecordLine(const ExampleRecord &r)
{
    Json metrics = Json::object();
    for (const MetricValue &v : r.metrics) metrics[v.metric][v.method] = nullable(v.value);
    Json line{{"index", r.index},
              {"id", r.idIsNumber ? Json::parse(r.id, nullptr, false) : Json(r.id)},
              {"seed", r.seed},
              {"tokens", r.tokens},
              {"scored_tokens", r.scoredTokens},
              {"label", r.label ? Json(*r.label) : Json(nullptr)},
              {"predicted", r.predicted},
              {"target", r.targetKind.empty() ? Json(nullptr)
                                              : Json{{"kind", r.targetKind}, {"unit", r.targetUnit}, {"index", r.targetIndex},
                                                     {"score", nullable(r.targetScore)}}},
              {"rationale_tokens", r.rationaleTokens},
              {"metrics", metrics},
              {"details", Json::parse(r.detailsJson, nullptr, false)},
              {"seconds", r.seconds},
              {"threads", r.threads}};
    return line.dump();
}

Result<ExampleRecord> parseExampleRecordLine(std::string_view text, const std::string &where)
{
    const Json j = Json::parse(text, nullptr, false);
    const auto bad = [&](const std::string &m) { return Status(ErrorCode::FormatError, where + ": " + m); };
    if (j.is_discarded() || !j.is_object()) return bad("not a JSON object");
    ExampleRecord r;
    const auto integer = [&](const char *k, std::int64_t &out) {
        if (!j.contains(k) || !j[k].is_number_integer()) return false;
        out = j[k].get<std::int64_t>();
        return true;
    };
    if (!integer("index", r.index) || r.index < 0) return bad("'index': missing or not an integer >= 0");
    if (!j.contains("id") || !(j["id"].is_string() || j["id"].is_number_integer())) return bad("'id': missing");
    r.idIsNumber = !j["id"].is_string();
    r.id = r.idIsNumber ? j["id"].dump() : j["id"].get<std::string>();
    if (!j.contains("seed") || !j["seed"].is_number_unsigned()) return bad("'seed': missing");
    r.seed = j["seed"].get<std::uint64_t>();
    integer("tokens", r.tokens);
    integer("scored_tokens", r.scoredTokens);
    integer("predicted", r.predicted);
    if (j.contains("label") && j["label"].is_number_integer()) r.label = j["label"].get<std::int64_t>();
    if (j.contains("target") && j["target"].is_object()) {
        const Json &t = j["target"];
        r.targetKind = t.value("kind", "");
        r.targetUnit = t.value("unit", "");
        r.targetIndex = t.value("index", std::int64_t{-1});
        r.targetScore = t.contains("score") && t["score"].is_number() ? t["score"].get<double>() : std::numeric_limits<double>::quiet_NaN();
    }
    if (j.contains("rationale_tokens") && j["rationale_tokens"].is_array())
        for (const Json &v : j["rationale_tokens"]) r.rationaleTokens.push_back(v.get<std::int64_t>());
    if (!j.contains("metrics") || !j["metrics"].is_object()) return bad("'metrics': missing");
    for (const auto &[metric, methods] : j["metrics"].items()) {
        if (!methods.is_object()) return bad("'metrics'." + metric + ": not an object");
        for (const auto &[method, v] : methods.items()) {
            if (!v.is_null() && !v.is_number()) return bad("'metrics'." + metric + "." + method + ": not a number or null");
            r.metrics.push_back({metric, method, v.is_null() ? std::numeric_limits<double>::quiet_NaN() : v.get<double>()});
        }
    }
    r.detailsJson = j.contains("details") ? j["details"].dump() : "{}";
    r.seconds = j.contains("seconds") && j["seconds"].is_number() ? j["seconds"].get<double>() : 0.0;
    r.threads = j.contains("threads") && j["threads"].is_number_integer() ? j["threads"].get<int>() : 0;
    return r;
}

Result<ResultsFile> readResultsFile(const std::string &path)
{
    bool ok = false;
    const std::string bytes = readFile(path, ok);
    if (!ok) return Status(ErrorCode::IoError, path + ": cannot be read");
    ResultsFile f;
    f.path = path;
    std::size_t pos = 0;
    std::int64_t line = 0;
    std::map<std::int64_t, std::int64_t> seen;   // index → line
    while (pos < bytes.size()) {
        const std::size_t nl = bytes.find('\n', pos);
        ++line;
        if (nl == std::string::npos) {   // the run stopped while writing this line
            f.droppedPartialLine = true;
            break;
        }
        const std::string_view text(bytes.data() + pos, nl - pos);
        const std::string where = path + ":" + std::to_string(line);
        if (line == 1) {
            const Json h = Json::parse(text, nullptr, false);
            if (h.is_discarded() || !h.is_object() || h.value("format", "") != "attnscope-dataset-results")
                return Status(ErrorCode::FormatError, where + ": not the header of an attnscope-dataset-results file");
            if (h.value("version", 0) != 1) return Status(ErrorCode::FormatError, where + ": results format version " + h["version"].dump() + " (this program reads 1)");
            f.header = std::string(text);
        } else {
            auto r = parseExampleRecordLine(text, where);
            if (!r) return r.status();
            if (const auto [it, inserted] = seen.emplace(r->index, line); !inserted)
                return Status(ErrorCode::FormatError, where + ": example " + std::to_string(r->index) + " is already on line " + std::to_string(it->second));
            f.records.push_back(std::move(r).value());
        }
        pos = nl + 1;
        f.completeBytes = pos;
    }
    if (f.header.empty()) return Status(ErrorCode::FormatError, path + ": no complete header line");
    return f;
}

std::string compareResultsHeaders(const std::string &a, const std::string &b, bool ignoreShard)
{
    const Json ja = comparable(a, ignoreShard), jb = comparable(b, ignoreShard);
    if (ja.is_null() || jb.is_null()) return "a header is not JSON";
    return firstDifference(ja, jb, "");
}

Result<ResultsWriter> ResultsWriter::open(const std::string &path, const std::string &header, bool resume,
                                          std::vector<ExampleRecord> *done)
{
    std::error_code ec;
    const bool exists = fs::exists(path, ec);
    if (exists && !resume)
        return Status::invalid(path + " exists; continue it with --resume, or write to another --out");
    if (exists && fs::file_size(path, ec) > 0) {
        auto old = readResultsFile(path);
        if (!old) return Status(old.status().code(), old.status().message() + " (cannot resume it)");
        if (const std::string diff = compareResultsHeaders(old->header, header, false); !diff.empty())
            return Status::invalid(path + ": made with other settings, so --resume would mix two runs (" + diff + ")");
        if (old->droppedPartialLine) {
            fs::resize_file(path, old->completeBytes, ec);
            if (ec) return Status(ErrorCode::IoError, path + ": cannot drop the cut-off last line (" + ec.message() + ")");
        }
        if (done) *done = std::move(old->records);
        std::FILE *f = std::fopen(path.c_str(), "ab");
        if (!f) return Status(ErrorCode::IoError, path + ": cannot be opened for appending");
        return ResultsWriter(path, f);
    }
    std::FILE *f = std::fopen(path.c_str(), "wb");
    if (!f) return Status(ErrorCode::IoError, path + ": cannot be created");
    const std::string line = header + "\n";
    if (std::fwrite(line.data(), 1, line.size(), f) != line.size() || std::fflush(f) != 0) {
        std::fclose(f);
        return Status(ErrorCode::IoError, path + ": write error");
    }
    return ResultsWriter(path, f);
}

Status ResultsWriter::append(const ExampleRecord &record)
{
    const std::string line = exampleRecordLine(record) + "\n";
    if (std::fwrite(line.data(), 1, line.size(), m_file) != line.size() || std::fflush(m_file) != 0)
        return Status(ErrorCode::IoError, m_path + ": write error");
    return Status::ok();
}

ResultsWriter::ResultsWriter(ResultsWriter &&o) noexcept : m_path(std::move(o.m_path)), m_file(o.m_file) { o.m_file = nullptr; }

ResultsWriter::~ResultsWriter()
{
    if (m_file) std::fclose(m_file);
}

Result<MergedResults> mergeResultsFiles(const std::vector<std::string> &paths)
{
    if (paths.empty()) return Status::invalid("merge: no results files given");
    MergedResults m;
    std::map<std::int64_t, std::string> owner;   // index → file
    std::int64_t examples = -1;
    for (const std::string &path : paths) {
        auto f = readResultsFile(path);
        if (!f) return f.status();
        if (m.header.empty()) {
            m.header = f->header;
            const Json h = Json::parse(f->header);
            examples = h["dataset"].value("examples", std::int64_t{-1});
        } else if (const std::string diff = compareResultsHeaders(m.header, f->header, true); !diff.empty()) {
            return Status::invalid(path + " is not a shard of the same run as " + paths.front() + " (" + diff + ")");
        }
        for (ExampleRecord &r : f->records) {
            if (const auto [it, inserted] = owner.emplace(r.index, path); !inserted)
                return Status::invalid("example " + std::to_string(r.index) + " (id " + r.id + ") is in both " + it->second + " and " + path +
                                       " (overlapping shards)");
            m.records.push_back(std::move(r));
        }
    }
    std::vector<std::int64_t> missing;
    for (std::int64_t k = 0; k < examples; ++k)
        if (!owner.count(k)) missing.push_back(k);
    if (!missing.empty()) {
        std::string list;
        for (std::size_t i = 0; i < std::min<std::size_t>(missing.size(), 10); ++i) list += (i ? ", " : "") + std::to_string(missing[i]);
        return Status::invalid("merge: " + std::to_string(missing.size()) + " of " + std::to_string(examples) +
                               " examples are in none of the files (indices " + list + (missing.size() > 10 ? ", ..." : "") +
                               "); run the missing shards (or --resume the interrupted ones) first");
    }
    std::sort(m.records.begin(), m.records.end(), [](const ExampleRecord &a, const ExampleRecord &b) { return a.index < b.index; });
    Json h = Json::parse(m.header);
    h["shard"] = Json{{"index", 0}, {"count", 1}};
    h["merged_from"] = paths;
    m.header = h.dump();
    return m;
}

} // namespace attn
