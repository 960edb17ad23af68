// SPDX-License-Identifier: GPL-3.0-or-later
// The attention options of the API extension (notes: attention-api.md) on every CPU backend, against the fp64
// reference computed with the same options: logit soft-capping, the per-head bias (MaskSpec::headBias), F16/BF16
// compute types (inputs rounded, fp32 accumulation; the reference in fp64 on the rounded inputs), Output::LseOnly
// and split-KV. Pass rule as tst_attention (attentioncheck.h). Also: an LSE-only pass returns exactly the full
// pass's LSE, split-KV On and Off agree within the rule, every backend gives bit-identical results with 1, 2 and 3
// threads, and bad option values are refused with a message naming the field.

#include "attentioncheck.h"
#include "testsupport.h"

#include <attnscope/attention.h>
#include <attnscope/reference.h>

#include <QtTest>

#include <cmath>
#include <cstring>
#include <limits>

using namespace attn;
using namespace attn::test;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
using SplitKv = AttentionOptions::SplitKv;
using Output = AttentionOptions::Output;

struct Problem {
    std::int64_t B, H, Hkv, Lq, Lk, D;
    Operand q, k, v;
    MaskSpec mask;
};

// N(0, 1.5²) per (h, i, j) with 5 % -inf, and one fully forbidden row in the last head (a row every kind of
// backend must return as 0 / +inf).
std::vector<float> randomHeadBias(std::int64_t H, std::int64_t Lq, std::int64_t Lk, std::uint64_t seed)
{
    Rng rng(seed);
    std::vector<float> bias(static_cast<std::size_t>(H * Lq * Lk));
    for (float &x : bias) x = rng.uniform() < 0.05 ? -kInf : static_cast<float>(1.5 * rng.normal());
    const std::int64_t row = Lq / 2;
    for (std::int64_t j = 0; j < Lk; ++j) bias[static_cast<std::size_t>(((H - 1) * Lq + row) * Lk + j)] = -kInf;
    return bias;
}

Problem makeProblem(std::int64_t B, std::int64_t H, std::int64_t Hkv, std::int64_t Lq, std::int64_t Lk,
                    std::int64_t D, MaskKind kind, bool headBias, float amp, std::uint64_t seed)
{
    Problem p{B, H, Hkv, Lq, Lk, D, {}, {}, {}, {}};
    p.q = makeOperand({B, H, Lq, D}, Layout::BHLD, seed * 3 + 1, amp);
    p.k = makeOperand({B, Hkv, Lk, D}, Layout::BLHD, seed * 3 + 2, amp);
    p.v = makeOperand({B, Hkv, Lk, D}, Layout::BHLD, seed * 3 + 3, 1.0f);
    p.mask = makeMask(kind, B, H, Lq, Lk, seed);
    if (headBias) p.mask.headBias = randomHeadBias(H, Lq, Lk, seed ^ 0xB1A5ull);
    return p;
}

// A contiguous copy with every value rounded to dtype: the naive fp32 path's inputs for F16/BF16.
Operand rounded(const Operand &op, ComputeDtype dtype)
{
    const TensorView v = op.view();
    std::vector<float> values;
    values.reserve(static_cast<std::size_t>(v.numel()));
    for (std::int64_t b = 0; b < v.shape[0]; ++b)
        for (std::int64_t h = 0; h < v.shape[1]; ++h)
            for (std::int64_t i = 0; i < v.shape[2]; ++i)
                for (std::int64_t d = 0; d < v.shape[3]; ++d) values.push_back(roundToDtype(v.at(b, h, i, d), dtype));
    return operandFromValues(v.shape, values);
}

bool sameBits(const std::vector<float> &a, const std::vector<float> &b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

bool sameResult(const AttentionOutput &a, const AttentionOutput &b)
{
    if (!sameBits(a.out.values, b.out.values) || !sameBits(a.lse, b.lse) || a.weights.size() != b.weights.size())
        return false;
    for (std::size_t w = 0; w < a.weights.size(); ++w)
        if (!sameBits(a.weights[w].P, b.weights[w].P)) return false;
    return true;
}

std::string splitName(SplitKv s)
{
    return s == SplitKv::On ? " splitKv=on" : s == SplitKv::Off ? " splitKv=off" : "";
}

} // namespace

class TestAttentionOptions : public QObject {
    Q_OBJECT

private slots:
    void optionsMatchReference_data();
    void optionsMatchReference();
    void autoSplitsDecodeShapes();
    void referenceRoundsItsInputs();
    void badOptionsNameTheField_data();
    void badOptionsNameTheField();
    void cpuOnlyOptionsRouteAutoToTiled();
};

void TestAttentionOptions::optionsMatchReference_data()
{
    QTest::addColumn<int>("B");
    QTest::addColumn<int>("H");
    QTest::addColumn<int>("Hkv");
    QTest::addColumn<int>("Lq");
    QTest::addColumn<int>("Lk");
    QTest::addColumn<int>("D");
    QTest::addColumn<int>("mask");
    QTest::addColumn<float>("softcap");
    QTest::addColumn<bool>("headBias");
    QTest::addColumn<int>("dtype");
    QTest::addColumn<float>("amp");

    using M = MaskKind;
    using T = ComputeDtype;
    auto row = [](int B, int H, int Hkv, int Lq, int Lk, int D, MaskKind mask, float softcap, bool headBias,
                  ComputeDtype dtype, float amp = 1.0f) {
        QString tag = Lq == Lk ? QStringLiteral("n=%1").arg(Lq) : QStringLiteral("lq=%1 lk=%2").arg(Lq).arg(Lk);
        tag += QStringLiteral(" d=%1 h=%2").arg(D).arg(H);
        if (Hkv != H) tag += QStringLiteral(" hkv=%1").arg(Hkv);
        tag += QStringLiteral(" b=%1 %2").arg(B).arg(QLatin1String(maskKindName(mask)));
        if (softcap > 0.0f) tag += QStringLiteral(" softcap=%1").arg(softcap);
        if (headBias) tag += QStringLiteral(" headBias");
        if (dtype != ComputeDtype::F32) tag += QLatin1Char(' ') + QString::fromStdString(dtypeName(dtype));
        if (amp != 1.0f) tag += QStringLiteral(" amp=%1").arg(amp);
        QTest::newRow(qPrintable(tag)) << B << H << Hkv << Lq << Lk << D << int(mask) << softcap << headBias
                                       << int(dtype) << amp;
    };
    // n = 1 and decode shapes (Lq <= 16 against Lk >= 1024: Auto splits the keys)
    row(1, 1, 1, 1, 1, 16, M::Bidirectional, 5.0f, false, T::F32, 3.0f);
    row(2, 3, 3, 1, 1, 64, M::Causal, 0.0f, true, T::BF16);
    row(2, 4, 2, 1, 1025, 64, M::Causal, 30.0f, false, T::F32, 3.0f);
    row(1, 2, 2, 1, 4099, 128, M::KeyPadding, 0.0f, true, T::F32);
    row(2, 8, 2, 7, 2051, 80, M::WindowCausal, 20.0f, false, T::F16, 3.0f);
    row(1, 4, 4, 16, 1500, 16, M::CausalLeftPadding, 10.0f, true, T::F32, 2.0f);
    // n = 7
    row(2, 3, 3, 7, 7, 64, M::CausalLeftPadding, 0.0f, true, T::F32);
    row(1, 8, 2, 7, 7, 80, M::Everything, 10.0f, false, T::F32, 2.0f);
    row(2, 2, 1, 7, 7, 128, M::Window, 0.0f, false, T::F16);
    // n = 97
    row(1, 3, 3, 97, 97, 16, M::Window, 5.0f, false, T::F32, 3.0f);
    row(2, 3, 3, 97, 97, 64, M::Causal, 0.0f, true, T::BF16);
    row(1, 2, 2, 97, 97, 80, M::QueryPadding, 50.0f, false, T::F16, 3.0f);
    row(2, 4, 1, 97, 97, 128, M::CausalKeyPadding, 30.0f, true, T::F32, 3.0f);
    row(1, 8, 8, 97, 97, 64, M::Alibi, 0.0f, true, T::F32);
    row(2, 3, 3, 97, 97, 64, M::AdditiveCustom, 8.0f, true, T::F32, 2.0f);
    row(2, 3, 3, 33, 97, 64, M::WindowCausal, 0.0f, false, T::BF16);
    row(1, 3, 3, 97, 33, 80, M::Causal, 15.0f, true, T::F32, 2.0f);   // Lq > Lk: the first 64 rows fully masked
    // n = 1025
    row(1, 2, 2, 1025, 1025, 64, M::Causal, 50.0f, false, T::F32, 3.0f);
    row(1, 1, 1, 1025, 1025, 128, M::Bidirectional, 0.0f, true, T::BF16);
    row(1, 4, 2, 1025, 1025, 16, M::WindowCausal, 0.0f, false, T::F16);
    row(2, 1, 1, 1025, 1025, 80, M::KeyPadding, 20.0f, true, T::F32, 2.0f);
}

void TestAttentionOptions::optionsMatchReference()
{
    QFETCH(int, B);
    QFETCH(int, H);
    QFETCH(int, Hkv);
    QFETCH(int, Lq);
    QFETCH(int, Lk);
    QFETCH(int, D);
    QFETCH(int, mask);
    QFETCH(float, softcap);
    QFETCH(bool, headBias);
    QFETCH(int, dtype);
    QFETCH(float, amp);
    const ComputeDtype dt = ComputeDtype(dtype);
    const Problem p = makeProblem(B, H, Hkv, Lq, Lk, D, MaskKind(mask), headBias, amp,
                                  seedFromTag(QTest::currentDataTag()));
    const TensorView q = p.q.view(), k = p.k.view(), v = p.v.view();

    ReferenceOptions ro;
    ro.softcap = softcap;
    ro.dtype = dt;
    ro.keepWeights = true;
    auto ref = referenceAttention(q, k, v, p.mask, ro);
    QVERIFY2(ref.isOk(), ref.status().message().c_str());
    const Operand qr = rounded(p.q, dt), kr = rounded(p.k, dt), vr = rounded(p.v, dt);
    const NaiveOutput naive = naiveAttention(qr.view(), kr.view(), vr.view(), p.mask, 0.0f, true, softcap);
    const ErrorStat en = compare(naive.out.data(), ref->out.data(), naive.out.size());
    const ErrorStat el = compare(naive.lse.data(), ref->lse.data(), naive.lse.size());
    QVERIFY2(en.mismatchedInf == 0 && el.mismatchedInf == 0,
             "the naive fp32 path and the reference disagree on which rows are fully masked");
    const ErrorStat ePn = compare(naive.P.data(), ref->P.data(), naive.P.size());
    const Expected e{{B, H, Lq, Lk, D, &p.mask}, *ref, en.maxAbs, el.maxAbs, ePn.maxAbs};
    const WeightsRequest someHeads =
        B * H > 1 ? WeightsRequest::only({{B - 1, H - 1}, {0, 0}}) : WeightsRequest::all();
    const bool cheapReference = std::int64_t(B) * H * Lq * Lk <= 100000;

    struct Run {
        Backend backend;
        SplitKv split;
    };
    std::vector<Run> runs{{Backend::Tiled, SplitKv::Auto}, {Backend::Tiled, SplitKv::Off},
                          {Backend::Tiled, SplitKv::On},   {Backend::Unfused, SplitKv::Auto},
                          {Backend::Auto, SplitKv::Auto}};
    if (cheapReference) runs.push_back({Backend::Reference, SplitKv::Auto});
    const auto options = [&](const Run &run, const WeightsRequest &request, Output output, int threads) {
        AttentionOptions opt;
        opt.backend = run.backend;
        opt.splitKv = run.split;
        opt.softcap = softcap;
        opt.computeDtype = dt;
        opt.weights = request;
        opt.output = output;
        opt.threads = threads;
        return opt;
    };
    std::vector<float> splitOn, splitOff;
    for (const Run &run : runs) {
        const std::string name = backendName(run.backend) + splitName(run.split);
        double worst = 0.0;
        AttentionOutput full;
        for (const WeightsRequest &request : {WeightsRequest::none(), someHeads}) {
            auto r = attention(q, k, v, p.mask, options(run, request, Output::OutputAndLse, 2));
            QVERIFY2(r.isOk(), msg(name + ": " + r.status().message()));
            if (run.backend != Backend::Auto)
                QVERIFY2(r->backend == run.backend, msg(name + " ran as " + backendName(r->backend)));
            checkResult(e, *r, name, request, worst);
            if (QTest::currentTestFailed()) {
                qInfo("err_naive(out)=%.3g err_naive(lse)=%.3g err_naive(P)=%.3g", e.errNaiveOut, e.errNaiveLse,
                      e.errNaiveP);
                return;
            }
            if (request.mode == WeightsRequest::Mode::None) full = std::move(*r);
        }
        if (run.backend == Backend::Tiled && run.split == SplitKv::On) splitOn = full.out.values;
        if (run.backend == Backend::Tiled && run.split == SplitKv::Off) splitOff = full.out.values;

        // LseOnly: no output, and exactly the LSE of the full pass (the same scores, max and sum).
        auto lseOnly = attention(q, k, v, p.mask, options(run, WeightsRequest::none(), Output::LseOnly, 2));
        QVERIFY2(lseOnly.isOk(), msg(name + " LseOnly: " + lseOnly.status().message()));
        checkResult(e, *lseOnly, name + " LseOnly", WeightsRequest::none(), worst, true);
        if (QTest::currentTestFailed()) return;
        QVERIFY2(sameBits(lseOnly->lse, full.lse), msg(name + ": the LSE-only pass differs from the full pass's LSE"));

        // The same bits whatever the thread count, with and without weights.
        if (run.backend == Backend::Reference) continue;
        for (const WeightsRequest &request : {WeightsRequest::none(), someHeads}) {
            auto one = attention(q, k, v, p.mask, options(run, request, Output::OutputAndLse, 1));
            QVERIFY2(one.isOk(), one.status().message().c_str());
            for (int threads : {2, 3}) {
                auto many = attention(q, k, v, p.mask, options(run, request, Output::OutputAndLse, threads));
                QVERIFY2(many.isOk(), many.status().message().c_str());
                QVERIFY2(sameResult(*one, *many),
                         msg(name + ": " + std::to_string(threads) + " threads differ from 1 thread"));
            }
        }
    }
    // Split-KV On against Off: both passed the rule against fp64; they also agree with each other within it.
    const ErrorStat split = compare(splitOn.data(), splitOff.data(), splitOn.size());
    QVERIFY2(split.maxAbs <= 2.0 * e.errNaiveOut + 1e-7,
             msg("splitKv on vs off: " + split.describe() + ", err_naive " + fmt(e.errNaiveOut)));
    qInfo("err_naive %.2g | split on vs off %.2g", e.errNaiveOut, split.maxAbs);
}

void TestAttentionOptions::autoSplitsDecodeShapes()
{
    // Auto decides from the shape: Lq <= kSplitKvMaxLq with Lk >= kSplitKvMinLk splits (bit-identical to On),
    // anything else does not (bit-identical to Off).
    struct Shape {
        std::int64_t Lq, Lk;
        bool splits;
    };
    for (const Shape &s : {Shape{1, kSplitKvMinLk, true}, Shape{kSplitKvMaxLq, 4096, true},
                           Shape{kSplitKvMaxLq + 1, 4096, false}, Shape{1, kSplitKvMinLk - 1, false}}) {
        const Problem p = makeProblem(1, 2, 1, s.Lq, s.Lk, 64, MaskKind::Causal, false, 1.0f, 17);
        AttentionOptions opt;
        opt.backend = Backend::Tiled;
        auto automatic = attention(p.q.view(), p.k.view(), p.v.view(), p.mask, opt);
        opt.splitKv = s.splits ? SplitKv::On : SplitKv::Off;
        auto forced = attention(p.q.view(), p.k.view(), p.v.view(), p.mask, opt);
        QVERIFY(automatic.isOk() && forced.isOk());
        QVERIFY2(sameResult(*automatic, *forced),
                 qPrintable(QStringLiteral("Lq %1, Lk %2: Auto is not %3").arg(s.Lq).arg(s.Lk).arg(s.splits ? "On" : "Off")));
    }
}

void TestAttentionOptions::referenceRoundsItsInputs()
{
    // ReferenceOptions::dtype is "fp64 on the rounded inputs": the same numbers as fp64 on rounded copies.
    const Problem p = makeProblem(2, 2, 1, 13, 29, 16, MaskKind::Everything, true, 1.0f, 5);
    for (ComputeDtype dt : {ComputeDtype::F16, ComputeDtype::BF16}) {
        ReferenceOptions ro;
        ro.dtype = dt;
        ro.softcap = 3.0;
        auto a = referenceAttention(p.q.view(), p.k.view(), p.v.view(), p.mask, ro);
        const Operand qr = rounded(p.q, dt), kr = rounded(p.k, dt), vr = rounded(p.v, dt);
        ro.dtype = ComputeDtype::F32;
        auto b = referenceAttention(qr.view(), kr.view(), vr.view(), p.mask, ro);
        auto plain = referenceAttention(p.q.view(), p.k.view(), p.v.view(), p.mask, ro);
        QVERIFY(a.isOk() && b.isOk() && plain.isOk());
        QVERIFY(a->out == b->out);
        QVERIFY(a->lse == b->lse);
        QVERIFY2(a->out != plain->out, "rounding to the compute type changed nothing");
    }
}

void TestAttentionOptions::badOptionsNameTheField_data()
{
    QTest::addColumn<int>("which");
    QTest::addColumn<QString>("field");
    QTest::addColumn<int>("code");
    const int invalid = int(ErrorCode::InvalidArgument), unavailable = int(ErrorCode::Unavailable);
    QTest::newRow("softcap negative") << 0 << "softcap" << invalid;
    QTest::newRow("softcap NaN") << 1 << "softcap" << invalid;
    QTest::newRow("softcap inf") << 2 << "softcap" << invalid;
    QTest::newRow("headBias wrong size") << 3 << "mask.headBias" << invalid;
    QTest::newRow("headBias NaN") << 4 << "mask.headBias" << invalid;
    QTest::newRow("headBias +inf") << 5 << "mask.headBias" << invalid;
    QTest::newRow("LseOnly with weights") << 6 << "LseOnly" << invalid;
    QTest::newRow("cuda with splitKv On") << 7 << "splitKv" << unavailable;
    QTest::newRow("reference softcap negative") << 8 << "softcap" << invalid;
}

void TestAttentionOptions::badOptionsNameTheField()
{
    QFETCH(int, which);
    QFETCH(QString, field);
    QFETCH(int, code);
    Problem p = makeProblem(1, 2, 2, 5, 6, 16, MaskKind::Bidirectional, false, 1.0f, 3);
    AttentionOptions opt;
    Status status;
    switch (which) {
    case 0: opt.softcap = -1.0f; break;
    case 1: opt.softcap = std::numeric_limits<float>::quiet_NaN(); break;
    case 2: opt.softcap = kInf; break;
    case 3: p.mask.headBias.assign(5 * 6, 0.0f); break;   // one head's plane, H = 2
    case 4: p.mask.headBias.assign(2 * 5 * 6, 0.0f); p.mask.headBias[7] = std::numeric_limits<float>::quiet_NaN(); break;
    case 5: p.mask.headBias.assign(2 * 5 * 6, 0.0f); p.mask.headBias[3] = kInf; break;
    case 6: opt.output = Output::LseOnly; opt.weights = WeightsRequest::all(); break;
    case 7: opt.backend = Backend::Cuda; opt.splitKv = SplitKv::On; break;
    default: break;
    }
    if (which == 8) {
        ReferenceOptions ro;
        ro.softcap = -2.0;
        auto r = referenceAttention(p.q.view(), p.k.view(), p.v.view(), p.mask, ro);
        status = r.isOk() ? Status::ok() : r.status();
    } else {
        for (Backend b : {Backend::Tiled, Backend::Unfused, Backend::Reference, Backend::Auto}) {
            if (which == 7) break;
            opt.backend = b;
            auto r = attention(p.q.view(), p.k.view(), p.v.view(), p.mask, opt);
            QVERIFY2(!r.isOk(), qPrintable(QString::fromStdString(backendName(b)) + " accepted it"));
            status = r.status();
        }
        if (which == 7) {
            auto r = attention(p.q.view(), p.k.view(), p.v.view(), p.mask, opt);
            QVERIFY(!r.isOk());
            status = r.status();
        }
    }
    QVERIFY(!status.isOk());
    QCOMPARE(int(status.code()), code);
    QVERIFY2(status.message().find(field.toStdString()) != std::string::npos, status.message().c_str());
}

void TestAttentionOptions::cpuOnlyOptionsRouteAutoToTiled()
{
    // Over the CUDA threshold, Auto still runs the tiled backend when an option only the CPU implements is asked
    // for; F16/BF16 no longer need a GPU.
    const std::int64_t n = 1024, d = 128, H = 4;
    QVERIFY(4.0 * H * n * n * d >= kCudaAutoMinFlops);
    const Problem p = makeProblem(1, H, H, n, n, d, MaskKind::Causal, false, 1.0f, 9);
    AttentionOptions opt;
    opt.splitKv = SplitKv::On;
    auto r = attention(p.q.view(), p.k.view(), p.v.view(), p.mask, opt);
    QVERIFY2(r.isOk(), r.status().message().c_str());
    QCOMPARE(r->backend, Backend::Tiled);
    if (!cudaAvailable()) {
        AttentionOptions low;
        low.computeDtype = ComputeDtype::BF16;
        auto b = attention(p.q.view(), p.k.view(), p.v.view(), p.mask, low);
        QVERIFY2(b.isOk(), b.status().message().c_str());
        QCOMPARE(b->backend, Backend::Tiled);
    }
}

QTEST_APPLESS_MAIN(TestAttentionOptions)
#include "tst_attention_options.moc"
