// SPDX-License-Identifier: GPL-3.0-or-later
// UTF-8 validation for inputs that must be refused, not repaired (utf8.h). Written apart from the tokenizer's own
// decoder on purpose: the fuzz harnesses check one against the other.
#include <attnscope/utf8.h>

namespace attn {

std::size_t firstInvalidUtf8(std::string_view bytes)
{
    // Unicode Table 3-7: the lead byte fixes the length and the range of the second byte (no overlong forms, no
    // surrogates, nothing above U+10FFFF); later bytes are 80..BF.
    std::size_t i = 0;
    const auto at = [&](std::size_t k) { return static_cast<unsigned char>(bytes[k]); };
    while (i < bytes.size()) {
        const unsigned char b = at(i);
        int length = 0;
        unsigned char lo = 0x80, hi = 0xBF;
        if (b < 0x80) length = 1;
        else if (b >= 0xC2 && b <= 0xDF) length = 2;
        else if (b == 0xE0) length = 3, lo = 0xA0;
        else if (b == 0xED) length = 3, hi = 0x9F;
        else if (b >= 0xE1 && b <= 0xEF) length = 3;
        else if (b == 0xF0) length = 4, lo = 0x90;
        else if (b >= 0xF1 && b <= 0xF3) length = 4;
        else if (b == 0xF4) length = 4, hi = 0x8F;
        else return i;
        if (i + static_cast<std::size_t>(length) > bytes.size()) return i;
        for (int k = 1; k < length; ++k) {
            const unsigned char c = at(i + static_cast<std::size_t>(k));
            if (k == 1 ? (c < lo || c > hi) : (c < 0x80 || c > 0xBF)) return i;
        }
        i += static_cast<std::size_t>(length);
    }
    return std::string_view::npos;
}

} // namespace attn
