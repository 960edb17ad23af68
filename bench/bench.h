// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The `bench` verb: validate each backend against the fp64 oracle, then time it, and report it beside the best
// GEMM this build has (same process, same thread count). Argument parsing lives in app/cli; everything that
// decides what runs and what is reported lives here, Qt-free.
//
// One line per (configuration, backend): a JSON object with --json, an aligned text row otherwise. A backend that
// fails its check is not timed: its line carries "error" and runBench returns 1.
//
// Memory mode (--memory) is for a separate process measuring peak RSS at very long n: nothing O(n²) is
// allocated (no unfused backend, no weights, sampled validation rows only) and the GEMM ceiling runs after the
// peak was read, so peak_rss_mib can be checked against qkvo_mib + 64 MiB.

#include <attnscope/attention.h>

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace attn::bench {

enum class WeightsChoice { None, One, All };   // none; (batch 0, head 0); every head

struct BenchConfig {
    std::int64_t n = 1024;          // Lq = Lk
    std::int64_t d = 64;            // head dim of Q, K and V
    std::int64_t heads = 4;
    std::int64_t batch = 1;
    bool causal = false;
    std::vector<Backend> backends{Backend::Tiled, Backend::Unfused};
    // F16/BF16: every backend rounds Q, K and V to the type and accumulates in fp32 (attention.h). The check is
    // then against the same-precision naive path, and CUDA lines report ms_median from cudaEvents around the
    // kernels (wall_ms_median includes packing and PCIe copies).
    ComputeDtype dtype = ComputeDtype::F32;
    int threads = 0;                // 0: all hardware threads
    int reps = 10;                  // timed repetitions (fewer when one call is slow, see maxSeconds)
    int warmups = 3;
    WeightsChoice weights = WeightsChoice::None;
    bool memoryMode = false;
    bool json = false;
    long gemmSize = 2048;           // N of the N³ ceiling GEMM
    double maxSeconds = 60.0;       // timing budget per backend; reps shrink (never below 3) to fit
    double unfusedLimitGib = 4.0;   // skip the unfused backend when its score scratch would exceed this
    int validateRows = 16;          // sampled oracle rows when the full fp64 reference would be slow
    double amplitude = 1.0;         // Q, K ~ N(0, amplitude²); V ~ N(0, 1)
    std::uint64_t seed = 7;
};

// "reference", "tiled", "unfused", "cuda", "auto", or "all" (tiled, unfused, and cuda when a device is present).
std::optional<std::vector<Backend>> parseBenchBackends(const std::string &name);
std::optional<WeightsChoice> parseWeightsChoice(const std::string &name);

// Empty when the configuration is usable; otherwise a message naming the option ("--n must be ≥ 1").
std::string checkBenchConfig(const BenchConfig &config);

// Runs the configuration; lines to `out`, diagnostics to `err`. Returns the process exit code: 0, or 1 when a
// backend failed validation or could not run.
int runBench(const BenchConfig &config, std::ostream &out, std::ostream &err);

} // namespace attn::bench
