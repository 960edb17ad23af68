// SPDX-License-Identifier: GPL-3.0-or-later
// Validating safetensors reader: every rule of the reference reader (safetensors/src/tensor.rs) is checked on the
// header before a tensor byte is touched; messages name the file and the tensor or field.
#include <attnscope/safetensors.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace attn {

using nlohmann::json;

namespace {

struct DTypeInfo {
    SafetensorsDType dtype;
    const char *name;
    int bits;
};

constexpr std::array<DTypeInfo, 22> kDTypes{{
    {SafetensorsDType::BOOL, "BOOL", 8},       {SafetensorsDType::U8, "U8", 8},
    {SafetensorsDType::I8, "I8", 8},           {SafetensorsDType::I16, "I16", 16},
    {SafetensorsDType::U16, "U16", 16},        {SafetensorsDType::I32, "I32", 32},
    {SafetensorsDType::U32, "U32", 32},        {SafetensorsDType::I64, "I64", 64},
    {SafetensorsDType::U64, "U64", 64},        {SafetensorsDType::F4, "F4", 4},
    {SafetensorsDType::F6_E2M3, "F6_E2M3", 6}, {SafetensorsDType::F6_E3M2, "F6_E3M2", 6},
    {SafetensorsDType::F8_E5M2, "F8_E5M2", 8}, {SafetensorsDType::F8_E4M3, "F8_E4M3", 8},
    {SafetensorsDType::F8_E8M0, "F8_E8M0", 8}, {SafetensorsDType::F8_E4M3FNUZ, "F8_E4M3FNUZ", 8},
    {SafetensorsDType::F8_E5M2FNUZ, "F8_E5M2FNUZ", 8},
    {SafetensorsDType::F16, "F16", 16},        {SafetensorsDType::BF16, "BF16", 16},
    {SafetensorsDType::F32, "F32", 32},        {SafetensorsDType::F64, "F64", 64},
    {SafetensorsDType::C64, "C64", 64},
}};

Status formatError(const std::string &label, const std::string &what)
{
    return {ErrorCode::FormatError, label + ": " + what};
}

std::string jsonTypeName(const json &j)
{
    if (j.is_number_float()) return "a fractional number";
    if (j.is_number_integer() && !j.is_number_unsigned()) return "a negative number";
    return std::string("a ") + j.type_name();
}

// Duplicate keys are not allowed in a header; nlohmann keeps the last one silently. A SAX pass tracks the keys
// of each open object. (nlohmann's callback parser would do it too, but it rescans the parent object for a
// discarded value at the end of every entry: quadratic in the number of tensors.)
class DuplicateKeySax : public json::json_sax_t {
public:
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t &) override { return true; }
    bool string(string_t &) override { return true; }
    bool binary(binary_t &) override { return true; }
    bool start_object(std::size_t) override
    {
        m_stack.emplace_back();
        return true;
    }
    bool end_object() override
    {
        if (!m_stack.empty()) m_stack.pop_back();
        return true;
    }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool key(string_t &k) override
    {
        if (!m_stack.empty() && !m_stack.back().insert(k).second) {
            m_duplicate = k;
            return false;   // stop: the first duplicate is the answer
        }
        return true;
    }
    bool parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &) override { return false; }
    const std::string &duplicate() const { return m_duplicate; }

private:
    std::vector<std::set<std::string>> m_stack;
    std::string m_duplicate;
};

// Reads a non-negative JSON integer into a u64; false for anything else.
bool asUnsigned(const json &j, std::uint64_t &out)
{
    if (!j.is_number_unsigned()) return false;
    out = j.get<std::uint64_t>();
    return true;
}

std::uint64_t readLe64(const unsigned char *p)
{
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

} // namespace

std::string safetensorsDTypeName(SafetensorsDType dtype)
{
    for (const auto &d : kDTypes)
        if (d.dtype == dtype) return d.name;
    return "?";
}

bool parseSafetensorsDType(const std::string &name, SafetensorsDType &out)
{
    for (const auto &d : kDTypes)
        if (name == d.name) {
            out = d.dtype;
            return true;
        }
    return false;
}

int safetensorsDTypeBits(SafetensorsDType dtype)
{
    for (const auto &d : kDTypes)
        if (d.dtype == dtype) return d.bits;
    return 0;
}

bool isFloatReadable(SafetensorsDType dtype)
{
    return dtype == SafetensorsDType::F32 || dtype == SafetensorsDType::F16 || dtype == SafetensorsDType::BF16;
}

std::int64_t SafetensorsTensor::numel() const
{
    std::int64_t n = 1;
    for (std::int64_t d : shape) n *= d;
    return n;
}

std::string SafetensorsTensor::shapeString() const
{
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

float halfToFloat(std::uint16_t h)
{
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    std::uint32_t exponent = (h >> 10) & 0x1Fu;
    std::uint32_t mantissa = h & 0x3FFu;
    std::uint32_t bits;
    if (exponent == 0x1F) {
        bits = sign | 0x7F800000u | (mantissa << 13);   // Inf or NaN (payload kept)
    } else if (exponent != 0) {
        bits = sign | ((exponent + 112u) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
        bits = sign;                                      // ±0
    } else {
        // Subnormal half: normalise the mantissa into a float exponent.
        exponent = 113;
        while (!(mantissa & 0x400u)) {
            mantissa <<= 1;
            --exponent;
        }
        mantissa &= 0x3FFu;
        bits = sign | (exponent << 23) | (mantissa << 13);
    }
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

float bfloat16ToFloat(std::uint16_t b)
{
    const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

// The whole file mapped read-only. The descriptor stays open so each read can check that the file still has
// the size its header was validated against (a truncated mapping would fault instead of failing).
struct SafetensorsFile::Mapping {
    int fd = -1;
    void *addr = nullptr;
    std::size_t size = 0;
    ~Mapping()
    {
        if (addr) munmap(addr, size);
        if (fd >= 0) ::close(fd);
    }
};

Result<SafetensorsFile> SafetensorsFile::open(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status(ErrorCode::IoError, path + ": cannot open the file for reading");
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    if (size < 0) return Status(ErrorCode::IoError, path + ": cannot determine the file size");
    const auto fileSize = static_cast<std::uint64_t>(size);
    if (fileSize < 8)
        return formatError(path, "the file is " + std::to_string(fileSize) +
                                     " bytes long, shorter than the 8-byte header length that starts a safetensors file "
                                     "(truncated?)");
    in.seekg(0);
    unsigned char prefix[8];
    if (!in.read(reinterpret_cast<char *>(prefix), 8))
        return Status(ErrorCode::IoError, path + ": cannot read the header length");
    const std::uint64_t n = readLe64(prefix);
    std::string header;
    if (n <= kSafetensorsMaxHeader && n <= fileSize - 8) {
        header.resize(static_cast<std::size_t>(n));
        if (n > 0 && !in.read(header.data(), static_cast<std::streamsize>(n)))
            return Status(ErrorCode::IoError, path + ": cannot read the " + std::to_string(n) + "-byte header");
    }
    auto parsed = parse(path, fileSize, prefix, header);
    if (!parsed) return parsed;
    // Map it; without a mapping (some special files) readFloat32 falls back to reading.
    auto map = std::make_shared<Mapping>();
    map->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (map->fd >= 0 && fstat(map->fd, &st) == 0 && S_ISREG(st.st_mode) &&
        static_cast<std::uint64_t>(st.st_size) == fileSize && fileSize <= std::numeric_limits<std::size_t>::max()) {
        void *addr = mmap(nullptr, static_cast<std::size_t>(fileSize), PROT_READ, MAP_PRIVATE, map->fd, 0);
        if (addr != MAP_FAILED) {
            map->addr = addr;
            map->size = static_cast<std::size_t>(fileSize);
            parsed->m_map = std::move(map);
        }
    }
    return parsed;
}

Result<SafetensorsFile> SafetensorsFile::fromBytes(std::vector<unsigned char> bytes, const std::string &label)
{
    const auto fileSize = static_cast<std::uint64_t>(bytes.size());
    if (fileSize < 8)
        return formatError(label, "the file is " + std::to_string(fileSize) +
                                      " bytes long, shorter than the 8-byte header length that starts a safetensors "
                                      "file (truncated?)");
    const std::uint64_t n = readLe64(bytes.data());
    std::string header;
    if (n <= kSafetensorsMaxHeader && n <= fileSize - 8)
        header.assign(reinterpret_cast<const char *>(bytes.data()) + 8, static_cast<std::size_t>(n));
    auto memory = std::make_shared<const std::vector<unsigned char>>(std::move(bytes));
    auto parsed = parse(label, fileSize, memory->data(), header);
    if (!parsed) return parsed;
    parsed->m_memory = std::move(memory);
    return parsed;
}

Result<SafetensorsFile> SafetensorsFile::parse(std::string label, std::uint64_t fileSize,
                                               const unsigned char *prefix8, const std::string &header)
{
    const std::uint64_t n = readLe64(prefix8);
    if (n > kSafetensorsMaxHeader)
        return formatError(label, "header length " + std::to_string(n) + " (bytes 0-7) exceeds the maximum of " +
                                      std::to_string(kSafetensorsMaxHeader) + " bytes");
    if (n > fileSize - 8)
        return formatError(label, "header length " + std::to_string(n) + " (bytes 0-7) is larger than the " +
                                      std::to_string(fileSize - 8) +
                                      " bytes that follow it in the file (truncated or not a safetensors file?)");
    if (header.empty() || header.front() != '{')
        return formatError(label, "the header (bytes 8-" + std::to_string(8 + n) +
                                      ") must be a JSON object starting with '{'");

    json root;
    try {
        root = json::parse(header.begin(), header.end());
    } catch (const json::exception &e) {
        return formatError(label, std::string("the header is not valid JSON: ") + e.what());
    }
    DuplicateKeySax detector;
    json::sax_parse(header.begin(), header.end(), &detector);
    if (!detector.duplicate().empty())
        return formatError(label, "the header has the key '" + detector.duplicate() + "' more than once");
    if (!root.is_object()) return formatError(label, "the header must be a JSON object");

    SafetensorsFile file;
    file.m_label = std::move(label);
    file.m_fileSize = fileSize;
    file.m_headerLength = n;
    const std::uint64_t dataSize = fileSize - 8 - n;
    const std::string &lbl = file.m_label;

    for (auto it = root.begin(); it != root.end(); ++it) {
        const std::string &name = it.key();
        const json &entry = it.value();
        if (name == "__metadata__") {
            if (!entry.is_object())
                return formatError(lbl, "__metadata__ must be an object of strings, but is " + jsonTypeName(entry));
            for (auto m = entry.begin(); m != entry.end(); ++m) {
                if (!m.value().is_string())
                    return formatError(lbl, "__metadata__ field '" + m.key() + "' must be a string, but is " +
                                                jsonTypeName(m.value()));
                file.m_metadata[m.key()] = m.value().get<std::string>();
            }
            continue;
        }
        const std::string where = "tensor '" + name + "'";
        if (!entry.is_object())
            return formatError(lbl, where + " must be an object with dtype, shape and data_offsets, but is " +
                                        jsonTypeName(entry));
        SafetensorsTensor t;
        t.name = name;

        const auto dtypeIt = entry.find("dtype");
        if (dtypeIt == entry.end()) return formatError(lbl, where + " has no 'dtype'");
        if (!dtypeIt->is_string())
            return formatError(lbl, where + ": 'dtype' must be a string, but is " + jsonTypeName(*dtypeIt));
        if (!parseSafetensorsDType(dtypeIt->get<std::string>(), t.dtype))
            return formatError(lbl, where + " has unknown dtype '" + dtypeIt->get<std::string>() + "'");

        const auto shapeIt = entry.find("shape");
        if (shapeIt == entry.end()) return formatError(lbl, where + " has no 'shape'");
        if (!shapeIt->is_array())
            return formatError(lbl, where + ": 'shape' must be an array, but is " + jsonTypeName(*shapeIt));
        std::uint64_t numel = 1;
        for (std::size_t d = 0; d < shapeIt->size(); ++d) {
            std::uint64_t extent = 0;
            if (!asUnsigned((*shapeIt)[d], extent))
                return formatError(lbl, where + ": shape[" + std::to_string(d) +
                                            "] must be a non-negative integer, but is " + jsonTypeName((*shapeIt)[d]));
            if (extent > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ||
                __builtin_mul_overflow(numel, extent, &numel))
                return formatError(lbl, where + ": the element count of shape " + shapeIt->dump() +
                                            " overflows 64 bits");
            t.shape.push_back(static_cast<std::int64_t>(extent));
        }
        if (numel > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            return formatError(lbl, where + ": the element count of shape " + shapeIt->dump() + " overflows");

        const auto offIt = entry.find("data_offsets");
        if (offIt == entry.end()) return formatError(lbl, where + " has no 'data_offsets'");
        if (!offIt->is_array() || offIt->size() != 2)
            return formatError(lbl, where + ": 'data_offsets' must be an array of two integers [BEGIN, END], but is " +
                                        offIt->dump());
        if (!asUnsigned((*offIt)[0], t.begin) || !asUnsigned((*offIt)[1], t.end))
            return formatError(lbl, where + ": 'data_offsets' " + offIt->dump() +
                                        " must hold two non-negative integers");
        if (t.begin > t.end)
            return formatError(lbl, where + ": data_offsets " + offIt->dump() + " has BEGIN after END");

        std::uint64_t bits = 0;
        if (__builtin_mul_overflow(numel, static_cast<std::uint64_t>(safetensorsDTypeBits(t.dtype)), &bits))
            return formatError(lbl, where + ": the byte size of shape " + t.shapeString() + " overflows 64 bits");
        if (bits % 8 != 0)
            return formatError(lbl, where + ": " + std::to_string(numel) + " elements of " +
                                        safetensorsDTypeName(t.dtype) + " do not fill a whole number of bytes");
        const std::uint64_t bytes = bits / 8;
        if (t.end - t.begin != bytes)
            return formatError(lbl, where + " (" + safetensorsDTypeName(t.dtype) + ", shape " + t.shapeString() +
                                        ") needs " + std::to_string(bytes) + " bytes, but data_offsets " +
                                        offIt->dump() + " span " + std::to_string(t.end - t.begin));
        if (t.end > dataSize)
            return formatError(lbl, where + ": data_offsets " + offIt->dump() + " end beyond the data region of " +
                                        std::to_string(dataSize) + " bytes (file truncated?)");
        file.m_tensors.push_back(std::move(t));
    }

    // Sorted by offset, the tensors must tile the data region exactly: no overlap, no gap, nothing after.
    std::sort(file.m_tensors.begin(), file.m_tensors.end(), [](const SafetensorsTensor &a, const SafetensorsTensor &b) {
        return a.begin != b.begin ? a.begin < b.begin : (a.end != b.end ? a.end < b.end : a.name < b.name);
    });
    std::uint64_t expected = 0;
    const SafetensorsTensor *previous = nullptr;
    for (const SafetensorsTensor &t : file.m_tensors) {
        if (t.begin < expected)
            return formatError(lbl, "tensor '" + t.name + "' (bytes " + std::to_string(t.begin) + "-" +
                                        std::to_string(t.end) + ") overlaps tensor '" + previous->name + "' (bytes " +
                                        std::to_string(previous->begin) + "-" + std::to_string(previous->end) + ")");
        if (t.begin > expected)
            return formatError(lbl, "tensor '" + t.name + "' starts at data offset " + std::to_string(t.begin) +
                                        ", leaving a gap of " + std::to_string(t.begin - expected) +
                                        " unused bytes before it");
        expected = t.end;
        previous = &t;
    }
    if (expected != dataSize)
        return formatError(lbl, "the data region has " + std::to_string(dataSize) + " bytes but the tensors cover " +
                                    std::to_string(expected) + " (trailing bytes after the last tensor)");
    for (std::size_t i = 0; i < file.m_tensors.size(); ++i) file.m_index[file.m_tensors[i].name] = i;
    return file;
}

const SafetensorsTensor *SafetensorsFile::find(const std::string &name) const
{
    const auto it = m_index.find(name);
    return it == m_index.end() ? nullptr : &m_tensors[it->second];
}

Status SafetensorsFile::readBytes(std::uint64_t offset, std::size_t count, unsigned char *dst) const
{
    if (count == 0) return Status::ok();
    if (m_memory) {
        if (offset + count > m_memory->size())
            return Status(ErrorCode::IoError, m_label + ": read past the end of the buffer");
        std::memcpy(dst, m_memory->data() + offset, count);
        return Status::ok();
    }
    std::ifstream in(m_label, std::ios::binary);
    if (!in) return Status(ErrorCode::IoError, m_label + ": cannot open the file for reading any more");
    in.seekg(0, std::ios::end);
    if (static_cast<std::uint64_t>(in.tellg()) != m_fileSize)
        return Status(ErrorCode::IoError, m_label + ": the file changed size since its header was read");
    in.seekg(static_cast<std::streamoff>(offset));
    if (!in.read(reinterpret_cast<char *>(dst), static_cast<std::streamsize>(count)))
        return Status(ErrorCode::IoError, m_label + ": cannot read " + std::to_string(count) + " bytes at offset " +
                                              std::to_string(offset));
    return Status::ok();
}

Result<std::vector<float>> SafetensorsFile::readFloat32(const std::string &name) const
{
    const SafetensorsTensor *t = find(name);
    if (!t) return formatError(m_label, "has no tensor '" + name + "'");
    return readFloat32(*t);
}

Result<std::vector<float>> SafetensorsFile::readFloat32(const SafetensorsTensor &t) const
{
    if (!isFloatReadable(t.dtype))
        return formatError(m_label, "tensor '" + t.name + "' has dtype " + safetensorsDTypeName(t.dtype) +
                                        "; only F32, F16 and BF16 tensors can be loaded");
    std::vector<float> out(static_cast<std::size_t>(t.numel()));
    if (Status s = readFloat32Into(t, out.data()); !s) return s;
    return out;
}

namespace {

// Little-endian on disk; this reader assumes a little-endian host (x86-64, AArch64).
void widen(const unsigned char *raw, std::size_t count, SafetensorsDType dtype, float *out)
{
    if (dtype == SafetensorsDType::F32) {
        if (count) std::memcpy(out, raw, count * sizeof(float));
        return;
    }
    const bool half = dtype == SafetensorsDType::F16;
    for (std::size_t i = 0; i < count; ++i) {
        const auto bits = static_cast<std::uint16_t>(raw[2 * i] | (raw[2 * i + 1] << 8));
        out[i] = half ? halfToFloat(bits) : bfloat16ToFloat(bits);
    }
}

} // namespace

Status SafetensorsFile::readFloat32Into(const SafetensorsTensor &t, float *dst) const
{
    if (!isFloatReadable(t.dtype))
        return formatError(m_label, "tensor '" + t.name + "' has dtype " + safetensorsDTypeName(t.dtype) +
                                        "; only F32, F16 and BF16 tensors can be loaded");
    const std::size_t count = static_cast<std::size_t>(t.numel());
    const std::size_t bytes = static_cast<std::size_t>(t.end - t.begin);
    const std::uint64_t offset = 8 + m_headerLength + t.begin;
    if (m_map) {
        struct stat st {};
        if (fstat(m_map->fd, &st) != 0 || static_cast<std::uint64_t>(st.st_size) != m_fileSize)
            return Status(ErrorCode::IoError, m_label + ": the file changed size since its header was read");
        const auto *src = static_cast<const unsigned char *>(m_map->addr) + offset;
        widen(src, count, t.dtype, dst);
        // Drop the converted pages from this process (they are clean file pages: touching them again re-reads
        // them, so a page shared with the next tensor stays correct).
        const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
        const auto begin = reinterpret_cast<std::uintptr_t>(src) & ~(page - 1);
        const auto end = reinterpret_cast<std::uintptr_t>(src) + bytes;
        if (end > begin) madvise(reinterpret_cast<void *>(begin), end - begin, MADV_DONTNEED);
        return Status::ok();
    }
    if (m_memory) {
        if (offset + bytes > m_memory->size()) return Status(ErrorCode::IoError, m_label + ": read past the end of the buffer");
        widen(m_memory->data() + offset, count, t.dtype, dst);
        return Status::ok();
    }
    std::vector<unsigned char> raw(bytes);
    if (Status s = readBytes(offset, bytes, raw.data()); !s) return s;
    widen(raw.data(), count, t.dtype, dst);
    return Status::ok();
}

} // namespace attn
