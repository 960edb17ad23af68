// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/faithfulness/datasetrun.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>
#include <limits>

namespace attnui {

namespace {

double number(const QJsonValue &v)
{
    return v.isDouble() ? v.toDouble() : std::numeric_limits<double>::quiet_NaN();
}

void readDescription(const QJsonObject &o, SummaryStat &s)
{
    s.n = o.value(QLatin1String("n")).toInteger();
    s.missing = o.value(QLatin1String("missing")).toInteger();
    s.mean = number(o.value(QLatin1String("mean")));
    s.median = number(o.value(QLatin1String("median")));
    s.sd = number(o.value(QLatin1String("sd")));
    const QJsonArray ci = o.value(QLatin1String("ci95")).toArray();
    s.ciLo = number(ci.at(0));
    s.ciHi = number(ci.at(1));
}

} // namespace

std::vector<SummaryMetric> parseSummary(const std::string &summaryJson, int *testCount)
{
    std::vector<SummaryMetric> out;
    int tests = 0;
    const QJsonObject doc = QJsonDocument::fromJson(QByteArray::fromStdString(summaryJson)).object();
    for (const QJsonValue &mv : doc.value(QLatin1String("metrics")).toArray()) {
        const QJsonObject m = mv.toObject();
        SummaryMetric metric;
        metric.metric = m.value(QLatin1String("metric")).toString().toStdString();
        metric.group = m.value(QLatin1String("group")).toString().toStdString();
        metric.better = m.value(QLatin1String("better")).toString().toStdString();
        metric.unit = m.value(QLatin1String("unit")).toString().toStdString();
        for (const QJsonValue &v : m.value(QLatin1String("methods")).toArray()) {
            SummaryStat s;
            s.method = v.toObject().value(QLatin1String("method")).toString().toStdString();
            readDescription(v.toObject(), s);
            metric.methods.push_back(s);
        }
        if (m.value(QLatin1String("random")).isObject()) {
            SummaryStat r;
            r.method = "random";
            readDescription(m.value(QLatin1String("random")).toObject(), r);
            metric.random = r;
        }
        for (const QJsonValue &tv : m.value(QLatin1String("tests")).toArray()) {
            const QJsonObject t = tv.toObject();
            const std::string method = t.value(QLatin1String("method")).toString().toStdString();
            for (SummaryStat &s : metric.methods) {
                if (s.method != method) continue;
                s.tested = true;
                s.test = t.value(QLatin1String("test")).toString().toStdString();
                s.pairs = t.value(QLatin1String("pairs")).toInteger();
                s.p = number(t.value(QLatin1String("p")));
                s.pHolm = number(t.value(QLatin1String("p_holm")));
                s.rankBiserial = number(t.value(QLatin1String("rank_biserial")));
                s.meanDifference = number(t.value(QLatin1String("difference")).toObject().value(QLatin1String("mean")));
            }
            tests += std::isfinite(number(t.value(QLatin1String("p")))) ? 1 : 0;
        }
        out.push_back(std::move(metric));
    }
    if (testCount) *testCount = tests;
    return out;
}

const SummaryMetric *DatasetSnapshot::metric(const std::string &name) const
{
    for (const SummaryMetric &m : summary)
        if (m.metric == name) return &m;
    return nullptr;
}

const attn::PreparedExample *DatasetSnapshot::example(std::int64_t index) const
{
    for (const attn::PreparedExample &p : prepared)
        if (p.example->index == index) return &p;
    return nullptr;
}

std::string DatasetSnapshot::resultsJsonl() const
{
    std::string text = header + "\n";
    for (const attn::ExampleRecord &r : records) text += attn::exampleRecordLine(r) + "\n";
    return text;
}

attn::Result<std::shared_ptr<Snapshot>> runDatasetJob(const DatasetRequest &request, const JobContext &ctx)
{
    if (!request.model) return attn::Status::invalid("no model is open");
    const attn::TextModel &model = *request.model;
    auto columns = attn::parseColumnMapping(request.columns.toStdString());
    if (!columns) return attn::Status(columns.status().code(), "columns: " + columns.status().message());
    auto dataset = attn::openDataset(request.datasetSpec.toStdString(), request.modelFolder.toStdString(), *columns);
    if (!dataset) return dataset.status();
    auto snap = std::make_shared<DatasetSnapshot>();
    snap->dataset = std::make_shared<const attn::Dataset>(std::move(dataset.value()));
    snap->model = request.model;
    snap->settings = request.settings;
    snap->backend = attn::backendName(request.settings.backend);
    auto prepared = attn::prepareDataset(model, *snap->dataset, request.settings);
    if (!prepared) return prepared.status();
    snap->prepared = std::move(prepared.value());
    for (const attn::PreparedExample &p : snap->prepared)
        if (request.settings.shard.contains(p.example->index)) ++snap->total;
    if (request.options.limit >= 0) snap->total = std::min(snap->total, request.options.limit);

    const auto progress = ctx.progressFn();
    std::int64_t lastDone = -1;
    const auto onProgress = [&](const attn::DatasetProgress &p) {
        if (progress) progress(p.fraction);
        if (request.onExample && p.done != lastDone) request.onExample(p);
        lastDone = p.done;
    };
    auto run = attn::runDatasetCollecting(model, *snap->dataset, snap->prepared, request.settings, request.options, {},
                                          onProgress, ctx.cancelFn());
    if (!run) return run.status();
    // A run cancelled before its first example has nothing to show.
    if (run->cancelled && run->records.empty()) return attn::Status::cancelled();
    snap->header = std::move(run->header);
    snap->records = std::move(run->records);
    snap->resumed = run->resumed;
    snap->cancelled = run->cancelled;
    auto summary = attn::datasetSummaryJson(snap->header, snap->records, {run->wallSeconds, 1});
    if (!summary) return summary.status();
    snap->summaryJson = std::move(summary.value());
    snap->summary = parseSummary(snap->summaryJson, &snap->testCount);
    return std::shared_ptr<Snapshot>(std::move(snap));
}

} // namespace attnui
