// SPDX-License-Identifier: GPL-3.0-or-later
#include "normalized.h"

#include <algorithm>

namespace attn::tokenizer {

NormalizedText NormalizedText::fromOriginal(const Text &text, std::size_t from, std::size_t to)
{
    NormalizedText n;
    n.chars.assign(text.begin() + static_cast<std::ptrdiff_t>(from), text.begin() + static_cast<std::ptrdiff_t>(to));
    n.origin = from < text.size() ? text[from].begin : (text.empty() ? 0 : text.back().end);
    return n;
}

std::u32string NormalizedText::codePoints() const { return codePoints(0, chars.size()); }

std::u32string NormalizedText::codePoints(std::size_t from, std::size_t to) const
{
    std::u32string out;
    out.reserve(to - from);
    for (std::size_t i = from; i < to; ++i) out.push_back(chars[i].cp);
    return out;
}

std::string NormalizedText::utf8() const { return toUtf8(chars, 0, chars.size()); }

// tokenizers' transform_range, on characters: `pos` walks the replaced input characters; a replacing character
// takes the range of the input character at pos, an inserted one that of the character before pos.
void NormalizedText::transformRange(std::size_t from, std::size_t to, const Changes &changes, std::size_t initialOffset)
{
    from = std::min(from, chars.size());
    to = std::clamp(to, from, chars.size());
    Text out;
    out.reserve(changes.size());
    std::size_t pos = std::min(from + initialOffset, to);
    for (const Change &c : changes) {
        Char n{c.cp, origin, origin};
        if (c.change > 0) {
            if (pos >= 1) {
                n.begin = chars[pos - 1].begin;
                n.end = chars[pos - 1].end;
            }
        } else {
            // Hugging Face would index past the string on a malformed change list; we keep the last range.
            const std::size_t at = std::min(pos, chars.empty() ? 0 : chars.size() - 1);
            if (!chars.empty()) {
                n.begin = chars[at].begin;
                n.end = chars[at].end;
            }
            if (pos < to) ++pos;
            if (c.change < 0) pos = std::min(to, pos + static_cast<std::size_t>(-c.change));
        }
        out.push_back(n);
    }
    chars.erase(chars.begin() + static_cast<std::ptrdiff_t>(from), chars.begin() + static_cast<std::ptrdiff_t>(to));
    chars.insert(chars.begin() + static_cast<std::ptrdiff_t>(from), out.begin(), out.end());
}

void NormalizedText::prepend(std::u32string_view s)
{
    if (chars.empty() || s.empty()) return;
    Changes changes;
    for (std::size_t i = 0; i < s.size(); ++i) changes.push_back({s[i], i == 0 ? 0 : 1});
    changes.push_back({chars.front().cp, 1});
    transformRange(0, 1, changes);
}

void NormalizedText::filter(const std::function<bool(char32_t)> &keep)
{
    Changes changes;
    changes.reserve(chars.size());
    int removed = 0;
    std::size_t removedAtStart = 0;
    bool haveLast = false;
    char32_t last = 0;
    for (const Char &c : chars) {
        if (keep(c.cp)) {
            if (haveLast)
                changes.push_back({last, -removed});
            else
                removedAtStart = static_cast<std::size_t>(removed);
            last = c.cp;
            haveLast = true;
            removed = 0;
        } else {
            ++removed;
        }
    }
    if (haveLast) changes.push_back({last, -removed});
    else removedAtStart = static_cast<std::size_t>(removed);
    transform(changes, removedAtStart);
}

void NormalizedText::map(const std::function<char32_t(char32_t)> &f)
{
    for (Char &c : chars) c.cp = f(c.cp); // a pure replacement keeps every range
}

void NormalizedText::lowercase()
{
    Changes changes;
    changes.reserve(chars.size());
    for (const Char &c : chars) appendLowerChanges(c.cp, changes);
    transform(changes);
}

void NormalizedText::normalize(NormalForm form)
{
    const Changes changes = normalizeChanges(codePoints(), form);
    // Already normalized (the common case): the same characters, each replacing itself, change nothing.
    bool same = changes.size() == chars.size();
    for (std::size_t i = 0; same && i < changes.size(); ++i) same = changes[i].change == 0 && changes[i].cp == chars[i].cp;
    if (!same) transform(changes);
}

void NormalizedText::strip(bool left, bool right)
{
    std::size_t leading = 0, trailing = 0;
    if (left)
        while (leading < chars.size() && isWhitespace(chars[leading].cp)) ++leading;
    if (right)
        while (trailing < chars.size() && isWhitespace(chars[chars.size() - 1 - trailing].cp)) ++trailing;
    if (leading == 0 && trailing == 0) return;
    // The trailing removals need no tag: nothing follows them whose range they could shift.
    Changes changes;
    const std::size_t count = chars.size();
    for (std::size_t i = 0; i < count; ++i)
        if (i >= leading && i + trailing < count) changes.push_back({chars[i].cp, 0});
    transform(changes, leading);
}

void NormalizedText::replace(const Spans &matches, std::u32string_view content)
{
    // tokenizers inserts the whole content (change 1 each) after removing the match, so every inserted character
    // takes the range of the match's last character.
    Text out;
    out.reserve(chars.size());
    std::size_t last = 0;
    for (const Span &m : matches) {
        if (!m.isMatch) continue;
        out.insert(out.end(), chars.begin() + static_cast<std::ptrdiff_t>(last),
                   chars.begin() + static_cast<std::ptrdiff_t>(m.from));
        Char align{0, origin, origin};
        if (m.to >= 1) align = chars[m.to - 1];
        for (char32_t cp : content) out.push_back({cp, align.begin, align.end});
        last = m.to;
    }
    out.insert(out.end(), chars.begin() + static_cast<std::ptrdiff_t>(last), chars.end());
    chars = std::move(out);
}

NormalizedText NormalizedText::slice(std::size_t from, std::size_t to) const
{
    NormalizedText n;
    n.chars.assign(chars.begin() + static_cast<std::ptrdiff_t>(from), chars.begin() + static_cast<std::ptrdiff_t>(to));
    n.origin = from < to ? chars[from].begin : origin;
    return n;
}

std::vector<NormalizedText> NormalizedText::split(const Spans &spans, SplitBehavior behavior) const
{
    struct Part {
        std::size_t from, to;
        bool remove;
    };
    std::vector<Part> parts;
    switch (behavior) {
    case SplitBehavior::Isolated:
        for (const Span &s : spans) parts.push_back({s.from, s.to, false});
        break;
    case SplitBehavior::Removed:
        for (const Span &s : spans) parts.push_back({s.from, s.to, s.isMatch});
        break;
    case SplitBehavior::Contiguous: {
        bool previous = false;
        for (const Span &s : spans) {
            if (s.isMatch == previous && !parts.empty()) parts.back().to = s.to;
            else parts.push_back({s.from, s.to, false});
            previous = s.isMatch;
        }
        break;
    }
    case SplitBehavior::MergedWithPrevious: {
        bool previous = false;
        for (const Span &s : spans) {
            if (s.isMatch && !previous && !parts.empty()) parts.back().to = s.to;
            else parts.push_back({s.from, s.to, false});
            previous = s.isMatch;
        }
        break;
    }
    case SplitBehavior::MergedWithNext: {
        bool previous = false;
        for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
            if (it->isMatch && !previous && !parts.empty()) parts.back().from = it->from;
            else parts.push_back({it->from, it->to, false});
            previous = it->isMatch;
        }
        std::reverse(parts.begin(), parts.end());
        break;
    }
    }
    std::vector<NormalizedText> out;
    for (const Part &p : parts)
        if (!p.remove && p.to > p.from) out.push_back(slice(p.from, p.to));
    return out;
}

Spans regexSpans(const Regex &re, const NormalizedText &text)
{
    Spans spans;
    if (text.empty()) {
        spans.push_back({0, 0, false});
        return spans;
    }
    const std::string utf8 = text.utf8();
    std::vector<std::uint32_t> charAt(utf8.size() + 1, 0); // character index at each byte boundary
    for (std::size_t i = 0, b = 0; i < text.chars.size(); ++i) {
        const std::size_t len = utf8Length(text.chars[i].cp);
        for (std::size_t k = 0; k < len; ++k) charAt[b + k] = static_cast<std::uint32_t>(i);
        b += len;
    }
    charAt[utf8.size()] = static_cast<std::uint32_t>(text.chars.size());
    std::vector<ByteRange> matches;
    re.findAll(utf8, matches);
    std::size_t prev = 0;
    for (const auto &[s, e] : matches) {
        const std::size_t from = charAt[s], to = charAt[e];
        if (prev != from) spans.push_back({prev, from, false});
        spans.push_back({from, to, true});
        prev = to;
    }
    if (prev != text.chars.size()) spans.push_back({prev, text.chars.size(), false});
    return spans;
}

Spans charSpans(const NormalizedText &text, const std::function<bool(char32_t)> &isDelimiter)
{
    Spans spans;
    if (text.empty()) {
        spans.push_back({0, 0, false});
        return spans;
    }
    std::size_t last = 0;
    for (std::size_t i = 0; i < text.chars.size(); ++i) {
        if (!isDelimiter(text.chars[i].cp)) continue;
        if (last < i) spans.push_back({last, i, false});
        spans.push_back({i, i + 1, true});
        last = i + 1;
    }
    if (last < text.chars.size()) spans.push_back({last, text.chars.size(), false});
    return spans;
}

void invertSpans(Spans &spans)
{
    for (Span &s : spans) s.isMatch = !s.isMatch;
}

} // namespace attn::tokenizer
