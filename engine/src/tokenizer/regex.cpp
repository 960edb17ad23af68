// SPDX-License-Identifier: GPL-3.0-or-later
#include "regex.h"

#include <oniguruma.h>

#include <mutex>

namespace attn::tokenizer {

struct Regex::Compiled {
    regex_t *re = nullptr;
    ~Compiled()
    {
        if (re) onig_free(re);
    }
};

namespace {
void initializeOnce()
{
    static std::once_flag once;
    std::call_once(once, [] {
        OnigEncoding encodings[1] = {ONIG_ENCODING_UTF8};
        onig_initialize(encodings, 1);
    });
}
} // namespace

Result<Regex> Regex::compile(std::string_view pattern)
{
    initializeOnce();
    auto compiled = std::make_shared<Compiled>();
    OnigErrorInfo info{};
    const auto *begin = reinterpret_cast<const OnigUChar *>(pattern.data());
    const int r = onig_new(&compiled->re, begin, begin + pattern.size(), ONIG_OPTION_NONE, ONIG_ENCODING_UTF8,
                           ONIG_SYNTAX_RUBY, &info);
    if (r != ONIG_NORMAL) {
        compiled->re = nullptr;
        OnigUChar message[ONIG_MAX_ERROR_MESSAGE_LEN];
        onig_error_code_to_str(message, r, &info);
        return Status::invalid("the regular expression '" + std::string(pattern) + "' does not compile (Oniguruma: " +
                               reinterpret_cast<const char *>(message) + ")");
    }
    Regex out;
    out.m_compiled = std::move(compiled);
    out.m_pattern = std::string(pattern);
    return out;
}

std::string Regex::escape(std::string_view literal)
{
    std::string out;
    out.reserve(literal.size() * 2);
    for (char c : literal) {
        switch (c) {
        case '\\': case '.': case '+': case '*': case '?': case '(': case ')': case '|': case '[': case ']':
        case '{': case '}': case '^': case '$': case '#': case '&': case '-': case '~':
            out.push_back('\\');
            break;
        default: break;
        }
        out.push_back(c);
    }
    return out;
}

void Regex::findAll(std::string_view utf8, std::vector<ByteRange> &out) const
{
    regex_t *re = m_compiled->re;
    OnigRegion *region = onig_region_new();
    const auto *str = reinterpret_cast<const OnigUChar *>(utf8.data());
    const auto *end = str + utf8.size();
    std::size_t lastEnd = 0;
    bool haveLast = false;
    std::size_t lastMatchEnd = 0;
    while (lastEnd <= utf8.size()) {
        onig_region_clear(region);
        const int r = onig_search(re, str, end, str + lastEnd, end, region, ONIG_OPTION_NONE);
        if (r < 0) break; // ONIG_MISMATCH, or an error (none is expected on valid UTF-8)
        const auto s = static_cast<std::size_t>(region->beg[0]), e = static_cast<std::size_t>(region->end[0]);
        if (s == e && haveLast && lastMatchEnd == e) {
            std::size_t step = 1;
            if (lastEnd < utf8.size()) {
                const auto b = static_cast<unsigned char>(utf8[lastEnd]);
                step = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
            }
            lastEnd += step;
            continue;
        }
        lastEnd = e;
        haveLast = true;
        lastMatchEnd = e;
        out.emplace_back(static_cast<std::uint32_t>(s), static_cast<std::uint32_t>(e));
    }
    onig_region_free(region, 1);
}

} // namespace attn::tokenizer
