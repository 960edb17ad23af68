// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Shared pieces of the libFuzzer harnesses (docs/reliability.md).
//
// Several formats are folders of files (a model: config.json + model.safetensors [+ tokenizer files]; a legacy
// tokenizer: vocab.txt or vocab.json + merges.txt + tokenizer_config.json). Their harnesses take one input that
// holds several named files, each introduced by a marker:
//
//     "\0FILE:" NAME "\n" CONTENT   ...repeated; bytes before the first marker are ignored
//
// NAME is [A-Za-z0-9._-]{1,64} and not "." or ".." (anything else drops that file, so no input can write outside
// the scratch folder). A later file of the same name replaces an earlier one. JSON and text never contain NUL, and
// safetensors content would need the exact bytes "\0FILE:" to be cut, so real files split cleanly. The dictionary
// (json.dict) holds the markers of the usual names, so mutations can add and drop whole files.
//
// Harnesses report a broken invariant with fuzzCheck(), which aborts: libFuzzer records the input as a crash.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnfuzz {

struct NamedFile {
    std::string name;
    std::string content;
};

// The files of an archive input (see above), in the order of their first appearance.
std::vector<NamedFile> splitArchive(std::string_view data);
// The inverse, for seeds and generated inputs: each file behind its marker.
std::string joinArchive(const std::vector<NamedFile> &files);

// A private scratch folder (under $TMPDIR, else /dev/shm, else /tmp) that holds one input's files at a time; removed when
// the process exits normally.
class ScratchFolder {
public:
    ScratchFolder();
    ~ScratchFolder();
    ScratchFolder(const ScratchFolder &) = delete;
    ScratchFolder &operator=(const ScratchFolder &) = delete;

    const std::string &path() const { return m_path; }
    // Empties the folder, then writes `files` into it. A file that cannot be written aborts (the harness is broken).
    void fill(const std::vector<NamedFile> &files);
    std::string filePath(const std::string &name) const { return m_path + "/" + name; }
    void clear();

private:
    std::string m_path;
};

// One scratch folder per process, made on first use.
ScratchFolder &scratch();

// The repository's tests/ folder (fixtures for harnesses that need a known-good tokenizer or model).
std::string testDataDir();

// Aborts with `what` on stderr when `ok` is false (libFuzzer saves the input as a crash).
void fuzzCheck(bool ok, const char *what);

} // namespace attnfuzz
