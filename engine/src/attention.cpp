// SPDX-License-Identifier: GPL-3.0-or-later
// Validation and the single dispatch point for every backend.
#include <attnscope/attention.h>
#include <attnscope/reference.h>

#include "backends.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <thread>

namespace attn {

std::string backendName(Backend backend)
{
    switch (backend) {
    case Backend::Auto: return "auto";
    case Backend::Reference: return "reference";
    case Backend::Tiled: return "tiled";
    case Backend::Unfused: return "unfused";
    case Backend::Cuda: return "cuda";
    }
    return "unknown";
}

std::optional<Backend> parseBackend(const std::string &name)
{
    for (Backend b : {Backend::Auto, Backend::Reference, Backend::Tiled, Backend::Unfused, Backend::Cuda})
        if (backendName(b) == name) return b;
    return std::nullopt;
}

std::string dtypeName(ComputeDtype dtype)
{
    switch (dtype) {
    case ComputeDtype::F32: return "f32";
    case ComputeDtype::F16: return "f16";
    case ComputeDtype::BF16: return "bf16";
    }
    return "unknown";
}

std::optional<ComputeDtype> parseComputeDtype(const std::string &name)
{
    for (ComputeDtype d : {ComputeDtype::F32, ComputeDtype::F16, ComputeDtype::BF16})
        if (dtypeName(d) == name) return d;
    return std::nullopt;
}

float roundToDtype(float x, ComputeDtype dtype)
{
    if (dtype == ComputeDtype::F32 || !std::isfinite(x) || x == 0.0f) return x;
    // Round the significand to `bits` bits (ties to even: nearbyint in the default rounding mode); below the
    // smallest normal the spacing stays at the subnormal step. Exact in double for every float input.
    const int bits = dtype == ComputeDtype::F16 ? 11 : 8;
    const int minExp = dtype == ComputeDtype::F16 ? -14 : -126;
    const double maxFinite = dtype == ComputeDtype::F16 ? 65504.0 : 3.38953138925153547590470800371487866880e38;
    int e = 0;
    std::frexp(static_cast<double>(x), &e);   // |x| in [2^(e-1), 2^e)
    const int exponent = std::max(e - 1, minExp);
    const double step = std::ldexp(1.0, exponent - (bits - 1));
    const double r = std::nearbyint(static_cast<double>(x) / step) * step;
    if (std::fabs(r) > maxFinite) return std::copysign(std::numeric_limits<float>::infinity(), x);
    return static_cast<float>(r);
}

int hardwareThreads()
{
    return std::max(1u, std::thread::hardware_concurrency());
}

std::string cpuSimdLevel()
{
#if defined(__AVX512F__)
    return "avx512";
#elif defined(__AVX2__) && defined(__FMA__)
    return "avx2";
#else
    return "scalar";
#endif
}

std::size_t weightsBytes(const WeightsRequest &request, std::int64_t B, std::int64_t H, std::int64_t Lq,
                         std::int64_t Lk)
{
    std::size_t heads = 0;
    switch (request.mode) {
    case WeightsRequest::Mode::None: heads = 0; break;
    case WeightsRequest::Mode::Heads: heads = request.heads.size(); break;
    case WeightsRequest::Mode::All: heads = static_cast<std::size_t>(B * H); break;
    }
    return heads * static_cast<std::size_t>(Lq) * static_cast<std::size_t>(Lk) * sizeof(float);
}

static std::string mib(std::size_t bytes)
{
    if (bytes < 1024 * 1024) return std::to_string(bytes) + " bytes";
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
    return buf;
}

static Status checkOperand(const char *name, const TensorView &t)
{
    static const char *axes[] = {"batch", "heads", "length", "head dim"};
    for (int a = 0; a < 4; ++a) {
        if (t.shape[a] <= 0)
            return Status::invalid(std::string(name) + " has " + axes[a] + " " + std::to_string(t.shape[a]) +
                                   " (shape " + shapeString(t.shape) + "); every axis must be at least 1");
        if (t.strides[a] < 0)
            return Status::invalid(std::string(name) + " has a negative stride on its " + axes[a] + " axis");
    }
    if (!t.data) return Status::invalid(std::string(name) + " has no data (null pointer)");
    return Status::ok();
}

Status validateAttention(const TensorView &q, const TensorView &k, const TensorView &v, const MaskSpec &mask,
                         const AttentionOptions &options)
{
    for (auto [name, t] : {std::pair{"q", &q}, std::pair{"k", &k}, std::pair{"v", &v}})
        if (Status s = checkOperand(name, *t); !s) return s;
    const auto mismatch = [&](const std::string &what) {
        return Status::invalid(what + " (q " + shapeString(q.shape) + ", k " + shapeString(k.shape) + ", v " +
                               shapeString(v.shape) + ")");
    };
    if (k.shape[0] != q.shape[0] || v.shape[0] != q.shape[0]) return mismatch("q, k and v disagree on batch size");
    if (k.shape[1] != v.shape[1]) return mismatch("k and v disagree on the number of heads");
    if (q.shape[1] % k.shape[1] != 0)
        return mismatch("q's heads (" + std::to_string(q.shape[1]) + ") are not a multiple of k's heads (" +
                        std::to_string(k.shape[1]) + ")");
    if (k.shape[2] != v.shape[2]) return mismatch("k and v disagree on sequence length");
    if (k.shape[3] != q.shape[3]) return mismatch("q and k disagree on head dim");
    if (std::isnan(options.scale) || std::isinf(options.scale) || options.scale < 0.0f)
        return Status::invalid("scale is " + std::to_string(options.scale) + "; use 0 for 1/sqrt(D) or a positive number");
    if (options.threads < 0) return Status::invalid("threads is " + std::to_string(options.threads) + "; use 0 for all cores");
    if (!std::isfinite(options.softcap) || options.softcap < 0.0f)
        return Status::invalid("softcap is " + std::to_string(options.softcap) +
                               "; use 0 for off or a positive finite cap (Gemma 2 uses 50)");
    if (options.output == AttentionOptions::Output::LseOnly && options.weights.mode != WeightsRequest::Mode::None)
        return Status::invalid("output LseOnly computes the LSE only: weights must not be requested (use output "
                               "OutputAndLse for weights)");
    const std::int64_t B = q.shape[0], H = q.shape[1];
    if (Status s = validateMask(mask, B, H, q.shape[2], k.shape[2]); !s) return s;
    if (options.weights.mode == WeightsRequest::Mode::Heads) {
        for (const HeadIndex &hi : options.weights.heads)
            if (hi.batch < 0 || hi.batch >= B || hi.head < 0 || hi.head >= H)
                return Status::invalid("weights requested for batch " + std::to_string(hi.batch) + " head " +
                                       std::to_string(hi.head) + ", outside batch [0, " + std::to_string(B) +
                                       ") x heads [0, " + std::to_string(H) + ")");
    }
    return Status::ok();
}

// fp64 oracle through the common interface: results rounded to fp32. It rounds its inputs to the compute type
// itself (ReferenceOptions::dtype), so it sees the caller's views.
static Status runReference(const detail::KernelArgs &a)
{
    ReferenceOptions ro;
    ro.scale = a.scale;
    ro.softcap = a.softcap;
    ro.dtype = a.dtype;
    ro.keepWeights = a.weights && !a.weights->empty();
    ro.cancel = a.cancel;
    ro.progress = a.progress;
    auto r = referenceAttention(a.q, a.k, a.v, *a.mask, ro);
    if (!r) return r.status();
    if (!a.lseOnly)
        std::transform(r->out.begin(), r->out.end(), a.out.data, [](double x) { return static_cast<float>(x); });
    std::transform(r->lse.begin(), r->lse.end(), a.lse, [](double x) { return static_cast<float>(x); });
    if (ro.keepWeights) {
        const std::size_t plane = static_cast<std::size_t>(a.Lq() * a.Lk());
        for (HeadWeights &w : *a.weights) {
            const std::size_t off = static_cast<std::size_t>(w.index.batch * a.H() + w.index.head) * plane;
            std::transform(r->P.begin() + static_cast<std::ptrdiff_t>(off),
                           r->P.begin() + static_cast<std::ptrdiff_t>(off + plane), w.P.begin(),
                           [](double x) { return static_cast<float>(x); });
        }
    }
    return Status::ok();
}

// A contiguous copy of t with every element rounded to dtype: what the CPU kernels read for F16/BF16.
static Tensor roundedCopy(const TensorView &t, ComputeDtype dtype)
{
    Tensor r(t.shape);
    float *dst = r.values.data();
    for (std::int64_t b = 0; b < t.shape[0]; ++b)
        for (std::int64_t h = 0; h < t.shape[1]; ++h)
            for (std::int64_t i = 0; i < t.shape[2]; ++i) {
                const float *row = t.row(b, h, i);
                for (std::int64_t d = 0; d < t.shape[3]; ++d) *dst++ = roundToDtype(row[d * t.strides[3]], dtype);
            }
    return r;
}

// Tiled or unfused on inputs rounded to the compute type (plain fp32: the caller's views as they are).
static Status runCpu(Backend backend, const detail::KernelArgs &args)
{
    const auto run = [backend](const detail::KernelArgs &a) {
        return backend == Backend::Unfused ? detail::unfusedAttention(a) : detail::tiledAttention(a);
    };
    if (args.dtype == ComputeDtype::F32) return run(args);
    if (args.cancel && args.cancel()) return Status::cancelled();
    const Tensor q = roundedCopy(args.q, args.dtype), k = roundedCopy(args.k, args.dtype),
                 v = roundedCopy(args.v, args.dtype);
    detail::KernelArgs rounded = args;
    rounded.q = q.view();
    rounded.k = k.view();
    rounded.v = v.view();
    return run(rounded);
}

Result<AttentionOutput> attention(const TensorView &q, const TensorView &k, const TensorView &v,
                                  const MaskSpec &mask, const AttentionOptions &options)
{
    if (Status s = validateAttention(q, k, v, mask, options); !s) return s;
    const std::int64_t B = q.shape[0], H = q.shape[1], Lq = q.shape[2], Lk = k.shape[2];
    const bool lseOnly = options.output == AttentionOptions::Output::LseOnly;
    const bool forceSplit = options.splitKv == AttentionOptions::SplitKv::On;

    Backend backend = options.backend;
    if (backend == Backend::Auto) {
        // CUDA when usable and worth the transfer (kCudaAutoMinFlops), unless an option only the CPU implements
        // was asked for; every compute type runs on the CPU otherwise.
        const double flops = 4.0 * double(B) * double(H) * double(Lq) * double(Lk) * double(q.shape[3]);
        const bool fits = q.shape[3] <= 256 && v.shape[3] <= 256;
        backend = Backend::Tiled;
        if (!forceSplit && fits && flops >= kCudaAutoMinFlops && cudaAvailable()) backend = Backend::Cuda;
    }
    if (backend == Backend::Cuda && forceSplit)
        return Status(ErrorCode::Unavailable, "splitKv On is not implemented by the CUDA backend (it has no split-KV "
                                              "kernel); use the tiled backend or Backend::Auto");
    if (backend == Backend::Cuda && !cudaAvailable())
        return Status(ErrorCode::Unavailable, "the CUDA backend is unavailable: " + cudaUnavailableReason());

    const std::size_t wanted = weightsBytes(options.weights, B, H, Lq, Lk);
    if (wanted > options.weightsBudgetBytes)
        return Status(ErrorCode::OutOfMemory,
                      "attention weights for the requested heads need " + mib(wanted) + " (" + std::to_string(Lq) +
                          " x " + std::to_string(Lk) + " per head), over the memory budget of " +
                          mib(options.weightsBudgetBytes) + "; request fewer heads or a shorter input");
    if (backend == Backend::Reference && wanted > 0) {
        // The oracle keeps S and P for every head in fp64.
        const std::size_t refBytes = static_cast<std::size_t>(B * H) * static_cast<std::size_t>(Lq * Lk) * 16;
        if (refBytes > options.weightsBudgetBytes)
            return Status(ErrorCode::OutOfMemory, "the reference backend would keep " + mib(refBytes) +
                                                      " of fp64 scores and weights, over the memory budget of " +
                                                      mib(options.weightsBudgetBytes) + "; use the tiled backend");
    }

    // Poll once before allocating: the weight buffers alone can take a noticeable time to zero at long L.
    if (options.cancel && options.cancel()) return Status::cancelled();
    AttentionOutput result;
    result.backend = backend;
    if (!lseOnly) result.out = Tensor({B, H, Lq, v.shape[3]});
    result.lse.assign(static_cast<std::size_t>(B * H * Lq), 0.0f);
    if (options.weights.mode == WeightsRequest::Mode::All) {
        for (std::int64_t b = 0; b < B; ++b)
            for (std::int64_t h = 0; h < H; ++h) result.weights.push_back({{b, h}, {}});
    } else if (options.weights.mode == WeightsRequest::Mode::Heads) {
        for (const HeadIndex &hi : options.weights.heads) result.weights.push_back({hi, {}});
    }
    for (HeadWeights &w : result.weights) {
        if (options.cancel && options.cancel()) return Status::cancelled();
        w.P.assign(static_cast<std::size_t>(Lq * Lk), 0.0f);
    }

    detail::KernelArgs args;
    args.q = q;
    args.k = k;
    args.v = v;
    args.mask = &mask;
    args.scale = options.scale > 0.0f ? options.scale : 1.0f / std::sqrt(static_cast<float>(q.shape[3]));
    args.softcap = options.softcap;
    if (!lseOnly) args.out = result.out.view();
    args.lse = result.lse.data();
    args.lseOnly = lseOnly;
    args.splitKv = options.splitKv;
    args.weights = &result.weights;
    args.threads = options.threads > 0 ? options.threads : hardwareThreads();
    args.dtype = options.computeDtype;
    args.deviceMs = &result.deviceMs;
    args.progress = options.progress;
    args.cancel = options.cancel;

    Status status;
    switch (backend) {
    case Backend::Reference: status = runReference(args); break;
    case Backend::Tiled:
    case Backend::Unfused: status = runCpu(backend, args); break;
    case Backend::Cuda: status = detail::cudaAttention(args); break;
    case Backend::Auto: status = Status(ErrorCode::Internal, "Auto was not resolved"); break;
    }
    // Auto chose CUDA but this device cannot run the kernel for the shape (shared memory on sm_86/89 for the
    // larger head dims): the CPU answers instead. An explicit Backend::Cuda keeps the message.
    if (!status && status.code() == ErrorCode::Unavailable && options.backend == Backend::Auto &&
        backend == Backend::Cuda) {
        status = runCpu(Backend::Tiled, args);
        result.backend = Backend::Tiled;
    }
    if (!status) return status;
    return result;
}

} // namespace attn
