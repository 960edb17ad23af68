// SPDX-License-Identifier: GPL-3.0-or-later
// Run-time availability of the CUDA path. This build carries no CUDA kernels yet (they are a separate issue),
// so the backend reports itself unavailable with that reason instead of pretending.
#include <attnscope/attention.h>

#include "../backends.h"

namespace attn {

bool cudaBuilt() { return false; }
bool cudaAvailable() { return false; }
std::string cudaUnavailableReason()
{
    return "this build of AttnScope has no CUDA kernels (the CUDA flash path is not implemented yet)";
}

namespace detail {
Status cudaAttention(const KernelArgs &)
{
    return Status(ErrorCode::Unavailable, "the CUDA backend is unavailable: " + cudaUnavailableReason());
}
} // namespace detail

} // namespace attn
