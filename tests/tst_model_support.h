// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Helpers for the model and safetensors suites: build safetensors files byte by byte (so each malformed case
// is explicit in the test), write small files, find the fixture models, and small shared input helpers.

#include <attnscope/model.h>

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QString>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace attn::test {

inline QByteArray le64(std::uint64_t v)
{
    QByteArray b(8, '\0');
    for (int i = 0; i < 8; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
    return b;
}

inline QByteArray floatBytes(const std::vector<float> &values)
{
    QByteArray b(static_cast<qsizetype>(values.size() * 4), '\0');
    if (!values.empty()) std::memcpy(b.data(), values.data(), values.size() * 4);
    return b;
}

// A file from an explicit header text and data: [u64 length][header][data]. `lengthOverride` lies about N.
inline QByteArray rawSafetensors(const QByteArray &header, const QByteArray &data, std::int64_t lengthOverride = -1)
{
    const std::uint64_t n = lengthOverride >= 0 ? static_cast<std::uint64_t>(lengthOverride)
                                                : static_cast<std::uint64_t>(header.size());
    return le64(n) + header + data;
}

struct StTensor {
    std::string name;
    std::string dtype = "F32";
    std::vector<std::int64_t> shape;
    QByteArray data;
};

inline QByteArray shapeJson(const std::vector<std::int64_t> &shape)
{
    QByteArray s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + QByteArray::number(static_cast<qlonglong>(shape[i]));
    return s + "]";
}

// A well-formed file: tensors laid out in the given order, header padded with spaces to a multiple of 8.
inline QByteArray buildSafetensors(const std::vector<StTensor> &tensors, const QByteArray &metadata = "{\"format\":\"pt\"}")
{
    QByteArray header = "{";
    if (!metadata.isEmpty()) header += "\"__metadata__\":" + metadata;
    QByteArray data;
    for (const StTensor &t : tensors) {
        if (header.size() > 1) header += ",";
        const auto begin = data.size();
        data += t.data;
        header += "\"" + QByteArray::fromStdString(t.name) + "\":{\"dtype\":\"" + QByteArray::fromStdString(t.dtype) +
                  "\",\"shape\":" + shapeJson(t.shape) + ",\"data_offsets\":[" + QByteArray::number(begin) + "," +
                  QByteArray::number(data.size()) + "]}";
    }
    header += "}";
    while (header.size() % 8) header += ' ';
    return rawSafetensors(header, data);
}

inline bool writeBytes(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
    return f.write(bytes) == bytes.size();
}

inline QString fixtureModel(const QString &name)
{
    return QStringLiteral(ATTNSCOPE_TEST_DATA_DIR) + "/fixtures/models/" + name;
}

// Smooth deterministic values (for hand-made weights and inputs).
inline std::vector<float> ramp(std::int64_t n, float scale)
{
    std::vector<float> v(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = scale * std::sin(0.7f * static_cast<float>(i) + scale);
    return v;
}

inline ForwardInput ids(std::vector<std::int64_t> tokens)
{
    ForwardInput in;
    in.tokenIds = std::move(tokens);
    return in;
}

inline float maxAbsDiff(const std::vector<float> &a, const std::vector<float> &b)
{
    if (a.size() != b.size()) return INFINITY;
    float m = 0.0f;
    for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(a[i] - b[i]));
    return m;
}

} // namespace attn::test
