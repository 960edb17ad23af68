// SPDX-License-Identifier: GPL-3.0-or-later
// Dataset files (dataset.h): JSONL, CSV/TSV with a column mapping, and a model folder's rationales.json. Every line
// is checked field by field; CSV rows are turned into the same JSON objects a JSONL line holds, so both go through
// one checker.
#include <attnscope/dataset.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace attn {

namespace {

using Json = nlohmann::json;
namespace fs = std::filesystem;

constexpr int kMaxReportedErrors = 20;

// Collects "where: message" lines; the status lists the first kMaxReportedErrors and counts the rest.
struct Problems {
    std::vector<std::string> lines;
    std::size_t count = 0;
    void add(const std::string &where, const std::string &message)
    {
        ++count;
        if (lines.size() < kMaxReportedErrors) lines.push_back(where + ": " + message);
    }
    Status status(const std::string &name) const
    {
        std::string m = name + ": " + std::to_string(count) + (count == 1 ? " problem" : " problems");
        for (const std::string &l : lines) m += "\n  " + l;
        if (count > lines.size()) m += "\n  ... and " + std::to_string(count - lines.size()) + " more";
        return Status(ErrorCode::FormatError, m);
    }
};

std::int64_t codePoints(const std::string &s)
{
    std::int64_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
}

// An integer in [0, 2^63): nlohmann holds larger ones as unsigned, which would wrap in an int64.
bool isNonNegativeInteger(const Json &v)
{
    if (v.is_number_unsigned()) return v.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX);
    return v.is_number_integer() && v.get<std::int64_t>() >= 0;
}

// Checks one example object; problems go to `p` under `where`. Unknown fields are ignored (room for metadata).
std::optional<DatasetExample> readExample(const Json &o, const std::string &where, Problems &p)
{
    if (!o.is_object()) {
        p.add(where, "not a JSON object (one example per line: {\"text\": ...})");
        return std::nullopt;
    }
    const std::size_t before = p.count;
    DatasetExample ex;
    const auto str = [&](const char *key, std::optional<std::string> &out) {
        const auto it = o.find(key);
        if (it == o.end() || it->is_null()) return;
        if (!it->is_string()) { p.add(where, std::string("'") + key + "': not a string"); return; }
        out = it->get<std::string>();
    };
    std::optional<std::string> text;
    str("text", text);
    if (!o.contains("text") || o["text"].is_null()) p.add(where, "'text': missing (every example needs its text)");
    else if (text && text->empty()) p.add(where, "'text': empty");
    if (text) ex.text = *text;
    str("text_pair", ex.textPair);
    str("target", ex.target);
    str("target_text", ex.targetText);
    if (const auto it = o.find("label"); it != o.end() && !it->is_null()) {
        if (isNonNegativeInteger(*it)) ex.labelIndex = it->get<std::int64_t>();
        else if (it->is_string() && !it->get<std::string>().empty()) ex.labelName = it->get<std::string>();
        else p.add(where, "'label': neither a class index (an integer >= 0) nor a class name");
    }
    if (const auto it = o.find("id"); it != o.end() && !it->is_null()) {
        if (it->is_number_integer()) {
            ex.id = it->dump();
        } else if (it->is_string() && !it->get<std::string>().empty() && it->get<std::string>().size() <= kMaxIdBytes) {
            ex.id = it->get<std::string>();
            ex.idIsNumber = false;
        } else {
            p.add(where, "'id': neither an integer nor a non-empty string of at most " + std::to_string(kMaxIdBytes) + " bytes");
        }
    }
    const bool spans = o.contains("rationale") && !o["rationale"].is_null();
    const bool tokens = o.contains("rationale_tokens") && !o["rationale_tokens"].is_null();
    if (spans && tokens) p.add(where, "'rationale' and 'rationale_tokens': give one of them");
    if (spans) {
        const Json &r = o["rationale"];
        const std::int64_t length = codePoints(ex.text);
        if (!r.is_array()) p.add(where, "'rationale': not an array of [start, end] code-point spans");
        else if (r.size() > kMaxRationaleSpans) p.add(where, "'rationale': more than " + std::to_string(kMaxRationaleSpans) + " spans");
        else
            for (std::size_t i = 0; i < r.size(); ++i) {
                const std::string field = "'rationale'[" + std::to_string(i) + "]";
                const Json &s = r[i];
                if (!s.is_array() || s.size() != 2 || !isNonNegativeInteger(s[0]) || !isNonNegativeInteger(s[1])) {
                    p.add(where, field + ": not a [start, end] pair of integers >= 0");
                    continue;
                }
                const CharSpan span{s[0].get<std::int64_t>(), s[1].get<std::int64_t>()};
                if (span.begin >= span.end) p.add(where, field + ": start " + std::to_string(span.begin) + " is not before end " + std::to_string(span.end));
                else if (span.end > length)
                    p.add(where, field + ": end " + std::to_string(span.end) + " is past the text's " + std::to_string(length) + " code points");
                else ex.rationale.push_back(span);
            }
    }
    if (tokens) {
        const Json &r = o["rationale_tokens"];
        if (!r.is_array()) p.add(where, "'rationale_tokens': not an array of token positions");
        else if (r.size() > kMaxRationaleSpans) p.add(where, "'rationale_tokens': more than " + std::to_string(kMaxRationaleSpans) + " positions");
        else {
            std::vector<std::int64_t> v;
            for (std::size_t i = 0; i < r.size(); ++i) {
                if (!isNonNegativeInteger(r[i])) { p.add(where, "'rationale_tokens'[" + std::to_string(i) + "]: not an integer >= 0"); continue; }
                const std::int64_t t = r[i].get<std::int64_t>();
                if (std::find(v.begin(), v.end(), t) != v.end()) p.add(where, "'rationale_tokens'[" + std::to_string(i) + "]: " + std::to_string(t) + " is listed twice");
                v.push_back(t);
            }
            ex.rationaleTokens = v;
        }
    }
    if (p.count != before) return std::nullopt;
    return ex;
}

// Numbers the examples, gives default ids (the 0-based line number) and rejects duplicate ids.
void finish(Dataset &d, Problems &p, const std::string &name)
{
    std::map<std::string, std::int64_t> seen;
    for (std::size_t i = 0; i < d.examples.size(); ++i) {
        DatasetExample &ex = d.examples[i];
        ex.index = static_cast<std::int64_t>(i);
        if (ex.id.empty()) ex.id = std::to_string(ex.line > 0 ? ex.line - 1 : ex.index);
        const auto [it, inserted] = seen.emplace(ex.id, ex.line);
        if (!inserted)
            p.add(name + ":" + std::to_string(ex.line), "'id': " + ex.id + " is also the id of line " + std::to_string(it->second) +
                                                            " (ids must be unique; the default id is the 0-based line number)");
    }
    if (d.examples.empty() && p.count == 0) p.add(name, "no examples");
}

Result<std::string> readWholeFile(const std::string &path)
{
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (ec) return Status(ErrorCode::IoError, path + ": cannot be read (" + ec.message() + ")");
    if (size > kMaxDatasetFileBytes)
        return Status::invalid(path + ": " + std::to_string(size) + " bytes; datasets are limited to " +
                               std::to_string(kMaxDatasetFileBytes) + " bytes (split it into several runs)");
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status(ErrorCode::IoError, path + ": cannot be opened");
    std::string bytes(static_cast<std::size_t>(size), '\0');
    in.read(bytes.data(), static_cast<std::streamsize>(size));
    if (static_cast<std::uint64_t>(in.gcount()) != size) return Status(ErrorCode::IoError, path + ": read error");
    return bytes;
}

// RFC 4180 records: separator-delimited fields, "quoted" fields with "" for a quote, CRLF or LF line ends.
struct Record {
    std::vector<std::string> fields;
    std::int64_t line = 0;
};
Result<std::vector<Record>> splitDelimited(std::string_view bytes, char sep, const std::string &name)
{
    std::vector<Record> records;
    Record cur{{}, 1};
    std::string field;
    bool quoted = false, fieldStarted = false;
    std::int64_t line = 1;
    std::size_t recordStart = 0;
    const auto endField = [&] { cur.fields.push_back(std::move(field)); field.clear(); fieldStarted = false; };
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        const char c = bytes[i];
        if (i - recordStart > kMaxDatasetLineBytes)
            return Status(ErrorCode::FormatError, name + ":" + std::to_string(cur.line) + ": the record is longer than " +
                                                      std::to_string(kMaxDatasetLineBytes) + " bytes");
        if (quoted) {
            if (c == '"' && i + 1 < bytes.size() && bytes[i + 1] == '"') field += '"', ++i;
            else if (c == '"') quoted = false;
            else {
                if (c == '\n') ++line;
                field += c;
            }
            continue;
        }
        if (c == '"' && !fieldStarted && field.empty()) { quoted = true; fieldStarted = true; continue; }
        if (c == sep) { endField(); continue; }
        if (c == '\r' && i + 1 < bytes.size() && bytes[i + 1] == '\n') continue;
        if (c == '\n') {
            endField();
            if (!(cur.fields.size() == 1 && cur.fields[0].empty())) records.push_back(std::move(cur));
            ++line;
            cur = Record{{}, line};
            recordStart = i + 1;
            continue;
        }
        field += c;
        fieldStarted = true;
    }
    if (quoted) return Status(ErrorCode::FormatError, name + ":" + std::to_string(cur.line) + ": a quoted field is not closed");
    if (fieldStarted || !field.empty() || !cur.fields.empty()) {
        endField();
        records.push_back(std::move(cur));
    }
    return records;
}

bool parseInt(std::string_view s, std::int64_t &v)
{
    if (s.empty()) return false;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && end == s.data() + s.size();
}

std::vector<std::string> words(const std::string &s)
{
    std::istringstream in(s);
    std::vector<std::string> w;
    for (std::string t; in >> t;) w.push_back(t);
    return w;
}

const char *const kFields[] = {"text", "text_pair", "label", "target", "target_text", "id", "rationale", "rationale_tokens"};

} // namespace

Result<ColumnMapping> parseColumnMapping(const std::string &text)
{
    ColumnMapping m;
    if (text.empty()) return m;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        const std::string item = text.substr(start, comma - start);
        const std::size_t eq = item.find('=');
        const std::string field = item.substr(0, eq);
        if (eq == std::string::npos || eq + 1 == item.size() ||
            std::find(std::begin(kFields), std::end(kFields), field) == std::end(kFields))
            return Status::invalid("'" + item + "' is not FIELD=COLUMN with FIELD one of text, text_pair, label, target, "
                                   "target_text, id, rationale, rationale_tokens");
        m[field] = item.substr(eq + 1);
        start = comma + 1;
    }
    return m;
}

Result<Dataset> parseJsonlDataset(std::string_view bytes, const std::string &name)
{
    Dataset d;
    d.path = name;
    d.kind = "jsonl";
    d.sha256 = sha256Hex(bytes);
    Problems p;
    std::size_t pos = 0;
    std::int64_t line = 0;
    while (pos < bytes.size()) {
        const std::size_t nl = std::min(bytes.find('\n', pos), bytes.size());
        std::string_view text = bytes.substr(pos, nl - pos);
        pos = nl + 1;
        ++line;
        if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
        if (text.find_first_not_of(" \t") == std::string_view::npos) continue;   // blank lines carry no example
        const std::string where = name + ":" + std::to_string(line);
        if (text.size() > kMaxDatasetLineBytes) {
            p.add(where, "the line is longer than " + std::to_string(kMaxDatasetLineBytes) + " bytes");
            continue;
        }
        if (d.examples.size() >= kMaxDatasetExamples) {
            p.add(where, "more than " + std::to_string(kMaxDatasetExamples) + " examples");
            break;
        }
        Json o;
        try {
            o = Json::parse(text);
        } catch (const Json::exception &e) {
            std::string what = e.what();
            if (const std::size_t k = what.find("] "); k != std::string::npos) what = what.substr(k + 2);
            p.add(where, "not valid JSON (" + what + ")");
            continue;
        }
        auto ex = readExample(o, where, p);
        if (!ex) continue;
        ex->line = line;
        d.examples.push_back(std::move(*ex));
    }
    finish(d, p, name);
    if (p.count) return p.status(name);
    return d;
}

Result<Dataset> parseDelimitedDataset(std::string_view bytes, const std::string &name, char separator,
                                      const ColumnMapping &columns)
{
    auto records = splitDelimited(bytes, separator, name);
    if (!records) return records.status();
    if (records->empty()) return Status(ErrorCode::FormatError, name + ": empty (the first row names the columns)");
    const Record &head = records->front();
    std::map<std::string, std::size_t> columnIndex;
    for (std::size_t i = 0; i < head.fields.size(); ++i) columnIndex.emplace(head.fields[i], i);
    std::map<std::string, std::size_t> fieldColumn;
    for (const char *f : kFields) {
        const auto mapped = columns.find(f);
        const std::string column = mapped != columns.end() ? mapped->second : f;
        const auto it = columnIndex.find(column);
        if (it != columnIndex.end()) fieldColumn[f] = it->second;
        else if (mapped != columns.end())
            return Status::invalid(name + ": --columns maps " + f + " to a column '" + column + "' that the header row lacks");
    }
    if (!fieldColumn.count("text"))
        return Status::invalid(name + ": no 'text' column; name it in the header or map it (--columns text=COLUMN)");
    Dataset d;
    d.path = name;
    d.kind = separator == '\t' ? "tsv" : "csv";
    d.sha256 = sha256Hex(bytes);
    Problems p;
    for (std::size_t r = 1; r < records->size(); ++r) {
        const Record &rec = (*records)[r];
        const std::string where = name + ":" + std::to_string(rec.line);
        if (rec.fields.size() != head.fields.size()) {
            p.add(where, std::to_string(rec.fields.size()) + " fields, the header has " + std::to_string(head.fields.size()));
            continue;
        }
        Json o = Json::object();
        bool ok = true;
        for (const auto &[field, col] : fieldColumn) {
            const std::string &cell = rec.fields[col];
            if (cell.empty() && field != "text") continue;
            std::int64_t v = 0;
            if ((field == "label" || field == "id") && parseInt(cell, v) && v >= 0) o[field] = v;
            else if (field == "rationale_tokens") {
                Json a = Json::array();
                for (const std::string &w : words(cell)) {
                    if (!parseInt(w, v)) { p.add(where, "'rationale_tokens': '" + w + "' is not a token position"); ok = false; break; }
                    a.push_back(v);
                }
                o[field] = a;
            } else if (field == "rationale") {
                Json a = Json::array();
                for (const std::string &w : words(cell)) {
                    const std::size_t colon = w.find(':');
                    std::int64_t b = 0, e = 0;
                    if (colon == std::string::npos || !parseInt(std::string_view(w).substr(0, colon), b) ||
                        !parseInt(std::string_view(w).substr(colon + 1), e)) {
                        p.add(where, "'rationale': '" + w + "' is not START:END (code points)");
                        ok = false;
                        break;
                    }
                    a.push_back(Json::array({b, e}));
                }
                o[field] = a;
            } else o[field] = cell;
        }
        if (!ok) continue;
        auto ex = readExample(o, where, p);
        if (!ex) continue;
        ex->line = rec.line;
        d.examples.push_back(std::move(*ex));
        if (d.examples.size() > kMaxDatasetExamples) { p.add(where, "more than " + std::to_string(kMaxDatasetExamples) + " examples"); break; }
    }
    finish(d, p, name);
    if (p.count) return p.status(name);
    return d;
}

Result<Dataset> parseSampleDataset(std::string_view bytes, const std::string &name)
{
    Json doc;
    try {
        doc = Json::parse(bytes);
    } catch (const Json::exception &e) {
        return Status(ErrorCode::FormatError, name + ": not valid JSON (" + std::string(e.what()) + ")");
    }
    if (!doc.is_object() || doc.value("format", "") != "attnscope-rationales" || !doc.contains("examples") || !doc["examples"].is_array())
        return Status(ErrorCode::FormatError, name + ": not an attnscope-rationales file (format, examples)");
    Dataset d;
    d.path = name;
    d.kind = "sample";
    d.sha256 = sha256Hex(bytes);
    if (doc.contains("label_names") && doc["label_names"].is_array())
        for (const Json &l : doc["label_names"]) d.labelNames.push_back(l.is_string() ? l.get<std::string>() : std::string());
    Problems p;
    const Json &examples = doc["examples"];
    for (std::size_t i = 0; i < examples.size(); ++i) {
        const Json &e = examples[i];
        const std::string where = name + ": examples[" + std::to_string(i) + "]";
        if (!e.is_object()) { p.add(where, "not an object"); continue; }
        // Character spans and token indices both: prepareDataset checks that they select the same tokens.
        Json o{{"text", e.value("text", Json())}, {"label", e.value("label", Json())}, {"id", e.value("id", Json())},
               {"rationale", e.value("evidence_char_spans", Json())}};
        auto ex = readExample(o, where, p);
        if (!ex) continue;
        const Json tokens = e.value("evidence_token_indices", Json());
        const Json ids = e.value("input_ids", Json());
        if (!tokens.is_array() || !ids.is_array()) { p.add(where, "'evidence_token_indices' / 'input_ids': missing"); continue; }
        std::vector<std::int64_t> t;
        for (const Json &v : tokens) t.push_back(v.is_number_integer() ? v.get<std::int64_t>() : -1);
        ex->rationaleTokens = t;
        for (const Json &v : ids) ex->expectedTokenIds.push_back(v.is_number_integer() ? v.get<std::int64_t>() : -1);
        d.examples.push_back(std::move(*ex));
    }
    finish(d, p, name);
    if (p.count) return p.status(name);
    return d;
}

Result<Dataset> openDataset(const std::string &spec, const std::string &modelFolder, const ColumnMapping &columns)
{
    std::string path = spec;
    if (spec == "sample") {
        if (modelFolder.empty()) return Status::invalid("--dataset sample: the model is not a folder, so it has no rationales.json");
        path = (fs::path(modelFolder) / "rationales.json").string();
        if (!fs::exists(path)) return Status::invalid("--dataset sample: " + modelFolder + " has no rationales.json (only models that ship an evaluation set do)");
    }
    auto bytes = readWholeFile(path);
    if (!bytes) return bytes.status();
    const std::string ext = fs::path(path).extension().string();
    if (spec == "sample") return parseSampleDataset(*bytes, path);
    if (ext == ".csv" || ext == ".tsv") return parseDelimitedDataset(*bytes, path, ext == ".csv" ? ',' : '\t', columns);
    if (!columns.empty()) return Status::invalid("--columns: only CSV/TSV datasets (.csv, .tsv) have columns; " + path + " is read as JSONL");
    return parseJsonlDataset(*bytes, path);
}

} // namespace attn
