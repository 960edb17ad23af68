// SPDX-License-Identifier: GPL-3.0-or-later
// The model's CPU kernels (engine/src/cpu/gemm.h, elementwise.h) against double-precision scalar versions:
//   gemm        C = A·op(B) + beta·C within 2 × the error of a sequential fp32 dot product (+1e-6), on awkward
//               shapes (edge tiles, 1 × 1, K = 1), strides, both transB, beta 0 (C full of NaN must not leak), 1, ½;
//               the same bits with 1, 2, 3 and 5 threads
//   exp         e^x for x <= 0 within 2 ulp of double (0 from -inf, exactly 0 only below -86.5)
//   elementwise GELU (erf and tanh forms), SiLU, LayerNorm, RMSNorm (offset 0 and 1), softmax (with -inf entries
//               and an all -inf row) within a few ulp of double (softmax: 4e-6 relative, the fp32 row sum at
//               50257 columns), and the same bits for every thread count

#include "testsupport.h"

#include "cpu/elementwise.h"
#include "cpu/gemm.h"

#include <QtTest>

#include <cmath>
#include <cstring>
#include <limits>

using namespace attn;
using namespace attn::test;

namespace {

QByteArray msg(const std::string &s) { return QByteArray::fromStdString(s); }

// The tolerance for an elementwise result y of exact value ref: `ulps` units in the last place of ref, or `abs`.
bool close(float y, double ref, double ulps, double abs = 0.0)
{
    const double ulp = std::ldexp(1.0, std::max(std::ilogb(std::abs(ref) + 1e-300), -126) - 23);
    return std::abs(double(y) - ref) <= std::max(ulps * ulp, abs);
}

std::vector<float> activationInputs(std::int64_t n, std::uint64_t seed)
{
    // Awkward values first (0, ±tiny, around the branch points ±1·√2, ±6·√2, large), then N(0, 4²).
    std::vector<float> x{0.0f, -0.0f, 1e-30f, -1e-30f, 1e-7f, -3e-5f, 0.5f, -0.7f, 1.41f, 1.42f, -1.41f, -1.42f,
                         0.77f, -0.78f, 8.48f, 8.49f, -8.48f, -8.49f, 20.0f, -20.0f, 60.0f, -60.0f, -90.0f, 90.0f};
    Rng rng(seed);
    while (std::int64_t(x.size()) < n) x.push_back(static_cast<float>(4.0 * rng.normal()));
    x.resize(static_cast<std::size_t>(n));
    return x;
}

} // namespace

class TestKernels : public QObject {
    Q_OBJECT

private slots:
    void gemmMatchesDouble_data();
    void gemmMatchesDouble();
    void expMatchesDouble_data();
    void expMatchesDouble();
    void activations_data();
    void activations();
    void norms_data();
    void norms();
    void softmaxRows();
};

void TestKernels::gemmMatchesDouble_data()
{
    QTest::addColumn<int>("M");
    QTest::addColumn<int>("N");
    QTest::addColumn<int>("K");
    QTest::addColumn<bool>("transB");
    QTest::addColumn<float>("beta");
    QTest::addColumn<int>("pad");   // extra elements per row of A, B and C (strides)
    QTest::newRow("1x1x1") << 1 << 1 << 1 << false << 0.0f << 0;
    QTest::newRow("1x128x80 one row") << 1 << 128 << 80 << false << 0.0f << 2;
    QTest::newRow("7x1025x16 transB") << 7 << 1025 << 16 << true << 0.0f << 0;
    QTest::newRow("1025x80x16 beta 1") << 1025 << 80 << 16 << false << 1.0f << 1;
    QTest::newRow("1025x128x80 tiles transB") << 1025 << 128 << 80 << true << 0.0f << 0;
    QTest::newRow("7x13x5 transB beta 1") << 7 << 13 << 5 << true << 1.0f << 3;
    QTest::newRow("97x80x128") << 97 << 80 << 128 << false << 0.0f << 0;
    QTest::newRow("97x16x1 K=1 beta 0.5") << 97 << 16 << 1 << false << 0.5f << 1;
    QTest::newRow("130x300x65 edge tiles transB") << 130 << 300 << 65 << true << 0.0f << 5;
    QTest::newRow("257x513x768 tiles") << 257 << 513 << 768 << false << 0.0f << 0;
    QTest::newRow("257x513x768 tiles transB beta 1") << 257 << 513 << 768 << true << 1.0f << 2;
    QTest::newRow("64x1025x3072 mlp-down-like") << 64 << 1025 << 3072 << false << 0.0f << 0;
}

void TestKernels::gemmMatchesDouble()
{
    QFETCH(int, M);
    QFETCH(int, N);
    QFETCH(int, K);
    QFETCH(bool, transB);
    QFETCH(float, beta);
    QFETCH(int, pad);
    const std::int64_t lda = K + pad, ldb = (transB ? K : N) + pad, ldc = N + pad;
    const std::vector<float> A = randomNormal(static_cast<std::size_t>(M * lda), 1);
    const std::vector<float> B = randomNormal(static_cast<std::size_t>((transB ? N : K) * ldb), 2);
    std::vector<float> C0 = randomNormal(static_cast<std::size_t>(M * ldc), 3);
    if (beta == 0.0f) std::fill(C0.begin(), C0.end(), std::numeric_limits<float>::quiet_NaN());
    const auto b = [&](std::int64_t k, std::int64_t j) { return transB ? B[j * ldb + k] : B[k * ldb + j]; };

    std::vector<float> C = C0;
    detail::gemm(transB, M, N, K, A.data(), lda, B.data(), ldb, C.data(), ldc, beta, 2);
    double err = 0.0, naiveErr = 0.0;
    for (std::int64_t i = 0; i < M; ++i)
        for (std::int64_t j = 0; j < N; ++j) {
            double exact = beta == 0.0f ? 0.0 : double(beta) * C0[i * ldc + j];
            float naive = beta == 0.0f ? 0.0f : beta * C0[i * ldc + j];
            for (std::int64_t k = 0; k < K; ++k) {
                exact += double(A[i * lda + k]) * double(b(k, j));
                naive += A[i * lda + k] * b(k, j);
            }
            const float got = C[i * ldc + j];
            QVERIFY2(std::isfinite(got), qPrintable(QStringLiteral("C(%1, %2) = %3").arg(i).arg(j).arg(got)));
            err = std::max(err, std::abs(got - exact));
            naiveErr = std::max(naiveErr, std::abs(double(naive) - exact));
        }
    for (std::int64_t i = 0; i < M; ++i)   // the padding between rows is not touched
        for (std::int64_t j = N; j < ldc; ++j) QVERIFY(std::memcmp(&C[i * ldc + j], &C0[i * ldc + j], sizeof(float)) == 0);
    QVERIFY2(err <= 2.0 * naiveErr + 1e-6, qPrintable(QStringLiteral("max |C − C64| %1, naive fp32 %2").arg(err).arg(naiveErr)));
    for (int threads : {1, 3, 5}) {
        std::vector<float> other = C0;
        detail::gemm(transB, M, N, K, A.data(), lda, B.data(), ldb, other.data(), ldc, beta, threads);
        QVERIFY2(std::memcmp(other.data(), C.data(), C.size() * sizeof(float)) == 0,
                 qPrintable(QStringLiteral("%1 threads differ from 2").arg(threads)));
    }
    qInfo("max |C − C64| %.3g (naive fp32 %.3g)", err, naiveErr);
}

void TestKernels::expMatchesDouble_data()
{
    QTest::addColumn<int>("n");
    for (int n : {1, 7, 97, 1025}) QTest::addRow("n=%d", n) << n;
}

void TestKernels::expMatchesDouble()
{
    QFETCH(int, n);
    // The edges first (-inf, ±0, tiny, the cut at -86.5, reduction boundaries ±ln2/2), then uniform on [-90, 0].
    std::vector<float> x{-std::numeric_limits<float>::infinity(), -0.0f, 0.0f, -1e-30f, -1e-7f, -0.34657359f,
                         -0.34657360f, -1.0f, -10.0f, -86.4f, -86.5f, -86.6f, -88.0f, -100.0f, -1e30f};
    Rng rng(std::uint64_t(n) + 100);
    while (std::int64_t(x.size()) < n) x.push_back(static_cast<float>(-90.0 * rng.uniform()));
    x.resize(static_cast<std::size_t>(n));
    std::vector<float> y(x.size(), std::numeric_limits<float>::quiet_NaN());
    detail::expNonPositive(x.data(), y.data(), n, 2);
    double worst = 0.0;
    for (int i = 0; i < n; ++i) {
        const double ref = std::exp(double(x[i]));
        if (x[i] < -86.5f) {   // documented flush: the exact value is below 2.6e-38
            QVERIFY2(y[i] == 0.0f || close(y[i], ref, 2), msg("exp(" + fmt(x[i]) + ") = " + fmt(y[i])));
            continue;
        }
        QVERIFY2(close(y[i], ref, 2), msg("exp(" + fmt(x[i]) + ") = " + fmt(y[i]) + ", exact " + fmt(ref)));
        worst = std::max(worst, std::abs(y[i] - ref) / ref);
    }
    std::vector<float> other(x.size());
    detail::expNonPositive(x.data(), other.data(), n, 3);
    QVERIFY(std::memcmp(other.data(), y.data(), y.size() * sizeof(float)) == 0);
    qInfo("max relative error %.3g", worst);
}

void TestKernels::activations_data()
{
    QTest::addColumn<int>("n");
    for (int n : {1, 7, 97, 1025, 40000}) QTest::addRow("n=%d", n) << n;
}

void TestKernels::activations()
{
    QFETCH(int, n);
    const std::vector<float> x = activationInputs(n, std::uint64_t(n));
    struct Op {
        const char *name;
        void (*fn)(const float *, float *, std::int64_t, int);
        double (*exact)(double);
        double ulps;   // times (1 + |x|) for geluTanh: its inner argument u = √(2/π)(x + 0.044715 x³) is rounded
                       // to fp32 like in every fp32 implementation, and the tail e^{−2|u|} magnifies that by 2|u|
    };
    const Op ops[] = {
        {"geluErf", detail::geluErf, [](double v) { return 0.5 * v * std::erfc(-v / std::sqrt(2.0)); }, 16},
        {"geluTanh", detail::geluTanh,
         [](double v) { return 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v))); }, 8},
        {"silu", detail::silu, [](double v) { return v / (1.0 + std::exp(-v)); }, 4},
    };
    for (const Op &op : ops) {
        std::vector<float> y(x.size(), std::numeric_limits<float>::quiet_NaN());
        op.fn(x.data(), y.data(), n, 2);
        double worst = 0.0;
        for (int i = 0; i < n; ++i) {
            const double ref = op.exact(double(x[i]));
            // Deep in the negative tails (|y| < 1e-6: GELU(-8.5) = -1e-16) the exponent's own rounding dominates
            // the relative error; an absolute bound of 1e-12 there.
            const double ulps = op.fn == detail::geluTanh ? op.ulps * (1.0 + std::abs(x[i])) : op.ulps;
            QVERIFY2(close(y[i], ref, ulps, 1e-12),
                     msg(std::string(op.name) + "(" + fmt(x[i]) + ") = " + fmt(y[i]) + ", exact " + fmt(ref)));
            if (std::abs(ref) > 1e-6) worst = std::max(worst, std::abs(y[i] - ref) / std::abs(ref));
        }
        std::vector<float> inPlace = x;
        op.fn(inPlace.data(), inPlace.data(), n, 3);
        QVERIFY2(std::memcmp(inPlace.data(), y.data(), y.size() * sizeof(float)) == 0,
                 msg(std::string(op.name) + ": in place with 3 threads differs"));
        qInfo("%s: max relative error %.3g (|y| > 1e-6)", op.name, worst);
    }
}

void TestKernels::norms_data()
{
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("cols");
    QTest::newRow("1x1") << 1 << 1;
    QTest::newRow("7x97") << 7 << 97;
    QTest::newRow("97x768") << 97 << 768;
    QTest::newRow("3x1025") << 3 << 1025;
}

void TestKernels::norms()
{
    QFETCH(int, rows);
    QFETCH(int, cols);
    const std::int64_t ld = cols + 3;
    std::vector<float> x = randomNormal(static_cast<std::size_t>(rows * ld), 11, 3.0f);
    for (std::int64_t c = 0; c < cols; ++c) x[c] += 5.0f;   // a row with a large mean
    const std::vector<float> gamma = randomNormal(static_cast<std::size_t>(cols), 12);
    const std::vector<float> beta = randomNormal(static_cast<std::size_t>(cols), 13);
    const float eps = 1e-5f;
    std::vector<float> y(static_cast<std::size_t>(rows * ld), 0.0f);
    detail::layerNorm(x.data(), rows, cols, ld, gamma.data(), beta.data(), eps, y.data(), ld, 2);
    double worstLn = 0.0, worstRms = 0.0;
    for (std::int64_t r = 0; r < rows; ++r) {
        double mean = 0.0, var = 0.0;
        for (std::int64_t c = 0; c < cols; ++c) mean += x[r * ld + c];
        mean /= cols;
        for (std::int64_t c = 0; c < cols; ++c) var += (x[r * ld + c] - mean) * (x[r * ld + c] - mean);
        var /= cols;
        for (std::int64_t c = 0; c < cols; ++c) {
            const double ref = (x[r * ld + c] - mean) / std::sqrt(var + eps) * gamma[c] + beta[c];
            const double e = std::abs(y[r * ld + c] - ref);
            worstLn = std::max(worstLn, e);
            QVERIFY2(e <= 2e-6 * (1.0 + std::abs(ref)), qPrintable(QStringLiteral("layerNorm (%1, %2) = %3, exact %4").arg(r).arg(c).arg(y[r * ld + c]).arg(ref)));
        }
    }
    for (float offset : {0.0f, 1.0f}) {
        detail::rmsNorm(x.data(), rows, cols, ld, gamma.data(), offset, eps, y.data(), ld, 2);
        for (std::int64_t r = 0; r < rows; ++r) {
            double ms = 0.0;
            for (std::int64_t c = 0; c < cols; ++c) ms += double(x[r * ld + c]) * x[r * ld + c];
            ms /= cols;
            for (std::int64_t c = 0; c < cols; ++c) {
                const double ref = x[r * ld + c] / std::sqrt(ms + eps) * (double(gamma[c]) + offset);
                const double e = std::abs(y[r * ld + c] - ref);
                worstRms = std::max(worstRms, e);
                QVERIFY2(e <= 2e-6 * (1.0 + std::abs(ref)), qPrintable(QStringLiteral("rmsNorm (%1, %2) = %3, exact %4").arg(r).arg(c).arg(y[r * ld + c]).arg(ref)));
            }
        }
        std::vector<float> other(y.size(), 0.0f);
        detail::rmsNorm(x.data(), rows, cols, ld, gamma.data(), offset, eps, other.data(), ld, 3);
        QVERIFY(std::memcmp(other.data(), y.data(), y.size() * sizeof(float)) == 0);
    }
    std::vector<float> one(y.size(), 0.0f), three(y.size(), 0.0f);
    detail::layerNorm(x.data(), rows, cols, ld, gamma.data(), nullptr, eps, one.data(), ld, 1);
    detail::layerNorm(x.data(), rows, cols, ld, gamma.data(), nullptr, eps, three.data(), ld, 3);
    QVERIFY(std::memcmp(one.data(), three.data(), one.size() * sizeof(float)) == 0);
    qInfo("max |error|: layerNorm %.3g, rmsNorm %.3g", worstLn, worstRms);
}

void TestKernels::softmaxRows()
{
    constexpr float kNegInf = -std::numeric_limits<float>::infinity();
    for (int cols : {1, 7, 97, 50257}) {
        const int rows = 5;
        std::vector<float> x = randomNormal(static_cast<std::size_t>(rows * cols), 21, 6.0f);
        for (int c = 0; c < cols; c += 3) x[c] = kNegInf;                             // row 0: some -inf
        std::fill(x.begin() + cols, x.begin() + 2 * cols, kNegInf);                  // row 1: all -inf
        std::vector<float> y = x;
        detail::softmaxRows(y.data(), rows, cols, cols, 2);
        for (int r = 0; r < rows; ++r) {
            double mx = -INFINITY;
            for (int c = 0; c < cols; ++c) mx = std::max(mx, double(x[r * cols + c]));
            double sum = 0.0, got = 0.0;
            for (int c = 0; c < cols; ++c) sum += std::isinf(mx) ? 0.0 : std::exp(double(x[r * cols + c]) - mx);
            for (int c = 0; c < cols; ++c) {
                const float v = y[r * cols + c];
                const double ref = std::isinf(mx) ? 0.0 : std::exp(double(x[r * cols + c]) - mx) / sum;
                if (x[r * cols + c] == kNegInf) QCOMPARE(v, 0.0f);
                QVERIFY2(std::isfinite(v) && std::abs(v - ref) <= 4e-6 * ref + 1e-30,
                         qPrintable(QStringLiteral("cols %1 (%2, %3) = %4, exact %5").arg(cols).arg(r).arg(c).arg(v).arg(ref)));
                got += v;
            }
            QVERIFY(std::abs(got - (std::isinf(mx) ? 0.0 : 1.0)) <= 1e-5);
        }
        std::vector<float> other = x;
        detail::softmaxRows(other.data(), rows, cols, cols, 3);
        QVERIFY(std::memcmp(other.data(), y.data(), y.size() * sizeof(float)) == 0);
    }
}

QTEST_APPLESS_MAIN(TestKernels)
#include "tst_kernels.moc"
