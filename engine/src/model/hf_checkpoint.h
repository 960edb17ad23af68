// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reading Hugging Face checkpoint folders for the models outside Model (vit.h, seq2seq.h): config.json fields with
// their types and ranges checked (the first bad one named), and safetensors tensors checked against the shape the
// config implies, every unused tensor reported. Header-only helpers in attn::detail::hf.
#include "model/weights.h"

#include <attnscope/safetensors.h>
#include <attnscope/status.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace attn::detail::hf {

namespace fs = std::filesystem;
using nlohmann::json;

inline Status formatError(const std::string &what) { return {ErrorCode::FormatError, what}; }

inline Result<std::string> readText(const fs::path &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status(ErrorCode::IoError, path.string() + ": cannot open the file for reading");
    std::ostringstream s;
    s << in.rdbuf();
    if (in.bad()) return Status(ErrorCode::IoError, path.string() + ": read error");
    return s.str();
}

// A checkpoint folder and its config.json text.
struct FolderConfig {
    fs::path dir;
    std::string path;   // dir / config.json, for messages
    std::string text;
};
inline Result<FolderConfig> readFolderConfig(const std::string &folder)
{
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) return Status(ErrorCode::IoError, folder + ": not a folder");
    FolderConfig f{fs::path(folder), (fs::path(folder) / "config.json").string(), {}};
    auto text = readText(f.path);
    if (!text) return text.status();
    f.text = std::move(text).value();
    return f;
}
// config.json's model_type, "" when the folder has none (or no readable config.json): how callers pick a loader.
inline std::string folderModelType(const std::string &folder)
{
    auto text = readText(fs::path(folder) / "config.json");
    if (!text) return {};
    const json root = json::parse(*text, nullptr, false);
    const auto it = root.is_object() ? root.find("model_type") : root.end();
    return root.is_object() && it != root.end() && it->is_string() ? it->get<std::string>() : std::string();
}
// dir/model.safetensors, opened and validated (pickle checkpoints are never read).
inline Result<SafetensorsFile> openModelSafetensors(const fs::path &dir)
{
    std::error_code ec;
    const fs::path st = dir / "model.safetensors";
    if (!fs::is_regular_file(st, ec))
        return Status(ErrorCode::IoError, dir.string() + ": no model.safetensors (checkpoints are read from safetensors "
                                                         "only; convert a pytorch_model.bin with transformers' "
                                                         "save_pretrained)");
    return SafetensorsFile::open(st.string());
}

class Fields {
public:
    Fields(const json &root, const std::string &source) : m_root(root), m_source(source) {}
    const Status &status() const { return m_status; }
    const json *get(const char *name) const
    {
        const auto it = m_root.find(name);
        return it == m_root.end() || it->is_null() ? nullptr : &*it;
    }
    void fail(const std::string &field, const std::string &what)
    {
        if (m_status) m_status = formatError(m_source + ": field '" + field + "' " + what);
    }
    std::int64_t integer(const json &j, const std::string &field, std::int64_t lo, std::int64_t hi)
    {
        if (!j.is_number_integer() && !j.is_number_unsigned()) {
            fail(field, "is " + j.dump() + "; expected an integer");
            return lo;
        }
        const auto v = j.get<std::int64_t>();
        if (v < lo || v > hi) fail(field, "is " + std::to_string(v) + "; expected " + std::to_string(lo) + " … " +
                                              std::to_string(hi));
        return v < lo || v > hi ? lo : v;
    }
    std::int64_t integer(const char *name, std::int64_t fallback, std::int64_t lo, std::int64_t hi)
    {
        const json *j = get(name);
        return j ? integer(*j, name, lo, hi) : fallback;
    }
    // An integer or [height, width].
    void pair(const char *name, std::int64_t &h, std::int64_t &w, std::int64_t hi)
    {
        const json *j = get(name);
        if (!j) return;
        if (j->is_array()) {
            if (j->size() != 2) return fail(name, "has " + std::to_string(j->size()) + " entries; expected [height, width]");
            h = integer((*j)[0], std::string(name) + "[0]", 1, hi);
            w = integer((*j)[1], std::string(name) + "[1]", 1, hi);
        } else {
            h = w = integer(*j, name, 1, hi);
        }
    }
    std::string text(const char *name, const std::string &fallback)
    {
        const json *j = get(name);
        if (!j) return fallback;
        if (!j->is_string()) fail(name, "is " + j->dump() + "; expected a string");
        return j->is_string() ? j->get<std::string>() : fallback;
    }
    Activation activation(const char *name, Activation fallback)
    {
        const std::string s = text(name, activationName(fallback));
        const auto a = parseActivation(s);
        if (!a) fail(name, "'" + s + "' is not an activation this engine implements");
        return a.value_or(fallback);
    }

private:
    const json &m_root;
    std::string m_source;
    Status m_status;
};

// dst.w [in, out] from an nn.Linear-style [out, in] matrix.
inline void setTransposed(Linear &dst, const std::vector<float> &w, std::int64_t in, std::int64_t out)
{
    dst.in = in;
    dst.out = out;
    dst.w.resize(w.size());
    for (std::int64_t o = 0; o < out; ++o)
        for (std::int64_t i = 0; i < in; ++i) dst.w[static_cast<std::size_t>(i * out + o)] = w[static_cast<std::size_t>(o * in + i)];
}

class Tensors {
public:
    // `canonical` maps a stored name to the name the loader asks for ("" drops a buffer that is not a weight).
    Tensors(const SafetensorsFile &file, const std::function<std::string(const std::string &)> &canonical)
        : m_file(file)
    {
        for (const SafetensorsTensor &t : file.tensors())
            if (std::string name = canonical(t.name); !name.empty()) m_names[name] = &t;
    }
    const Status &status() const { return m_status; }
    bool has(const std::string &name) const { return m_names.count(name) != 0; }

    std::vector<float> take(const std::string &name, const std::vector<std::int64_t> &shape, const char *why)
    {
        if (!m_status) return {};
        m_used.insert(name);
        const auto it = m_names.find(name);
        if (it == m_names.end()) {
            m_status = formatError(m_file.path() + ": missing tensor '" + name + "' (" + why + ")");
            return {};
        }
        if (it->second->shape != shape) {
            SafetensorsTensor want;
            want.shape = shape;
            m_status = formatError(m_file.path() + ": tensor '" + it->second->name + "' has shape " +
                                   it->second->shapeString() + "; expected " + want.shapeString() + " (" + why + ")");
            return {};
        }
        auto r = m_file.readFloat32(*it->second);
        if (!r) {
            m_status = r.status();
            return {};
        }
        return std::move(r).value();
    }
    void norm(LayerNormWeights &dst, const std::string &prefix, std::int64_t D)
    {
        dst.gamma = take(prefix + ".weight", {D}, "hidden_size");
        dst.beta = take(prefix + ".bias", {D}, "hidden_size");
    }
    // nn.Linear [out, in] (+ [out]) → [in, out].
    void linear(Linear &dst, const std::string &prefix, std::int64_t in, std::int64_t out, bool bias,
                const char *why)
    {
        const std::vector<float> w = take(prefix + ".weight", {out, in}, why);
        if (bias) dst.b = take(prefix + ".bias", {out}, why);
        if (m_status) setTransposed(dst, w, in, out);
    }
    void ignore(const std::string &name) { m_used.insert(name); }
    // `what` says which checkpoint layout was expected: "a ViTModel checkpoint with this config".
    Status checkAllUsed(const std::string &what) const
    {
        if (!m_status) return m_status;
        for (const auto &[name, t] : m_names)
            if (!m_used.count(name))
                return formatError(m_file.path() + ": unexpected tensor '" + t->name +
                                   "' (not part of " + what + ")");
        return Status::ok();
    }

private:
    const SafetensorsFile &m_file;
    std::map<std::string, const SafetensorsTensor *> m_names;
    std::set<std::string> m_used;
    Status m_status;
};

} // namespace attn::detail::hf
