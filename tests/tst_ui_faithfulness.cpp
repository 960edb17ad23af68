// SPDX-License-Identifier: GPL-3.0-or-later
// The Faithfulness workspace offscreen, on sample:rationale-bert with one of its rationale examples: the panels
// show what the engine computes (target, importances, agreement, ERASER with random baselines, curves, head
// grids, sanity check), the ground-truth evidence is marked and scored, the forward-pass estimate is shown
// before the run, a causal LM is labelled in nats, session state round-trips and bad fields are rejected by name.

#include "plots/heatmapplot.h"
#include "plots/xyplot.h"
#include "runner/enginerunner.h"
#include "kit/subject.h"
#include "workspaces/faithfulness/faithfulnessfigure.h"
#include "workspaces/faithfulness/faithfulnessview.h"
#include "uitestsupport.h"

#include <attnscope/faithfulness.h>
#include <attnscope/textmodel.h>

#include <QStandardPaths>
#include <QTableWidget>
#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace attnui;

namespace {

TextModelPtr openModel(const char *spec)
{
    auto m = attn::TextModel::open(spec);
    return m ? std::make_shared<const attn::TextModel>(std::move(m.value())) : nullptr;
}

bool runAndWait(FaithfulnessView &view)
{
    view.rerun();
    return view.runner()->waitForIdle(120000) && view.snapshot() &&
           view.snapshot()->generation == view.runner()->currentGeneration();
}

// Fewer permutations keep the test short; everything else at the defaults.
const QJsonObject kQuick{{"permutations", 10}, {"random_seeds", 3}};

} // namespace

class TestUiFaithfulness : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void rationaleExampleFillsEveryPanel();
    void causalLmIsInNats();
    void sessionStateRoundTrips();
    void defaultOcclusionBaselineIsTheClis_data();
    void defaultOcclusionBaselineIsTheClis();
    void badSessionFieldsAreRejectedByName();

private:
    TextModelPtr m_bert;
};

void TestUiFaithfulness::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    m_bert = openModel("sample:rationale-bert");
    if (!m_bert) QSKIP("sample:rationale-bert not found");
}

void TestUiFaithfulness::rationaleExampleFillsEveryPanel()
{
    Subject subject;
    subject.setModel(m_bert, QStringLiteral("sample:rationale-bert"));
    FaithfulnessView view(&subject);
    QString error;
    QVERIFY2(view.restoreSessionState(kQuick, &error), qPrintable(error));
    QVERIFY(view.rationaleExamples().size() >= 2);
    view.useRationaleExample(0);   // "... our wonderful costume found the dog." (one evidence word)
    const RationaleExample &ex = view.rationaleExamples()[0];
    QCOMPARE(subject.text(), ex.text);
    QCOMPARE(view.goldTokens(), ex.evidence);

    // The estimate is shown before anything runs, and it is the engine's.
    auto tokens = m_bert->tokenize(ex.text.toStdString());
    QVERIFY(tokens.isOk());
    const std::int64_t estimate = attn::estimateFaithfulnessPasses(m_bert->model(), std::int64_t(tokens->ids.size()), view.settings());
    QCOMPARE(view.estimatedPasses(), estimate);
    QVERIFY2(view.estimateText().contains(QLocale().toString(qlonglong(estimate))), qPrintable(view.estimateText()));

    QVERIFY2(runAndWait(view), qPrintable(view.errorText()));
    const auto s = view.snapshot();
    const attn::FaithfulnessResult &r = s->result;
    QCOMPARE(r.target.unit, std::string("probability"));
    QCOMPARE(s->gold, ex.evidence);

    // The same suite run directly gives the same numbers (seeded, deterministic).
    auto direct = attn::runFaithfulness(*m_bert, ex.text.toStdString(), view.settings());
    QVERIFY(direct.isOk());
    QCOMPARE(direct->target.score, r.target.score);
    QCOMPARE(direct->orderings.size(), r.orderings.size());
    QCOMPARE(direct->orderings.front().metrics.aopcComprehensiveness, r.orderings.front().metrics.aopcComprehensiveness);

    FaithfulnessFigure *fig = view.figure();
    // The text it scored is shown whole.
    QVERIFY2(fig->summaryText().contains(ex.text.toHtmlEscaped()), qPrintable(fig->summaryText()));
    // Token bars: one bar per scored (non-special) token, evidence starred.
    const QStringList categories = fig->attentionBars()->categories();
    QCOMPARE(categories.size(), r.scoredTokens);
    QCOMPARE(fig->perturbationBars()->categories(), categories);
    for (std::int64_t g : ex.evidence) QVERIFY(categories.contains(s->labels[int(g)] + QStringLiteral("★")));
    QCOMPARE(int(std::count_if(categories.begin(), categories.end(), [](const QString &c) { return c.endsWith(QStringLiteral("★")); })),
             int(ex.evidence.size()));
    // Attention bars are the engine's head importance at the scored positions.
    const attn::Importance *head = nullptr;
    for (const attn::Importance &imp : r.importances)
        if (imp.name == "head") head = &imp;
    QVERIFY(head);
    QCOMPARE(fig->attentionBars()->series().front().y.front(), head->scores[1]);   // position 1: first after [CLS]

    // Scatter: one point per token; its title carries the engine's τ-b.
    QCOMPARE(int(fig->scatter()->series().front().x.size()), r.scoredTokens);
    for (const attn::AgreementScores &a : r.agreement)
        if (a.method == "head" && a.reference == "loo_deletion")
            QVERIFY2(fig->scatter()->title().contains(QString::number(a.kendallTauB, 'f', 2)), qPrintable(fig->scatter()->title()));

    // The table: a row per ordering (the importances, then random), random baselines beside the numbers,
    // units in the headers, F1 and precision@k columns for the rationale.
    QTableWidget *table = fig->table();
    QCOMPARE(table->rowCount(), int(r.orderings.size()));
    QVERIFY(table->item(table->rowCount() - 1, 0)->text().startsWith(QStringLiteral("random order")));
    QVERIFY(table->horizontalHeaderItem(1)->text().contains(QStringLiteral("probability")));
    QVERIFY(table->item(0, 1)->text().contains(QStringLiteral("(r ")));
    QVERIFY(table->horizontalHeaderItem(table->columnCount() - 1)->text().startsWith(QStringLiteral("precision@")));
    QCOMPARE(int(s->rationale.size()), int(r.importances.size()));
    QCOMPARE(s->randomPrecision, double(ex.evidence.size()) / r.scoredTokens);
    // LOO by deletion finds the single evidence word of this example.
    for (const RationaleRow &row : s->rationale)
        if (row.method == "loo_deletion") QCOMPARE(row.scores.precisionAtK, 1.0);

    // Curves: deletion and insertion for the chosen method and for random.
    QCOMPARE(fig->curves()->series().size(), 4);
    QVERIFY(fig->curves()->title().contains(QStringLiteral("(r ")));
    // Head grids: layers × heads.
    const attn::ModelConfig &c = m_bert->model().config();
    QCOMPARE(fig->permutationGrid()->data().rows, int(c.layers));
    QCOMPARE(fig->permutationGrid()->data().cols, int(c.heads));
    QCOMPARE(fig->ablationGrid()->data().rows, int(c.layers));
    QVERIFY(fig->summaryText().contains(QStringLiteral("10 attention permutations per head")));
    // Notes: target with unit, seeds, evidence, the sanity check flags attention as class-agnostic.
    QVERIFY(fig->summaryText().contains(QStringLiteral("probability")));
    QVERIFY(fig->summaryText().contains(QStringLiteral("seed 42")));
    QVERIFY(fig->rationaleText().contains(QStringLiteral("wonderful")));
    QVERIFY(r.randomLogit.has_value());
    QVERIFY2(fig->sanityText().contains(QStringLiteral("class-agnostic")), qPrintable(fig->sanityText()));
    // One verdict line per check; the numbers only on demand.
    const int checks = fig->sanityCheckCount();
    QCOMPARE(checks, int(r.randomLogit.has_value()) + int(r.randomization.has_value()));
    QCOMPARE(fig->sanityText().count(QStringLiteral("<br>")), checks - 1);
    QVERIFY(!fig->sanityText().contains(QStringLiteral("ρ =")));
    fig->toggleSanityDetails(0);
    QVERIFY2(fig->sanityText().contains(QStringLiteral("ρ =")), qPrintable(fig->sanityText()));
    fig->toggleSanityDetails(0);
    QVERIFY(!fig->sanityText().contains(QStringLiteral("ρ =")));
    QVERIFY(view.errorText().isEmpty());
    QVERIFY(view.figureWidget() != nullptr);
    QVERIFY(view.figureCaption().contains(QStringLiteral("sample:rationale-bert")));
    // The default head is the last of the model's 3 layers, head 0: "2.0" in the session, L2 H0 in the boxes, the
    // caption, the attention bars, the grids' ticks and their hover text (all count from 0).
    QCOMPARE(view.sessionState().value(QStringLiteral("head")).toString(), QStringLiteral("2.0"));
    QSpinBox *layerBox = test::spinBoxWithPrefix(&view, QStringLiteral("layer "));
    QSpinBox *headBox = test::spinBoxWithPrefix(&view, QStringLiteral("head "));
    QVERIFY(layerBox && headBox);
    QCOMPARE(layerBox->text(), QStringLiteral("layer 2"));
    QCOMPARE(headBox->text(), QStringLiteral("head 0"));
    QCOMPARE(layerBox->maximum(), 2);
    QCOMPARE(headBox->maximum(), 3);
    QVERIFY2(view.figureCaption().contains(QStringLiteral("· head L2 H0 vs LOO (deletion)")), qPrintable(view.figureCaption()));
    QVERIFY2(!view.figureCaption().contains(QStringLiteral("attention attention")), qPrintable(view.figureCaption()));
    QCOMPARE(fig->attentionBars()->title(), QStringLiteral("Attention: head L2 H0"));
    QCOMPARE(fig->permutationGrid()->data().rowLabels, (QStringList{QStringLiteral("L0"), QStringLiteral("L1"), QStringLiteral("L2")}));
    QCOMPARE(fig->permutationGrid()->data().colLabels,
             (QStringList{QStringLiteral("H0"), QStringLiteral("H1"), QStringLiteral("H2"), QStringLiteral("H3")}));
    QVERIFY2(fig->permutationGrid()->hoverText(HeatmapCell{2, 0}).startsWith(QStringLiteral("L2 H0: ")),
             qPrintable(fig->permutationGrid()->hoverText(HeatmapCell{2, 0})));

    // Display-only choices redraw without a new run.
    const quint64 generation = view.runner()->currentGeneration();
    view.setAttentionMethod("rollout");
    QVERIFY(fig->attentionBars()->title().contains(QStringLiteral("rollout")));
    QCOMPARE(view.runner()->currentGeneration(), generation);
}

void TestUiFaithfulness::causalLmIsInNats()
{
    TextModelPtr gpt = openModel("sample:induction-gpt2");
    if (!gpt) QSKIP("sample:induction-gpt2 not found");
    Subject subject;
    subject.setModel(gpt, QStringLiteral("sample:induction-gpt2"));
    subject.setText(QStringLiteral("a b c d a b c"));
    FaithfulnessView view(&subject);
    QString error;
    QVERIFY(view.restoreSessionState(kQuick, &error));
    QVERIFY2(runAndWait(view), qPrintable(view.errorText()));
    QCOMPARE(view.snapshot()->result.target.unit, std::string("nats"));
    // GPT-2 has no [MASK]: the occlusion baseline falls back to the zero embedding, and a session cannot ask for it.
    QCOMPARE(view.sessionState().value("occlusion_baseline").toString(), QStringLiteral("zero_embedding"));
    // A session may still ask for it (it may be about to open a BERT); running says why it cannot.
    QVERIFY(view.restoreSessionState({{"occlusion_baseline", "mask"}}, &error));
    view.rerun();
    QVERIFY(view.errorText().contains(QStringLiteral("[MASK]")));
    QVERIFY(view.figure()->table()->horizontalHeaderItem(1)->text().contains(QStringLiteral("nats")));
    QVERIFY(view.figure()->rationaleText().contains(QStringLiteral("No ground-truth")));
}

// The GUI's occlusion baseline for a model it has just opened is the one `attnscope-cli faithfulness` uses
// without --baseline (the engine's default): [MASK] where the tokenizer has it (BERT), else the zero embedding
// (models without [MASK] or [UNK], such as Qwen2 and Llama 3).
void TestUiFaithfulness::defaultOcclusionBaselineIsTheClis_data()
{
    QTest::addColumn<QString>("spec");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("baseline");
    QTest::addRow("bert") << "sample:rationale-bert" << "the plot was dull and we watched the old film with the dog." << "mask";
    QTest::addRow("qwen2") << "sample:retrieval-qwen2" << "ka 3 mo 7 ri 1 di 5 mo" << "zero_embedding";
}

void TestUiFaithfulness::defaultOcclusionBaselineIsTheClis()
{
    QFETCH(QString, spec);
    QFETCH(QString, text);
    QFETCH(QString, baseline);
    const TextModelPtr model = openModel(qPrintable(spec));
    QVERIFY(model);
    Subject subject;
    subject.setModel(model, spec);
    subject.setText(text);
    FaithfulnessView view(&subject);
    QVERIFY(view.settings().occlusionBaseline);
    QCOMPARE(QString::fromStdString(attn::removalOperatorName(*view.settings().occlusionBaseline)), baseline);
    // The CLI's default, from the engine itself: occlusion only, no tests.
    attn::FaithfulnessSettings cli;
    cli.methods = {attn::ImportanceKind::Occlusion};
    cli.permutationTest = cli.uniformTest = cli.headAblation = cli.randomLogitCheck = false;
    cli.randomization = attn::RandomizationMode::None;
    auto r = attn::runFaithfulness(*model, text.toStdString(), cli);
    QVERIFY2(r.isOk(), r.isOk() ? "" : r.status().message().c_str());
    QCOMPARE(QString::fromStdString(r->occlusionBaseline), baseline);
}

void TestUiFaithfulness::sessionStateRoundTrips()
{
    Subject subject;
    subject.setModel(m_bert, QStringLiteral("sample:rationale-bert"));
    FaithfulnessView a(&subject);
    const QJsonObject state{{"attention", "rollout"},     {"head", "1.3"},          {"perturbation", "loo_knockout"},
                            {"occlusion_baseline", "unk"}, {"removal", "knockout"},  {"target_class", 1},
                            {"seed", 7},                  {"random_seeds", 4},      {"permutations", 20},
                            {"permutation_test", false},  {"uniform_test", true},   {"head_ablation", false},
                            {"ablation_view", "mean"},    {"sanity_check", false}};
    QString error;
    QVERIFY2(a.restoreSessionState(state, &error), qPrintable(error));
    QCOMPARE(a.sessionState(), state);
    FaithfulnessView b(&subject);
    QVERIFY(b.restoreSessionState(a.sessionState(), &error));
    QCOMPARE(b.sessionState(), state);
    const attn::FaithfulnessSettings s = b.settings();
    QCOMPARE(s.seed, std::uint64_t(7));
    QCOMPARE(*s.targetClass, std::int64_t(1));
    QCOMPARE(s.removal, attn::RemovalOperator::Knockout);
    QCOMPARE(*s.occlusionBaseline, attn::RemovalOperator::UnkToken);
    QVERIFY(!s.permutationTest && !s.headAblation && !s.randomLogitCheck);
}

void TestUiFaithfulness::badSessionFieldsAreRejectedByName()
{
    Subject subject;
    subject.setModel(m_bert, QStringLiteral("sample:rationale-bert"));
    FaithfulnessView view(&subject);
    const QJsonObject before = view.sessionState();
    const QList<std::pair<QJsonObject, QString>> bad{
        {{{"attention", "gradient"}}, "attention"},
        {{{"occlusion_baseline", "banana"}}, "occlusion_baseline"},
        {{{"seed", -3}}, "seed"},
        {{{"permutations", 2.5}}, "permutations"},
        {{{"target_class", -2}}, "target_class"},
        {{{"head", "three"}}, "head"},
        {{{"uniform_test", "yes"}}, "uniform_test"},
        {{{"colour", "red"}}, "colour"},
    };
    for (const auto &[state, field] : bad) {
        QString error;
        QVERIFY(!view.restoreSessionState(state, &error));
        QVERIFY2(error.startsWith(field + QLatin1Char(':')), qPrintable(error));
        QCOMPARE(view.sessionState(), before);
    }
    QVERIFY(!view.showView(QStringLiteral("faithfulness:0.0"), nullptr));
}

QTEST_MAIN(TestUiFaithfulness)
#include "tst_ui_faithfulness.moc"
