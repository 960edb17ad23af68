// SPDX-License-Identifier: GPL-3.0-or-later
// The optional CUDA path (label "cuda").
//
// Without a usable GPU (or in a build without CUDA) every GPU test QSKIPs with attn::cudaUnavailableReason() —
// the same sentence the UI shows — and the tests that need no GPU still run: the reason is specific, the CUDA
// backend returns it as a Status, Auto falls back to the CPU, fp16/bf16 run on the CPU backends too (inputs rounded,
// see tst_attention_options for their accuracy), and the host-side rounding the CUDA path documents.
//
// Pass rule on a GPU (reference/performance.md §5), per compute type, both errors against the fp64 reference:
//   f32:       max|O_cuda − O64| <= 2·max|O_naive32 − O64| + 1e-7, and atol 1e-5 + rtol 5e-6·max|O64|
//   f16/bf16:  max|O_cuda − O64| <= 2·max|O_naiveLP − O64| + 1e-6, where naiveLP is the straightforward
//              same-precision path (inputs rounded to the type, S rounded, softmax in fp32 rounded, O = P·V
//              accumulated in fp32 and rounded): the FlashAttention tests' scale-free rule
// plus: no NaN/Inf in O, LSE = +inf exactly on the reference's fully masked rows and zero output there, LSE
// within the same rule; returned weights rows sum to 1, masked weights exactly 0.

#include "testsupport.h"

#include <attnscope/attention.h>
#include <attnscope/reference.h>
#include <bench.h>

#include <QtTest>

#include <sstream>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>

using namespace attn;
using namespace attn::test;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

QByteArray msg(const std::string &s) { return QByteArray::fromStdString(s); }

std::uint64_t seedFromTag(const char *tag)
{
    std::uint64_t h = 1469598103934665603ull;
    for (; tag && *tag; ++tag) h = (h ^ static_cast<unsigned char>(*tag)) * 1099511628211ull;
    return h;
}

// Skips the calling test function when there is no usable CUDA device, with the reason as the message.
#define REQUIRE_CUDA()                                                                                             \
    do {                                                                                                           \
        if (!cudaAvailable()) QSKIP(qPrintable(QString::fromStdString(cudaUnavailableReason())));                  \
    } while (0)

// The straightforward same-precision path: what a framework's unfused attention does in fp16/bf16.
NaiveOutput naiveLowPrecision(const TensorView &q, const TensorView &k, const TensorView &v, const MaskSpec &mask,
                              float scale, ComputeDtype dt)
{
    const std::int64_t B = q.shape[0], H = q.shape[1], Hkv = k.shape[1], Lq = q.shape[2], Lk = k.shape[2];
    const std::int64_t D = q.shape[3], Dv = v.shape[3];
    if (scale <= 0.0f) scale = 1.0f / std::sqrt(static_cast<float>(D));
    NaiveOutput o;
    o.out.assign(static_cast<std::size_t>(B * H * Lq * Dv), 0.0f);
    o.lse.assign(static_cast<std::size_t>(B * H * Lq), kInf);
    std::vector<float> s(static_cast<std::size_t>(Lk)), kr(static_cast<std::size_t>(Lk * D)),
        vr(static_cast<std::size_t>(Lk * Dv)), qr(static_cast<std::size_t>(D)), acc(static_cast<std::size_t>(Dv));
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t h = 0; h < H; ++h) {
            const std::int64_t kvh = h / (H / Hkv);
            for (std::int64_t j = 0; j < Lk; ++j) {
                for (std::int64_t d = 0; d < D; ++d) kr[j * D + d] = roundToDtype(k.at(b, kvh, j, d), dt);
                for (std::int64_t d = 0; d < Dv; ++d) vr[j * Dv + d] = roundToDtype(v.at(b, kvh, j, d), dt);
            }
            for (std::int64_t i = 0; i < Lq; ++i) {
                for (std::int64_t d = 0; d < D; ++d) qr[d] = roundToDtype(q.at(b, h, i, d), dt);
                float mx = -kInf;
                for (std::int64_t j = 0; j < Lk; ++j) {
                    float dot = 0.0f;
                    for (std::int64_t d = 0; d < D; ++d) dot += qr[d] * kr[j * D + d];
                    const float bias = maskBias(mask, b, h, i, j, Lq, Lk);
                    s[j] = bias == -kInf ? -kInf : roundToDtype(roundToDtype(dot * scale, dt) + bias, dt);
                    mx = std::max(mx, s[j]);
                }
                if (mx == -kInf) continue;   // fully masked: output 0, lse +inf
                float sum = 0.0f;
                for (std::int64_t j = 0; j < Lk; ++j) sum += s[j] == -kInf ? 0.0f : std::exp(s[j] - mx);
                std::fill(acc.begin(), acc.end(), 0.0f);
                for (std::int64_t j = 0; j < Lk; ++j) {
                    if (s[j] == -kInf) continue;
                    const float p = roundToDtype(std::exp(s[j] - mx) / sum, dt);
                    for (std::int64_t d = 0; d < Dv; ++d) acc[d] += p * vr[j * Dv + d];
                }
                float *out = o.out.data() + ((b * H + h) * Lq + i) * Dv;
                for (std::int64_t d = 0; d < Dv; ++d) out[d] = roundToDtype(acc[d], dt);
                o.lse[static_cast<std::size_t>((b * H + h) * Lq + i)] = mx + std::log(sum);
            }
        }
    return o;
}

struct Problem {
    Operand q, k, v;
    MaskSpec mask;
};

Problem makeProblem(std::int64_t B, std::int64_t H, std::int64_t Hkv, std::int64_t Lq, std::int64_t Lk,
                    std::int64_t D, Layout layout, MaskKind kind, std::uint64_t seed)
{
    Problem p;
    p.q = makeOperand({B, H, Lq, D}, layout, seed * 3 + 1);
    p.k = makeOperand({B, Hkv, Lk, D}, layout, seed * 3 + 2);
    p.v = makeOperand({B, Hkv, Lk, D}, layout, seed * 3 + 3);
    p.mask = makeMask(kind, B, H, Lq, Lk, seed);
    return p;
}

// The reasons availability.cpp gives; a new one must be added here and to attention.h's list.
bool isKnownReason(const std::string &r)
{
    for (const char *prefix : {"this build has no CUDA kernels", "no CUDA driver", "no CUDA device",
                               "compute capability ", "CUDA driver older than the runtime",
                               "CUDA initialisation failed: ", "cannot read the CUDA device's properties",
                               "the CUDA kernels of this build do not run on compute capability"})
        if (r.rfind(prefix, 0) == 0) return true;
    return false;
}

} // namespace

class TestCuda : public QObject {
    Q_OBJECT

private slots:
    // No GPU needed.
    void reasonIsSpecific();
    void buildFlagMatchesReason();
    void cudaBackendReturnsReason();
    void autoFallsBackToCpu();
    void cpuBackendsRoundLowPrecision();
    void autoLowPrecisionStaysOnCpuWhenSmall();
    void dtypeNames();
    void roundToDtype_data();
    void roundToDtype();
    void benchRefusesWithoutCuda();
    void benchLowPrecisionOnCpu();
    // GPU.
    void parity_data();
    void parity();
    void weights_data();
    void weights();
    void unsupportedHeadDim();
    void cancelAndProgress();
    void autoPicksCudaForLargeProblems();
    void benchValidatesThenTimesOnGpu_data();
    void benchValidatesThenTimesOnGpu();
};

void TestCuda::reasonIsSpecific()
{
    if (cudaAvailable()) {
        QVERIFY(cudaBuilt());
        QVERIFY(cudaUnavailableReason().empty());
        QVERIFY(!cudaDeviceName().empty());
        qInfo("CUDA device: %s", cudaDeviceName().c_str());
        return;
    }
    const std::string reason = cudaUnavailableReason();
    qInfo("CUDA unavailable: %s", reason.c_str());
    QVERIFY2(isKnownReason(reason), reason.c_str());
    QVERIFY(cudaDeviceName().empty());
    // Cached: the same answer every time (the UI and the tests must agree).
    QCOMPARE(cudaUnavailableReason(), reason);
}

void TestCuda::buildFlagMatchesReason()
{
#if ATTNSCOPE_TEST_CUDA_BUILT
    QVERIFY(cudaBuilt());
    QVERIFY2(cudaUnavailableReason().rfind("this build has no CUDA kernels", 0) != 0, cudaUnavailableReason().c_str());
#else
    QVERIFY(!cudaBuilt());
    QVERIFY(!cudaAvailable());
    QVERIFY2(cudaUnavailableReason().rfind("this build has no CUDA kernels (", 0) == 0,
             cudaUnavailableReason().c_str());
    QVERIFY2(cudaUnavailableReason().find("ATTNSCOPE_CUDA") != std::string::npos, cudaUnavailableReason().c_str());
#endif
}

void TestCuda::cudaBackendReturnsReason()
{
    if (cudaAvailable()) QSKIP("a CUDA device is present: the unavailable path cannot be exercised here");
    const Problem p = makeProblem(1, 2, 2, 7, 7, 16, Layout::BHLD, MaskKind::Causal, 3);
    AttentionOptions opt;
    opt.backend = Backend::Cuda;
    for (ComputeDtype dt : {ComputeDtype::F32, ComputeDtype::F16, ComputeDtype::BF16}) {
        opt.computeDtype = dt;
        auto r = attention(p.q.view(), p.k.view(), p.v.view(), p.mask, opt);
        QVERIFY(!r.isOk());
        QCOMPARE(r.status().code(), ErrorCode::Unavailable);
        QVERIFY2(r.status().message().find(cudaUnavailableReason()) != std::string::npos,
                 r.status().message().c_str());
    }
}

void TestCuda::autoFallsBackToCpu()
{
    // Small problems stay on the CPU whether or not a GPU is present.
    {
        const Problem p = makeProblem(1, 2, 2, 97, 97, 64, Layout::BHLD, MaskKind::Causal, 4);
        auto r = attention(p.q.view(), p.k.view(), p.v.view(), p.mask, {});
        QVERIFY2(r.isOk(), r.status().message().c_str());
        QCOMPARE(r->backend, Backend::Tiled);
    }
    // Over the threshold: CUDA when usable, otherwise the tiled CPU kernel, with the same answer shape.
    if (cudaAvailable()) QSKIP("a CUDA device is present: see autoPicksCudaForLargeProblems");
    const std::int64_t n = 1024, d = 128, H = 4;
    QVERIFY(4.0 * H * n * n * d >= kCudaAutoMinFlops);
    const Problem p = makeProblem(1, H, H, n, n, d, Layout::BHLD, MaskKind::Causal, 5);
    auto r = attention(p.q.view(), p.k.view(), p.v.view(), p.mask, {});
    QVERIFY2(r.isOk(), r.status().message().c_str());
    QCOMPARE(r->backend, Backend::Tiled);
    QCOMPARE(r->deviceMs, 0.0);
}

void TestCuda::cpuBackendsRoundLowPrecision()
{
    // The CPU backends honour F16/BF16 by rounding Q, K and V: the reference backend then equals the fp64 oracle
    // on rounded inputs (rounded to fp32), and no backend's answer is the plain fp32 one.
    const Problem p = makeProblem(1, 1, 1, 7, 7, 16, Layout::BHLD, MaskKind::Bidirectional, 6);
    for (ComputeDtype dt : {ComputeDtype::F16, ComputeDtype::BF16}) {
        ReferenceOptions ro;
        ro.dtype = dt;
        auto oracle = referenceAttention(p.q.view(), p.k.view(), p.v.view(), p.mask, ro);
        QVERIFY(oracle.isOk());
        auto plain = attention(p.q.view(), p.k.view(), p.v.view(), p.mask, {});
        QVERIFY(plain.isOk());
        for (Backend b : {Backend::Reference, Backend::Tiled, Backend::Unfused}) {
            AttentionOptions opt;
            opt.backend = b;
            opt.computeDtype = dt;
            auto r = attention(p.q.view(), p.k.view(), p.v.view(), p.mask, opt);
            QVERIFY2(r.isOk(), r.status().message().c_str());
            QCOMPARE(r->backend, b);
            QVERIFY2(r->out.values != plain->out.values, "rounding the inputs changed nothing");
            if (b != Backend::Reference) continue;
            for (std::size_t i = 0; i < oracle->out.size(); ++i)
                QCOMPARE(r->out.values[i], static_cast<float>(oracle->out[i]));
        }
    }
}

void TestCuda::autoLowPrecisionStaysOnCpuWhenSmall()
{
    // F16/BF16 no longer need a GPU: a small problem stays on the tiled CPU kernel whether or not one is present.
    const Problem p = makeProblem(1, 1, 1, 7, 7, 16, Layout::BHLD, MaskKind::Bidirectional, 7);
    AttentionOptions opt;
    opt.computeDtype = ComputeDtype::F16;
    auto r = attention(p.q.view(), p.k.view(), p.v.view(), p.mask, opt);
    QVERIFY2(r.isOk(), r.status().message().c_str());
    QCOMPARE(r->backend, Backend::Tiled);
}

void TestCuda::dtypeNames()
{
    for (ComputeDtype d : {ComputeDtype::F32, ComputeDtype::F16, ComputeDtype::BF16}) {
        const auto back = parseComputeDtype(dtypeName(d));
        QVERIFY(back.has_value());
        QCOMPARE(int(*back), int(d));
    }
    QVERIFY(!parseComputeDtype("fp8").has_value());
    QCOMPARE(dtypeName(ComputeDtype::BF16), std::string("bf16"));
}

void TestCuda::roundToDtype_data()
{
    QTest::addColumn<int>("dtype");
    QTest::addColumn<double>("x");
    QTest::addColumn<double>("expected");
    const int f16 = int(ComputeDtype::F16), bf16 = int(ComputeDtype::BF16), f32 = int(ComputeDtype::F32);
    QTest::newRow("f32 identity") << f32 << 0.1 << double(0.1f);
    QTest::newRow("f16 exact") << f16 << 1.5 << 1.5;
    QTest::newRow("f16 tie to even down") << f16 << 1.0 + std::ldexp(1.0, -11) << 1.0;
    QTest::newRow("f16 tie to even up") << f16 << 1.0 + 3 * std::ldexp(1.0, -11) << 1.0 + std::ldexp(1.0, -9);
    QTest::newRow("f16 max") << f16 << 65504.0 << 65504.0;
    QTest::newRow("f16 rounds to max") << f16 << 65519.0 << 65504.0;
    QTest::newRow("f16 overflow") << f16 << 65520.0 << double(kInf);
    QTest::newRow("f16 negative overflow") << f16 << -70000.0 << -double(kInf);
    QTest::newRow("f16 subnormal") << f16 << 3 * std::ldexp(1.0, -25) << std::ldexp(1.0, -23);
    QTest::newRow("f16 underflow to 0") << f16 << std::ldexp(1.0, -26) << 0.0;
    QTest::newRow("f16 third") << f16 << double(1.0f / 3.0f) << 0.333251953125;
    QTest::newRow("bf16 third") << bf16 << double(1.0f / 3.0f) << 0.333984375;
    QTest::newRow("bf16 large") << bf16 << 1e30 << 1.0002555517425873e30;
    QTest::newRow("bf16 negative") << bf16 << -3.14159 << -3.140625;
}

void TestCuda::roundToDtype()
{
    QFETCH(int, dtype);
    QFETCH(double, x);
    QFETCH(double, expected);
    const float got = attn::roundToDtype(static_cast<float>(x), static_cast<ComputeDtype>(dtype));
    if (std::isinf(expected)) {
        QVERIFY(std::isinf(got));
        QCOMPARE(got > 0, expected > 0);
        return;
    }
    QCOMPARE(double(got), double(static_cast<float>(expected)));
}

void TestCuda::benchRefusesWithoutCuda()
{
    if (cudaAvailable()) QSKIP("a CUDA device is present: see benchValidatesThenTimesOnGpu");
    bench::BenchConfig c;
    c.n = 64;
    c.d = 16;
    c.heads = 1;
    c.json = true;
    c.backends = {Backend::Cuda};
    std::ostringstream out, err;
    QCOMPARE(bench::runBench(c, out, err), 1);
    QVERIFY2(err.str().find(cudaUnavailableReason()) != std::string::npos, err.str().c_str());
    QVERIFY2(out.str().find("\"error\":\"unavailable: ") != std::string::npos, out.str().c_str());
}

void TestCuda::benchLowPrecisionOnCpu()
{
    // --dtype bf16 with a CPU backend: validated against the same-precision naive path, then timed.
    bench::BenchConfig c;
    c.n = 64;
    c.d = 16;
    c.heads = 1;
    c.reps = 3;
    c.warmups = 1;
    c.gemmSize = 64;
    c.json = true;
    c.dtype = ComputeDtype::BF16;
    c.backends = {Backend::Tiled};
    QVERIFY2(bench::checkBenchConfig(c).empty(), bench::checkBenchConfig(c).c_str());
    std::ostringstream out, err;
    QCOMPARE(bench::runBench(c, out, err), 0);
    QVERIFY2(out.str().find("\"validated\":true") != std::string::npos, out.str().c_str());
    QVERIFY2(out.str().find("\"dtype\":\"bf16\"") != std::string::npos, out.str().c_str());
}

// ---- GPU tests ----------------------------------------------------------------------------------------------

void TestCuda::parity_data()
{
    QTest::addColumn<int>("B");
    QTest::addColumn<int>("H");
    QTest::addColumn<int>("Hkv");
    QTest::addColumn<int>("Lq");
    QTest::addColumn<int>("Lk");
    QTest::addColumn<int>("D");
    QTest::addColumn<int>("layout");
    QTest::addColumn<int>("mask");

    auto row = [](int B, int H, int Hkv, int Lq, int Lk, int D, MaskKind mask, Layout layout = Layout::BHLD) {
        QString tag = Lq == Lk ? QStringLiteral("n=%1").arg(Lq) : QStringLiteral("lq=%1 lk=%2").arg(Lq).arg(Lk);
        tag += QStringLiteral(" d=%1 h=%2").arg(D).arg(H);
        if (Hkv != H) tag += QStringLiteral(" hkv=%1").arg(Hkv);
        tag += QStringLiteral(" b=%1 %2").arg(B).arg(QLatin1String(maskKindName(mask)));
        if (layout != Layout::BHLD) tag += QLatin1Char(' ') + QLatin1String(layoutName(layout));
        QTest::newRow(qPrintable(tag)) << B << H << Hkv << Lq << Lk << D << int(layout) << int(mask);
    };
    using M = MaskKind;
    const M allMasks[] = {M::Bidirectional,    M::Causal,         M::KeyPadding,       M::QueryPadding,
                          M::Window,           M::WindowCausal,   M::Block,            M::BoolCustom,
                          M::BoolCustomBatched, M::AdditiveCustom, M::AdditiveBatched, M::Alibi,
                          M::CausalLeftPadding, M::CausalKeyPadding, M::Everything};
    // n = 1: every head dim, decode-like.
    for (int d : {64, 80, 128}) row(2, 3, 3, 1, 1, d, M::Causal);
    row(1, 4, 4, 1, 97, 64, M::Causal);
    // n = 97: every mask kind, head dims rotating (80 = the general path, 64/128 = the specialised ones).
    const int dims[] = {64, 80, 128};
    int rot = 0;
    for (M m : allMasks) row(2, 3, 3, 97, 97, dims[rot++ % 3], m);
    for (int d : {64, 80, 128}) row(2, 3, 3, 97, 97, d, M::Everything);
    // Lq != Lk (bottom-right causal), GQA/MQA, packed layouts.
    row(2, 3, 3, 7, 97, 64, M::Causal);
    row(1, 3, 3, 97, 7, 128, M::Causal);               // first 90 rows fully masked
    row(1, 2, 2, 130, 1025, 80, M::WindowCausal);
    row(1, 8, 2, 97, 97, 64, M::Alibi);                  // GQA
    row(1, 8, 1, 97, 97, 128, M::Causal);                // MQA
    row(2, 3, 3, 97, 97, 64, M::KeyPadding, Layout::BLHD);
    row(1, 3, 3, 97, 97, 80, M::Bidirectional, Layout::Interleaved);
    // n = 1025 and 4099: several masks, every head dim (kept to a few heads: the fp64 oracle is scalar).
    for (int d : {64, 80, 128}) row(1, 2, 2, 1025, 1025, d, M::Bidirectional);
    for (int d : {64, 128}) row(1, 2, 2, 1025, 1025, d, M::Causal);
    row(2, 2, 2, 1025, 1025, 64, M::CausalKeyPadding);
    row(1, 2, 2, 1025, 1025, 128, M::Window);
    row(1, 2, 2, 1025, 1025, 80, M::Everything);
    for (int d : {64, 80, 128}) row(1, 1, 1, 4099, 4099, d, d == 80 ? M::WindowCausal : M::Causal);
    row(1, 1, 1, 4099, 4099, 64, M::Bidirectional);
    row(1, 1, 1, 4099, 4099, 128, M::KeyPadding);
}

void TestCuda::parity()
{
    REQUIRE_CUDA();
    QFETCH(int, B);
    QFETCH(int, H);
    QFETCH(int, Hkv);
    QFETCH(int, Lq);
    QFETCH(int, Lk);
    QFETCH(int, D);
    QFETCH(int, layout);
    QFETCH(int, mask);
    const Problem p = makeProblem(B, H, Hkv, Lq, Lk, D, Layout(layout), MaskKind(mask), seedFromTag(QTest::currentDataTag()));
    auto ref = referenceAttention(p.q.view(), p.k.view(), p.v.view(), p.mask, {});
    QVERIFY2(ref.isOk(), ref.status().message().c_str());
    const std::size_t nOut = ref->out.size(), nLse = ref->lse.size();

    for (ComputeDtype dt : {ComputeDtype::F32, ComputeDtype::F16, ComputeDtype::BF16}) {
        const NaiveOutput naive = dt == ComputeDtype::F32
                                      ? naiveAttention(p.q.view(), p.k.view(), p.v.view(), p.mask)
                                      : naiveLowPrecision(p.q.view(), p.k.view(), p.v.view(), p.mask, 0.0f, dt);
        AttentionOptions opt;
        opt.backend = Backend::Cuda;
        opt.computeDtype = dt;
        auto r = attention(p.q.view(), p.k.view(), p.v.view(), p.mask, opt);
        const std::string what = dtypeName(dt) + ": ";
        QVERIFY2(r.isOk(), msg(what + r.status().message()));
        QCOMPARE(r->backend, Backend::Cuda);
        QVERIFY2(countNonFinite(r->out.values.data(), nOut) == 0, msg(what + "NaN/Inf in O"));

        const ErrorStat en = compare(naive.out.data(), ref->out.data(), nOut);
        const ErrorStat ec = compare(r->out.values.data(), ref->out.data(), nOut);
        const double tol = dt == ComputeDtype::F32 ? 2 * en.maxAbs + 1e-7 : 2 * en.maxAbs + 1e-6;
        QVERIFY2(ec.maxAbs <= tol, msg(what + "O: " + ec.describe() + "; naive: " + en.describe()));
        if (dt == ComputeDtype::F32)
            QVERIFY2(ec.maxAbs <= 1e-5 + 5e-6 * ec.refMaxAbs, msg(what + "O over atol/rtol: " + ec.describe()));

        // LSE: +inf on exactly the reference's fully masked rows, whose outputs are 0.
        const ErrorStat el = compare(r->lse.data(), ref->lse.data(), nLse);
        QVERIFY2(el.mismatchedInf == 0, msg(what + "LSE: " + el.describe()));
        const ErrorStat enl = compare(naive.lse.data(), ref->lse.data(), nLse);
        const double lseTol = dt == ComputeDtype::F32 ? 1e-5 * std::max(1.0, el.refMaxAbs)
                                                      : 2 * enl.maxAbs + 1e-5 * std::max(1.0, el.refMaxAbs);
        QVERIFY2(el.maxAbs <= lseTol, msg(what + "LSE: " + el.describe() + "; naive: " + enl.describe()));
        const std::int64_t Dv = D;
        for (std::size_t row = 0; row < nLse; ++row) {
            if (!std::isinf(ref->lse[row])) continue;
            QCOMPARE(r->lse[row], kInf);
            for (std::int64_t d = 0; d < Dv; ++d) QCOMPARE(r->out.values[row * Dv + d], 0.0f);
        }
        QVERIFY2(r->deviceMs > 0.0, msg(what + "deviceMs not measured"));
    }
}

void TestCuda::weights_data()
{
    QTest::addColumn<int>("Lq");
    QTest::addColumn<int>("Lk");
    QTest::addColumn<int>("D");
    QTest::addColumn<int>("mask");
    QTest::newRow("n=97 d=64 causal") << 97 << 97 << 64 << int(MaskKind::Causal);
    QTest::newRow("n=97 d=80 everything") << 97 << 97 << 80 << int(MaskKind::Everything);
    QTest::newRow("n=1025 d=128 causal-left-padding") << 1025 << 1025 << 128 << int(MaskKind::CausalLeftPadding);
    QTest::newRow("lq=97 lk=7 d=64 causal") << 97 << 7 << 64 << int(MaskKind::Causal);
    QTest::newRow("n=257 d=64 alibi") << 257 << 257 << 64 << int(MaskKind::Alibi);
}

void TestCuda::weights()
{
    REQUIRE_CUDA();
    QFETCH(int, Lq);
    QFETCH(int, Lk);
    QFETCH(int, D);
    QFETCH(int, mask);
    const std::int64_t B = 2, H = 3;
    const Problem p = makeProblem(B, H, H, Lq, Lk, D, Layout::BHLD, MaskKind(mask), seedFromTag(QTest::currentDataTag()));
    ReferenceOptions ro;
    ro.keepWeights = true;
    auto ref = referenceAttention(p.q.view(), p.k.view(), p.v.view(), p.mask, ro);
    QVERIFY2(ref.isOk(), ref.status().message().c_str());
    const NaiveOutput naive = naiveAttention(p.q.view(), p.k.view(), p.v.view(), p.mask, 0.0f, true);
    const std::vector<HeadIndex> heads{{1, 2}, {0, 0}};
    const std::size_t plane = std::size_t(Lq) * std::size_t(Lk);

    for (ComputeDtype dt : {ComputeDtype::F32, ComputeDtype::F16, ComputeDtype::BF16}) {
        AttentionOptions opt;
        opt.backend = Backend::Cuda;
        opt.computeDtype = dt;
        opt.weights = WeightsRequest::only(heads);
        auto r = attention(p.q.view(), p.k.view(), p.v.view(), p.mask, opt);
        const std::string what = dtypeName(dt) + ": ";
        QVERIFY2(r.isOk(), msg(what + r.status().message()));
        QCOMPARE(r->weights.size(), heads.size());
        for (std::size_t w = 0; w < heads.size(); ++w) {
            const HeadWeights &hw = r->weights[w];
            QCOMPARE(hw.index, heads[w]);
            const std::size_t off = std::size_t(hw.index.batch * H + hw.index.head) * plane;
            for (std::int64_t i = 0; i < Lq; ++i) {
                const float *P = hw.P.data() + i * Lk;
                const bool dead = rowFullyMasked(p.mask, hw.index.batch, hw.index.head, i, Lq, Lk);
                double sum = 0.0;
                for (std::int64_t j = 0; j < Lk; ++j) {
                    QVERIFY2(std::isfinite(P[j]) && P[j] >= 0.0f, msg(what + "weight not finite/non-negative"));
                    if (maskBias(p.mask, hw.index.batch, hw.index.head, i, j, Lq, Lk) == -kInf)
                        QCOMPARE(P[j], 0.0f);   // masked weights are exactly 0
                    sum += P[j];
                }
                if (dead) QCOMPARE(sum, 0.0);
                else QVERIFY2(std::abs(sum - 1.0) <= 1e-4, msg(what + "row " + std::to_string(i) + " sums to " + fmt(sum)));
            }
            if (dt == ComputeDtype::F32) {
                const ErrorStat en = compare(naive.P.data() + off, ref->P.data() + off, plane);
                const ErrorStat ec = compare(hw.P.data(), ref->P.data() + off, plane);
                QVERIFY2(ec.maxAbs <= 2 * en.maxAbs + 1e-7, msg(what + "P: " + ec.describe() + "; naive " + en.describe()));
            }
        }
    }
}

void TestCuda::unsupportedHeadDim()
{
    REQUIRE_CUDA();
    const Problem p = makeProblem(1, 1, 1, 7, 7, 300, Layout::BHLD, MaskKind::Bidirectional, 9);
    AttentionOptions opt;
    opt.backend = Backend::Cuda;
    auto r = attention(p.q.view(), p.k.view(), p.v.view(), p.mask, opt);
    QVERIFY(!r.isOk());
    QCOMPARE(r.status().code(), ErrorCode::InvalidArgument);
    QVERIFY2(r.status().message().find("head dims up to 256") != std::string::npos, r.status().message().c_str());
    // Auto keeps such a problem on the CPU.
    opt.backend = Backend::Auto;
    auto a = attention(p.q.view(), p.k.view(), p.v.view(), p.mask, opt);
    QVERIFY2(a.isOk(), a.status().message().c_str());
    QCOMPARE(a->backend, Backend::Tiled);
}

void TestCuda::cancelAndProgress()
{
    REQUIRE_CUDA();
    const Problem p = makeProblem(2, 16, 16, 1025, 1025, 64, Layout::BHLD, MaskKind::Causal, 10);
    AttentionOptions opt;
    opt.backend = Backend::Cuda;
    double last = -1.0;
    bool monotonic = true;
    opt.progress = [&](double f) {
        monotonic = monotonic && f >= last;
        last = f;
    };
    auto r = attention(p.q.view(), p.k.view(), p.v.view(), p.mask, opt);
    QVERIFY2(r.isOk(), r.status().message().c_str());
    QVERIFY(monotonic);
    QCOMPARE(last, 1.0);

    std::atomic<int> polls{0};
    opt.progress = {};
    opt.cancel = [&] { return ++polls >= 2; };   // the first poll is dispatch's, before any allocation
    auto c = attention(p.q.view(), p.k.view(), p.v.view(), p.mask, opt);
    QVERIFY(!c.isOk());
    QCOMPARE(c.status().code(), ErrorCode::Cancelled);
}

void TestCuda::autoPicksCudaForLargeProblems()
{
    REQUIRE_CUDA();
    const std::int64_t n = 1024, d = 128, H = 4;
    const Problem p = makeProblem(1, H, H, n, n, d, Layout::BHLD, MaskKind::Causal, 5);
    auto r = attention(p.q.view(), p.k.view(), p.v.view(), p.mask, {});
    QVERIFY2(r.isOk(), r.status().message().c_str());
    QCOMPARE(r->backend, Backend::Cuda);
}

void TestCuda::benchValidatesThenTimesOnGpu_data()
{
    QTest::addColumn<int>("dtype");
    QTest::addColumn<bool>("causal");
    QTest::newRow("f32") << int(ComputeDtype::F32) << false;
    QTest::newRow("f16 causal") << int(ComputeDtype::F16) << true;
    QTest::newRow("bf16") << int(ComputeDtype::BF16) << false;
}

void TestCuda::benchValidatesThenTimesOnGpu()
{
    REQUIRE_CUDA();
    QFETCH(int, dtype);
    QFETCH(bool, causal);
    bench::BenchConfig c;
    c.n = 300;
    c.d = 64;
    c.heads = 2;
    c.causal = causal;
    c.json = true;
    c.reps = 3;
    c.gemmSize = 64;
    c.dtype = ComputeDtype(dtype);
    c.backends = {Backend::Cuda};
    std::ostringstream out, err;
    QCOMPARE(bench::runBench(c, out, err), 0);
    const std::string line = out.str();
    for (const char *needle : {"\"validated\":true", "\"timing\":\"cuda_event\"", "\"wall_ms_median\":"})
        QVERIFY2(line.find(needle) != std::string::npos, line.c_str());
    QVERIFY2(line.find("\"dtype\":\"" + dtypeName(c.dtype) + "\"") != std::string::npos, line.c_str());
}

QTEST_GUILESS_MAIN(TestCuda)
#include "tst_cuda.moc"
