// SPDX-License-Identifier: GPL-3.0-or-later
// Unicode normalization with alignment changes, and extended grapheme clusters.
//
// The changes follow unicode-normalization-alignments (the crate behind Hugging Face's NFD/NFC/NFKD/NFKC): when
// canonical ordering moves a combining mark, its change tag moves with it, so a mark that came from a decomposition
// may end up "replacing" the next input character. Token offsets after normalization depend on exactly this, so
// the decomposition stream and the recomposition state machine are the crate's algorithm, step for step.

#include "unicode.h"

#include <algorithm>
#include <optional>

namespace attn::tokenizer {

namespace {

constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr char32_t kLCount = 19, kVCount = 21, kTCount = 28, kNCount = kVCount * kTCount, kSCount = kLCount * kNCount;

void decompose(char32_t cp, bool compat, std::u32string &out)
{
    if (cp < 0xA0) { // nothing below U+00A0 decomposes
        out.push_back(cp);
        return;
    }
    if (cp >= kSBase && cp < kSBase + kSCount) {
        const char32_t s = cp - kSBase;
        out.push_back(kLBase + s / kNCount);
        out.push_back(kVBase + (s % kNCount) / kTCount);
        if (s % kTCount != 0) out.push_back(kTBase + s % kTCount);
        return;
    }
    const ucd::DecompositionIndex *table = compat ? ucd::kCompatFull : ucd::kCanonicalFull;
    const std::size_t count = compat ? ucd::kCompatFullCount : ucd::kCanonicalFullCount;
    const char32_t *chars = compat ? ucd::kCompatFullChars : ucd::kCanonicalFullChars;
    const auto *it = std::lower_bound(table, table + count, cp,
                                      [](const ucd::DecompositionIndex &d, char32_t v) { return d.cp < v; });
    if (it == table + count || it->cp != cp) {
        out.push_back(cp);
        return;
    }
    out.append(chars + it->offset, it->count);
}

std::optional<char32_t> compose(char32_t a, char32_t b)
{
    if (b < 0x300) return std::nullopt; // every second character of a composition is at or above U+0300
    if (a >= kLBase && a < kLBase + kLCount && b >= kVBase && b < kVBase + kVCount)
        return kSBase + ((a - kLBase) * kVCount + (b - kVBase)) * kTCount;
    if (a >= kSBase && a < kSBase + kSCount && (a - kSBase) % kTCount == 0 && b > kTBase && b < kTBase + kTCount)
        return a + (b - kTBase);
    const auto *end = ucd::kCompositions + ucd::kCompositionCount;
    const auto *it = std::lower_bound(ucd::kCompositions, end, std::pair{a, b}, [](const ucd::Composition &c, auto key) {
        return c.first != key.first ? c.first < key.first : c.second < key.second;
    });
    if (it == end || it->first != a || it->second != b) return std::nullopt;
    return it->composite;
}

// The decomposition stream: each character's full decomposition, the first part replacing it (0) and the rest
// inserted (1); each run of non-starters is stably sorted by combining class, tags included.
Changes decomposeStream(const std::u32string &text, bool compat)
{
    Changes out;
    out.reserve(text.size());
    std::vector<std::uint8_t> classes;
    std::size_t pending = 0;
    std::u32string parts;
    auto sortPending = [&] {
        if (std::is_sorted(classes.begin() + static_cast<std::ptrdiff_t>(pending), classes.end())) {
            pending = out.size();
            return;
        }
        std::vector<std::size_t> order(out.size() - pending);
        for (std::size_t k = 0; k < order.size(); ++k) order[k] = pending + k;
        std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return classes[x] < classes[y]; });
        Changes sorted;
        std::vector<std::uint8_t> sortedClasses;
        for (std::size_t k : order) {
            sorted.push_back(out[k]);
            sortedClasses.push_back(classes[k]);
        }
        std::copy(sorted.begin(), sorted.end(), out.begin() + static_cast<std::ptrdiff_t>(pending));
        std::copy(sortedClasses.begin(), sortedClasses.end(), classes.begin() + static_cast<std::ptrdiff_t>(pending));
        pending = out.size();
    };
    for (char32_t cp : text) {
        parts.clear();
        decompose(cp, compat, parts);
        for (std::size_t k = 0; k < parts.size(); ++k) {
            const std::uint8_t ccc = combiningClass(parts[k]);
            if (ccc == 0 && out.size() > pending) sortPending();
            if (ccc == 0) pending = out.size();
            out.push_back({parts[k], k == 0 ? 0 : 1});
            classes.push_back(ccc);
        }
    }
    if (out.size() > pending) sortPending();
    return out;
}

// Canonical composition over the decomposition stream (the crate's Recompositions iterator): a composition takes
// the tag of its first character plus the second's, minus one.
Changes recompose(const Changes &in)
{
    Changes out;
    out.reserve(in.size());
    std::optional<Change> composee;
    std::optional<std::uint8_t> lastClass;
    Changes buffer;
    auto flushBuffer = [&] {
        out.insert(out.end(), buffer.begin(), buffer.end());
        buffer.clear();
    };
    for (const Change &c : in) {
        const std::uint8_t cls = combiningClass(c.cp);
        if (!composee) {
            if (cls != 0) {
                out.push_back(c);
                continue;
            }
            composee = c;
            continue;
        }
        if (!lastClass) {
            if (const auto r = compose(composee->cp, c.cp)) {
                composee = Change{*r, composee->change + c.change - 1};
                continue;
            }
            if (cls == 0) {
                out.push_back(*composee);
                composee = c;
                continue;
            }
            buffer.push_back(c);
            lastClass = cls;
            continue;
        }
        if (*lastClass >= cls) {
            if (cls == 0) {
                out.push_back(*composee);
                flushBuffer();
                composee = c;
                lastClass.reset();
                continue;
            }
            buffer.push_back(c);
            lastClass = cls;
            continue;
        }
        if (const auto r = compose(composee->cp, c.cp)) {
            composee = Change{*r, composee->change + c.change - 1};
            continue;
        }
        buffer.push_back(c);
        lastClass = cls;
    }
    // At the end the iterator yields the composee, then the buffered marks (the crate's Finished state).
    if (composee) out.push_back(*composee);
    flushBuffer();
    return out;
}

} // namespace

Changes normalizeChanges(const std::u32string &text, NormalForm form)
{
    const bool compat = form == NormalForm::NFKD || form == NormalForm::NFKC;
    Changes decomposed = decomposeStream(text, compat);
    if (form == NormalForm::NFD || form == NormalForm::NFKD) return decomposed;
    return recompose(decomposed);
}

// ---- grapheme clusters ------------------------------------------------------------------------------------------

namespace {

std::uint8_t graphemeFlags(char32_t cp)
{
    const auto *end = ucd::kGraphemeRuns + ucd::kGraphemeRunCount;
    const auto *it = std::upper_bound(ucd::kGraphemeRuns, end, cp,
                                      [](char32_t v, const ucd::FlagRun &r) { return v < r.first; });
    return it == ucd::kGraphemeRuns ? 0 : (it - 1)->flags;
}

} // namespace

std::vector<std::size_t> graphemeBoundaries(const std::u32string &text)
{
    std::vector<std::size_t> starts;
    if (text.empty()) {
        starts.push_back(0);
        return starts;
    }
    std::vector<std::uint8_t> flags(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) flags[i] = graphemeFlags(text[i]);
    auto gb = [&](std::size_t i) { return static_cast<ucd::GraphemeBreak>(flags[i] & 15); };
    starts.push_back(0);
    std::size_t riRun = 0;           // regional indicators in a row ending at i-1
    bool pictZwj = false;            // GB11: ExtPict Extend* ZWJ ends at i-1
    bool pictExtend = false;         // ExtPict Extend* ends at i-1
    bool conjunct = false, linked = false; // GB9c: Consonant [Extend Linker]* (with a Linker) ends at i-1
    for (std::size_t i = 1; i <= text.size(); ++i) {
        const std::size_t p = i - 1;
        // State after character p.
        riRun = gb(p) == ucd::GbRegionalIndicator ? riRun + 1 : 0;
        const bool isPict = flags[p] & ucd::GbPictographic;
        pictZwj = gb(p) == ucd::GbZWJ && pictExtend;
        pictExtend = isPict || (pictExtend && gb(p) == ucd::GbExtend);
        if (flags[p] & ucd::GbConsonant) {
            conjunct = true;
            linked = false;
        } else if (conjunct && (flags[p] & ucd::GbLinker)) {
            linked = true;
        } else if (!(conjunct && (flags[p] & ucd::GbIncbExtend))) {
            conjunct = linked = false;
        }
        if (i == text.size()) break;
        const auto a = gb(p), b = gb(i);
        bool breakHere = true;
        if (a == ucd::GbCR && b == ucd::GbLF) breakHere = false;                                       // GB3
        else if (a == ucd::GbControl || a == ucd::GbCR || a == ucd::GbLF) breakHere = true;            // GB4
        else if (b == ucd::GbControl || b == ucd::GbCR || b == ucd::GbLF) breakHere = true;            // GB5
        else if (a == ucd::GbL && (b == ucd::GbL || b == ucd::GbV || b == ucd::GbLV || b == ucd::GbLVT))
            breakHere = false;                                                                         // GB6
        else if ((a == ucd::GbLV || a == ucd::GbV) && (b == ucd::GbV || b == ucd::GbT)) breakHere = false; // GB7
        else if ((a == ucd::GbLVT || a == ucd::GbT) && b == ucd::GbT) breakHere = false;              // GB8
        else if (b == ucd::GbExtend || b == ucd::GbZWJ) breakHere = false;                             // GB9
        else if (b == ucd::GbSpacingMark) breakHere = false;                                           // GB9a
        else if (a == ucd::GbPrepend) breakHere = false;                                               // GB9b
        else if (conjunct && linked && (flags[i] & ucd::GbConsonant)) breakHere = false;               // GB9c
        else if (pictZwj && (flags[i] & ucd::GbPictographic)) breakHere = false;                       // GB11
        else if (a == ucd::GbRegionalIndicator && b == ucd::GbRegionalIndicator && riRun % 2 == 1)
            breakHere = false;                                                                         // GB12/13
        if (breakHere) starts.push_back(i);
    }
    starts.push_back(text.size());
    return starts;
}

} // namespace attn::tokenizer
