// SPDX-License-Identifier: GPL-3.0-or-later
#include "fuzz_support.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace attnfuzz {

namespace {

constexpr std::string_view kMarker("\0FILE:", 6);

bool validName(std::string_view name)
{
    if (name.empty() || name.size() > 64 || name == "." || name == "..") return false;
    for (char c : name)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-'))
            return false;
    return true;
}

} // namespace

std::vector<NamedFile> splitArchive(std::string_view data)
{
    std::vector<NamedFile> files;
    std::size_t at = data.find(kMarker);
    while (at != std::string_view::npos) {
        const std::size_t nameBegin = at + kMarker.size();
        const std::size_t newline = data.find('\n', nameBegin);
        if (newline == std::string_view::npos) break;
        const std::size_t next = data.find(kMarker, newline + 1);
        const std::string_view name = data.substr(nameBegin, newline - nameBegin);
        const std::string_view content =
            data.substr(newline + 1, (next == std::string_view::npos ? data.size() : next) - (newline + 1));
        if (validName(name)) {
            bool replaced = false;
            for (NamedFile &f : files)
                if (f.name == name) {
                    f.content = std::string(content);
                    replaced = true;
                }
            if (!replaced) files.push_back({std::string(name), std::string(content)});
        }
        at = next;
    }
    return files;
}

std::string joinArchive(const std::vector<NamedFile> &files)
{
    std::string out;
    for (const NamedFile &f : files) {
        out += kMarker;
        out += f.name;
        out += '\n';
        out += f.content;
    }
    return out;
}

ScratchFolder::ScratchFolder()
{
    // $TMPDIR, else /dev/shm (memory: every input writes its files, and a disk makes that the slowest part), else /tmp.
    const char *tmp = std::getenv("TMPDIR");
    std::string base = tmp && *tmp ? tmp : (::access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" : "/tmp");
    std::string pattern = base + "/attnscope-fuzz-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (!::mkdtemp(buffer.data())) {
        std::perror("attnscope fuzz: mkdtemp");
        std::abort();
    }
    m_path = buffer.data();
}

ScratchFolder::~ScratchFolder()
{
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
}

void ScratchFolder::clear()
{
    std::error_code ec;
    for (const auto &entry : std::filesystem::directory_iterator(m_path, ec)) std::filesystem::remove_all(entry.path(), ec);
}

void ScratchFolder::fill(const std::vector<NamedFile> &files)
{
    clear();
    for (const NamedFile &f : files) {
        std::ofstream out(filePath(f.name), std::ios::binary | std::ios::trunc);
        out.write(f.content.data(), static_cast<std::streamsize>(f.content.size()));
        fuzzCheck(static_cast<bool>(out), "scratch folder: a file could not be written");
    }
}

ScratchFolder &scratch()
{
    static ScratchFolder folder;
    return folder;
}

std::string testDataDir()
{
    return ATTNSCOPE_TEST_DATA_DIR;
}

void fuzzCheck(bool ok, const char *what)
{
    if (ok) return;
    std::fprintf(stderr, "attnscope fuzz: invariant broken: %s\n", what);
    std::abort();
}

} // namespace attnfuzz
