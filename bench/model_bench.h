// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The `bench --model` mode: a whole forward pass of a model (a folder, sample:NAME or random:...) on n seeded
// random token ids. Validate first: the timed backend's logits and captured weights are compared with the
// fp64 reference backend's forward on the same ids; a mismatch beyond 1e-4 (logits) / 1e-5 (weights) is not
// timed. Then time: warm-ups, repetitions, median and p10/p90, peak RSS. One JSON line with --json.

#include <attnscope/attention.h>

#include <cstdint>
#include <iosfwd>
#include <string>

namespace attn::bench {

struct ModelBenchConfig {
    std::string model;          // spec
    std::int64_t n = 256;       // tokens
    bool allWeights = false;    // capture every layer's and head's weights
    Backend backend = Backend::Auto;
    int threads = 0;
    int reps = 10;
    int warmups = 2;
    bool validate = true;
    bool json = false;
    std::uint64_t seed = 7;
};

int runModelBench(const ModelBenchConfig &config, std::ostream &out, std::ostream &err);

} // namespace attn::bench
