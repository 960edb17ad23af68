// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Typed, limit-checked reads of config.json fields. The first error is kept and later reads do nothing, so a
// family's mapping reads its fields in a row and checks status() once; every message names the file and the
// field, and says the value and the limit.
#include <attnscope/modelconfig.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

namespace attn::detail {

class Fields {
public:
    Fields(const nlohmann::json &root, std::string label) : m_root(root), m_label(std::move(label)) {}

    const Status &status() const { return m_status; }
    bool ok() const { return m_status.isOk(); }
    const std::string &label() const { return m_label; }
    const nlohmann::json &root() const { return m_root; }

    // The first of `names` present (aliases), or nullptr; `which` gets the name found.
    const nlohmann::json *find(std::initializer_list<const char *> names, std::string *which = nullptr) const;

    // An integer in [minimum, maximum]. Absent or null: `fallback`, or an error when there is none.
    std::int64_t integer(std::initializer_list<const char *> names, std::optional<std::int64_t> fallback,
                         std::int64_t minimum, std::int64_t maximum);
    // An integer or null (token ids); must fit [minimum, maximum] when present.
    std::optional<std::int64_t> optionalInteger(const char *name, std::int64_t minimum = INT64_MIN,
                                                std::int64_t maximum = INT64_MAX);
    // A finite number in (0, maximum] when `positive`, else in [-maximum, maximum]; absent: `fallback`.
    double number(std::initializer_list<const char *> names, double fallback, bool positive, double maximum);
    // The same, nullopt when absent or null.
    std::optional<double> optionalNumber(const char *name, bool positive, double maximum);
    // A norm epsilon in [kConfigLimits.minEps, kConfigLimits.maxEps], as the float32 the kernels use.
    float epsilon(std::initializer_list<const char *> names, double fallback);
    bool boolean(const char *name, bool fallback);
    std::string string(std::initializer_list<const char *> names, std::optional<std::string> fallback);

    void fail(const std::string &what);

private:
    const nlohmann::json &m_root;
    std::string m_label;
    Status m_status;
};

// "a fractional number", "an integer", "null", "a string", ... for messages.
std::string jsonTypeOf(const nlohmann::json &j);

// Checked arithmetic for sizes: false on overflow (the result is then unspecified).
inline bool mulChecked(std::uint64_t a, std::uint64_t b, std::uint64_t &out) { return !__builtin_mul_overflow(a, b, &out); }
inline bool addChecked(std::uint64_t a, std::uint64_t b, std::uint64_t &out) { return !__builtin_add_overflow(a, b, &out); }

// Family mappings (config.cpp, families.cpp): fill `c` from the fields. `c.modelType` is set; each returns
// the first error.
Status mapGpt2(Fields &f, ModelConfig &c);
Status mapEncoder(Fields &f, ModelConfig &c);   // bert, roberta, distilbert
Status mapLlamaFamily(Fields &f, ModelConfig &c);   // llama, mistral, qwen2, qwen3, gemma, gemma2, gemma3_text, phi3
Status mapGptNeoX(Fields &f, ModelConfig &c);

} // namespace attn::detail
