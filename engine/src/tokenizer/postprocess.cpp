// SPDX-License-Identifier: GPL-3.0-or-later
// Post-processors: framing with special tokens, type ids and ByteLevel offset trimming, over one or two
// sequences (a pair), applied in order as a Sequence processor applies its members, then merged into one encoding.
// Offsets here are code points, as in Hugging Face's Python API, which trims character offsets.

#include "pipeline.h"

#include <algorithm>

namespace attn::tokenizer {

void SeqEncoding::truncate(std::size_t n)
{
    if (n >= ids.size()) return;
    ids.resize(n);
    tokens.resize(n);
    begins.resize(n);
    ends.resize(n);
    framing.resize(n);
    typeIds.resize(n);
    sequence.resize(n);
}

void SeqEncoding::append(const SeqEncoding &o)
{
    ids.insert(ids.end(), o.ids.begin(), o.ids.end());
    tokens.insert(tokens.end(), o.tokens.begin(), o.tokens.end());
    begins.insert(begins.end(), o.begins.begin(), o.begins.end());
    ends.insert(ends.end(), o.ends.begin(), o.ends.end());
    framing.insert(framing.end(), o.framing.begin(), o.framing.end());
    typeIds.insert(typeIds.end(), o.typeIds.begin(), o.typeIds.end());
    sequence.insert(sequence.end(), o.sequence.begin(), o.sequence.end());
}

namespace {

SeqEncoding specialTokens(const TemplateItem &item, std::int32_t typeId)
{
    SeqEncoding e;
    for (std::size_t k = 0; k < item.ids.size(); ++k) {
        e.ids.push_back(item.ids[k]);
        e.tokens.push_back(item.tokens[k]);
        e.begins.push_back(0);
        e.ends.push_back(0);
        e.framing.push_back(1);
        e.typeIds.push_back(typeId);
        e.sequence.push_back(-1);
    }
    return e;
}

// tokenizers' process_offsets: leading and trailing Ġ or whitespace characters leave a token's offsets, except a
// single leading one on the first token when add_prefix_space put it there.
void trimOffsets(SeqEncoding &e, bool addPrefixSpace)
{
    const char32_t space = byteToUnicode(' ');
    auto isSpace = [&](char32_t cp) { return cp == space || isWhitespace(cp); };
    for (std::size_t i = 0; i < e.size(); ++i) {
        Text chars;
        decodeUtf8(e.tokens[i], chars);
        std::size_t leading = 0, trailing = 0;
        while (leading < chars.size() && isSpace(chars[leading].cp)) ++leading;
        while (trailing < chars.size() && isSpace(chars[chars.size() - 1 - trailing].cp)) ++trailing;
        if (leading == 0 && trailing == 0) continue;
        std::size_t &begin = e.begins[i], &end = e.ends[i];
        if (leading > 0) {
            const bool isFirst = i == 0 || begin == 0;
            if (isFirst && addPrefixSpace && leading == 1) leading = 0;
            begin = std::min(begin + leading, end);
        }
        if (trailing > 0 && end >= trailing) end = std::max(end - trailing, begin);
    }
}

void setTypeIds(SeqEncoding &e, std::int32_t typeId)
{
    std::fill(e.typeIds.begin(), e.typeIds.end(), typeId);
}

// One step over the current list of encodings (it may return more pieces than it got, as Template does).
std::vector<SeqEncoding> processStep(const PostStep &step, std::vector<SeqEncoding> encodings, bool addSpecialTokens)
{
    switch (step.kind) {
    case PostStep::Kind::ByteLevel:
        if (step.trimOffsets)
            for (SeqEncoding &e : encodings) trimOffsets(e, step.addPrefixSpace);
        return encodings;
    case PostStep::Kind::Roberta:
        if (step.trimOffsets)
            for (SeqEncoding &e : encodings) trimOffsets(e, step.addPrefixSpace);
        for (SeqEncoding &e : encodings) setTypeIds(e, 0);
        [[fallthrough]];
    case PostStep::Kind::Bert: {
        if (!addSpecialTokens) return encodings;
        std::vector<SeqEncoding> out;
        const bool roberta = step.kind == PostStep::Kind::Roberta;
        for (std::size_t i = 0; i < encodings.size(); ++i) {
            SeqEncoding e;
            if (i == 0) {
                e = specialTokens(step.cls, 0);
                e.append(encodings[i]);
                e.append(specialTokens(step.sep, 0));
            } else {
                // The body keeps its type ids: 1 from process() for BERT, 0 for RoBERTa.
                if (roberta) e = specialTokens(step.sep, 0);
                e.append(encodings[i]);
                e.append(specialTokens(step.sep, roberta ? 0 : 1));
            }
            out.push_back(std::move(e));
        }
        return out;
    }
    case PostStep::Kind::Template: {
        const std::vector<TemplateItem> &items = encodings.size() == 2 ? step.pair : step.single;
        std::vector<SeqEncoding> out;
        for (const TemplateItem &item : items) {
            if (item.isSequence) {
                const std::size_t which = std::min<std::size_t>(static_cast<std::size_t>(item.sequence), encodings.size() - 1);
                SeqEncoding e = encodings[which];
                setTypeIds(e, item.typeId);
                std::fill(e.sequence.begin(), e.sequence.end(), static_cast<std::int8_t>(which));
                out.push_back(std::move(e));
            } else if (addSpecialTokens) {
                out.push_back(specialTokens(item, item.typeId));
            }
        }
        return out;
    }
    }
    return encodings;
}

std::size_t countAdded(const std::vector<TemplateItem> &items)
{
    std::size_t n = 0;
    for (const TemplateItem &item : items) n += item.isSequence ? 0 : item.ids.size();
    return n;
}

} // namespace

std::size_t PostProcessor::addedTokens(bool pair) const
{
    std::size_t n = 0;
    for (const PostStep &s : steps) {
        switch (s.kind) {
        case PostStep::Kind::Template: n += countAdded(pair ? s.pair : s.single); break;
        case PostStep::Kind::Bert: n += pair ? 3 : 2; break;
        case PostStep::Kind::Roberta: n += pair ? 4 : 2; break;
        case PostStep::Kind::ByteLevel: break;
        }
    }
    return n;
}

SeqEncoding PostProcessor::process(std::vector<SeqEncoding> encodings, bool addSpecialTokens) const
{
    if (present) {
        // tokenizers' PostProcessor::process: sequence i gets type id i before the processors run.
        for (std::size_t i = 0; i < encodings.size(); ++i) setTypeIds(encodings[i], static_cast<std::int32_t>(i));
        for (const PostStep &step : steps) encodings = processStep(step, std::move(encodings), addSpecialTokens);
    }
    if (encodings.size() == 1) return std::move(encodings.front());
    SeqEncoding merged;
    for (const SeqEncoding &e : encodings) merged.append(e);
    return merged;
}

} // namespace attn::tokenizer
