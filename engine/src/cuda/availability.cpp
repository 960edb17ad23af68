// SPDX-License-Identifier: GPL-3.0-or-later
// Run-time availability of the CUDA path: the one answer the dispatch, the bench, the tests (QSKIP) and the UI
// (greyed-out menu entry with a tooltip) all show. Checked once per process, in order: built? driver? driver new
// enough for this runtime? a device? compute capability >= 8.0? kernels that run on it?
#include <attnscope/attention.h>

#include "backends.h"

#include <mutex>
#include <string>

#if ATTNSCOPE_HAVE_CUDA
#include "cuda/flash_kernels.h"

#include <cuda_runtime.h>
#endif

namespace attn {

namespace {

struct CudaState {
    bool available = false;
    std::string reason;
    std::string deviceName;
};

#if ATTNSCOPE_HAVE_CUDA
std::string versionString(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

CudaState probe()
{
    CudaState s;
    // cudart is linked statically and loads libcuda.so.1 itself: without a driver these calls fail cleanly.
    int driver = 0, runtime = 0;
    if (cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0) {
        cudaGetLastError();
        s.reason = "no CUDA driver (libcuda.so.1, the NVIDIA driver's CUDA library, was not found)";
        return s;
    }
    cudaRuntimeGetVersion(&runtime);
    if (driver < runtime) {
        s.reason = "CUDA driver older than the runtime (the driver supports CUDA " + versionString(driver) +
                   ", this build needs " + versionString(runtime) + ")";
        return s;
    }
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaErrorNoDevice || (e == cudaSuccess && count == 0)) {
        cudaGetLastError();
        s.reason = "no CUDA device";
        return s;
    }
    if (e == cudaErrorInsufficientDriver) {
        cudaGetLastError();
        s.reason = "CUDA driver older than the runtime (this build needs CUDA " + versionString(runtime) + ")";
        return s;
    }
    if (e != cudaSuccess) {
        cudaGetLastError();
        s.reason = std::string("CUDA initialisation failed: ") + cudaGetErrorString(e);
        return s;
    }
    int device = 0;
    cudaGetDevice(&device);
    cudaDeviceProp prop{};
    if (const cudaError_t pe = cudaGetDeviceProperties(&prop, device); pe != cudaSuccess) {
        cudaGetLastError();
        s.reason = std::string("cannot read the CUDA device's properties: ") + cudaGetErrorString(pe);
        return s;
    }
    const std::string cc = std::to_string(prop.major) + "." + std::to_string(prop.minor);
    if (prop.major < 8) {
        s.reason = "compute capability " + cc + " too low (needs 8.0)";
        return s;
    }
    if (const cudaError_t ke = cuda::probeKernelImage(); ke != cudaSuccess) {
        cudaGetLastError();
        s.reason = "the CUDA kernels of this build do not run on compute capability " + cc + " (built for " +
                   ATTNSCOPE_CUDA_ARCHS + "; reconfigure with -DCMAKE_CUDA_ARCHITECTURES): " + cudaGetErrorString(ke);
        return s;
    }
    s.available = true;
    s.deviceName = std::string(prop.name) + " (compute capability " + cc + ")";
    return s;
}
#else
CudaState probe()
{
    CudaState s;
    s.reason = std::string("this build has no CUDA kernels (") + ATTNSCOPE_CUDA_NOTE + ")";
    return s;
}
#endif

const CudaState &state()
{
    static std::once_flag once;
    static CudaState s;
    std::call_once(once, [] { s = probe(); });
    return s;
}

} // namespace

bool cudaBuilt() { return ATTNSCOPE_HAVE_CUDA != 0; }
bool cudaAvailable() { return state().available; }
std::string cudaUnavailableReason() { return state().available ? std::string() : state().reason; }
std::string cudaDeviceName() { return state().deviceName; }

#if !ATTNSCOPE_HAVE_CUDA
namespace detail {
Status cudaAttention(const KernelArgs &)
{
    return Status(ErrorCode::Unavailable, "the CUDA backend is unavailable: " + cudaUnavailableReason());
}
} // namespace detail
#endif

} // namespace attn
