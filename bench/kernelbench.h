// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// attnscope-kernelbench: the kernel figures that are not one attention() call at Lq = Lk (those are `attnscope-cli
// bench`). Each mode validates first (fp64 reference, or double-precision scalar versions), then times, and prints
// one JSON object per configuration on stdout. Plain C++ (no Qt), like attn_bench.
//
//   decode   split-KV ("flash-decoding") off vs on for Lq <= 16 against long K/V
//   map      the exact attention map: first overview and a window zoom at n = 131072, peak RSS
//   cancel   how long attention() and the map take to return Cancelled after the flag is set
//   gemm     the model's GEMM (engine/src/cpu/gemm.h) beside OpenBLAS at the GPT-2-small layer shapes
//   ops      the vectorised elementwise kernels (GELU, SiLU, LayerNorm, RMSNorm, softmax) vs scalar loops

#include <attnscope/tensor.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace attn::bench {

using Json = nlohmann::ordered_json;

struct KernelBenchArgs {
    std::vector<std::int64_t> n;          // mode-specific lengths (decode: Lk; map: n)
    std::vector<std::int64_t> lq{1};      // decode: query rows
    std::vector<std::int64_t> d{64};
    std::vector<int> threads{1, 2};
    std::int64_t heads = 1;
    std::int64_t grid = 1024;
    std::int64_t window = 4096;           // map: zoom window side
    int reps = 5;
    bool causal = false;
    std::uint64_t seed = 7;
};

struct Timing {
    double median = 0, p10 = 0, p90 = 0, min = 0;
    int reps = 0;
};
Timing summarize(std::vector<double> ms);
Json timingJson(const Timing &t);   // {"ms_median", "ms_p10", "ms_p90", "ms_min", "reps"}

class Stopwatch {
public:
    Stopwatch() : m_start(std::chrono::steady_clock::now()) {}
    double ms() const
    {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - m_start).count();
    }

private:
    std::chrono::steady_clock::time_point m_start;
};

// Every line starts with these fields (machine, date, build).
Json benchLine(const std::string &mode);
void emitLine(const Json &line);

// A tensor of the given [B, H, L, D] shape with seeded N(0, 1) entries (timing inputs; every check runs on them).
Tensor randomTensor(Shape4 shape, std::uint64_t seed);

int decodeBench(const KernelBenchArgs &args);
int mapBench(const KernelBenchArgs &args);
int cancelBench(const KernelBenchArgs &args);
int gemmBench(const KernelBenchArgs &args);
int opsBench(const KernelBenchArgs &args);

} // namespace attn::bench
