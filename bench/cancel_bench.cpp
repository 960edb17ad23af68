// SPDX-License-Identifier: GPL-3.0-or-later
// cancel: how long after the cancel flag goes up attention() (and the attention map) return Cancelled. The flag is
// set 50 ms after the first poll (the run is then inside its kernel loop), as tst_cancel does; tst_cancel asserts
// only that the run stops with Cancelled, the latency is measured here (issue 14: timing belongs in the bench).
#include "kernelbench.h"

#include <attnscope/attention.h>
#include <attnscope/attentionmap.h>
#include <attnscope/reference.h>

#include <atomic>
#include <cmath>
#include <random>
#include <thread>

namespace attn::bench {

namespace {

struct Case {
    const char *name;
    std::int64_t H, n;
    Backend backend;
    bool causal, weights, map;
};

} // namespace

int cancelBench(const KernelBenchArgs &a)
{
    const std::int64_t n = a.n.empty() ? 16384 : a.n.front();
    const Case cases[] = {
        {"tiled", 8, n, Backend::Tiled, false, false, false},
        {"tiled causal", 8, n, Backend::Tiled, true, false, false},
        {"tiled +weights(1 head)", 8, n / 4, Backend::Tiled, false, true, false},
        {"unfused", 8, n / 4, Backend::Unfused, false, false, false},
        {"reference", 8, n / 8, Backend::Reference, false, false, false},
        {"attention map overview", 1, 4 * n, Backend::Tiled, false, false, true},
    };
    int failures = 0;
    for (const Case &c : cases)
        for (int threads : a.threads) {
            const Tensor q = randomTensor({1, c.H, c.n, 64}, 1), k = randomTensor({1, c.H, c.n, 64}, 2),
                         v = randomTensor({1, c.H, c.n, 64}, 3);
            const MaskSpec mask = c.causal ? MaskSpec::causalMask() : MaskSpec{};
            std::vector<double> latencies;
            Json line = benchLine("cancel");
            line["case"] = c.name;
            line["n"] = c.n;
            line["heads"] = c.H;
            line["threads"] = threads;
            for (int rep = 0; rep < a.reps; ++rep) {
                std::atomic<bool> flag{false};
                std::atomic<long> polls{0};
                std::atomic<bool> done{false};
                std::chrono::steady_clock::time_point setAt{};
                const CancelFn cancel = [&] { ++polls; return flag.load(std::memory_order_acquire); };
                std::thread canceller([&] {
                    while (polls.load() == 0 && !done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
                    std::this_thread::sleep_for(std::chrono::milliseconds(50));
                    setAt = std::chrono::steady_clock::now();
                    flag.store(true, std::memory_order_release);
                });
                Status status;
                if (c.map) {
                    AttentionMapOptions opt;
                    opt.threads = threads;
                    opt.cancel = cancel;
                    auto r = attentionMapOverview(q.view(), k.view(), mask, opt);
                    status = r ? Status::ok() : r.status();
                } else {
                    AttentionOptions opt;
                    opt.backend = c.backend;
                    opt.threads = threads;
                    opt.cancel = cancel;
                    if (c.weights) opt.weights = WeightsRequest::only({{0, 5}});
                    auto r = attention(q.view(), k.view(), v.view(), mask, opt);
                    status = r ? Status::ok() : r.status();
                }
                const auto end = std::chrono::steady_clock::now();
                done = true;
                canceller.join();
                if (status.code() != ErrorCode::Cancelled) {
                    line["error"] = "the run did not return Cancelled: " + (status ? std::string("completed") : status.message());
                    break;
                }
                latencies.push_back(std::chrono::duration<double, std::milli>(end - setAt).count());
            }
            if (line.contains("error")) ++failures;
            else {
                const Timing t = summarize(latencies);
                line["latency_ms_median"] = std::round(t.median * 100) / 100;
                line["latency_ms_p90"] = std::round(t.p90 * 100) / 100;
                line["latency_ms_max"] = std::round(*std::max_element(latencies.begin(), latencies.end()) * 100) / 100;
                line["reps"] = t.reps;
            }
            emitLine(line);
        }
    return failures ? 1 : 0;
}

} // namespace attn::bench
