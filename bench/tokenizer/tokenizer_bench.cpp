// SPDX-License-Identifier: GPL-3.0-or-later
// attnscope-tokenizer-bench: how fast each tokenizer form encodes a ~100 kB text. Validate first, then time: a form
// whose parity rows (tests/fixtures/tokenizers) do not all match Hugging Face is reported with "error" and not
// timed. One JSON object per line.
//
//   attnscope-tokenizer-bench [--fixtures DIR] [--bytes N] [--reps R] [--form NAME] [--write-text FILE]
//
// cold_ms: the first encode after loading (empty BPE cache); warm_ms_median: the median of R more.

#include <attnscope/tokenizer.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using Json = nlohmann::json;

namespace {

Json readJson(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return Json::parse(ss.str(), nullptr, false);
}

double msSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// The fixture strings in a fixed shuffled order, joined by spaces and newlines, cut at a character boundary.
std::string benchText(const Json &texts, std::size_t bytes)
{
    std::vector<std::string> pool;
    for (const Json &t : texts) pool.push_back(t.get<std::string>());
    std::mt19937 rng(2024);
    std::string out;
    while (out.size() < bytes) {
        out += pool[rng() % pool.size()];
        out += rng() % 5 == 0 ? "\n" : " ";
    }
    std::size_t cut = bytes;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
    return out.substr(0, cut);
}

struct Form {
    std::string name, path;
    const Json *rows;       // one row per text, ids first
    const Json *texts;
};

} // namespace

int main(int argc, char **argv)
{
    std::string fixtures = ATTNSCOPE_TOKENIZER_FIXTURES, only, writeText;
    std::size_t bytes = 100000;
    int reps = 9;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::cerr << a << " needs a value\n";
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--fixtures") fixtures = next();
        else if (a == "--bytes") bytes = std::stoul(next());
        else if (a == "--reps") reps = std::max(1, std::stoi(next()));
        else if (a == "--form") only = next();
        else if (a == "--write-text") writeText = next();
        else {
            std::cerr << "usage: attnscope-tokenizer-bench [--fixtures DIR] [--bytes N] [--reps R] [--form NAME] "
                         "[--write-text FILE]\n";
            return 2;
        }
    }
    const Json forms = readJson(fixtures + "/forms.json"), legacy = readJson(fixtures + "/expected.json");
    if (forms.is_discarded() || legacy.is_discarded()) {
        std::cerr << fixtures << ": forms.json or expected.json missing or broken\n";
        return 1;
    }
    std::vector<Form> list;
    for (const auto &[name, entry] : forms["forms"].items())
        list.push_back({name, fixtures + "/forms/" + name + "/tokenizer.json", &entry["single"], &forms["texts"]});
    for (const char *name : {"bert-uncased", "bert-cased"})
        list.push_back({name, fixtures + "/" + name + "/tokenizer.json", &legacy["tokenizers"][name], &legacy["texts"]});
    list.push_back({"gpt2-bpe", fixtures + "/gpt2-bpe/tokenizer.json", &legacy["tokenizers"]["gpt2-bpe/tokenizer"],
                    &legacy["texts"]});

    const std::string text = benchText(forms["texts"], bytes);
    if (!writeText.empty()) std::ofstream(writeText, std::ios::binary) << text;
    int status = 0;
    for (const Form &f : list) {
        if (!only.empty() && f.name != only) continue;
        Json line{{"form", f.name}, {"bytes", text.size()}};
        const Json &texts = *f.texts;
        const auto t0 = std::chrono::steady_clock::now();
        auto tok = attn::Tokenizer::fromTokenizerJson(f.path);
        line["load_ms"] = msSince(t0);
        if (!tok) {
            line["error"] = tok.status().message();
            std::cout << line.dump() << std::endl;
            status = 1;
            continue;
        }
        std::size_t mismatches = 0;
        for (std::size_t i = 0; i < texts.size(); ++i) {
            auto enc = tok->encode(texts[i].get<std::string>());
            if (!enc || enc->ids != (*f.rows)[i][0].get<std::vector<std::int32_t>>()) ++mismatches;
        }
        line["validated_strings"] = texts.size();
        if (mismatches > 0) {
            line["error"] = std::to_string(mismatches) + " strings differ from Hugging Face: not timed";
            std::cout << line.dump() << std::endl;
            status = 1;
            continue;
        }
        // Cold: a fresh load, so the BPE word cache starts empty.
        auto fresh = attn::Tokenizer::fromTokenizerJson(f.path);
        auto t1 = std::chrono::steady_clock::now();
        auto enc = fresh->encode(text);
        line["cold_ms"] = msSince(t1);
        if (!enc) {
            line["error"] = enc.status().message();
            std::cout << line.dump() << std::endl;
            status = 1;
            continue;
        }
        std::vector<double> ms;
        for (int r = 0; r < reps; ++r) {
            auto t2 = std::chrono::steady_clock::now();
            auto again = fresh->encode(text);
            ms.push_back(msSince(t2));
        }
        std::sort(ms.begin(), ms.end());
        const double median = ms[ms.size() / 2];
        line["tokens"] = enc->size();
        line["warm_ms_median"] = median;
        line["reps"] = reps;
        line["mb_per_s_warm"] = static_cast<double>(text.size()) / 1e3 / median;
        line["tokens_per_s_warm"] = static_cast<double>(enc->size()) / median * 1e3;
        std::cout << line.dump() << std::endl;
    }
    return status;
}
