// SPDX-License-Identifier: GPL-3.0-or-later
// Normalizers, each as Hugging Face's NormalizedString operations so that the alignments (and so the offsets) come
// out the same. Inside BertNormalizer the order is clean-up, CJK padding, accent stripping (NFD, then drop Mn),
// lower-casing: stripping before lower-casing matters for İ (U+0130 → I, not i̇).

#include "pipeline.h"
#include "precompiled.h"

namespace attn::tokenizer {

namespace {

void bertNormalize(const NormalizerStep &step, NormalizedText &text)
{
    if (step.cleanText) {
        text.filter([](char32_t cp) { return !(cp == 0 || cp == 0xFFFD || isBertControl(cp)); });
        text.map([](char32_t cp) { return isWhitespace(cp) ? U' ' : cp; });
    }
    if (step.chineseChars) {
        Changes changes;
        changes.reserve(text.chars.size());
        for (const Char &c : text.chars) {
            if (isChineseChar(c.cp)) {
                changes.push_back({U' ', 0});
                changes.push_back({c.cp, 1});
                changes.push_back({U' ', 1});
            } else {
                changes.push_back({c.cp, 0});
            }
        }
        text.transform(changes);
    }
    if (step.stripAccents) {
        text.normalize(NormalForm::NFD);
        text.filter([](char32_t cp) { return !isBertNonspacingMark(cp); });
    }
    if (step.lowercase) text.lowercase();
}

// SentencePiece's "nmt" rules (tokenizers' Nmt normalizer): drop ASCII controls, map other spaces to ' '.
void nmtNormalize(NormalizedText &text)
{
    text.filter([](char32_t cp) {
        return !((cp >= 0x1 && cp <= 0x8) || cp == 0xB || (cp >= 0xE && cp <= 0x1F) || cp == 0x7F || cp == 0x8F
                 || cp == 0x9F);
    });
    text.map([](char32_t cp) -> char32_t {
        switch (cp) {
        case 0x9: case 0xA: case 0xC: case 0xD: case 0x1680: case 0x2028: case 0x2029: case 0x2581: case 0xFEFF:
        case 0xFFFD:
            return U' ';
        default: return (cp >= 0x200B && cp <= 0x200F) ? U' ' : cp;
        }
    });
}

} // namespace

void normalize(const std::vector<NormalizerStep> &steps, NormalizedText &text)
{
    for (const NormalizerStep &step : steps) {
        switch (step.kind) {
        case NormalizerStep::Kind::Bert: bertNormalize(step, text); break;
        case NormalizerStep::Kind::Lowercase: text.lowercase(); break;
        case NormalizerStep::Kind::Nfd: text.normalize(NormalForm::NFD); break;
        case NormalizerStep::Kind::Nfkd: text.normalize(NormalForm::NFKD); break;
        case NormalizerStep::Kind::Nfc: text.normalize(NormalForm::NFC); break;
        case NormalizerStep::Kind::Nfkc: text.normalize(NormalForm::NFKC); break;
        case NormalizerStep::Kind::StripAccents: text.filter([](char32_t cp) { return !isMark(cp); }); break;
        case NormalizerStep::Kind::Strip: text.strip(step.left, step.right); break;
        case NormalizerStep::Kind::Prepend:
            if (!text.empty()) text.prepend(step.content);
            break;
        case NormalizerStep::Kind::Replace: text.replace(regexSpans(*step.regex, text), step.content); break;
        case NormalizerStep::Kind::Precompiled: step.precompiled->normalize(text); break;
        case NormalizerStep::Kind::Nmt: nmtNormalize(text); break;
        case NormalizerStep::Kind::ByteLevel:
            if (!text.empty()) byteLevelMap(text);
            break;
        }
    }
}

} // namespace attn::tokenizer
