// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Strict UTF-8 validation (Unicode Table 3-7): overlong forms, surrogates (U+D800..DFFF), code points above
// U+10FFFF and truncated sequences are invalid. For texts that are refused when broken (--text, --text-file).

#include <cstddef>
#include <string_view>

namespace attn {

// The byte offset of the first byte that does not start a valid UTF-8 sequence, or npos when all of `bytes` is
// valid UTF-8.
std::size_t firstInvalidUtf8(std::string_view bytes);

} // namespace attn
