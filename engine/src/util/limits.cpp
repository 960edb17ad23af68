// SPDX-License-Identifier: GPL-3.0-or-later
// The memory budget for model weights (limits.h).
#include <attnscope/limits.h>

#include <cstdio>
#include <fstream>
#include <limits>
#include <mutex>

namespace attn {

namespace {

constexpr std::uint64_t kSaturated = std::numeric_limits<std::uint64_t>::max();

// Saturating arithmetic: sizes come from untrusted files.
std::uint64_t mul(std::uint64_t a, std::uint64_t b)
{
    if (a != 0 && b > kSaturated / a) return kSaturated;
    return a * b;
}

std::uint64_t add(std::uint64_t a, std::uint64_t b)
{
    return b > kSaturated - a ? kSaturated : a + b;
}

std::uint64_t u(std::int64_t v)
{
    return v > 0 ? static_cast<std::uint64_t>(v) : 0;
}

// A number from a one-line file such as memory.max ("max" means none).
std::optional<std::uint64_t> readNumberFile(const char *path)
{
    std::ifstream in(path);
    std::string word;
    if (!(in >> word) || word == "max") return std::nullopt;
    try {
        return std::stoull(word);
    } catch (...) {
        return std::nullopt;
    }
}

std::mutex g_budgetMutex;
std::optional<std::uint64_t> g_budget;

} // namespace

std::uint64_t estimateWeightBytes(const ModelConfig &c)
{
    const std::uint64_t D = u(c.dModel), layers = u(c.layers);
    const std::uint64_t inner = c.architecture == Architecture::Synthetic ? mul(u(c.heads), u(c.dHead)) : D;
    // Attention: Q, K, V (D x inner) and O (inner x D) with biases; two layer norms.
    std::uint64_t perLayer = add(mul(4, mul(D, inner)), add(mul(3, inner), mul(5, D)));
    if (c.architecture != Architecture::Synthetic)   // MLP: D x I and I x D with biases
        perLayer = add(perLayer, add(mul(2, mul(D, u(c.intermediate))), add(u(c.intermediate), D)));
    std::uint64_t params = add(mul(u(c.vocabSize), D), mul(layers, perLayer));
    params = add(params, mul(2, D));   // final layer norm (synthetic) or embedding layer norm (BERT)
    if (c.architecture != Architecture::Synthetic) {
        params = add(params, mul(u(c.maxPositions), D));
        params = add(params, mul(u(c.typeVocabSize), D));
        params = add(params, add(mul(D, D), D));                                    // pooler / MLM transform
        params = add(params, add(mul(u(c.numLabels), D), u(c.vocabSize)));          // classifier, MLM bias
        // An LM head may be tied to the embeddings or not; only the checkpoint says, so count it.
        if (c.head == ModelHead::CausalLM || c.head == ModelHead::MaskedLM) params = add(params, mul(u(c.vocabSize), D));
    }
    return mul(params, sizeof(float));
}

std::optional<std::uint64_t> availableMemoryBytes()
{
    std::optional<std::uint64_t> available;
    std::ifstream meminfo("/proc/meminfo");
    for (std::string line; std::getline(meminfo, line);) {
        unsigned long long kib = 0;
        if (std::sscanf(line.c_str(), "MemAvailable: %llu kB", &kib) == 1) {
            available = mul(kib, 1024);
            break;
        }
    }
    const auto limit = readNumberFile("/sys/fs/cgroup/memory.max");
    const auto used = readNumberFile("/sys/fs/cgroup/memory.current");
    if (limit) {
        const std::uint64_t left = used && *used < *limit ? *limit - *used : 0;
        if (!available || left < *available) available = left;
    }
    return available;
}

void setMemoryBudget(std::optional<std::uint64_t> bytes)
{
    std::lock_guard lock(g_budgetMutex);
    g_budget = bytes;
}

std::optional<std::uint64_t> memoryBudget()
{
    {
        std::lock_guard lock(g_budgetMutex);
        if (g_budget) return g_budget;
    }
    return availableMemoryBytes();
}

std::string formatGib(std::uint64_t bytes)
{
    if (bytes == kSaturated) return "more than 16 EiB";
    const double gib = static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0);
    char text[64];
    std::snprintf(text, sizeof text, gib >= 0.1 ? "%.1f GiB" : "%.2g GiB", gib);
    return text;
}

Status checkWeightMemory(const ModelConfig &config, const std::string &what)
{
    const auto budget = memoryBudget();
    if (!budget) return Status::ok();
    const std::uint64_t need = estimateWeightBytes(config);
    if (need <= *budget) return Status::ok();
    bool overridden = false;
    {
        std::lock_guard lock(g_budgetMutex);
        overridden = g_budget.has_value();
    }
    return {ErrorCode::OutOfMemory, what + ": needs " + formatGib(need) + " for its weights, " + formatGib(*budget) +
                                        (overridden ? " allowed (--max-memory)" : " available")};
}

} // namespace attn
