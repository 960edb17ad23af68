// SPDX-License-Identifier: GPL-3.0-or-later
// The .npy reader (npy.h). The header is a Python dict literal; we accept exactly the subset NumPy writes
// ({'descr': '<f4', 'fortran_order': False, 'shape': (3, 224, 224), }) with a hand-written scanner, never an
// evaluator, and check every size before touching the data.
#include <attnscope/npy.h>

#include <bit>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>

namespace attn {

namespace {

constexpr std::size_t kMaxHeaderBytes = 1 << 16;
constexpr std::size_t kMaxDims = 8;

struct Header {
    std::optional<std::string> descr;
    std::optional<bool> fortranOrder;
    std::optional<std::vector<std::int64_t>> shape;
};

class HeaderScanner {
public:
    HeaderScanner(std::string_view text, const std::string &source) : m_text(text), m_source(source) {}

    Result<Header> scan()
    {
        Header h;
        skipSpace();
        if (!consume('{')) return fail("the header is not a dict literal");
        for (;;) {
            skipSpace();
            if (consume('}')) break;
            auto key = readString();
            if (!key) return fail("a header key is not a quoted string");
            skipSpace();
            if (!consume(':')) return fail("no ':' after header key '" + *key + "'");
            skipSpace();
            if (*key == "descr") {
                auto v = readString();
                if (!v) return field("descr", "is not a string");
                h.descr = *v;
            } else if (*key == "fortran_order") {
                if (readWord("True")) h.fortranOrder = true;
                else if (readWord("False")) h.fortranOrder = false;
                else return field("fortran_order", "is not True or False");
            } else if (*key == "shape") {
                auto s = readShape();
                if (!s) return s.status();
                h.shape = std::move(*s);
            } else {
                return fail("unknown header field '" + *key + "'");
            }
            skipSpace();
            if (consume(',')) continue;
            skipSpace();
            if (consume('}')) break;
            return fail("expected ',' or '}' after header field '" + *key + "'");
        }
        return h;
    }

private:
    Status fail(const std::string &what) const
    {
        return {ErrorCode::FormatError, m_source + ": .npy header: " + what};
    }
    Status field(const std::string &name, const std::string &what) const
    {
        return {ErrorCode::FormatError, m_source + ": .npy header field '" + name + "' " + what};
    }
    void skipSpace()
    {
        while (m_pos < m_text.size() && (m_text[m_pos] == ' ' || m_text[m_pos] == '\n' || m_text[m_pos] == '\t'))
            ++m_pos;
    }
    bool consume(char c)
    {
        if (m_pos < m_text.size() && m_text[m_pos] == c) { ++m_pos; return true; }
        return false;
    }
    bool readWord(std::string_view w)
    {
        if (m_text.substr(m_pos, w.size()) != w) return false;
        m_pos += w.size();
        return true;
    }
    std::optional<std::string> readString()
    {
        if (m_pos >= m_text.size() || (m_text[m_pos] != '\'' && m_text[m_pos] != '"')) return std::nullopt;
        const char quote = m_text[m_pos++];
        const std::size_t end = m_text.find(quote, m_pos);
        if (end == std::string_view::npos) return std::nullopt;
        std::string s(m_text.substr(m_pos, end - m_pos));
        m_pos = end + 1;
        return s;
    }
    Result<std::vector<std::int64_t>> readShape()
    {
        if (!consume('(')) return field("shape", "is not a tuple");
        std::vector<std::int64_t> dims;
        for (;;) {
            skipSpace();
            if (consume(')')) break;
            std::int64_t v = 0;
            std::size_t digits = 0;
            while (m_pos < m_text.size() && m_text[m_pos] >= '0' && m_text[m_pos] <= '9') {
                if (v > (std::numeric_limits<std::int64_t>::max() - 9) / 10) return field("shape", "has a too large size");
                v = v * 10 + (m_text[m_pos++] - '0');
                ++digits;
            }
            if (digits == 0) return field("shape", "holds something other than non-negative integers");
            dims.push_back(v);
            if (dims.size() > kMaxDims) return field("shape", "has more than 8 dimensions");
            skipSpace();
            if (consume(',')) continue;
            skipSpace();
            if (consume(')')) break;
            return field("shape", "is not a tuple of integers");
        }
        return dims;
    }

    std::string_view m_text;
    const std::string &m_source;
    std::size_t m_pos = 0;
};

} // namespace

Result<NpyArray> parseNpyFloat32(std::string_view bytes, const std::string &source, std::size_t maxDataBytes)
{
    const auto bad = [&](const std::string &what) { return Status{ErrorCode::FormatError, source + ": " + what}; };
    static constexpr char kMagic[] = "\x93NUMPY";
    if (bytes.size() < 10 || std::memcmp(bytes.data(), kMagic, 6) != 0)
        return bad("not a .npy file (no \\x93NUMPY magic)");
    const auto major = static_cast<unsigned char>(bytes[6]);
    const auto minor = static_cast<unsigned char>(bytes[7]);
    if ((major != 1 && major != 2 && major != 3) || minor != 0)
        return bad(".npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                   " is not supported (1.0, 2.0, 3.0)");
    const auto byte = [&](std::size_t i) { return static_cast<std::size_t>(static_cast<unsigned char>(bytes[i])); };
    std::size_t headerLen = 0, headerStart = 0;
    if (major == 1) {
        headerLen = byte(8) | (byte(9) << 8);
        headerStart = 10;
    } else {
        if (bytes.size() < 12) return bad("truncated .npy header");
        headerLen = byte(8) | (byte(9) << 8) | (byte(10) << 16) | (byte(11) << 24);
        headerStart = 12;
    }
    if (headerLen > kMaxHeaderBytes) return bad(".npy header of " + std::to_string(headerLen) + " bytes (limit 65536)");
    if (headerStart + headerLen > bytes.size()) return bad("truncated .npy header");

    auto header = HeaderScanner(bytes.substr(headerStart, headerLen), source).scan();
    if (!header) return header.status();
    const auto missing = [&](const char *name) { return bad(".npy header field '" + std::string(name) + "' is missing"); };
    if (!header->descr) return missing("descr");
    if (!header->fortranOrder) return missing("fortran_order");
    if (!header->shape) return missing("shape");
    if (*header->descr != "<f4")
        return bad(".npy header field 'descr' is '" + *header->descr + "'; expected '<f4' (float32, little-endian)");
    if (*header->fortranOrder) return bad(".npy header field 'fortran_order' is True; expected False (C order)");

    std::size_t count = 1;
    for (const std::int64_t d : *header->shape) {
        if (d != 0 && count > maxDataBytes / 4 / static_cast<std::size_t>(d))
            return bad(".npy header field 'shape' holds more data than the limit of " + std::to_string(maxDataBytes) +
                       " bytes");
        count *= static_cast<std::size_t>(d);
    }
    const std::size_t dataStart = headerStart + headerLen;
    const std::size_t dataBytes = bytes.size() - dataStart;
    if (dataBytes != count * 4)
        return bad("the data holds " + std::to_string(dataBytes) + " bytes but 'shape' needs " +
                   std::to_string(count * 4));

    NpyArray out;
    out.shape = std::move(*header->shape);
    out.values.resize(count);
    if (count > 0) std::memcpy(out.values.data(), bytes.data() + dataStart, count * 4);
    if constexpr (std::endian::native == std::endian::big) {
        for (float &f : out.values) {
            std::uint32_t u;
            std::memcpy(&u, &f, 4);
            u = (u >> 24) | ((u >> 8) & 0xff00u) | ((u << 8) & 0xff0000u) | (u << 24);
            std::memcpy(&f, &u, 4);
        }
    }
    return out;
}

Result<NpyArray> readNpyFloat32(const std::string &path, std::size_t maxDataBytes)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status{ErrorCode::IoError, path + ": cannot open the file"};
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    if (size < 0) return Status{ErrorCode::IoError, path + ": cannot read the file"};
    if (static_cast<std::size_t>(size) > maxDataBytes + kMaxHeaderBytes + 16)
        return Status{ErrorCode::FormatError, path + ": " + std::to_string(size) + " bytes is over the limit of " +
                                                  std::to_string(maxDataBytes) + " bytes of data"};
    in.seekg(0);
    std::string bytes(static_cast<std::size_t>(size), '\0');
    if (!in.read(bytes.data(), size)) return Status{ErrorCode::IoError, path + ": cannot read the file"};
    return parseNpyFloat32(bytes, path, maxDataBytes);
}

} // namespace attn
