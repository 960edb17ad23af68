// SPDX-License-Identifier: GPL-3.0-or-later
// Bad input is a value, never an abort. Each row is one mistake; every entry point that sees it (validateAttention,
// attention() with each backend, validateMha, multiHeadAttention) must return the expected ErrorCode with a
// message that names the thing that is wrong and the sizes involved.

#include "testsupport.h"

#include <attnscope/attention.h>
#include <attnscope/mha.h>

#include <QRegularExpression>
#include <QtTest>

#include <cmath>
#include <functional>
#include <limits>

using namespace attn;
using namespace attn::test;

namespace {

// (entry point name, what it returned)
using Outcome = std::vector<std::pair<std::string, Status>>;
using BadCall = std::function<Outcome()>;

// The base problem every attention row spoils in one way: B = 2, H = 3, Lq = 5, Lk = 6, D = 8, Dv = 4.
struct Inputs {
    Operand q = makeOperand({2, 3, 5, 8}, Layout::BHLD, 1);
    Operand k = makeOperand({2, 3, 6, 8}, Layout::BHLD, 2);
    Operand v = makeOperand({2, 3, 6, 4}, Layout::BHLD, 3);
    MaskSpec mask;
    AttentionOptions options;
    bool nullQ = false, nullV = false;
};

// Runs validateAttention (when `validate`) and attention() on every CPU backend.
BadCall attentionCall(Inputs in, bool validate = true, std::vector<Backend> backends = {})
{
    if (backends.empty()) backends = {Backend::Reference, Backend::Tiled, Backend::Unfused, Backend::Auto};
    return [in, validate, backends]() {
        TensorView q = in.q.view(), k = in.k.view(), v = in.v.view();
        if (in.nullQ) q.data = nullptr;
        if (in.nullV) v.data = nullptr;
        Outcome outcome;
        if (validate) outcome.emplace_back("validateAttention", validateAttention(q, k, v, in.mask, in.options));
        for (Backend b : backends) {
            AttentionOptions opt = in.options;
            opt.backend = b;
            auto r = attention(q, k, v, in.mask, opt);
            outcome.emplace_back("attention/" + backendName(b), r.isOk() ? Status::ok() : r.status());
        }
        return outcome;
    };
}

// validateMha sees only the weights: it is checked unless the mistake is elsewhere (x, the mask).
BadCall mhaCall(MhaWeights w, bool nullX = false, MaskSpec mask = {})
{
    return [w, nullX, mask]() {
        Outcome outcome;
        if (!nullX && mask.isEmpty()) outcome.emplace_back("validateMha", validateMha(w));
        const std::int64_t B = 2, L = 5;
        const std::vector<float> x = randomNormal(static_cast<std::size_t>(B * L * std::max<std::int64_t>(w.dModel, 1)), 4);
        auto r = multiHeadAttention(nullX ? nullptr : x.data(), B, L, w, mask);
        outcome.emplace_back("multiHeadAttention", r.isOk() ? Status::ok() : r.status());
        return outcome;
    };
}

// A needle is one or more alternatives separated by '|'. Single letters and numbers must appear as whole tokens
// (so "k" is not found inside "mask", "1" not inside "12"; "-1" is one token); anything else is a
// case-insensitive substring.
bool mentions(const std::string &message, const QString &needle)
{
    const QString m = QString::fromStdString(message);
    static const QRegularExpression splitter(QStringLiteral("[^A-Za-z0-9_\\-]+"));
    const QStringList tokens = m.split(splitter, Qt::SkipEmptyParts);
    for (const QString &alt : needle.split(QLatin1Char('|'))) {
        bool number = false;
        alt.toLongLong(&number);
        if (alt.size() == 1 || number) {
            for (const QString &t : tokens)
                if (t.compare(alt, Qt::CaseInsensitive) == 0) return true;
        } else if (m.contains(alt, Qt::CaseInsensitive)) {
            return true;
        }
    }
    return false;
}

MhaWeights goodMha() { return MhaWeights::random(16, 4, 4, 7); }

} // namespace

Q_DECLARE_METATYPE(BadCall)
Q_DECLARE_METATYPE(attn::ErrorCode)

class TestErrors : public QObject {
    Q_OBJECT

private slots:
    void badInput_data();
    void badInput();
    void unknownNames();
    void nonsenseWindowAndBlock_data();
    void nonsenseWindowAndBlock();
    void emptyProblems_data();
    void emptyProblems();
};

void TestErrors::badInput_data()
{
    QTest::addColumn<BadCall>("call");
    QTest::addColumn<ErrorCode>("code");
    QTest::addColumn<QStringList>("needles");
    const ErrorCode invalid = ErrorCode::InvalidArgument;
    const float nan = std::numeric_limits<float>::quiet_NaN();

    Inputs base;
    QTest::newRow("control: the base problem is fine") << attentionCall(base) << ErrorCode::Ok << QStringList{};

    { Inputs in; in.k = makeOperand({3, 3, 6, 8}, Layout::BHLD, 2);
      QTest::newRow("batch q=2 vs k=3") << attentionCall(in) << invalid << QStringList{"k", "2", "3"}; }
    { Inputs in; in.v = makeOperand({1, 3, 6, 4}, Layout::BHLD, 3);
      QTest::newRow("batch v=1 vs q=2") << attentionCall(in) << invalid << QStringList{"v", "1", "2"}; }
    { Inputs in; in.v = makeOperand({2, 3, 7, 4}, Layout::BHLD, 3);
      QTest::newRow("Lk k=6 vs v=7") << attentionCall(in) << invalid << QStringList{"v", "6", "7"}; }
    { Inputs in; in.q = makeOperand({2, 3, 5, 0}, Layout::BHLD, 1); in.k = makeOperand({2, 3, 6, 0}, Layout::BHLD, 2);
      QTest::newRow("head dim 0") << attentionCall(in) << invalid << QStringList{"q|k|dim|D|head", "0"}; }
    { Inputs in; in.k = makeOperand({2, 3, 6, 6}, Layout::BHLD, 2);
      QTest::newRow("D q=8 vs k=6") << attentionCall(in) << invalid << QStringList{"k", "6", "8"}; }
    { Inputs in; in.k = makeOperand({2, 2, 6, 8}, Layout::BHLD, 2); in.v = makeOperand({2, 2, 6, 4}, Layout::BHLD, 3);
      QTest::newRow("H=3 not a multiple of Hkv=2") << attentionCall(in) << invalid << QStringList{"head|Hkv|H", "2", "3"}; }
    { Inputs in; in.v = makeOperand({2, 1, 6, 4}, Layout::BHLD, 3);
      QTest::newRow("kv heads k=3 vs v=1") << attentionCall(in) << invalid << QStringList{"v", "1", "3"}; }
    { Inputs in; in.q = makeOperand({2, 3, 5, 8}, Layout::BHLD, 1); in.q.shape[2] = -1;
      QTest::newRow("negative length") << attentionCall(in) << invalid << QStringList{"q", "-1"}; }
    { Inputs in; in.nullQ = true;
      QTest::newRow("null q data") << attentionCall(in) << invalid << QStringList{"q", "null|data|pointer"}; }
    { Inputs in; in.nullV = true;
      QTest::newRow("null v data") << attentionCall(in) << invalid << QStringList{"v", "null|data|pointer"}; }
    { Inputs in; in.options.scale = -1.0f;
      QTest::newRow("negative scale") << attentionCall(in) << invalid << QStringList{"scale"}; }
    { Inputs in; in.options.scale = nan;
      QTest::newRow("NaN scale") << attentionCall(in) << invalid << QStringList{"scale"}; }
    { Inputs in; in.options.scale = std::numeric_limits<float>::infinity();
      QTest::newRow("infinite scale") << attentionCall(in) << invalid << QStringList{"scale"}; }
    { Inputs in; in.mask.keyValid.assign(11, 1);
      QTest::newRow("keyValid 11 != B*Lk 12") << attentionCall(in) << invalid << QStringList{"keyValid|key", "11", "12|2*6"}; }
    { Inputs in; in.mask.queryValid.assign(9, 1);
      QTest::newRow("queryValid 9 != B*Lq 10") << attentionCall(in) << invalid << QStringList{"queryValid|query", "9", "10|2*5"}; }
    { Inputs in; in.mask.allowed.assign(29, 1);
      QTest::newRow("allowed 29 != Lq*Lk 30") << attentionCall(in) << invalid << QStringList{"allowed|bool|custom", "29"}; }
    { Inputs in; in.mask.allowed.assign(90, 1);  // neither 30 nor B*30 = 60
      QTest::newRow("allowed 90 != 30 or 60") << attentionCall(in) << invalid << QStringList{"allowed|bool|custom", "90"}; }
    { Inputs in; in.mask.additive.assign(31, 0.0f);
      QTest::newRow("additive 31 != Lq*Lk 30") << attentionCall(in) << invalid << QStringList{"additive", "31"}; }
    { Inputs in; in.mask.alibiSlopes = {0.5f, 0.25f};
      QTest::newRow("alibi slopes 2 != H 3") << attentionCall(in) << invalid << QStringList{"alibi|slope", "2", "3"}; }
    // The header calls window < 0 and block <= 0 "off"; the engine accepts exactly -1 and 0 and names anything
    // else (see also nonsenseWindowAndBlock).
    { Inputs in; in.mask.window = -7;
      QTest::newRow("window -7") << attentionCall(in) << invalid << QStringList{"window", "-7"}; }
    { Inputs in; in.mask.block = -3;
      QTest::newRow("block -3") << attentionCall(in) << invalid << QStringList{"block", "-3"}; }
    { Inputs in; in.options.weights = WeightsRequest::only({{0, 3}});
      QTest::newRow("weights head 3 of H=3") << attentionCall(in) << invalid << QStringList{"head|weights", "3"}; }
    { Inputs in; in.options.weights = WeightsRequest::only({{2, 0}});
      QTest::newRow("weights batch 2 of B=2") << attentionCall(in) << invalid << QStringList{"batch|weights", "2"}; }
    { Inputs in; in.options.weights = WeightsRequest::only({{0, -1}});
      QTest::newRow("weights head -1") << attentionCall(in) << invalid << QStringList{"head|weights", "-1"}; }
    { Inputs in; in.options.weights = WeightsRequest::all(); in.options.weightsBudgetBytes = 100;
      // 2·3·5·6·4 = 720 bytes requested against a budget of 100.
      QTest::newRow("weights over budget") << attentionCall(in, false) << ErrorCode::OutOfMemory
                                           << QStringList{"budget"}; }
    if (!cudaAvailable()) {
        Inputs in;
        QTest::newRow("cuda backend unavailable")
            << attentionCall(in, false, {Backend::Cuda}) << ErrorCode::Unavailable
            << QStringList{QString::fromStdString(cudaUnavailableReason()).left(40)};
    }

    // MHA weights (validateMha and multiHeadAttention).
    QTest::newRow("mha control") << mhaCall(goodMha()) << ErrorCode::Ok << QStringList{};
    { MhaWeights w = goodMha(); w.wq.pop_back();
      QTest::newRow("mha wq size") << mhaCall(w) << invalid << QStringList{"wq|W_Q", "255", "256"}; }
    { MhaWeights w = goodMha(); w.wk.resize(10);
      QTest::newRow("mha wk size") << mhaCall(w) << invalid << QStringList{"wk|W_K", "10"}; }
    { MhaWeights w = goodMha(); w.wv.clear();
      QTest::newRow("mha wv empty") << mhaCall(w) << invalid << QStringList{"wv|W_V"}; }
    { MhaWeights w = goodMha(); w.wo.push_back(0.0f);
      QTest::newRow("mha wo size") << mhaCall(w) << invalid << QStringList{"wo|W_O", "257"}; }
    { MhaWeights w = goodMha(); w.bq.assign(15, 0.0f);
      QTest::newRow("mha bq size") << mhaCall(w) << invalid << QStringList{"bq|b_Q", "15"}; }
    { MhaWeights w = goodMha(); w.bo.assign(17, 0.0f);
      QTest::newRow("mha bo size") << mhaCall(w) << invalid << QStringList{"bo|b_O", "17"}; }
    { MhaWeights w = goodMha(); w.heads = 0;
      QTest::newRow("mha heads 0") << mhaCall(w) << invalid << QStringList{"head"}; }
    { MhaWeights w = goodMha(); w.dModel = 0;
      QTest::newRow("mha dModel 0") << mhaCall(w) << invalid << QStringList{"dModel|d_model|model"}; }
    { QTest::newRow("mha null x") << mhaCall(goodMha(), true) << invalid << QStringList{"x|input|null"}; }
    { MaskSpec m; m.keyValid.assign(3, 1);
      QTest::newRow("mha mask keyValid size") << mhaCall(goodMha(), false, m) << invalid << QStringList{"keyValid|key", "3"}; }
    { MhaWeights w = goodMha(); w.dHead = 3; // rope pairs (i, i + dHead/2) need an even dHead; sizes also disagree
      QTest::newRow("mha dHead disagrees with wq") << mhaCall(w) << invalid << QStringList{"wq|W_Q|dHead|head"}; }
}

void TestErrors::badInput()
{
    QFETCH(BadCall, call);
    QFETCH(ErrorCode, code);
    QFETCH(QStringList, needles);
    const Outcome outcome = call();
    QVERIFY(!outcome.empty());
    qInfo("%s: \"%s\"", outcome.front().first.c_str(), outcome.front().second.message().c_str());
    for (const auto &[where, status] : outcome) {
        QVERIFY2(status.code() == code, qPrintable(QStringLiteral("%1 returned code %2 (\"%3\"), expected %4")
                                                        .arg(QString::fromStdString(where))
                                                        .arg(int(status.code()))
                                                        .arg(QString::fromStdString(status.message()))
                                                        .arg(int(code))));
        if (code == ErrorCode::Ok) continue;
        QVERIFY2(!status.message().empty(), where.c_str());
        for (const QString &needle : needles)
            QVERIFY2(mentions(status.message(), needle),
                     qPrintable(QStringLiteral("%1: message \"%2\" does not mention %3")
                                    .arg(QString::fromStdString(where), QString::fromStdString(status.message()), needle)));
    }
}

void TestErrors::unknownNames()
{
    for (const char *name : {"tpu", "", "flash ", "ref", "cudaa"})
        QVERIFY2(!parseBackend(name).has_value(), name);
    for (const char *name : {"reference", "tiled", "unfused", "cuda", "auto"})
        QVERIFY2(parseBackend(name).has_value(), name);
    for (const char *name : {"learned?", "", "sin"})
        QVERIFY2(!parsePositional(name).has_value(), name);
    for (PositionalEncoding pe :
         {PositionalEncoding::None, PositionalEncoding::Sinusoidal, PositionalEncoding::RoPE, PositionalEncoding::ALiBi})
        QVERIFY(parsePositional(positionalName(pe)) == pe);
    QCOMPARE(positionalName(PositionalEncoding::RoPE), std::string("rope"));
}

// Window and block values outside the documented ones: below "off" (the header says window < 0 and block <= 0 are
// off; the engine may also insist on exactly -1 / 0) and values so large that a careless i' + W overflows.
// Accepted answers: InvalidArgument naming the field, or the bidirectional result (every such mask allows every
// key here). Never an abort and never a silently wrong mask.
void TestErrors::nonsenseWindowAndBlock_data()
{
    QTest::addColumn<qint64>("window");
    QTest::addColumn<qint64>("block");
    const qint64 big = std::numeric_limits<qint64>::max();
    QTest::newRow("window -7") << qint64(-7) << qint64(0);
    QTest::newRow("block -3") << qint64(-1) << qint64(-3);
    QTest::newRow("window INT64_MAX") << big << qint64(0);
    QTest::newRow("window INT64_MIN") << std::numeric_limits<qint64>::min() << qint64(0);
    QTest::newRow("block INT64_MAX") << qint64(-1) << big;
    QTest::newRow("window 1e12") << qint64(1000000000000) << qint64(0);
}

void TestErrors::nonsenseWindowAndBlock()
{
    QFETCH(qint64, window);
    QFETCH(qint64, block);
    const Inputs in;
    MaskSpec mask;
    mask.window = window;
    mask.block = block;
    AttentionOptions bidi;
    bidi.backend = Backend::Reference;
    auto expected = attention(in.q.view(), in.k.view(), in.v.view(), MaskSpec::bidirectional(), bidi);
    QVERIFY(expected.isOk());
    QStringList problems;
    for (Backend backend : {Backend::Reference, Backend::Tiled, Backend::Unfused, Backend::Auto}) {
        AttentionOptions opt;
        opt.backend = backend;
        auto r = attention(in.q.view(), in.k.view(), in.v.view(), mask, opt);
        const QString name = QString::fromStdString(backendName(backend));
        if (!r.isOk()) {
            const QString m = QString::fromStdString(r.status().message());
            qInfo("%s: %s", qPrintable(name), qPrintable(m));
            if (r.status().code() != ErrorCode::InvalidArgument || !mentions(r.status().message(), "window|block"))
                problems << name + QStringLiteral(": unclear rejection: ") + m;
            continue;
        }
        const ErrorStat e = compare(r->out.values.data(), expected->out.values.data(), r->out.values.size());
        if (!(e.maxAbs <= 1e-5 && e.mismatchedInf == 0))
            problems << name + QStringLiteral(": accepted, but the result is not the all-keys-visible one: ") +
                            QString::fromStdString(e.describe());
    }
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QStringLiteral("; "))));
}

void TestErrors::emptyProblems_data()
{
    QTest::addColumn<int>("B");
    QTest::addColumn<int>("Lq");
    QTest::addColumn<int>("Lk");
    QTest::newRow("Lq=0") << 1 << 0 << 4;
    QTest::newRow("Lk=0") << 1 << 4 << 0;
    QTest::newRow("B=0") << 0 << 4 << 4;
}

void TestErrors::emptyProblems()
{
    // Either a clear InvalidArgument or a well-formed empty/fully-masked answer; never a crash or NaN.
    QFETCH(int, B);
    QFETCH(int, Lq);
    QFETCH(int, Lk);
    const Operand q = makeOperand({B, 2, Lq, 8}, Layout::BHLD, 1);
    const Operand k = makeOperand({B, 2, Lk, 8}, Layout::BHLD, 2);
    const Operand v = makeOperand({B, 2, Lk, 8}, Layout::BHLD, 3);
    for (Backend backend : {Backend::Reference, Backend::Tiled, Backend::Unfused, Backend::Auto}) {
        AttentionOptions opt;
        opt.backend = backend;
        // Empty vectors may have a null data(); give the views a valid pointer either way.
        static float dummy[8] = {};
        TensorView qv = q.view(), kv = k.view(), vv = v.view();
        if (!qv.data) qv.data = dummy;
        if (!kv.data) kv.data = dummy;
        if (!vv.data) vv.data = dummy;
        auto r = attention(qv, kv, vv, MaskSpec::bidirectional(), opt);
        const std::string name = backendName(backend);
        if (!r.isOk()) {
            qInfo("%s: %s", name.c_str(), r.status().message().c_str());
            QCOMPARE(r.status().code(), ErrorCode::InvalidArgument);
            QVERIFY(!r.status().message().empty());
            continue;
        }
        QCOMPARE(r->out.numel(), std::int64_t(B) * 2 * Lq * 8);
        for (float x : r->out.values) QCOMPARE(x, 0.0f);   // only Lk = 0 has rows, all fully masked
        for (float x : r->lse) QCOMPARE(x, std::numeric_limits<float>::infinity());
    }
}

QTEST_APPLESS_MAIN(TestErrors)
#include "tst_errors.moc"
