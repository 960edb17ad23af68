// SPDX-License-Identifier: GPL-3.0-or-later
// Models where users keep them: the Hugging Face hub cache (huggingface_hub's layout), resolved offline.
//   <cache>/models--<Org>--<Name>/refs/<ref>              the commit a branch or tag points at
//   <cache>/models--<Org>--<Name>/snapshots/<commit>/     the files (symlinks into ../../blobs)
// Nothing here ever downloads.
#include <attnscope/textmodel.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace fs = std::filesystem;

namespace attn {

namespace {

bool isDir(const fs::path &p)
{
    std::error_code ec;
    return fs::is_directory(p, ec);
}

// A single path component, as a ref or a commit must be.
bool plainName(const std::string &s)
{
    return !s.empty() && s != "." && s != ".." && s.find('/') == std::string::npos && s.find('\\') == std::string::npos;
}

std::vector<std::string> snapshotsOf(const fs::path &repo)
{
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(repo / "snapshots", ec))
        if (e.is_directory(ec)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

std::vector<std::string> hubCacheDirs()
{
    std::vector<std::string> dirs;
    const auto env = [](const char *name) -> std::string {
        const char *v = std::getenv(name);
        return v && *v ? std::string(v) : std::string();
    };
    if (const std::string v = env("HF_HUB_CACHE"); !v.empty()) dirs.push_back(v);
    if (const std::string v = env("HUGGINGFACE_HUB_CACHE"); !v.empty()) dirs.push_back(v);
    if (const std::string v = env("HF_HOME"); !v.empty()) dirs.push_back((fs::path(v) / "hub").string());
    std::string cache = env("XDG_CACHE_HOME");
    if (cache.empty() && !env("HOME").empty()) cache = (fs::path(env("HOME")) / ".cache").string();
    if (!cache.empty()) dirs.push_back((fs::path(cache) / "huggingface" / "hub").string());
    std::vector<std::string> unique;
    for (const std::string &d : dirs)
        if (std::find(unique.begin(), unique.end(), d) == unique.end()) unique.push_back(d);
    return unique;
}

bool isHubRepoFolder(const std::string &path)
{
    const fs::path p(path);
    const std::string name = (p.has_filename() ? p : p.parent_path()).filename().string();
    return name.rfind("models--", 0) == 0 && isDir(p / "snapshots");
}

Result<std::string> resolveHubRepoFolder(const std::string &repoFolder, const std::string &revision)
{
    const fs::path repo(repoFolder);
    const std::string rev = revision.empty() ? "main" : revision;
    std::string commit;
    if (plainName(rev)) {
        std::ifstream ref(repo / "refs" / rev);
        if (ref) std::getline(ref, commit);
        while (!commit.empty() && (commit.back() == '\n' || commit.back() == '\r' || commit.back() == ' ')) commit.pop_back();
    }
    if (commit.empty() && plainName(rev) && isDir(repo / "snapshots" / rev)) commit = rev;   // a commit given directly
    const std::vector<std::string> snaps = snapshotsOf(repo);
    if (commit.empty() && revision.empty() && snaps.size() == 1) commit = snaps.front();   // no refs/main: the only one
    if (commit.empty() || !plainName(commit) || !isDir(repo / "snapshots" / commit)) {
        std::string list;
        for (const std::string &s : snaps) list += (list.empty() ? "" : ", ") + s;
        return Status(ErrorCode::IoError, repoFolder + ": the Hugging Face cache entry has no snapshot for '" + rev +
                                              "' (refs/" + rev + (commit.empty() ? " is missing" : " names " + commit) +
                                              "; snapshots: " + (list.empty() ? "none" : list) + ")");
    }
    return (repo / "snapshots" / commit).string();
}

Result<std::string> resolveHubRepoId(const std::string &spec)
{
    std::string id = spec, revision;
    if (const std::size_t at = id.find('@'); at != std::string::npos) {
        revision = id.substr(at + 1);
        id = id.substr(0, at);
    }
    const std::size_t slash = id.find('/');
    const bool valid = !id.empty() && id.front() != '.' && id.front() != '/' && id.find('\\') == std::string::npos &&
                       id.find("..") == std::string::npos && id.find("--") == std::string::npos &&
                       (slash == std::string::npos || id.find('/', slash + 1) == std::string::npos) &&
                       (slash == std::string::npos || (slash > 0 && slash + 1 < id.size()));
    if (!valid) return Status(ErrorCode::InvalidArgument, "'" + spec + "' is not a Hugging Face repo id (Org/Name)");
    std::string folder = "models--" + id;
    if (slash != std::string::npos) folder.replace(8 + slash, 1, "--");
    const std::vector<std::string> dirs = hubCacheDirs();
    for (const std::string &d : dirs)
        if (isDir(fs::path(d) / folder)) return resolveHubRepoFolder((fs::path(d) / folder).string(), revision);
    std::string searched;
    for (const std::string &d : dirs) searched += (searched.empty() ? "" : ", ") + d;
    return Status(ErrorCode::IoError, "'" + spec + "' is neither a folder nor in the local Hugging Face cache (no " +
                                          folder + " in " + (searched.empty() ? "no cache folder" : searched) +
                                          "); AttnScope never downloads: fetch it first, e.g. `huggingface-cli download " +
                                          id + "`, or give the folder's path");
}

std::vector<HubModelInfo> listHubModels()
{
    std::vector<HubModelInfo> found;
    for (const std::string &dir : hubCacheDirs()) {
        std::error_code ec;
        for (const auto &entry : fs::directory_iterator(dir, ec)) {
            const std::string name = entry.path().filename().string();
            if (name.rfind("models--", 0) != 0 || !isHubRepoFolder(entry.path().string())) continue;
            // models--Org--Name → Org/Name (a repo without an organisation has one part).
            std::string id = name.substr(8);
            if (const std::size_t sep = id.find("--"); sep != std::string::npos) id.replace(sep, 2, "/");
            if (std::any_of(found.begin(), found.end(), [&](const HubModelInfo &m) { return m.repoId == id; })) continue;
            auto snapshot = resolveHubRepoFolder(entry.path().string());
            // Datasets and half-downloaded repos have no config.json: they are not models to open.
            if (!snapshot || !fs::exists(fs::path(*snapshot) / "config.json", ec)) continue;
            found.push_back({id, *snapshot});
        }
    }
    std::sort(found.begin(), found.end(), [](const HubModelInfo &a, const HubModelInfo &b) { return a.repoId < b.repoId; });
    return found;
}

} // namespace attn
