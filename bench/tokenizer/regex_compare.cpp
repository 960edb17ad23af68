// SPDX-License-Identifier: GPL-3.0-or-later
// attnscope-regex-compare FILE: the Llama 3, Qwen2 and GPT-2 split patterns over FILE with Oniguruma (what the
// tokenizers use; the same engine as Hugging Face) and with PCRE2 JIT (UTF + UCP), same iteration: match counts must
// agree before the times mean anything; where they do not, the first differing match is printed. Built only where
// PCRE2 is installed; docs/tokenizers.md reports the result.
#define PCRE2_CODE_UNIT_WIDTH 8
#include <oniguruma.h>
#include <pcre2.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using Matches = std::vector<std::pair<std::size_t, std::size_t>>;

static double ms(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

static Matches onigAll(regex_t *re, const std::string &s)
{
    Matches out;
    OnigRegion *region = onig_region_new();
    const auto *str = reinterpret_cast<const OnigUChar *>(s.data()), *end = str + s.size();
    for (std::size_t pos = 0; pos < s.size();) {
        if (onig_search(re, str, end, str + pos, end, region, ONIG_OPTION_NONE) < 0) break;
        const auto b = static_cast<std::size_t>(region->beg[0]), e = static_cast<std::size_t>(region->end[0]);
        out.emplace_back(b, e);
        pos = e > b ? e : e + 1;
    }
    onig_region_free(region, 1);
    return out;
}

static Matches pcreAll(pcre2_code *re, pcre2_match_data *md, const std::string &s)
{
    Matches out;
    for (PCRE2_SIZE pos = 0; pos < s.size();) {
        if (pcre2_jit_match(re, reinterpret_cast<PCRE2_SPTR>(s.data()), s.size(), pos, 0, md, nullptr) < 0) break;
        const PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        out.emplace_back(ov[0], ov[1]);
        pos = ov[1] > ov[0] ? ov[1] : ov[1] + 1;
    }
    return out;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: attnscope-regex-compare FILE\n");
        return 2;
    }
    std::ifstream in(argv[1], std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    const std::pair<const char *, const char *> patterns[] = {
        {"llama3", R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)"},
        {"qwen2", R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)"},
        {"gpt2", R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)"},
        {"whitespace \\s", R"(\s)"},
    };
    OnigEncoding encodings[1] = {ONIG_ENCODING_UTF8};
    onig_initialize(encodings, 1);
    for (const auto &[name, pattern] : patterns) {
        regex_t *onig = nullptr;
        OnigErrorInfo info;
        const auto *p = reinterpret_cast<const OnigUChar *>(pattern);
        onig_new(&onig, p, p + std::strlen(pattern), ONIG_OPTION_NONE, ONIG_ENCODING_UTF8, ONIG_SYNTAX_RUBY, &info);
        int err = 0;
        PCRE2_SIZE at = 0;
        pcre2_code *pcre = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern), PCRE2_ZERO_TERMINATED,
                                         PCRE2_UTF | PCRE2_UCP, &err, &at, nullptr);
        pcre2_jit_compile(pcre, PCRE2_JIT_COMPLETE);
        pcre2_match_data *md = pcre2_match_data_create_from_pattern(pcre, nullptr);
        std::vector<double> to, tp;
        Matches a, b;
        for (int r = 0; r < 7; ++r) {
            auto t0 = std::chrono::steady_clock::now();
            a = onigAll(onig, text);
            to.push_back(ms(t0));
            t0 = std::chrono::steady_clock::now();
            b = pcreAll(pcre, md, text);
            tp.push_back(ms(t0));
        }
        std::sort(to.begin(), to.end());
        std::sort(tp.begin(), tp.end());
        std::printf("{\"pattern\":\"%s\",\"bytes\":%zu,\"onig_matches\":%zu,\"pcre2_matches\":%zu,\"same\":%s,"
                    "\"onig_ms_median\":%.3f,\"pcre2_jit_ms_median\":%.3f}\n",
                    name, text.size(), a.size(), b.size(), a == b ? "true" : "false", to[3], tp[3]);
        for (std::size_t k = 0; k < std::min(a.size(), b.size()); ++k)
            if (a[k] != b[k]) {
                std::printf("  first difference at byte %zu: Oniguruma [%zu,%zu) PCRE2 [%zu,%zu)\n", a[k].first,
                            a[k].first, a[k].second, b[k].first, b[k].second);
                break;
            }
        pcre2_match_data_free(md);
        pcre2_code_free(pcre);
        onig_free(onig);
    }
    return 0;
}
