// SPDX-License-Identifier: GPL-3.0-or-later
// Mask semantics: hand-written visibility patterns (checked against attn::maskBias and against the weights every
// backend returns), the helpers (keyPadding, describe, alibiSlopes), and behaviours a mask promises: padded keys
// and future tokens cannot influence an output, fully masked problems give zeros and +inf, large additive values
// do not overflow.

#include "testsupport.h"

#include <attnscope/attention.h>
#include <attnscope/mask.h>
#include <attnscope/reference.h>

#include <QtTest>

#include <cmath>
#include <limits>

using namespace attn;
using namespace attn::test;

Q_DECLARE_METATYPE(attn::MaskSpec)

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
const Backend kAllBackends[] = {Backend::Reference, Backend::Tiled, Backend::Unfused, Backend::Auto};

QByteArray msg(const std::string &s) { return QByteArray::fromStdString(s); }

MaskSpec withBlock(std::int64_t s, bool causal = false)
{
    MaskSpec m;
    m.block = s;
    m.causal = causal;
    return m;
}

} // namespace

class TestMasks : public QObject {
    Q_OBJECT

private slots:
    void visibilityPattern_data();
    void visibilityPattern();
    void keyPaddingHelper();
    void describeNamesTheParts();
    void alibiSlopes_data();
    void alibiSlopes();
    void alibiBiasValues();
    void batchedCustomMasks();
    void validMasksValidate();
    void paddedKeysCannotInfluence_data();
    void paddedKeysCannotInfluence();
    void causalNoLeakage_data();
    void causalNoLeakage();
    void everythingMasked_data();
    void everythingMasked();
    void extremeAdditiveValues();
};

// Each row: a B = 1, H = 1 problem and its visibility pattern, rows separated by '/', '1' = visible.
void TestMasks::visibilityPattern_data()
{
    QTest::addColumn<int>("Lq");
    QTest::addColumn<int>("Lk");
    QTest::addColumn<MaskSpec>("mask");
    QTest::addColumn<QString>("pattern");

    QTest::newRow("bidirectional 2x3") << 2 << 3 << MaskSpec::bidirectional() << "111/111";
    QTest::newRow("causal 4x4") << 4 << 4 << MaskSpec::causalMask() << "1000/1100/1110/1111";
    // FlashAttention's README example: Lq = 2, Lk = 5 keeps 4 and 5 keys; Lq = 5, Lk = 2 masks the first 3 rows.
    QTest::newRow("causal lq=2 lk=5") << 2 << 5 << MaskSpec::causalMask() << "11110/11111";
    QTest::newRow("causal lq=5 lk=2") << 5 << 2 << MaskSpec::causalMask() << "00/00/00/10/11";
    QTest::newRow("window 0") << 3 << 3 << MaskSpec::slidingWindow(0) << "100/010/001";
    QTest::newRow("window 1 n=5") << 5 << 5 << MaskSpec::slidingWindow(1) << "11000/11100/01110/00111/00011";
    QTest::newRow("window 1 causal n=4") << 4 << 4 << MaskSpec::slidingWindow(1, true) << "1000/1100/0110/0011";
    // Cross-attention: i' = i + 2.
    QTest::newRow("window 1 lq=2 lk=4") << 2 << 4 << MaskSpec::slidingWindow(1) << "0111/0011";
    QTest::newRow("window 2 causal lq=3 lk=6") << 3 << 6 << MaskSpec::slidingWindow(2, true) << "011100/001110/000111";
    QTest::newRow("block 2 n=5") << 5 << 5 << withBlock(2) << "11000/11000/00110/00110/00001";
    QTest::newRow("block 2 lq=2 lk=5") << 2 << 5 << withBlock(2) << "00110/00001";
    QTest::newRow("block 2 lq=4 lk=2") << 4 << 2 << withBlock(2) << "00/00/11/11";
    QTest::newRow("block 3 causal n=5") << 5 << 5 << withBlock(3, true) << "10000/11000/11100/00010/00011";
    {
        MaskSpec m;
        m.keyValid = {1, 0, 1};
        QTest::newRow("key padding middle") << 3 << 3 << m << "101/101/101";
        m.causal = true;
        QTest::newRow("causal + key padding middle") << 3 << 3 << m << "100/100/101";
    }
    {
        MaskSpec m;
        m.queryValid = {1, 0, 1};
        QTest::newRow("query padding") << 3 << 3 << m << "111/000/111";
    }
    {
        MaskSpec m = MaskSpec::causalMask();
        m.keyValid = {0, 1, 1};
        QTest::newRow("causal + left padding empties row 0") << 3 << 3 << m << "000/010/011";
    }
    {
        MaskSpec m;
        m.allowed = {1, 0, 1, 0, 1, 1};
        QTest::newRow("boolean 2x3") << 2 << 3 << m << "101/011";
        m.causal = true;
        QTest::newRow("boolean + causal lq=2 lk=3") << 2 << 3 << m << "100/011";
    }
    {
        MaskSpec m;
        m.additive = {0.0f, -kInf, 1.0f, -kInf, -kInf, -kInf};
        QTest::newRow("additive -inf entries") << 2 << 3 << m << "101/000";
    }
    {
        MaskSpec m = MaskSpec::slidingWindow(1, true);
        m.block = 2;
        m.keyValid = {1, 1, 0, 1};
        QTest::newRow("window+causal+block+padding") << 4 << 4 << m << "1000/1100/0000/0001";
    }
    {
        // H = 1: the per-head bias plane is [Lq, Lk]; -inf forbids like an additive mask.
        MaskSpec m;
        m.headBias = {0.5f, -kInf, -1.0f, -kInf, -kInf, -kInf};
        QTest::newRow("head bias -inf entries") << 2 << 3 << m << "101/000";
        m.additive = {-kInf, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
        QTest::newRow("head bias + additive") << 2 << 3 << m << "001/000";
    }
}

void TestMasks::visibilityPattern()
{
    QFETCH(int, Lq);
    QFETCH(int, Lk);
    QFETCH(MaskSpec, mask);
    QFETCH(QString, pattern);
    const QStringList rows = pattern.split(QLatin1Char('/'));
    QCOMPARE(rows.size(), Lq);

    // 1. The shared semantics.
    QVERIFY(validateMask(mask, 1, 1, Lq, Lk).isOk());
    for (int i = 0; i < Lq; ++i) {
        QCOMPARE(rows[i].size(), Lk);
        for (int j = 0; j < Lk; ++j) {
            const bool visible = rows[i][j] == QLatin1Char('1');
            const float bias = maskBias(mask, 0, 0, i, j, Lq, Lk);
            QVERIFY2(visible == (bias != -kInf), qPrintable(QStringLiteral("maskBias(%1, %2) = %3").arg(i).arg(j).arg(bias)));
        }
    }

    // 2. What each backend does with it: weights > 0 exactly where visible, 0 elsewhere, empty rows 0 / +inf.
    const Operand q = makeOperand({1, 1, Lq, 8}, Layout::BHLD, 1, 0.5f);
    const Operand k = makeOperand({1, 1, Lk, 8}, Layout::BHLD, 2, 0.5f);
    const Operand v = makeOperand({1, 1, Lk, 8}, Layout::BHLD, 3);
    for (Backend backend : kAllBackends) {
        AttentionOptions opt;
        opt.backend = backend;
        opt.weights = WeightsRequest::all();
        auto r = attention(q.view(), k.view(), v.view(), mask, opt);
        const std::string name = backendName(backend);
        QVERIFY2(r.isOk(), msg(name + ": " + r.status().message()));
        QCOMPARE(r->weights.size(), std::size_t(1));
        const auto &P = r->weights[0].P;
        for (int i = 0; i < Lq; ++i) {
            const bool empty = !rows[i].contains(QLatin1Char('1'));
            for (int j = 0; j < Lk; ++j) {
                const bool visible = rows[i][j] == QLatin1Char('1');
                const float w = P[static_cast<std::size_t>(i * Lk + j)];
                QVERIFY2(visible ? w > 0.0f : w == 0.0f,
                         msg(name + ": P(" + std::to_string(i) + ", " + std::to_string(j) + ") = " + fmt(w)));
            }
            const float lse = r->lse[static_cast<std::size_t>(i)];
            QVERIFY2(empty ? lse == kInf : std::isfinite(lse), msg(name + ": lse row " + std::to_string(i) + " = " + fmt(lse)));
            for (int d = 0; d < 8 && empty; ++d) QCOMPARE(r->out.values[static_cast<std::size_t>(i * 8 + d)], 0.0f);
        }
    }
}

void TestMasks::keyPaddingHelper()
{
    const MaskSpec m = MaskSpec::keyPadding({3, 5, 0}, 5);
    const std::vector<std::uint8_t> expected{1, 1, 1, 0, 0, /**/ 1, 1, 1, 1, 1, /**/ 0, 0, 0, 0, 0};
    QVERIFY(m.keyValid == expected);
    QVERIFY(!m.hasStructure());
    QVERIFY(!m.isEmpty());
    QVERIFY(validateMask(m, 3, 4, 7, 5).isOk());
}

void TestMasks::describeNamesTheParts()
{
    QCOMPARE(MaskSpec::bidirectional().describe(), std::string("bidirectional"));
    QVERIFY(MaskSpec::bidirectional().isEmpty());
    QVERIFY(MaskSpec::causalMask().describe().find("causal") != std::string::npos);
    MaskSpec m = MaskSpec::slidingWindow(16, true);
    m.keyValid = {1, 1, 0};
    const std::string d = m.describe();
    for (const char *part : {"causal", "window", "16", "key padding"})
        QVERIFY2(d.find(part) != std::string::npos, (d + " lacks " + part).c_str());
    QVERIFY(d.find("bidirectional") == std::string::npos);
    MaskSpec bias;
    bias.headBias = {0.0f};
    QVERIFY(!bias.isEmpty());
    QVERIFY(bias.hasCustom());
    QCOMPARE(bias.describe(), std::string("head bias"));
}

void TestMasks::alibiSlopes_data()
{
    QTest::addColumn<int>("H");
    QTest::addColumn<QList<double>>("expected");
    auto p = [](double e) { return std::exp2(e); };
    // Press et al.'s get_slopes: 2^(-8k/H) for a power of two H; otherwise the closest lower power of two H' gives
    // H' slopes and every other slope of the 2H' sequence fills the rest.
    QTest::newRow("H=1") << 1 << QList<double>{p(-8)};
    QTest::newRow("H=2") << 2 << QList<double>{p(-4), p(-8)};
    QTest::newRow("H=4") << 4 << QList<double>{p(-2), p(-4), p(-6), p(-8)};
    QTest::newRow("H=8") << 8 << QList<double>{p(-1), p(-2), p(-3), p(-4), p(-5), p(-6), p(-7), p(-8)};
    QTest::newRow("H=6") << 6 << QList<double>{p(-2), p(-4), p(-6), p(-8), p(-1), p(-3)};
    QTest::newRow("H=12") << 12
                          << QList<double>{p(-1), p(-2), p(-3), p(-4), p(-5), p(-6), p(-7), p(-8),
                                           p(-0.5), p(-1.5), p(-2.5), p(-3.5)};
}

void TestMasks::alibiSlopes()
{
    QFETCH(int, H);
    QFETCH(QList<double>, expected);
    const std::vector<float> s = attn::alibiSlopes(H);
    QCOMPARE(qsizetype(s.size()), expected.size());
    for (qsizetype i = 0; i < expected.size(); ++i)
        QVERIFY2(std::abs(s[static_cast<std::size_t>(i)] - expected[i]) <= 1e-7 * expected[i] + 1e-12,
                 qPrintable(QStringLiteral("slope %1 = %2, expected %3").arg(i).arg(s[static_cast<std::size_t>(i)]).arg(expected[i])));
}

void TestMasks::alibiBiasValues()
{
    MaskSpec m;
    m.alibiSlopes = {0.5f, 0.25f};
    // Square: bias = -m_h |i - j|.
    QCOMPARE(maskBias(m, 0, 0, 3, 0, 4, 4), -1.5f);
    QCOMPARE(maskBias(m, 0, 1, 3, 0, 4, 4), -0.75f);
    QCOMPARE(maskBias(m, 0, 0, 1, 3, 4, 4), -1.0f);
    QCOMPARE(maskBias(m, 0, 0, 2, 2, 4, 4), 0.0f);
    // Cross (Lq = 2, Lk = 4): i' = i + 2, so row 0 is nearest key 2.
    QCOMPARE(maskBias(m, 0, 0, 0, 2, 2, 4), 0.0f);
    QCOMPARE(maskBias(m, 0, 0, 0, 0, 2, 4), -1.0f);
    // Additive and ALiBi add.
    m.additive = std::vector<float>(16, 0.0f);
    m.additive[3 * 4 + 0] = 2.0f;
    QCOMPARE(maskBias(m, 0, 0, 3, 0, 4, 4), 0.5f);
}

void TestMasks::batchedCustomMasks()
{
    // [B, Lq, Lk] masks pick the batch's plane; [Lq, Lk] masks broadcast over the batch.
    MaskSpec m;
    m.allowed = {1, 0, /**/ 0, 1};   // B = 2, Lq = 1, Lk = 2
    QVERIFY(validateMask(m, 2, 3, 1, 2).isOk());
    QCOMPARE(maskBias(m, 0, 2, 0, 1, 1, 2), -kInf);
    QCOMPARE(maskBias(m, 1, 2, 0, 1, 1, 2), 0.0f);
    QCOMPARE(maskBias(m, 1, 0, 0, 0, 1, 2), -kInf);

    const Operand q = makeOperand({2, 3, 1, 4}, Layout::BHLD, 4);
    const Operand k = makeOperand({2, 3, 2, 4}, Layout::BHLD, 5);
    const Operand v = makeOperand({2, 3, 2, 4}, Layout::BHLD, 6);
    for (Backend backend : kAllBackends) {
        AttentionOptions opt;
        opt.backend = backend;
        auto r = attention(q.view(), k.view(), v.view(), m, opt);
        QVERIFY2(r.isOk(), r.status().message().c_str());
        // Only one key visible: the output is that key's value row exactly (P = 1).
        for (std::int64_t b = 0; b < 2; ++b)
            for (std::int64_t h = 0; h < 3; ++h)
                for (std::int64_t d = 0; d < 4; ++d) {
                    const float got = r->out.values[static_cast<std::size_t>(((b * 3 + h) * 1) * 4 + d)];
                    const float want = v.view().at(b, h, b == 0 ? 0 : 1, d);
                    QVERIFY2(std::abs(got - want) <= 1e-6f, msg(backendName(backend) + " b=" + std::to_string(b)));
                }
    }
}

void TestMasks::validMasksValidate()
{
    const std::int64_t B = 2, H = 3, Lq = 5, Lk = 7;
    for (int kind = 0; kind <= int(MaskKind::Everything); ++kind) {
        const MaskSpec m = makeMask(MaskKind(kind), B, H, Lq, Lk, 1);
        const Status s = validateMask(m, B, H, Lq, Lk);
        QVERIFY2(s.isOk(), (std::string(maskKindName(MaskKind(kind))) + ": " + s.message()).c_str());
    }
    // "off" values are not errors.
    MaskSpec off;
    off.window = -1;
    off.block = 0;
    QVERIFY(validateMask(off, B, H, Lq, Lk).isOk());
    QVERIFY(!off.hasStructure());
}

void TestMasks::paddedKeysCannotInfluence_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<bool>("causal");
    QTest::newRow("n=7") << 7 << false;
    QTest::newRow("n=97") << 97 << false;
    QTest::newRow("n=97 causal") << 97 << true;
    QTest::newRow("n=300 causal") << 300 << true;
}

void TestMasks::paddedKeysCannotInfluence()
{
    // Changing K and V at padding keys (to large but finite garbage) must leave every output unchanged.
    QFETCH(int, n);
    QFETCH(bool, causal);
    const std::int64_t B = 2, H = 2, D = 16;
    MaskSpec mask = MaskSpec::keyPadding({n - 3, n / 2}, n);
    mask.causal = causal;
    const Operand q = makeOperand({B, H, n, D}, Layout::BHLD, 7);
    const Operand k = makeOperand({B, H, n, D}, Layout::BHLD, 8);
    const Operand v = makeOperand({B, H, n, D}, Layout::BHLD, 9);
    Operand k2 = k, v2 = v;
    Rng rng(10);
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t h = 0; h < H; ++h)
            for (std::int64_t j = 0; j < n; ++j) {
                if (mask.keyValid[static_cast<std::size_t>(b * n + j)]) continue;
                for (std::int64_t d = 0; d < D; ++d) {
                    k2.at(b, h, j, d) = static_cast<float>(100.0 * rng.normal());
                    v2.at(b, h, j, d) = static_cast<float>(1e4 * rng.normal());
                }
            }
    for (Backend backend : kAllBackends) {
        AttentionOptions opt;
        opt.backend = backend;
        auto a = attention(q.view(), k.view(), v.view(), mask, opt);
        auto c = attention(q.view(), k2.view(), v2.view(), mask, opt);
        QVERIFY(a.isOk() && c.isOk());
        const ErrorStat e = compare(c->out.values.data(), a->out.values.data(), a->out.values.size());
        QVERIFY2(e.maxAbs <= 1e-6 && e.mismatchedInf == 0, msg(backendName(backend) + ": " + e.describe()));
    }
}

void TestMasks::causalNoLeakage_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("j");
    QTest::newRow("n=7 j=3") << 7 << 3;
    QTest::newRow("n=97 j=50") << 97 << 50;
    QTest::newRow("n=300 j=131") << 300 << 131;
}

void TestMasks::causalNoLeakage()
{
    // Perturb key/value j: under causal, rows < j are unchanged; without a mask they all move.
    QFETCH(int, n);
    QFETCH(int, j);
    const std::int64_t B = 1, H = 3, D = 32;
    const Operand q = makeOperand({B, H, n, D}, Layout::BHLD, 11);
    const Operand k = makeOperand({B, H, n, D}, Layout::BHLD, 12);
    const Operand v = makeOperand({B, H, n, D}, Layout::BHLD, 13);
    Operand k2 = k, v2 = v;
    for (std::int64_t h = 0; h < H; ++h)
        for (std::int64_t d = 0; d < D; ++d) {
            k2.at(0, h, j, d) += 1.0f;
            v2.at(0, h, j, d) += 3.0f;
        }
    for (Backend backend : kAllBackends) {
        const std::string name = backendName(backend);
        for (bool causal : {true, false}) {
            AttentionOptions opt;
            opt.backend = backend;
            const MaskSpec mask = causal ? MaskSpec::causalMask() : MaskSpec::bidirectional();
            auto a = attention(q.view(), k.view(), v.view(), mask, opt);
            auto c = attention(q.view(), k2.view(), v2.view(), mask, opt);
            QVERIFY(a.isOk() && c.isOk());
            double before = 0.0, after = 0.0;   // max change at rows < j, and at rows >= j
            for (std::int64_t h = 0; h < H; ++h)
                for (std::int64_t i = 0; i < n; ++i)
                    for (std::int64_t d = 0; d < D; ++d) {
                        const std::size_t x = static_cast<std::size_t>((h * n + i) * D + d);
                        const double diff = std::abs(double(a->out.values[x]) - c->out.values[x]);
                        (i < j ? before : after) = std::max(i < j ? before : after, diff);
                    }
            if (causal)
                QVERIFY2(before <= 1e-6, msg(name + " causal: rows before the perturbed token moved by " + fmt(before)));
            else
                QVERIFY2(before > 1e-4, msg(name + " bidirectional: rows before j should change, moved " + fmt(before)));
            QVERIFY2(after > 1e-4, msg(name + ": rows at/after j should change, moved " + fmt(after)));
        }
    }
}

void TestMasks::everythingMasked_data()
{
    QTest::addColumn<int>("Lq");
    QTest::addColumn<int>("Lk");
    QTest::addColumn<int>("D");
    QTest::newRow("n=1 d=16") << 1 << 1 << 16;
    QTest::newRow("n=97 d=64") << 97 << 97 << 64;
    QTest::newRow("lq=1025 lk=130 d=80") << 1025 << 130 << 80;
}

void TestMasks::everythingMasked()
{
    // Every key is padding: every row of every backend is 0 with LSE +inf, weights 0, no NaN.
    QFETCH(int, Lq);
    QFETCH(int, Lk);
    QFETCH(int, D);
    const std::int64_t B = 2, H = 2;
    MaskSpec mask;
    mask.keyValid.assign(static_cast<std::size_t>(B * Lk), 0);
    const Operand q = makeOperand({B, H, Lq, D}, Layout::BHLD, 14);
    const Operand k = makeOperand({B, H, Lk, D}, Layout::BHLD, 15);
    const Operand v = makeOperand({B, H, Lk, D}, Layout::BHLD, 16);
    for (Backend backend : kAllBackends) {
        AttentionOptions opt;
        opt.backend = backend;
        opt.weights = WeightsRequest::only({{1, 1}});
        auto r = attention(q.view(), k.view(), v.view(), mask, opt);
        const std::string name = backendName(backend);
        QVERIFY2(r.isOk(), msg(name + ": " + r.status().message()));
        for (float x : r->out.values) QVERIFY2(x == 0.0f, msg(name + ": output " + fmt(x)));
        for (float x : r->lse) QVERIFY2(x == kInf, msg(name + ": lse " + fmt(x)));
        QCOMPARE(r->weights.size(), std::size_t(1));
        for (float x : r->weights[0].P) QVERIFY2(x == 0.0f, msg(name + ": weight " + fmt(x)));
    }
}

void TestMasks::extremeAdditiveValues()
{
    // Additive values of ±100 (scores far beyond exp's fp32 range without max subtraction) and a row where one key
    // carries -1e30 (finite, not -inf): fast paths stay finite and agree with the reference.
    const std::int64_t B = 1, H = 2, n = 70, D = 16;
    MaskSpec mask;
    mask.additive.resize(static_cast<std::size_t>(n * n));
    Rng rng(17);
    for (auto &a : mask.additive) a = rng.uniform() < 0.5 ? 100.0f : -100.0f;
    for (std::int64_t j = 0; j < n; ++j) mask.additive[static_cast<std::size_t>(5 * n + j)] = j == 9 ? 0.0f : -1e30f;
    const Operand q = makeOperand({B, H, n, D}, Layout::BHLD, 18);
    const Operand k = makeOperand({B, H, n, D}, Layout::BHLD, 19);
    const Operand v = makeOperand({B, H, n, D}, Layout::BHLD, 20);
    auto ref = referenceAttention(q.view(), k.view(), v.view(), mask, {});
    QVERIFY(ref.isOk());
    const NaiveOutput naive = naiveAttention(q.view(), k.view(), v.view(), mask);
    const double errNaive = compare(naive.out.data(), ref->out.data(), naive.out.size()).maxAbs;
    for (Backend backend : kAllBackends) {
        AttentionOptions opt;
        opt.backend = backend;
        auto r = attention(q.view(), k.view(), v.view(), mask, opt);
        QVERIFY2(r.isOk(), r.status().message().c_str());
        QCOMPARE(countNonFinite(r->out.values.data(), r->out.values.size()), std::size_t(0));
        QCOMPARE(countNonFinite(r->lse.data(), r->lse.size()), std::size_t(0));
        const ErrorStat e = compare(r->out.values.data(), ref->out.data(), naive.out.size());
        QVERIFY2(e.maxAbs <= std::max(2 * errNaive + 1e-7, 1e-5),
                 msg(backendName(backend) + ": " + e.describe() + ", naive " + fmt(errNaive)));
        // Row 5 sees key 9 only (the others are e^-1e30 = 0): O = V[9].
        for (std::int64_t h = 0; h < H; ++h)
            for (std::int64_t d = 0; d < D; ++d)
                QVERIFY(std::abs(r->out.values[static_cast<std::size_t>((h * n + 5) * D + d)] - v.view().at(0, h, 9, d)) <= 1e-6f);
    }
}

QTEST_APPLESS_MAIN(TestMasks)
#include "tst_masks.moc"
