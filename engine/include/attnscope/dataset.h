// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Dataset-scale analyses (issue 17; docs/datasets.md, docs/json-format.md "Dataset runs").
//
//   openDataset      a JSONL file, CSV/TSV with a column mapping, or "sample" (a model folder's rationales.json)
//                    → checked examples; every bad line is reported with the file, the line and the field
//   prepareDataset   the examples against a model: tokens, the target, the gold rationale as token positions
//   runDataset       one analysis per example (faithfulness, run, equivariance), in index order, each with its own
//                    seed deriveSeed(settings.seed, index), handing each finished example to a sink; progress with
//                    an ETA and cancel between (and inside) examples — what a GUI runs in the background
//   results files    JSONL: a header line, then one line per example as it finishes (dataset_io.cpp);
//                    --resume, shards and merge read them back; the summary is computed from the records sorted
//                    by index, so one process, a resumed run and merged shards give the same summary
//
// Numbering: examples, token positions and shards count from 0; messages name lines as file:LINE with LINE
// counted from 1 (as editors and grep -n do). An example's default id is its 0-based line number.
// Results never depend on threads, batching or sharding: an example's numbers depend only on the model, the
// settings, the run seed and its index.

#include <attnscope/equivariance.h>
#include <attnscope/export.h>
#include <attnscope/faithfulness.h>
#include <attnscope/stats.h>
#include <attnscope/status.h>
#include <attnscope/textmodel.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace attn {

// Limits on what a dataset file may hold (larger input is refused with a message, never truncated).
constexpr std::uint64_t kMaxDatasetFileBytes = 1ull << 30;      // 1 GiB
constexpr std::size_t kMaxDatasetLineBytes = 1u << 20;          // 1 MiB per line (CSV: per record)
constexpr std::size_t kMaxDatasetExamples = 1000000;
constexpr std::size_t kMaxRationaleSpans = 4096;                // per example (spans or token indices)
constexpr std::size_t kMaxIdBytes = 256;

// SHA-256 (FIPS 180-4) as 64 lower-case hex digits.
std::string sha256Hex(std::string_view bytes);
Result<std::string> sha256File(const std::string &path);

struct CharSpan {
    std::int64_t begin = 0, end = 0;   // half-open [begin, end) in Unicode code points of `text`
};

struct DatasetExample {
    std::int64_t index = 0;            // 0-based position among the examples (shard i/N takes index mod N = i)
    std::int64_t line = 0;             // 1-based line of the file where it starts (for messages)
    std::string id;                    // as text; default: the 0-based line number
    bool idIsNumber = true;            // written back as a JSON number (else a string)
    std::string text;
    std::optional<std::string> textPair;
    std::optional<std::int64_t> labelIndex;   // `label` given as an index ...
    std::optional<std::string> labelName;     // ... or as a class name
    std::optional<std::string> target;        // a per-example --target: predicted | gold | class:N | position:P
    std::optional<std::string> targetText;    // seq2seq target (refused by prepareDataset: no encoder-decoder yet)
    std::vector<CharSpan> rationale;          // gold evidence as code-point spans of `text`
    std::optional<std::vector<std::int64_t>> rationaleTokens;   // ... or as token positions (special tokens counted)
    std::vector<std::int64_t> expectedTokenIds;   // "sample": the ids rationales.json recorded; checked when prepared
};

struct Dataset {
    std::string path;                  // the file read
    std::string kind;                  // "jsonl", "csv", "tsv", "sample"
    std::string sha256;                // of the file's bytes
    std::vector<DatasetExample> examples;
    std::vector<std::string> labelNames;   // "sample": rationales.json label_names; else empty (the model's labels)
};

// CSV/TSV columns: "field=column,field=column" with fields text, text_pair, label, target, target_text, id,
// rationale ("B:E B:E", code points), rationale_tokens ("3 4 9"). Unmapped fields are read from a column of the
// field's own name when there is one.
using ColumnMapping = std::map<std::string, std::string>;
Result<ColumnMapping> parseColumnMapping(const std::string &text);

// `name` is used in messages ("data.jsonl:7: 'rationale'[1]: ..."). Errors of every line are collected (up to 20
// messages, then a count) into one InvalidArgument status.
Result<Dataset> parseJsonlDataset(std::string_view bytes, const std::string &name);
Result<Dataset> parseDelimitedDataset(std::string_view bytes, const std::string &name, char separator,
                                      const ColumnMapping &columns);
Result<Dataset> parseSampleDataset(std::string_view bytes, const std::string &name);   // rationales.json
// "sample" → <modelFolder>/rationales.json; a name ending in .csv or .tsv → delimited; anything else → JSONL.
Result<Dataset> openDataset(const std::string &spec, const std::string &modelFolder, const ColumnMapping &columns = {});

// ---- running ----

enum class DatasetAnalysis { Faithfulness, Run, Equivariance };
std::string datasetAnalysisName(DatasetAnalysis a);   // "faithfulness", "run", "equivariance"

struct Shard {
    std::int64_t index = 0, count = 1;
    bool contains(std::int64_t k) const { return k % count == index; }
};
Result<Shard> parseShard(const std::string &text);   // "i/N", 0 ≤ i < N

struct DatasetSettings {
    DatasetAnalysis analysis = DatasetAnalysis::Faithfulness;
    std::uint64_t seed = 42;                  // run seed; example k runs with deriveSeed(seed, k)
    std::string target = "predicted";         // default target; an example's `target` overrides it
    FaithfulnessSettings faithfulness;        // its seed is replaced per example; threads = `threads`
    EquivarianceSettings equivariance;        // permutation: random:deriveSeed(seed, k) unless explicit
    MaskChoice mask;                          // run: the mask of the forward pass
    Backend backend = Backend::Auto;
    int threads = 0;                          // inside an example, as the single-text analyses
    int precisionK = 1;                       // plausibility precision@k
    int randomSeeds = 5;                      // random baselines of plausibility (run: of rollout plausibility)
    Shard shard;
    std::string version;                      // the program's version, recorded in the results header
};

// An example ready to run.
struct PreparedExample {
    const DatasetExample *example = nullptr;
    TokenizedText tokens;
    std::optional<std::int64_t> goldClass;    // the label as a class index (classifiers)
    std::optional<std::int64_t> targetClass, targetPosition;   // the resolved target
    bool hasRationale = false;
    std::vector<std::uint8_t> gold;           // [L] 1 for rationale tokens
    std::vector<stats::Span> goldSpans;       // the rationale as token spans (one per character span)
};
// Checks every example against the model; all problems in one message (file:line: field: what).
Result<std::vector<PreparedExample>> prepareDataset(const TextModel &model, const Dataset &dataset,
                                                    const DatasetSettings &settings);

// One example's result: every scalar the summary uses, and a few per-example details.
struct MetricValue {
    std::string metric;     // "aopc_comprehensiveness", "token_f1", "entropy", ...
    std::string method;     // "rollout", "random", "L0 H3", "model"
    double value = 0.0;     // NaN: undefined for this example (written as null)
};
struct ExampleRecord {
    std::int64_t index = 0;
    std::string id;
    bool idIsNumber = true;
    std::uint64_t seed = 0;
    std::int64_t tokens = 0, scoredTokens = 0;
    std::optional<std::int64_t> label;        // gold class index
    std::int64_t predicted = -1;              // predicted class / next token
    std::string targetKind, targetUnit;
    std::int64_t targetIndex = -1;
    double targetScore = 0.0;
    std::vector<std::int64_t> rationaleTokens;
    std::vector<MetricValue> metrics;         // in a fixed order per analysis
    std::string detailsJson = "{}";           // analysis-specific details (importance vectors, ...), a JSON object
    double seconds = 0.0;                     // wall time of the example (timing only)
    int threads = 0;
};

struct DatasetProgress {
    std::int64_t done = 0, total = 0;         // examples of this run (skipped ones not counted)
    double fraction = 0.0;                    // done + the current example's progress, over total
    double elapsedSeconds = 0.0;
    double etaSeconds = -1.0;                 // −1 until an example has finished
};
using DatasetProgressFn = std::function<void(const DatasetProgress &)>;
// Called with each finished example, in index order; a failing status stops the run with it.
using ExampleSink = std::function<Status(const ExampleRecord &)>;

// Runs the prepared examples of settings.shard whose index is not in `skip` (already done: --resume).
Status runDataset(const TextModel &model, const std::vector<PreparedExample> &examples, const DatasetSettings &settings,
                  const std::set<std::int64_t> &skip, const ExampleSink &sink, const DatasetProgressFn &progress = {},
                  const CancelFn &cancel = {});

// ---- results files (JSONL) and the summary ----

// The header line (no newline) of a results file for these settings.
std::string datasetResultsHeader(const TextModel &model, const Dataset &dataset, const DatasetSettings &settings);
std::string exampleRecordLine(const ExampleRecord &record);   // one line, no newline
Result<ExampleRecord> parseExampleRecordLine(std::string_view line, const std::string &where);

struct ResultsFile {
    std::string path;
    std::string header;                       // the header line as written
    std::vector<ExampleRecord> records;       // in file order
    std::uint64_t completeBytes = 0;          // bytes up to the end of the last complete line
    bool droppedPartialLine = false;          // a last line without its newline (a run stopped while writing)
};
// Reads a results file. A last line that was cut off is dropped (droppedPartialLine); any other bad line is an
// error naming it.
Result<ResultsFile> readResultsFile(const std::string &path);
// Why two headers differ (the first differing field, e.g. "settings.faithfulness.permutations: 100 vs 20"), or
// empty when they agree; `ignoreShard` for merging. Paths are not compared (the dataset's SHA-256 is).
std::string compareResultsHeaders(const std::string &a, const std::string &b, bool ignoreShard);

// Appends lines to a results file, flushing each, so a crash or Ctrl-C loses at most the line being written.
class ResultsWriter {
public:
    // resume = false: `path` must not exist (an existing file is an error that suggests --resume).
    // resume = true: an existing file must carry the same header; a cut-off last line is removed; `done`
    // receives the indices already there. A missing file starts a new run.
    static Result<ResultsWriter> open(const std::string &path, const std::string &header, bool resume,
                                      std::vector<ExampleRecord> *done);
    Status append(const ExampleRecord &record);
    ResultsWriter(ResultsWriter &&other) noexcept;
    ResultsWriter &operator=(ResultsWriter &&) = delete;
    ~ResultsWriter();

private:
    ResultsWriter(std::string path, std::FILE *file) : m_path(std::move(path)), m_file(file) {}
    std::string m_path;
    std::FILE *m_file = nullptr;
};

struct MergedResults {
    std::string header;                       // the shards' header with shard {index 0, count 1, merged N files}
    std::vector<ExampleRecord> records;       // sorted by index
};
// Checks that the files are shards of one run (same header apart from the shard), that no example is in two of
// them and none is missing (both named by id and index), and returns the records sorted by index.
Result<MergedResults> mergeResultsFiles(const std::vector<std::string> &paths);

struct DatasetTiming {
    double wallSeconds = -1.0;                // this process's wall time (−1: not known, e.g. after a merge)
    int files = 1;
};
// The summary document (docs/json-format.md, docs/schema/dataset-summary.schema.json) of `records` (any order;
// sorted by index first) under `header`. Everything outside "timing" depends only on the header and the records.
Result<std::string> datasetSummaryJson(const std::string &header, std::vector<ExampleRecord> records,
                                       const DatasetTiming &timing);

} // namespace attn
