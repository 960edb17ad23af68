// SPDX-License-Identifier: GPL-3.0-or-later
// The engine without Qt: this executable links attn_engine only (testsupport.cpp is plain C++ compiled in),
// has its own main() and exits non-zero on any failure. It proves the engine builds, links and runs on its own.

#include "testsupport.h"

#include <attnscope/attention.h>
#include <attnscope/mha.h>
#include <attnscope/reference.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

using namespace attn;
using namespace attn::test;

namespace {

int g_failures = 0;

void check(bool ok, const std::string &what)
{
    std::printf("%s  %s\n", ok ? "PASS" : "FAIL", what.c_str());
    if (!ok) ++g_failures;
}

void fastPathsAgree()
{
    const std::int64_t B = 2, H = 2, n = 97, D = 64;
    const Operand q = makeOperand({B, H, n, D}, Layout::BLHD, 1);
    const Operand k = makeOperand({B, H, n, D}, Layout::BLHD, 2);
    const Operand v = makeOperand({B, H, n, D}, Layout::BLHD, 3);
    MaskSpec mask = makeMask(MaskKind::CausalLeftPadding, B, H, n, n, 4);
    auto ref = referenceAttention(q.view(), k.view(), v.view(), mask, {});
    check(ref.isOk(), "reference runs" + (ref.isOk() ? std::string() : ": " + ref.status().message()));
    if (!ref.isOk()) return;
    const NaiveOutput naive = naiveAttention(q.view(), k.view(), v.view(), mask);
    const double errNaive = compare(naive.out.data(), ref->out.data(), naive.out.size()).maxAbs;
    for (Backend backend : {Backend::Tiled, Backend::Unfused, Backend::Auto}) {
        AttentionOptions opt;
        opt.backend = backend;
        auto r = attention(q.view(), k.view(), v.view(), mask, opt);
        const std::string name = backendName(backend);
        check(r.isOk(), name + " runs" + (r.isOk() ? std::string() : ": " + r.status().message()));
        if (!r.isOk()) continue;
        const ErrorStat e = compare(r->out.values.data(), ref->out.data(), naive.out.size());
        check(e.mismatchedInf == 0 && e.maxAbs <= 2 * errNaive + 1e-7,
              name + " vs fp64: " + e.describe() + " (naive fp32 " + fmt(errNaive) + ")");
        bool emptyRowsOk = true;
        for (std::size_t row = 0; row < ref->lse.size(); ++row) {
            if (!std::isinf(ref->lse[row])) continue;
            emptyRowsOk = emptyRowsOk && r->lse[row] == std::numeric_limits<float>::infinity();
            for (std::int64_t d = 0; d < D; ++d) emptyRowsOk = emptyRowsOk && r->out.values[row * D + d] == 0.0f;
        }
        check(emptyRowsOk, name + ": fully masked rows are 0 with LSE +inf");
    }
}

void errorsAreValues()
{
    const Operand q = makeOperand({2, 1, 4, 8}, Layout::BHLD, 1);
    const Operand k = makeOperand({3, 1, 4, 8}, Layout::BHLD, 2);
    auto r = attention(q.view(), k.view(), k.view(), {}, {});
    check(!r.isOk() && r.status().code() == ErrorCode::InvalidArgument && !r.status().message().empty(),
          "batch mismatch is an InvalidArgument value: \"" + (r.isOk() ? std::string() : r.status().message()) + "\"");
    if (!cudaAvailable()) {
        AttentionOptions opt;
        opt.backend = Backend::Cuda;
        auto c = attention(q.view(), q.view(), q.view(), {}, opt);
        check(!c.isOk() && c.status().code() == ErrorCode::Unavailable,
              "cuda without a device is Unavailable (" + cudaUnavailableReason() + ")");
    }
}

void mhaRuns()
{
    const MhaWeights w = MhaWeights::random(32, 4, 8, 3);
    const std::vector<float> x = randomNormal(2 * 9 * 32, 4);
    MhaOptions opt;
    opt.positional = PositionalEncoding::RoPE;
    auto r = multiHeadAttention(x.data(), 2, 9, w, MaskSpec::causalMask(), opt);
    check(r.isOk() && r->y.numel() == 2 * 9 * 32 && countNonFinite(r->y.values.data(), r->y.values.size()) == 0,
          "multi-head attention with RoPE runs" + (r.isOk() ? std::string() : ": " + r.status().message()));
}

} // namespace

int main()
{
    std::printf("engine without Qt: simd %s, %d hardware threads, cuda: %s\n", cpuSimdLevel().c_str(),
                hardwareThreads(), cudaAvailable() ? "available" : cudaUnavailableReason().c_str());
    fastPathsAgree();
    errorsAreValues();
    mhaRuns();
    std::printf("%d failure(s)\n", g_failures);
    return g_failures == 0 ? 0 : 1;
}
