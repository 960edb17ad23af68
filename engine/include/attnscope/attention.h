// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Scaled dot-product attention, one entry point for every backend.
//
//   q: [B, H,   Lq, D ]   k: [B, Hkv, Lk, D ]   v: [B, Hkv, Lk, Dv]      (fp32 views, any strides)
//   H must be a multiple of Hkv (grouped-query attention: query head h reads kv head h / (H / Hkv)).
//
//   S = scale · Q Kᵀ                      (scale defaults to 1/sqrt(D))
//   S = softcap · tanh(S / softcap)       only when options.softcap > 0 (Gemma 2's logit soft-capping)
//   S += maskBias                         (masks in mask.h: structure and padding -inf, additive + headBias + ALiBi)
//   P = softmax_rows(S)                   (fully masked rows: P = 0)
//   O = P V                               out: [B, H, Lq, Dv], contiguous (empty with Output::LseOnly)
//   lse_i = log Σ_j exp(S_ij)             lse: [B, H, Lq], natural log; +inf for fully masked rows
// This order is the one definition every backend computes.
//
// Weights (P) are returned only for the (batch, head) pairs asked for, exactly (not an approximation of the
// fast path's running softmax), and only if they fit the memory budget.

#include <attnscope/mask.h>
#include <attnscope/status.h>
#include <attnscope/tensor.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace attn {

enum class Backend {
    Auto,       // the fastest usable backend for the shape
    Reference,  // fp64 scalar oracle (engine/src/reference); materialises S and P
    Tiled,      // FlashAttention-2 style online softmax on the CPU (engine/src/cpu)
    Unfused,    // Q Kᵀ with a GEMM, full-row softmax, P V with a GEMM: the classic baseline, O(L²) memory
    Cuda,       // CUDA flash kernels (engine/src/cuda), when built and a device is present
};

std::string backendName(Backend backend);                  // "reference", "tiled", ...
std::optional<Backend> parseBackend(const std::string &name);

// The precision the kernels compute in. The operands and outputs are always fp32 views. With F16/BF16 every
// backend first rounds Q, K and V to that type (roundToDtype) and then accumulates in fp32: the tiled and unfused
// CPU backends compute exactly their fp32 algorithm on the rounded inputs, the Reference backend computes in fp64
// on the rounded inputs (the oracle for the low-precision paths), and CUDA rounds on the device and runs
// tensor-core matmuls with fp32 accumulation (it also rounds P to the type before P·V, as tensor cores need).
enum class ComputeDtype { F32, F16, BF16 };
std::string dtypeName(ComputeDtype dtype);                    // "f32", "f16", "bf16"
std::optional<ComputeDtype> parseComputeDtype(const std::string &name);
// x rounded to the nearest value of `dtype` (ties to even; overflow to ±inf), as the CUDA path rounds its inputs.
float roundToDtype(float x, ComputeDtype dtype);

struct HeadIndex {
    std::int64_t batch = 0;
    std::int64_t head = 0;
    bool operator==(const HeadIndex &) const = default;
};

struct WeightsRequest {
    enum class Mode { None, Heads, All };
    Mode mode = Mode::None;
    std::vector<HeadIndex> heads;      // with Mode::Heads

    static WeightsRequest none() { return {}; }
    static WeightsRequest all() { return {Mode::All, {}}; }
    static WeightsRequest only(std::vector<HeadIndex> list) { return {Mode::Heads, std::move(list)}; }
};

// Called with the fraction of work done, in [0, 1]. May be called from worker threads, never concurrently.
using ProgressFn = std::function<void(double fraction)>;
// Polled between blocks from worker threads, possibly concurrently: must be thread-safe (read an atomic).
// Returning true stops the computation; attention() then returns ErrorCode::Cancelled.
using CancelFn = std::function<bool()>;

struct AttentionOptions {
    Backend backend = Backend::Auto;
    float scale = 0.0f;                                   // 0: 1/sqrt(D)
    WeightsRequest weights;
    // Refuse weight requests larger than this. The Reference backend keeps fp64 scores and weights for every
    // head when any weights are requested, so it needs 16·B·H·Lq·Lk bytes within the budget.
    std::size_t weightsBudgetBytes = std::size_t(1) << 30;
    int threads = 0;                                      // 0: all hardware threads
    ComputeDtype computeDtype = ComputeDtype::F32;        // see ComputeDtype: honoured by every backend
    ProgressFn progress;
    CancelFn cancel;

    // Logit soft-capping (Gemma 2's attn_logit_softcapping): s ← softcap · tanh(s / softcap), applied to the
    // SCALED score (scale · q·k) BEFORE any mask bias is added. 0 = off; negative or non-finite is rejected.
    float softcap = 0.0f;

    // What to compute. LseOnly computes the LSE [B, H, Lq] and nothing else: AttentionOutput::out is empty
    // (shape [0, 0, 0, 0]) and weights must not be requested. It is the first pass of a weights map recomputed
    // from the LSE, and costs about half a full pass (no P·V).
    enum class Output { OutputAndLse, LseOnly };
    Output output = Output::OutputAndLse;

    // Split-KV ("flash-decoding") for few query rows against many keys: the keys are cut into chunks that run as
    // separate work items (so one query row over 131072 keys uses every thread) and the partial results are
    // merged with the LSE rule. Auto decides from the problem SHAPE only (Lq <= kSplitKvMaxLq and
    // Lk >= kSplitKvMinLk), never from the thread count, and the chunk boundaries are a function of the shape
    // only, so results are bit-for-bit identical whatever `threads` is. Off / On force it (On is for tests and the
    // bench). Honoured by the tiled backend (and Auto when it runs tiled); the reference and unfused backends
    // compute whole rows and ignore it; the CUDA backend has no split-KV kernel: an explicit Backend::Cuda with On
    // returns Unavailable naming the option, and Auto with On runs the tiled backend.
    enum class SplitKv { Auto, Off, On };
    SplitKv splitKv = SplitKv::Auto;
};

// Auto's split-KV rule (see AttentionOptions::splitKv).
inline constexpr std::int64_t kSplitKvMaxLq = 16;
inline constexpr std::int64_t kSplitKvMinLk = 1024;

struct HeadWeights {
    HeadIndex index;
    std::vector<float> P;   // [Lq, Lk] row-major
};

struct AttentionOutput {
    Tensor out;                        // [B, H, Lq, Dv]; empty with Output::LseOnly
    std::vector<float> lse;            // [B, H, Lq]
    std::vector<HeadWeights> weights;  // in the order requested (All: b-major, then h)
    Backend backend = Backend::Reference;   // the backend that ran
    double deviceMs = 0.0;                  // CUDA: kernel time (cudaEvent, forward + weights), 0 elsewhere
};

// Checks shapes, strides, scale and mask; the message names the operand and the sizes that disagree.
Status validateAttention(const TensorView &q, const TensorView &k, const TensorView &v, const MaskSpec &mask,
                         const AttentionOptions &options);

// The single dispatch point for every backend.
Result<AttentionOutput> attention(const TensorView &q, const TensorView &k, const TensorView &v,
                                  const MaskSpec &mask, const AttentionOptions &options = {});

// Bytes the requested weights would take for this problem (used for the budget check and by UIs).
std::size_t weightsBytes(const WeightsRequest &request, std::int64_t B, std::int64_t H, std::int64_t Lq,
                         std::int64_t Lk);

// Optional CUDA path: detected at configure time (ATTNSCOPE_CUDA) and at run time. These are the functions a UI
// calls to enable or grey out the CUDA choice; the reason is one short sentence fit for a tooltip or a QSKIP:
// "this build has no CUDA kernels (...)", "no CUDA driver", "no CUDA device", "compute capability 7.5 too low
// (needs 8.0)", "CUDA driver older than the runtime (...)". The first call initialises the CUDA runtime (can take
// ~0.1–1 s); the answer is cached for the life of the process.
bool cudaBuilt();
bool cudaAvailable();
std::string cudaUnavailableReason();   // empty when available
std::string cudaDeviceName();          // "NVIDIA H200 (compute capability 9.0)", empty when unavailable

// Backend::Auto picks CUDA only when it is available, no option needs the CPU (splitKv On), the head dims are
// <= 256, and the forward pass is at least this many FLOPs (4·B·H·Lq·Lk·D): about 2 GFLOP, tens of milliseconds
// on a desktop CPU, where copying Q, K, V and O over PCIe (O(L·D) bytes: 8 MiB at B=1, H=4, L=1024, D=128) takes
// well under a millisecond. Everything else runs on the CPU (Tiled), F16/BF16 included. Not counted: the one-off CUDA context creation (~0.1–0.5 s) on the process's first CUDA call.
inline constexpr double kCudaAutoMinFlops = 2e9;

// Which SIMD level the CPU kernels were compiled with and run ("avx512", "avx2", "scalar").
std::string cpuSimdLevel();
int hardwareThreads();

} // namespace attn
