// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where an export came from: the program (version and the commit it was built from), the model and tokenizer
// files (name, size, SHA-256), and how the attention was computed (backend, the kernel it ran, threads). Every
// export carries it as a `provenance` object (docs/json-format.md): run, equivariance and faithfulness
// documents, the run's .npy reference and figure metadata (PNG text, SVG description, PDF attachment).

#include <attnscope/attention.h>
#include <attnscope/status.h>

#include <cstdint>
#include <string>
#include <vector>

namespace attn {

// "0.1.0"; the commit this build was made from: 40 hex digits, "+dirty" appended when tracked files differed
// from it, "unknown" outside a git checkout. Refreshed at every build (engine/cmake/buildcommit.cmake).
std::string attnscopeVersion();
std::string attnscopeCommit();

struct FileDigest {
    std::string file;       // the name inside the model folder ("model.safetensors", "tokenizer.json")
    std::uint64_t bytes = 0;
    std::string sha256;     // 64 lower-case hex digits
};

struct ModelFileDigests {
    std::vector<FileDigest> model;       // config.json and the weights (model.safetensors, or the index and its shards)
    std::vector<FileDigest> tokenizer;   // the tokenizer files the folder has: tokenizer.json, vocab.txt, ...
};

// The digests of the files a model folder is read from, in a fixed order. `folder` empty (random: models):
// nothing. Files are hashed once per process and path while their size and modification time stay the same, so
// a second export of a 1 GB checkpoint costs nothing. Errors name the file that could not be read.
Result<ModelFileDigests> modelFileDigests(const std::string &folder);

struct Provenance {
    std::string version, commit;     // attnscopeVersion(), attnscopeCommit()
    std::string modelSpec;           // as given: a folder, "sample:NAME", "random:..."
    ModelFileDigests files;
    std::string backend;             // the backend that computed the attention ("tiled"), or "" when not one run
    std::string kernel;              // what that backend ran: the CPU's SIMD level ("avx2"), the CUDA device
    int threads = 0;                 // worker threads the CPU kernels used (the request's, 0 resolved)
    std::string error;               // why `files` is empty although the model has a folder; else empty
};

// The provenance of a computation on the model of `modelSpec` (resolved to its folder) with `backend` on
// `threads` threads (0: every hardware thread). Backend::Auto is recorded as "auto" with the CPU's kernel. Never
// fails: a file that cannot be read leaves `files` empty and says why in `error` (the export still happens).
Provenance makeProvenance(const std::string &modelSpec, Backend backend, int threads);

// {"attnscope": {"version", "commit"}, "model": {"source", "files": [{file, bytes, sha256}]},
//  "tokenizer": {"files": [...]}, "backend", "kernel", "threads"} and "error" when set, compact.
std::string provenanceJson(const Provenance &p);
// One line for figure metadata: "AttnScope 0.1.0 (commit 1a2b3c4d5e6f) · sample:induction-gpt2 · tiled (avx2), 2 threads".
std::string provenanceLine(const Provenance &p);

} // namespace attn
