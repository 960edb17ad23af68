// SPDX-License-Identifier: GPL-3.0-or-later
// attnscope-kernelbench: argument parsing and the shared line fields (modes in *_bench.cpp, see kernelbench.h).
#include "kernelbench.h"

#include "system_info.h"

#include <attnscope/attention.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <random>
#include <sstream>

namespace attn::bench {

Timing summarize(std::vector<double> ms)
{
    Timing t;
    if (ms.empty()) return t;
    std::sort(ms.begin(), ms.end());
    const auto q = [&](double f) {
        const double pos = f * double(ms.size() - 1);
        const std::size_t lo = static_cast<std::size_t>(std::floor(pos)), hi = std::min(lo + 1, ms.size() - 1);
        return ms[lo] + (pos - double(lo)) * (ms[hi] - ms[lo]);
    };
    t.median = q(0.5);
    t.p10 = q(0.1);
    t.p90 = q(0.9);
    t.min = ms.front();
    t.reps = static_cast<int>(ms.size());
    return t;
}

Json timingJson(const Timing &t)
{
    const auto r3 = [](double x) { return std::round(x * 1e3) / 1e3; };
    return Json{{"ms_median", r3(t.median)}, {"ms_p10", r3(t.p10)}, {"ms_p90", r3(t.p90)}, {"ms_min", r3(t.min)},
                {"reps", t.reps}};
}

Json benchLine(const std::string &mode)
{
    Json line;
    line["mode"] = mode;
    line["simd"] = cpuSimdLevel();
    line["cpu"] = cpuModelName();
    line["hardware_threads"] = hardwareThreads();
    line["compiler"] = compilerVersion();
    line["date"] = utcDateTime();
    return line;
}

void emitLine(const Json &line) { std::cout << line.dump() << std::endl; }

Tensor randomTensor(Shape4 shape, std::uint64_t seed)
{
    Tensor t(shape);
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (float &x : t.values) x = normal(rng);
    return t;
}

} // namespace attn::bench

namespace {

const char *kUsage = R"(usage: attnscope-kernelbench MODE [options]
modes: decode | map | cancel | gemm | ops   (see bench/kernelbench.h)
options (lists are comma-separated):
  --n LIST        lengths (decode: Lk, default 4096,16384,65536,131072; map: n, default 131072;
                  cancel: n, default 16384; ops: rows x 768, default 512)
  --lq LIST       decode: query rows (default 1,16)
  --d LIST        head dims (default 64)
  --threads LIST  thread counts (default 1,2)
  --heads H       heads (default 1)
  --grid G        map: overview grid (default 1024)
  --window W      map: zoom window side (default 4096)
  --reps R        timed repetitions (default 5)
  --causal        causal mask (decode, map)
  --seed S        input seed (default 7)
)";

template <typename T>
bool parseList(const char *text, std::vector<T> &out)
{
    out.clear();
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        char *end = nullptr;
        const long long v = std::strtoll(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || v < 1 || v > (1ll << 40)) return false;
        out.push_back(static_cast<T>(v));
    }
    return !out.empty();
}

} // namespace

int main(int argc, char **argv)
{
    using namespace attn::bench;
    if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
        std::fputs(kUsage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const std::string mode = argv[1];
    KernelBenchArgs a;
    for (int i = 2; i < argc; ++i) {
        const std::string opt = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : nullptr;
        std::vector<std::int64_t> one;
        bool ok = value != nullptr;
        if (opt == "--causal") {
            a.causal = true;
            continue;
        }
        if (!ok) {
            std::fprintf(stderr, "attnscope-kernelbench: %s needs a value\n", opt.c_str());
            return 2;
        }
        ++i;
        if (opt == "--n") ok = parseList(value, a.n);
        else if (opt == "--lq") ok = parseList(value, a.lq);
        else if (opt == "--d") ok = parseList(value, a.d);
        else if (opt == "--threads") ok = parseList(value, a.threads);
        else if (opt == "--heads" || opt == "--grid" || opt == "--window" || opt == "--reps" || opt == "--seed") {
            ok = parseList(value, one) && one.size() == 1;
            if (ok) {
                if (opt == "--heads") a.heads = one[0];
                else if (opt == "--grid") a.grid = one[0];
                else if (opt == "--window") a.window = one[0];
                else if (opt == "--reps") a.reps = static_cast<int>(std::min<std::int64_t>(one[0], 1000));
                else a.seed = static_cast<std::uint64_t>(one[0]);
            }
        } else {
            std::fprintf(stderr, "attnscope-kernelbench: unknown option '%s'\n%s", opt.c_str(), kUsage);
            return 2;
        }
        if (!ok) {
            std::fprintf(stderr, "attnscope-kernelbench: %s: '%s' is not a list of positive integers\n", opt.c_str(), value);
            return 2;
        }
    }
    if (mode == "decode") return decodeBench(a);
    if (mode == "map") return mapBench(a);
    if (mode == "cancel") return cancelBench(a);
    if (mode == "gemm") return gemmBench(a);
    if (mode == "ops") return opsBench(a);
    std::fprintf(stderr, "attnscope-kernelbench: unknown mode '%s'\n%s", mode.c_str(), kUsage);
    return 2;
}
