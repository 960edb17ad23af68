// SPDX-License-Identifier: GPL-3.0-or-later
// Normalizers. The order inside BertNormalizer is Hugging Face's: clean-up, CJK padding, accent stripping
// (NFD, then drop Mn), lower-casing — stripping before lower-casing matters for İ (U+0130 → I, not i̇).

#include "pipeline.h"

namespace attn::tokenizer {

namespace {

Text cleanText(const Text &text)
{
    Text out;
    out.reserve(text.size());
    for (const Char &c : text) {
        if (c.cp == 0 || c.cp == 0xFFFD || isBertControl(c.cp)) continue;
        out.push_back(isWhitespace(c.cp) ? Char{U' ', c.begin, c.end} : c);
    }
    return out;
}

Text padChineseChars(const Text &text)
{
    Text out;
    out.reserve(text.size());
    for (const Char &c : text) {
        if (isChineseChar(c.cp)) {
            out.push_back({U' ', c.begin, c.end});
            out.push_back(c);
            out.push_back({U' ', c.begin, c.end});
        } else {
            out.push_back(c);
        }
    }
    return out;
}

// BertNormalizer drops Mn only; the StripAccents normalizer drops every mark (Mn, Mc, Me), as Hugging Face's
// is_mark_nonspacing and is_combining_mark do.
Text dropMarks(Text text, bool allMarks)
{
    std::erase_if(text, [allMarks](const Char &c) { return allMarks ? isMark(c.cp) : isBertNonspacingMark(c.cp); });
    return text;
}

Text lowercase(const Text &text)
{
    Text out;
    out.reserve(text.size());
    for (const Char &c : text) appendLower(c, out);
    return out;
}

} // namespace

Text normalize(const std::vector<NormalizerStep> &steps, Text text)
{
    for (const NormalizerStep &step : steps) {
        switch (step.kind) {
        case NormalizerStep::Kind::Bert:
            if (step.cleanText) text = cleanText(text);
            if (step.chineseChars) text = padChineseChars(text);
            if (step.stripAccents) text = dropMarks(nfd(text), false);
            if (step.lowercase) text = lowercase(text);
            break;
        case NormalizerStep::Kind::Lowercase: text = lowercase(text); break;
        case NormalizerStep::Kind::Nfd: text = nfd(text); break;
        case NormalizerStep::Kind::StripAccents: text = dropMarks(std::move(text), true); break;
        }
    }
    return text;
}

} // namespace attn::tokenizer
