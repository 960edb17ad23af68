// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reading NumPy .npy files (the writer is attentionNpy() in export.h). Only what AttnScope needs and can check:
// dtype '<f4' (float32, little-endian), fortran_order False (C order), 1 to 8 dimensions, format versions 1.0,
// 2.0 and 3.0. Files are untrusted: the header is parsed by hand (no Python literal evaluation), its length, the
// shape's product and the data size are checked before anything is copied, and every refusal names the file and
// the header field ("F.npy: header field 'descr' is '<f8' (float64); expected '<f4' (float32)").

#include <attnscope/status.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attn {

struct NpyArray {
    std::vector<std::int64_t> shape;   // as in the header; () is a scalar with one value
    std::vector<float> values;         // C order
};

inline constexpr std::size_t kNpyDefaultMaxBytes = std::size_t(1) << 30;

// `bytes` is the whole file; `source` names it in messages. Data beyond the shape's size is refused, as is a
// file shorter than the shape says.
Result<NpyArray> parseNpyFloat32(std::string_view bytes, const std::string &source,
                                 std::size_t maxDataBytes = kNpyDefaultMaxBytes);
Result<NpyArray> readNpyFloat32(const std::string &path, std::size_t maxDataBytes = kNpyDefaultMaxBytes);

} // namespace attn
