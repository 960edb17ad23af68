// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A validating safetensors reader (huggingface/safetensors "Format").
//
//   bytes 0..7      N: header length, u64 little-endian        (N <= 100'000'000 and N <= file size - 8)
//   bytes 8..8+N    UTF-8 JSON object {"NAME": {"dtype": "F32", "shape": [rows, cols], "data_offsets": [BEGIN, END]},
//                   ..., "__metadata__": {"key": "value"}}      starts with '{', may end in spaces/tabs/newlines
//   bytes 8+N..     data region; tensor NAME occupies file bytes [8+N+BEGIN, 8+N+END), little-endian, row-major
//
// open() checks the whole header before any tensor byte is read: the length prefix, the JSON (no duplicate keys),
// every entry (a known dtype, non-negative shape, two offsets BEGIN <= END, END - BEGIN == numel * dtype size,
// computed without overflow), and the layout of the data region (sorted by offset the tensors tile it from 0 with
// no gap and no overlap, and the last END is the end of the file). Every message names the file and the tensor
// or field. Nothing here throws or aborts.
//
// The header check is O(t log t) in the number of tensors t (sorted by offset for the gap/overlap check; the
// duplicate-key check is a SAX pass, since nlohmann's callback parser rescans each object on every entry).
//
// Tensor bytes are read on demand (readFloat32). open() memory-maps the file read-only (falling back to reads
// where it cannot), and each readFloat32 releases the mapped pages of the tensor it converted (madvise
// MADV_DONTNEED), so converting a checkpoint tensor by tensor never holds a second full copy of it in memory.
// F32 is copied, F16 and BF16 are widened to float (subnormals, Inf and NaN preserved); other dtypes are listed
// and validated but cannot be read as float.

#include <attnscope/status.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace attn {

// Every dtype name the format defines. Sizes are in bits because F4 and F6_* pack several values per byte.
enum class SafetensorsDType {
    BOOL, U8, I8, I16, U16, I32, U32, I64, U64,
    F4, F6_E2M3, F6_E3M2, F8_E5M2, F8_E4M3, F8_E8M0, F8_E4M3FNUZ, F8_E5M2FNUZ,
    F16, BF16, F32, F64, C64,
};
std::string safetensorsDTypeName(SafetensorsDType dtype);              // "F32"
bool parseSafetensorsDType(const std::string &name, SafetensorsDType &out);
int safetensorsDTypeBits(SafetensorsDType dtype);                       // F32: 32, F4: 4, C64: 64
bool isFloatReadable(SafetensorsDType dtype);                           // F32, F16, BF16

struct SafetensorsTensor {
    std::string name;
    SafetensorsDType dtype = SafetensorsDType::F32;
    std::vector<std::int64_t> shape;   // empty: a scalar (one element)
    std::uint64_t begin = 0;           // byte offsets inside the data region, end exclusive
    std::uint64_t end = 0;

    std::int64_t numel() const;        // product of shape (1 for a scalar); fits, checked at open
    std::string shapeString() const;   // "[72, 216]"
};

// Maximum header length accepted (the reference reader's MAX_HEADER_SIZE).
inline constexpr std::uint64_t kSafetensorsMaxHeader = 100'000'000;

class SafetensorsFile {
public:
    // Reads and validates the header of the file at `path` (IoError if it cannot be read, FormatError otherwise).
    static Result<SafetensorsFile> open(const std::string &path);
    // The same checks on a complete file image held in memory; `label` names it in messages.
    static Result<SafetensorsFile> fromBytes(std::vector<unsigned char> bytes, const std::string &label);

    const std::string &path() const { return m_label; }
    std::uint64_t fileSize() const { return m_fileSize; }
    std::uint64_t headerLength() const { return m_headerLength; }
    const std::vector<SafetensorsTensor> &tensors() const { return m_tensors; }   // in data-offset order
    const std::map<std::string, std::string> &metadata() const { return m_metadata; }
    const SafetensorsTensor *find(const std::string &name) const;   // nullptr when absent

    // The tensor's values as fp32, row-major in its own shape. FormatError for dtypes other than F32/F16/BF16,
    // IoError if the file changed or cannot be read any more.
    Result<std::vector<float>> readFloat32(const std::string &name) const;
    Result<std::vector<float>> readFloat32(const SafetensorsTensor &tensor) const;
    // The same into `dst`, which holds tensor.numel() floats.
    Status readFloat32Into(const SafetensorsTensor &tensor, float *dst) const;
    bool isMapped() const { return m_map != nullptr; }

private:
    static Result<SafetensorsFile> parse(std::string label, std::uint64_t fileSize,
                                         const unsigned char *prefix8, const std::string &headerText);
    Status readBytes(std::uint64_t offset, std::size_t count, unsigned char *dst) const;

    std::string m_label;
    std::uint64_t m_fileSize = 0;
    std::uint64_t m_headerLength = 0;
    std::vector<SafetensorsTensor> m_tensors;
    std::map<std::string, std::size_t> m_index;
    std::map<std::string, std::string> m_metadata;
    std::shared_ptr<const std::vector<unsigned char>> m_memory;   // fromBytes() only
    struct Mapping;
    std::shared_ptr<const Mapping> m_map;                          // open(): the whole file, read-only
};

// Widening conversions used by readFloat32 (exposed for tests).
float halfToFloat(std::uint16_t bits);
float bfloat16ToFloat(std::uint16_t bits);

} // namespace attn
