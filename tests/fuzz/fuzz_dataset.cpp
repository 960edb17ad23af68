// SPDX-License-Identifier: GPL-3.0-or-later
// Dataset files (dataset.h): byte 0 picks the reader, the rest is the file.
//   0 JSONL   1 CSV   2 TSV   3 rationales.json ("sample")   4 one line of a results file
//   5 CSV whose first line is a column mapping ("text=review,label=y")
// A dataset that parses is prepared against sample:rationale-bert (tokens, targets, rationales as token spans).
#include "fuzz_support.h"

#include <attnscope/dataset.h>
#include <attnscope/textmodel.h>

namespace {

const attn::TextModel &bert()
{
    static const attn::TextModel model = [] {
        auto m = attn::TextModel::open("sample:rationale-bert");
        attnfuzz::fuzzCheck(static_cast<bool>(m), "sample:rationale-bert does not open");
        return std::move(m).value();
    }();
    return model;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    (void)bert();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using attnfuzz::fuzzCheck;
    if (size == 0) return 0;
    std::string_view body(reinterpret_cast<const char *>(data) + 1, size - 1);
    const int kind = data[0] % 6;
    if (kind == 4) {
        auto record = attn::parseExampleRecordLine(body, "results.jsonl:2");
        if (record) (void)attn::exampleRecordLine(*record);
        else fuzzCheck(!record.status().message().empty(), "an error without a message");
        return 0;
    }
    attn::Result<attn::Dataset> dataset = attn::Status::invalid("unset");
    if (kind == 0) dataset = attn::parseJsonlDataset(body, "fuzz.jsonl");
    else if (kind == 1 || kind == 2) dataset = attn::parseDelimitedDataset(body, "fuzz.csv", kind == 1 ? ',' : '\t', {});
    else if (kind == 3) dataset = attn::parseSampleDataset(body, "rationales.json");
    else {
        const std::size_t newline = body.find('\n');
        auto columns = attn::parseColumnMapping(std::string(body.substr(0, newline)));
        if (!columns) return 0;
        dataset = attn::parseDelimitedDataset(newline == std::string_view::npos ? std::string_view() : body.substr(newline + 1),
                                              "fuzz.csv", ',', *columns);
    }
    if (!dataset) {
        fuzzCheck(!dataset.status().message().empty(), "an error without a message");
        return 0;
    }
    for (const attn::DatasetExample &ex : dataset->examples)
        for (const attn::CharSpan &span : ex.rationale) fuzzCheck(0 <= span.begin && span.begin < span.end, "a bad rationale span accepted");
    attn::DatasetSettings settings;
    settings.threads = 1;
    auto prepared = attn::prepareDataset(bert(), *dataset, settings);
    if (!prepared) return 0;
    for (const attn::PreparedExample &p : *prepared)
        fuzzCheck(p.gold.empty() || p.gold.size() == p.tokens.ids.size(), "a gold mask of the wrong length");
    return 0;
}
