// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Faithfulness workspace's dataset job: a whole evaluation set through the engine's dataset run
// (attn::openDataset, prepareDataset, runDatasetCollecting, datasetSummaryJson — the same calls attnscope-cli
// faithfulness --dataset makes, so the GUI's numbers are the CLI's), on a worker thread through EngineRunner.
// Cancel stops between forward passes; the examples finished by then are the result (summarized as such).

#include "runner/enginerunner.h"
#include "kit/subject.h"

#include <attnscope/dataset.h>

#include <QJsonObject>
#include <QString>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace attnui {

struct DatasetRequest {
    TextModelPtr model;
    QString datasetSpec;               // a file, or "sample" (the model folder's rationales.json)
    QString modelFolder;               // where "sample" is looked for
    QString columns;                   // CSV/TSV column mapping ("text=review,label=sentiment"); may be empty
    attn::DatasetSettings settings;
    attn::DatasetRunOptions options;   // results file, resume, first-N limit
    // Called on the worker thread after each finished example (examples done, of total, ETA in seconds or −1).
    std::function<void(const attn::DatasetProgress &)> onExample;
};

// One metric's line of the summary for one method (or the random baseline).
struct SummaryStat {
    std::string method;
    std::int64_t n = 0, missing = 0;
    double mean = 0, median = 0, sd = 0, ciLo = 0, ciHi = 0;   // NaN where the summary has null
    // The paired test against random (absent for the baseline itself and for metrics without one).
    bool tested = false;
    std::string test;                  // exact | normal | none
    double p = 0, pHolm = 0, rankBiserial = 0, meanDifference = 0;
    std::int64_t pairs = 0;
};
struct SummaryMetric {
    std::string metric, group, better, unit;
    std::vector<SummaryStat> methods;
    std::optional<SummaryStat> random;
};

struct DatasetSnapshot : Snapshot {
    std::shared_ptr<const attn::Dataset> dataset;
    std::vector<attn::PreparedExample> prepared;   // point into *dataset
    TextModelPtr model;
    attn::DatasetSettings settings;
    std::string header;                            // the results header (as in a results file)
    std::vector<attn::ExampleRecord> records;      // sorted by index
    std::int64_t total = 0;                        // examples this run was asked for (shard and limit applied)
    std::size_t resumed = 0;
    bool cancelled = false;
    std::string summaryJson;                       // attn::datasetSummaryJson, as attnscope-cli --summary writes it
    std::vector<SummaryMetric> summary;            // the same, parsed
    int testCount = 0;                             // tests in the Holm family

    const SummaryMetric *metric(const std::string &name) const;
    // The prepared example with this index, or null.
    const attn::PreparedExample *example(std::int64_t index) const;
    // The JSONL results file (header, one line per example) as attnscope-cli writes it.
    std::string resultsJsonl() const;
};

// The summary document parsed into lines (nulls as NaN).
std::vector<SummaryMetric> parseSummary(const std::string &summaryJson, int *testCount = nullptr);

attn::Result<std::shared_ptr<Snapshot>> runDatasetJob(const DatasetRequest &request, const JobContext &ctx);

} // namespace attnui
