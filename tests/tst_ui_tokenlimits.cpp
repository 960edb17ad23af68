// SPDX-License-Identifier: GPL-3.0-or-later
// Every workspace that keeps n × n matrices refuses an input over its token limit (kit/tokenlimits.h) before it
// computes any n × n matrix, with a message that names the workspace, the limit and the input's length. A text
// exactly at the limit is not run here (seconds of work and up to a gigabyte per workspace); a short one runs
// through the same code, so a refusal cannot come from a path that refuses everything.
#include "kit/tokenlimits.h"
#include "runner/enginerunner.h"
#include "workspaces/compare/comparerun.h"
#include "workspaces/equivariance/equivariancerun.h"
#include "workspaces/explore/modelrun.h"
#include "workspaces/masks/masksrun.h"
#include "workspaces/pipeline/pipelinestages.h"

#include <attnscope/textmodel.h>

#include <QtTest>

using namespace attnui;

namespace {

// The synthetic model's tokenizer gives one token per byte: a text of `n` bytes is n tokens.
QString textOf(int n)
{
    QString text;
    while (text.size() < n) text += QStringLiteral("attention ");
    text.truncate(n);
    return text;
}

TextModelPtr randomModel()
{
    auto model = attn::TextModel::open("random:layers=1,heads=2,d_model=16,seed=3");
    if (!model) qFatal("%s", model.status().message().c_str());
    return std::make_shared<const attn::TextModel>(std::move(model).value());
}

} // namespace

class TestTokenLimits : public QObject {
    Q_OBJECT
private slots:
    void limitMessage();
    void workspacesRefuseOverTheirLimit_data();
    void workspacesRefuseOverTheirLimit();
};

void TestTokenLimits::limitMessage()
{
    QVERIFY(checkTokenLimit(4096, 4096, "Masks", "why").isOk());
    const attn::Status s = checkTokenLimit(4097, 4096, "Masks", "five masks");
    QVERIFY(!s.isOk());
    QCOMPARE(s.code(), attn::ErrorCode::InvalidArgument);
    QCOMPARE(QString::fromStdString(s.message()), QStringLiteral("Masks shows at most 4096 tokens (five masks); this input has 4097"));
}

void TestTokenLimits::workspacesRefuseOverTheirLimit_data()
{
    QTest::addColumn<QString>("workspace");
    QTest::addColumn<int>("limit");
    QTest::newRow("explore") << "Explore" << kExploreMaxTokens;
    QTest::newRow("masks") << "Masks" << kMasksMaxTokens;
    QTest::newRow("pipeline") << "Pipeline" << kPipelineMaxTokens;
    QTest::newRow("equivariance") << "Equivariance" << kEquivarianceMaxTokens;
    QTest::newRow("compare") << "Compare" << kCompareMaxTokens;
}

void TestTokenLimits::workspacesRefuseOverTheirLimit()
{
    QFETCH(QString, workspace);
    QFETCH(int, limit);
    const TextModelPtr model = randomModel();
    const JobContext ctx;
    auto run = [&](const QString &text) -> attn::Result<std::shared_ptr<Snapshot>> {
        if (workspace == QLatin1String("Explore")) {
            ModelRequest r;
            r.model = model;
            r.text = text;
            return runModel(r, ctx);
        }
        if (workspace == QLatin1String("Masks")) {
            MasksRequest r;
            r.model = model;
            r.text = text;
            r.choices = {MaskChoice::Causal};
            return runMasks(r, ctx);
        }
        if (workspace == QLatin1String("Pipeline")) return runPipeline(model, text, {}, PipelineSettings{}, ctx);
        if (workspace == QLatin1String("Equivariance")) {
            EquivarianceRequest r;
            r.model = model;
            r.text = text;
            return runEquivarianceJob(r, ctx);
        }
        CompareRequest r;
        r.model = model;
        r.mode = CompareMode::Heads;
        r.textA = text;
        r.headB = {0, 1};
        return runCompare(r, ctx);
    };

    // A short text runs through the same path.
    auto small = run(textOf(12));
    QVERIFY2(small.isOk(), small.isOk() ? "" : small.status().message().c_str());

    // One token over: refused, naming the workspace, its limit and the length.
    auto over = run(textOf(limit + 1));
    QVERIFY(!over.isOk());
    const QString message = QString::fromStdString(over.status().message());
    const QString expected = QStringLiteral("%1 shows at most %2 tokens").arg(workspace).arg(limit);
    QVERIFY2(message.contains(expected), qPrintable(message));   // Compare names the side first: "head A: …"
    QVERIFY2(message.endsWith(QStringLiteral("this input has %1").arg(limit + 1)), qPrintable(message));
}

QTEST_GUILESS_MAIN(TestTokenLimits)
#include "tst_ui_tokenlimits.moc"
