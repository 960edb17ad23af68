// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A memory budget for model weights: the memory a model needs is estimated from its configuration before any
// tensor is allocated, and a model that does not fit is refused with "needs X GiB, Y GiB available" instead of
// ending in std::bad_alloc or the OOM killer (issue 14; docs/reliability.md lists every limit).
//
// Estimate: the float32 parameters the engine holds for the configuration (embeddings, every layer's attention and
// MLP matrices with their biases and layer norms, the output head, counted untied since only the checkpoint says
// whether it is tied), 4 bytes each. Checkpoints in F16/BF16 are held
// as float32 too, so the estimate is the same. Saturating: an absurd configuration gives UINT64_MAX, never a wrap.
// Available: MemAvailable of /proc/meminfo, lowered to the cgroup (v2) limit less its usage when one is set.
// Budget:    the available memory, or the bytes given to setMemoryBudget() (the CLI's --max-memory), which replace
//            it (more, to rely on swap; less, to keep room for other work). Process-wide; thread-safe.

#include <attnscope/model.h>
#include <attnscope/status.h>

#include <cstdint>
#include <optional>
#include <string>

namespace attn {

std::uint64_t estimateWeightBytes(const ModelConfig &config);

// Bytes of memory this process may still allocate; nothing when the system does not say (then no check is made).
std::optional<std::uint64_t> availableMemoryBytes();

// Replaces the available memory as the budget; nothing restores the default.
void setMemoryBudget(std::optional<std::uint64_t> bytes);
std::optional<std::uint64_t> memoryBudget();   // the override if set, else availableMemoryBytes()

// An OutOfMemory refusal naming `what` (the model spec or folder): "WHAT: needs 64.0 GiB for its weights, 12.3 GiB
// available" (or "... allowed (--max-memory)" under an override); ok when the weights fit or no budget is known.
Status checkWeightMemory(const ModelConfig &config, const std::string &what);

// "12.3 GiB" (one decimal; "0.01 GiB" style below 0.1).
std::string formatGib(std::uint64_t bytes);

} // namespace attn
