// SPDX-License-Identifier: GPL-3.0-or-later
// The CUDA backend's host side: pack the caller's strided fp32 views, upload operands and masks (the per-head
// bias included; the soft-cap travels in FlashParams), launch the flash
// kernels in slices of (batch, head) pairs — polling cancel and reporting progress between launches — then the
// weights kernel for each requested head, and copy O, LSE and P back. Every CUDA error becomes a Status naming the
// step; nothing here exits or throws past this file.
#include "cuda/launcher.h"

#include "cuda/flash_kernels.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace attn::detail {
namespace {

Status cudaStatus(cudaError_t error, const char *what)
{
    const ErrorCode code = error == cudaErrorMemoryAllocation ? ErrorCode::OutOfMemory : ErrorCode::Internal;
    return Status(code, std::string("CUDA backend: ") + what + " failed: " + cudaGetErrorString(error) + " (" +
                            cudaGetErrorName(error) + ")");
}

#define ATTN_CUDA_TRY(call, what)                                                                                  \
    do {                                                                                                           \
        if (cudaError_t attnCudaError_ = (call); attnCudaError_ != cudaSuccess) {                                 \
            cudaGetLastError(); /* clear a non-sticky error so the next call starts clean */                       \
            return cudaStatus(attnCudaError_, what);                                                               \
        }                                                                                                          \
    } while (0)

// Device memory that frees itself; the launcher's early returns never leak.
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    DeviceBuffer(const DeviceBuffer &) = delete;
    DeviceBuffer &operator=(const DeviceBuffer &) = delete;
    ~DeviceBuffer()
    {
        if (m_ptr) cudaFree(m_ptr);
    }
    cudaError_t allocate(std::size_t bytes)
    {
        return bytes == 0 ? cudaSuccess : cudaMalloc(&m_ptr, bytes);
    }
    template <typename T> T *as() const { return static_cast<T *>(m_ptr); }

private:
    void *m_ptr = nullptr;
};

class Stream {
public:
    ~Stream()
    {
        if (m_stream) cudaStreamDestroy(m_stream);
    }
    cudaError_t create() { return cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking); }
    cudaStream_t get() const { return m_stream; }

private:
    cudaStream_t m_stream = nullptr;
};

class Event {
public:
    ~Event()
    {
        if (m_event) cudaEventDestroy(m_event);
    }
    cudaError_t create() { return cudaEventCreate(&m_event); }
    cudaEvent_t get() const { return m_event; }

private:
    cudaEvent_t m_event = nullptr;
};

// A contiguous [B, H, L, D] fp32 copy of a view, or the view's own memory when it already is one.
const float *packed(const TensorView &t, std::vector<float> &scratch)
{
    const Shape4 &s = t.shape;
    const TensorView contiguous(t.data, s);
    if (t.strides == contiguous.strides) return t.data;
    scratch.resize(static_cast<std::size_t>(t.numel()));
    float *dst = scratch.data();
    for (std::int64_t b = 0; b < s[0]; ++b)
        for (std::int64_t h = 0; h < s[1]; ++h)
            for (std::int64_t i = 0; i < s[2]; ++i) {
                const float *row = t.row(b, h, i);
                if (t.strides[3] == 1) {
                    std::memcpy(dst, row, static_cast<std::size_t>(s[3]) * sizeof(float));
                } else {
                    for (std::int64_t d = 0; d < s[3]; ++d) dst[d] = row[d * t.strides[3]];
                }
                dst += s[3];
            }
    return scratch.data();
}

// Every copy is ordered on the launcher's own stream (a plain cudaMemcpy runs on the legacy default stream, which
// does not order against a non-blocking stream, and may return before a pageable H2D transfer has landed).
template <typename T>
cudaError_t upload(DeviceBuffer &buffer, const T *data, std::size_t count, cudaStream_t stream)
{
    if (cudaError_t e = buffer.allocate(count * sizeof(T))) return e;
    return count ? cudaMemcpyAsync(buffer.as<T>(), data, count * sizeof(T), cudaMemcpyHostToDevice, stream)
                 : cudaSuccess;
}

cuda::Dtype toDevice(ComputeDtype dtype)
{
    switch (dtype) {
    case ComputeDtype::F16: return cuda::Dtype::F16;
    case ComputeDtype::BF16: return cuda::Dtype::BF16;
    case ComputeDtype::F32: break;
    }
    return cuda::Dtype::F32;
}

} // namespace

Status checkCudaProblem(std::int64_t B, std::int64_t H, std::int64_t Lq, std::int64_t Lk, std::int64_t D,
                        std::int64_t Dv)
{
    if (D > cuda::kMaxHeadDim || Dv > cuda::kMaxHeadDim)
        return Status::invalid("the CUDA backend supports head dims up to " + std::to_string(cuda::kMaxHeadDim) +
                               " (got D = " + std::to_string(D) + ", Dv = " + std::to_string(Dv) +
                               "); use the tiled backend");
    constexpr std::int64_t kMaxLength = std::int64_t(1) << 30;   // int indices inside the kernels
    if (Lq >= kMaxLength || Lk >= kMaxLength || B * H >= (std::int64_t(1) << 31))
        return Status::invalid("the CUDA backend supports lengths below 2^30 and B*H below 2^31 (got Lq = " +
                               std::to_string(Lq) + ", Lk = " + std::to_string(Lk) + ", B*H = " +
                               std::to_string(B * H) + ")");
    return Status::ok();
}

Status cudaAttention(const KernelArgs &a)
{
    const std::int64_t B = a.B(), H = a.H(), Hkv = a.Hkv(), Lq = a.Lq(), Lk = a.Lk(), D = a.D(), Dv = a.Dv();
    if (Status s = checkCudaProblem(B, H, Lq, Lk, D, Dv); !s) return s;
    const MaskSpec &mask = *a.mask;
    const cuda::Dtype dtype = toDevice(a.dtype);

    int device = 0;
    ATTN_CUDA_TRY(cudaGetDevice(&device), "cudaGetDevice");
    int smemLimit = 0;
    ATTN_CUDA_TRY(cudaDeviceGetAttribute(&smemLimit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
                  "reading the shared-memory limit");
    const int smemNeeded = (dtype == cuda::Dtype::F32 ? cuda::flashF32SharedBytes(int(D), int(Dv))
                                                      : cuda::flashTensorCoreSharedBytes(int(D), int(Dv))) +
                           1024;   // + the kernels' static shared arrays
    if (smemNeeded > smemLimit)
        return Status(ErrorCode::Unavailable,
                      "the CUDA kernel for D = " + std::to_string(D) + ", Dv = " + std::to_string(Dv) + " needs " +
                          std::to_string(smemNeeded) + " bytes of shared memory per block; this device allows " +
                          std::to_string(smemLimit));

    Stream stream;
    ATTN_CUDA_TRY(stream.create(), "creating a stream");

    // Operands: packed on the host when strided, then copied as fp32 (fp16/bf16 rounding happens on the device).
    // Host sources (the scratch copies included) stay alive until the stream has been synchronised below.
    std::vector<float> qScratch, kScratch, vScratch;
    DeviceBuffer dq, dk, dv, dout, dlse;
    const cudaStream_t st = stream.get();
    ATTN_CUDA_TRY(upload(dq, packed(a.q, qScratch), static_cast<std::size_t>(a.q.numel()), st), "copying q to the GPU");
    ATTN_CUDA_TRY(upload(dk, packed(a.k, kScratch), static_cast<std::size_t>(a.k.numel()), st), "copying k to the GPU");
    ATTN_CUDA_TRY(upload(dv, packed(a.v, vScratch), static_cast<std::size_t>(a.v.numel()), st), "copying v to the GPU");
    ATTN_CUDA_TRY(dout.allocate(static_cast<std::size_t>(B * H * Lq * Dv) * sizeof(float)), "allocating O");
    ATTN_CUDA_TRY(dlse.allocate(static_cast<std::size_t>(B * H * Lq) * sizeof(float)), "allocating the LSE");

    // Masks: the batch's valid-key range (as the CPU kernel computes it) and the element-wise parts verbatim.
    std::vector<long long> firstKey(static_cast<std::size_t>(B), 0), lastKey(static_cast<std::size_t>(B), Lk - 1);
    if (!mask.keyValid.empty())
        for (std::int64_t b = 0; b < B; ++b) {
            const std::uint8_t *kv = mask.keyValid.data() + b * Lk;
            std::int64_t first = 0, last = Lk - 1;
            while (first < Lk && !kv[first]) ++first;
            while (last >= 0 && !kv[last]) --last;
            firstKey[static_cast<std::size_t>(b)] = first;
            lastKey[static_cast<std::size_t>(b)] = last;
        }
    DeviceBuffer dFirst, dLast, dKeyValid, dQueryValid, dAllowed, dAdditive, dAlibi, dHeadBias;
    ATTN_CUDA_TRY(upload(dFirst, firstKey.data(), firstKey.size(), st), "copying the mask");
    ATTN_CUDA_TRY(upload(dLast, lastKey.data(), lastKey.size(), st), "copying the mask");
    ATTN_CUDA_TRY(upload(dKeyValid, mask.keyValid.data(), mask.keyValid.size(), st), "copying the key padding mask");
    ATTN_CUDA_TRY(upload(dQueryValid, mask.queryValid.data(), mask.queryValid.size(), st),
                  "copying the query padding mask");
    ATTN_CUDA_TRY(upload(dAllowed, mask.allowed.data(), mask.allowed.size(), st), "copying the boolean mask");
    ATTN_CUDA_TRY(upload(dAdditive, mask.additive.data(), mask.additive.size(), st), "copying the additive mask");
    ATTN_CUDA_TRY(upload(dAlibi, mask.alibiSlopes.data(), mask.alibiSlopes.size(), st), "copying the ALiBi slopes");
    ATTN_CUDA_TRY(upload(dHeadBias, mask.headBias.data(), mask.headBias.size(), st), "copying the per-head bias");
    ATTN_CUDA_TRY(cudaStreamSynchronize(st), "copying the inputs to the GPU");
    qScratch = {};
    kScratch = {};
    vScratch = {};

    cuda::FlashParams p;
    p.q = dq.as<float>();
    p.k = dk.as<float>();
    p.v = dv.as<float>();
    p.out = dout.as<float>();
    p.lse = dlse.as<float>();
    p.B = int(B);
    p.H = int(H);
    p.Hkv = int(Hkv);
    p.Lq = int(Lq);
    p.Lk = int(Lk);
    p.D = int(D);
    p.Dv = int(Dv);
    p.scale = a.scale;
    p.softcap = a.softcap;
    cuda::DeviceMask &m = p.mask;
    m.causal = mask.causal;
    m.window = mask.window;
    m.block = mask.block;
    m.firstKey = dFirst.as<long long>();
    m.lastKey = dLast.as<long long>();
    m.keyValid = mask.keyValid.empty() ? nullptr : dKeyValid.as<unsigned char>();
    m.queryValid = mask.queryValid.empty() ? nullptr : dQueryValid.as<unsigned char>();
    m.allowed = mask.allowed.empty() ? nullptr : dAllowed.as<unsigned char>();
    m.allowedBatched = std::int64_t(mask.allowed.size()) > Lq * Lk;
    m.additive = mask.additive.empty() ? nullptr : dAdditive.as<float>();
    m.additiveBatched = std::int64_t(mask.additive.size()) > Lq * Lk;
    m.alibi = mask.alibiSlopes.empty() ? nullptr : dAlibi.as<float>();
    m.headBias = mask.headBias.empty() ? nullptr : dHeadBias.as<float>();

    Event start, stop;
    ATTN_CUDA_TRY(start.create(), "creating an event");
    ATTN_CUDA_TRY(stop.create(), "creating an event");
    float kernelMs = 0.0f;

    // Forward pass in slices of (b, h) pairs: cancel is polled and progress reported between launches. A slice is
    // at least ~4 waves of blocks on a big GPU, so the synchronisation between slices costs little.
    const std::int64_t pairs = B * H;
    const std::int64_t rowsPerBlock = 64;
    const std::int64_t blocksPerPair = (Lq + rowsPerBlock - 1) / rowsPerBlock;
    const std::int64_t slices = std::clamp<std::int64_t>(pairs * blocksPerPair / 2048, 1, 16);
    const std::int64_t perSlice = std::min<std::int64_t>((pairs + slices - 1) / slices, 65535);
    const std::size_t weightHeads = a.weights ? a.weights->size() : 0;
    const double totalSteps = double(pairs) + double(weightHeads) * 0.5;   // weights: about half a forward each
    for (std::int64_t begin = 0; begin < pairs; begin += perSlice) {
        if (a.cancel && a.cancel()) return Status::cancelled();
        p.bhBegin = int(begin);
        p.bhEnd = int(std::min(pairs, begin + perSlice));
        ATTN_CUDA_TRY(cudaEventRecord(start.get(), st), "recording an event");
        ATTN_CUDA_TRY(dtype == cuda::Dtype::F32 ? cuda::launchFlashF32(p, st)
                                                : cuda::launchFlashTensorCore(p, dtype, st),
                      "launching the flash-attention kernel");
        ATTN_CUDA_TRY(cudaEventRecord(stop.get(), st), "recording an event");
        ATTN_CUDA_TRY(cudaEventSynchronize(stop.get()), "running the flash-attention kernel");
        float ms = 0.0f;
        ATTN_CUDA_TRY(cudaEventElapsedTime(&ms, start.get(), stop.get()), "reading the kernel time");
        kernelMs += ms;
        if (a.progress) a.progress(double(p.bhEnd) / totalSteps);
    }

    // Output::LseOnly: the kernels compute O anyway (it costs no extra pass on the device); it is not copied back.
    if (!a.lseOnly)
        ATTN_CUDA_TRY(cudaMemcpyAsync(a.out.data, dout.as<float>(),
                                      static_cast<std::size_t>(B * H * Lq * Dv) * sizeof(float),
                                      cudaMemcpyDeviceToHost, st),
                      "copying O back");
    ATTN_CUDA_TRY(cudaMemcpyAsync(a.lse, dlse.as<float>(), static_cast<std::size_t>(B * H * Lq) * sizeof(float),
                                  cudaMemcpyDeviceToHost, st),
                  "copying the LSE back");
    ATTN_CUDA_TRY(cudaStreamSynchronize(st), "copying O and the LSE back");

    // Exact weights for the requested heads, one head at a time (one [Lq, Lk] device buffer, reused).
    if (weightHeads > 0) {
        DeviceBuffer dP, dRowLse;
        ATTN_CUDA_TRY(dP.allocate(static_cast<std::size_t>(Lq * Lk) * sizeof(float)), "allocating the weights");
        ATTN_CUDA_TRY(dRowLse.allocate(static_cast<std::size_t>(Lq) * sizeof(double)), "allocating the weights");
        p.bhBegin = 0;
        p.bhEnd = int(pairs);
        std::size_t done = 0;
        for (HeadWeights &w : *a.weights) {
            if (a.cancel && a.cancel()) return Status::cancelled();
            ATTN_CUDA_TRY(cudaEventRecord(start.get(), st), "recording an event");
            ATTN_CUDA_TRY(cuda::launchWeights(p, dtype, int(w.index.batch), int(w.index.head), dRowLse.as<double>(),
                                              dP.as<float>(), st),
                          "launching the weights kernel");
            ATTN_CUDA_TRY(cudaEventRecord(stop.get(), st), "recording an event");
            ATTN_CUDA_TRY(cudaEventSynchronize(stop.get()), "running the weights kernel");
            float ms = 0.0f;
            ATTN_CUDA_TRY(cudaEventElapsedTime(&ms, start.get(), stop.get()), "reading the kernel time");
            kernelMs += ms;
            ATTN_CUDA_TRY(cudaMemcpyAsync(w.P.data(), dP.as<float>(), w.P.size() * sizeof(float),
                                          cudaMemcpyDeviceToHost, st),
                          "copying the weights back");
            ATTN_CUDA_TRY(cudaStreamSynchronize(st), "copying the weights back");
            ++done;
            if (a.progress) a.progress((double(pairs) + 0.5 * double(done)) / totalSteps);
        }
    }
    if (a.deviceMs) *a.deviceMs = double(kernelMs);
    if (a.progress) a.progress(1.0);
    return Status::ok();
}

} // namespace attn::detail
