// SPDX-License-Identifier: GPL-3.0-or-later
// Provenance of exports: the build's version and commit, the model folder's file digests (cached per process),
// the backend and kernel. The commit comes from a header the build regenerates (engine/cmake/buildcommit.cmake).
#include <attnscope/provenance.h>

#include <attnscope/dataset.h>
#include <attnscope/textmodel.h>

#include "attnscope_commit.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

namespace attn {

namespace {

namespace fs = std::filesystem;

struct CachedDigest {
    std::uint64_t bytes = 0;
    fs::file_time_type modified;
    std::string sha256;
};

// One digest, from the cache while the file's size and modification time are unchanged.
Result<FileDigest> digestOf(const fs::path &folder, const std::string &name)
{
    static std::mutex mutex;
    static std::map<std::string, CachedDigest> cache;
    const fs::path path = folder / name;
    std::error_code ec;
    const auto bytes = fs::file_size(path, ec);
    const auto modified = ec ? fs::file_time_type{} : fs::last_write_time(path, ec);
    if (ec) return Status(ErrorCode::IoError, path.string() + ": cannot be read (" + ec.message() + ")");
    const std::string key = fs::absolute(path, ec).lexically_normal().string();
    {
        std::lock_guard lock(mutex);
        const auto it = cache.find(key);
        if (it != cache.end() && it->second.bytes == bytes && it->second.modified == modified)
            return FileDigest{name, bytes, it->second.sha256};
    }
    auto sha = sha256File(path.string());
    if (!sha) return sha.status();
    std::lock_guard lock(mutex);
    cache[key] = CachedDigest{bytes, modified, *sha};
    return FileDigest{name, bytes, *sha};
}

// The weight files: model.safetensors, or the sharded index and the shards its weight_map names.
Result<std::vector<std::string>> weightFiles(const fs::path &folder)
{
    if (fs::exists(folder / "model.safetensors")) return std::vector<std::string>{"model.safetensors"};
    const fs::path indexPath = folder / "model.safetensors.index.json";
    std::ifstream in(indexPath);
    if (!in) return std::vector<std::string>{};   // the model opened without weights of ours: nothing to name
    const auto index = nlohmann::json::parse(in, nullptr, false);
    if (index.is_discarded() || !index.contains("weight_map") || !index["weight_map"].is_object())
        return Status(ErrorCode::FormatError, indexPath.string() + ": weight_map: not an object");
    std::set<std::string> shards;
    for (const auto &shard : index["weight_map"])
        if (shard.is_string()) shards.insert(shard.get<std::string>());
    std::vector<std::string> files{"model.safetensors.index.json"};
    files.insert(files.end(), shards.begin(), shards.end());
    return files;
}

std::string kernelOf(Backend backend)
{
    switch (backend) {
    case Backend::Reference: return "fp64 scalar";
    case Backend::Cuda: return cudaAvailable() ? cudaDeviceName() : "cuda (unavailable)";
    case Backend::Auto:
    case Backend::Tiled:
    case Backend::Unfused: break;
    }
    return cpuSimdLevel();
}

nlohmann::ordered_json filesJson(const std::vector<FileDigest> &files)
{
    auto list = nlohmann::ordered_json::array();
    for (const FileDigest &f : files) list.push_back({{"file", f.file}, {"bytes", f.bytes}, {"sha256", f.sha256}});
    return list;
}

} // namespace

std::string attnscopeVersion() { return ATTNSCOPE_VERSION_STRING; }
std::string attnscopeCommit() { return ATTNSCOPE_COMMIT; }

Result<ModelFileDigests> modelFileDigests(const std::string &folder)
{
    ModelFileDigests out;
    if (folder.empty()) return out;
    const fs::path dir(folder);
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return Status(ErrorCode::IoError, folder + ": not a model folder");
    auto weights = weightFiles(dir);
    if (!weights) return weights.status();
    std::vector<std::string> modelFiles{"config.json"};
    modelFiles.insert(modelFiles.end(), weights->begin(), weights->end());
    for (const std::string &name : modelFiles) {
        if (!fs::exists(dir / name)) continue;
        auto d = digestOf(dir, name);
        if (!d) return d.status();
        out.model.push_back(std::move(d).value());
    }
    for (const char *name : {"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt",
                             "vocab.json", "merges.txt"}) {
        if (!fs::exists(dir / name)) continue;
        auto d = digestOf(dir, name);
        if (!d) return d.status();
        out.tokenizer.push_back(std::move(d).value());
    }
    return out;
}

Provenance makeProvenance(const std::string &modelSpec, Backend backend, int threads)
{
    Provenance p;
    p.version = attnscopeVersion();
    p.commit = attnscopeCommit();
    p.modelSpec = modelSpec;
    if (!modelSpec.empty() && modelSpec.rfind("random:", 0) != 0) {
        auto folder = resolveModelSpec(modelSpec);
        auto files = folder ? modelFileDigests(*folder) : Result<ModelFileDigests>(folder.status());
        if (files) p.files = std::move(files).value();
        else p.error = files.status().message();
    }
    p.backend = backendName(backend);
    p.kernel = kernelOf(backend);
    p.threads = threads > 0 ? threads : hardwareThreads();
    return p;
}

std::string provenanceJson(const Provenance &p)
{
    nlohmann::ordered_json j{
        {"attnscope", {{"version", p.version}, {"commit", p.commit}}},
        {"model", {{"source", p.modelSpec}, {"files", filesJson(p.files.model)}}},
        {"tokenizer", {{"files", filesJson(p.files.tokenizer)}}},
        {"backend", p.backend},
        {"kernel", p.kernel},
        {"threads", p.threads}};
    if (!p.error.empty()) j["error"] = p.error;
    return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string provenanceLine(const Provenance &p)
{
    std::ostringstream s;
    s << "AttnScope " << p.version << " (commit " << p.commit.substr(0, 12)
      << (p.commit.find("+dirty") != std::string::npos ? "+dirty" : "") << ")";
    if (!p.modelSpec.empty()) s << " · " << p.modelSpec;
    for (const FileDigest &f : p.files.model)
        if (f.file != "config.json" && f.file != "model.safetensors.index.json")
            s << " · " << f.file << " sha256 " << f.sha256.substr(0, 16);
    s << " · " << p.backend << " (" << p.kernel << "), " << p.threads << (p.threads == 1 ? " thread" : " threads");
    return s.str();
}

} // namespace attn
