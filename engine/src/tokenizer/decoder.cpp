// SPDX-License-Identifier: GPL-3.0-or-later
// Decoders: token strings back to text, each step over the whole list as Hugging Face's decode_chain, the results
// joined without separator (with spaces when the file has no decoder).

#include "pipeline.h"

namespace attn::tokenizer {

namespace {

std::string replaceAll(std::string s, std::string_view from, std::string_view to)
{
    if (from.empty()) return s;
    std::string out;
    std::size_t at = 0;
    for (std::size_t hit; (hit = s.find(from, at)) != std::string::npos; at = hit + from.size())
        out.append(s, at, hit - at).append(to);
    out.append(s, at, std::string::npos);
    return out;
}

std::string fromCodePoints(const std::u32string &s, std::size_t from, std::size_t to)
{
    std::string out;
    for (std::size_t i = from; i < to; ++i) appendUtf8(s[i], out);
    return out;
}

std::vector<std::string> byteLevel(const std::vector<std::string> &tokens)
{
    std::string bytes;
    for (const std::string &t : tokens) {
        const std::u32string cps = toCodePoints(t);
        std::string mapped;
        bool all = true;
        for (char32_t cp : cps) {
            const auto b = unicodeToByte(cp);
            if (!b) {
                all = false;
                break;
            }
            mapped.push_back(static_cast<char>(*b));
        }
        bytes += all ? mapped : t;
    }
    return {utf8Lossy(bytes)};
}

// <0xXX> runs back to bytes; a run that is not UTF-8 becomes one U+FFFD per byte.
std::vector<std::string> byteFallback(const std::vector<std::string> &tokens)
{
    std::vector<std::string> out;
    std::string run;
    std::size_t runTokens = 0;
    auto hex = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    auto flush = [&] {
        if (runTokens == 0) return;
        Text check;
        if (decodeUtf8(run, check) == std::string_view::npos) out.push_back(run);
        else
            for (std::size_t k = 0; k < runTokens; ++k) out.emplace_back("\xEF\xBF\xBD");
        run.clear();
        runTokens = 0;
    };
    for (const std::string &t : tokens) {
        int value = -1;
        if (t.size() == 6 && t.compare(0, 3, "<0x") == 0 && t[5] == '>') {
            // Rust's u8::from_str_radix: two hex digits, or '+' and one.
            const int hi = hex(t[3]), lo = hex(t[4]);
            if (hi >= 0 && lo >= 0) value = hi * 16 + lo;
            else if (t[3] == '+' && lo >= 0) value = lo;
        }
        if (value >= 0) {
            run.push_back(static_cast<char>(value));
            ++runTokens;
        } else {
            flush();
            out.push_back(t);
        }
    }
    flush();
    return out;
}

std::vector<std::string> applyStep(const DecoderStep &step, std::vector<std::string> tokens)
{
    switch (step.kind) {
    case DecoderStep::Kind::ByteLevel: return byteLevel(tokens);
    case DecoderStep::Kind::ByteFallback: return byteFallback(tokens);
    case DecoderStep::Kind::Fuse: {
        std::string joined;
        for (const std::string &t : tokens) joined += t;
        return {joined};
    }
    case DecoderStep::Kind::Metaspace:
        for (std::size_t i = 0; i < tokens.size(); ++i) {
            const std::u32string cps = toCodePoints(tokens[i]);
            std::string out;
            for (char32_t cp : cps) {
                if (cp != step.replacement) appendUtf8(cp, out);
                else if (!(i == 0 && step.prependScheme != PrependScheme::Never)) out.push_back(' ');
            }
            tokens[i] = std::move(out);
        }
        return tokens;
    case DecoderStep::Kind::Strip:
        for (std::string &t : tokens) {
            const std::u32string cps = toCodePoints(t);
            std::size_t startCut = 0, stopCut = cps.size();
            for (std::size_t i = 0; i < step.start && i < cps.size() && cps[i] == step.content; ++i) startCut = i + 1;
            for (std::size_t i = 0; i < step.stop && i < cps.size(); ++i) {
                const std::size_t index = cps.size() - i - 1;
                if (cps[index] != step.content) break;
                stopCut = index;
            }
            t = startCut < stopCut ? fromCodePoints(cps, startCut, stopCut) : std::string();
        }
        return tokens;
    case DecoderStep::Kind::Replace:
        for (std::string &t : tokens) {
            NormalizedText n;
            decodeUtf8(t, n.chars);
            std::string out;
            for (const Span &s : regexSpans(*step.regex, n)) {
                if (s.isMatch) out += step.replaceContent;
                else out += toUtf8(n.chars, s.from, s.to);
            }
            t = std::move(out);
        }
        return tokens;
    case DecoderStep::Kind::WordPiece:
        for (std::size_t i = 0; i < tokens.size(); ++i) {
            std::string &t = tokens[i];
            if (i != 0) {
                if (t.compare(0, step.prefix.size(), step.prefix) == 0) t = t.substr(step.prefix.size());
                else t = " " + t;
            }
            if (step.cleanup) t = wordPieceCleanup(std::move(t));
        }
        return tokens;
    case DecoderStep::Kind::Bpe:
        for (std::size_t i = 0; i < tokens.size(); ++i)
            tokens[i] = replaceAll(tokens[i], step.prefix, i + 1 == tokens.size() ? "" : " ");
        return tokens;
    case DecoderStep::Kind::Ctc: {
        std::vector<std::string> out;
        for (std::size_t i = 0; i < tokens.size(); ++i) {
            if (i > 0 && tokens[i] == tokens[i - 1]) continue; // consecutive duplicates collapse
            std::string t = replaceAll(tokens[i], step.padToken, "");
            if (step.cleanup) t = replaceAll(wordPieceCleanup(std::move(t)), step.wordDelimiter, " ");
            if (!t.empty()) out.push_back(std::move(t));
        }
        return out;
    }
    }
    return tokens;
}

} // namespace

std::string wordPieceCleanup(std::string s)
{
    static const std::pair<const char *, const char *> rules[] = {
        {" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"}, {" n't", "n't"},
        {" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
    for (const auto &[from, to] : rules) s = replaceAll(std::move(s), from, to);
    return s;
}

std::string decodeTokens(const std::vector<DecoderStep> &steps, bool present, std::vector<std::string> tokens)
{
    std::string out;
    if (!present) {
        for (std::size_t i = 0; i < tokens.size(); ++i) out.append(i ? " " : "").append(tokens[i]);
        return out;
    }
    for (const DecoderStep &step : steps) tokens = applyStep(step, std::move(tokens));
    for (const std::string &t : tokens) out += t;
    return out;
}

} // namespace attn::tokenizer
