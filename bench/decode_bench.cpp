// SPDX-License-Identifier: GPL-3.0-or-later
// decode: split-KV off vs on for a few query rows against long K/V (Lq <= 16, Lk up to 131072). Both are validated
// against the fp64 reference on every row (2 × the naive fp32 error + 1e-6), then timed alternately. Decode is
// memory-bound: the line also gives the K/V read bandwidth.
#include "kernelbench.h"
#include "validation.h"

#include <attnscope/attention.h>
#include <attnscope/reference.h>

#include <cmath>
#include <iostream>
#include <random>

namespace attn::bench {

int decodeBench(const KernelBenchArgs &a)
{
    const std::vector<std::int64_t> lks = a.n.empty() ? std::vector<std::int64_t>{4096, 16384, 65536, 131072} : a.n;
    int failures = 0;
    for (std::int64_t Lk : lks)
        for (std::int64_t Lq : a.lq)
            for (std::int64_t D : a.d) {
                const std::int64_t H = a.heads;
                const Tensor q = randomTensor({1, H, Lq, D}, a.seed), k = randomTensor({1, H, Lk, D}, a.seed + 1),
                             v = randomTensor({1, H, Lk, D}, a.seed + 2);
                const MaskSpec mask = a.causal ? MaskSpec::causalMask() : MaskSpec{};
                auto ref = referenceAttention(q.view(), k.view(), v.view(), mask, {});
                if (!ref) {
                    std::cerr << "decode: reference failed: " << ref.status().message() << '\n';
                    return 1;
                }
                const NaiveError naive = naiveFp32Error(q.view(), k.view(), v.view(), mask, *ref, {});
                for (int threads : a.threads) {
                    Json line = benchLine("decode");
                    line["lq"] = Lq;
                    line["lk"] = Lk;
                    line["d"] = D;
                    line["heads"] = H;
                    line["causal"] = a.causal;
                    line["threads"] = threads;
                    line["naive_fp32_err"] = naive.out;
                    bool valid = true;
                    std::vector<double> ms[2];
                    for (int rep = -1; rep < a.reps && valid; ++rep)
                        for (int split = 0; split < 2; ++split) {
                            AttentionOptions opt;
                            opt.backend = Backend::Tiled;
                            opt.threads = threads;
                            opt.splitKv = split ? AttentionOptions::SplitKv::On : AttentionOptions::SplitKv::Off;
                            const Stopwatch watch;
                            auto r = attention(q.view(), k.view(), v.view(), mask, opt);
                            const double elapsed = watch.ms();
                            if (!r) {
                                line["error"] = r.status().message();
                                valid = false;
                                break;
                            }
                            if (rep < 0) {   // the first call of each validates and warms up
                                const KernelError e = kernelError(*r, *ref, {}, H, Lk);
                                const double tolerance = 2.0 * naive.out + 1e-6;
                                line[split ? "split_on_err_vs_fp64" : "split_off_err_vs_fp64"] = e.out;
                                if (!(e.out <= tolerance) || !e.finite) valid = false;
                                continue;
                            }
                            ms[split].push_back(elapsed);
                        }
                    line["validated"] = valid;
                    if (valid) {
                        const Timing off = summarize(ms[0]), on = summarize(ms[1]);
                        line["split_off"] = timingJson(off);
                        line["split_on"] = timingJson(on);
                        line["speedup_split"] = std::round(off.median / on.median * 1e3) / 1e3;
                        const double bytes = 2.0 * double(H) * double(Lk) * double(D) * 4.0;
                        line["kv_gib_per_s_split_on"] = std::round(bytes / (on.median * 1e-3) / double(1 << 30) * 100) / 100;
                        line["gflops_split_on"] = std::round(4.0 * double(H * Lq * Lk * D) / (on.median * 1e6) * 100) / 100;
                    } else {
                        ++failures;
                    }
                    emitLine(line);
                }
            }
    return failures ? 1 : 0;
}

} // namespace attn::bench
