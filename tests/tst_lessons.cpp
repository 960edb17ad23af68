// SPDX-License-Identifier: GPL-3.0-or-later
// Lessons: every bundled lesson parses, names a workspace and a model that opens, its text tokenizes and its state
// is accepted by that workspace; what each says the student should see holds on its model (lessonClaims); bad
// lesson files are rejected with the file and the field named; the panel and the menu.

#include "lessons/lessonpanel.h"
#include "lessons/lessons.h"
#include "session/session.h"
#include "runner/enginerunner.h"
#include "kit/subject.h"
#include "uitestsupport.h"
#include "kit/workspace.h"
#include "kit/workspaces.h"
#include "workspaces/equivariance/equivarianceview.h"
#include "workspaces/explore/exploreview.h"
#include "workspaces/faithfulness/faithfulnessview.h"
#include "workspaces/masks/masksview.h"
#include "workspaces/pipeline/pipelineview.h"
#include "workspaces/seq2seq/alignmentview.h"
#include "workspaces/seq2seq/seq2seqview.h"
#include "workspaces/vision/imageoverlay.h"
#include "workspaces/vision/visionview.h"

#include <attnscope/seq2seqrun.h>
#include <attnscope/textmodel.h>
#include <attnscope/vit.h>

#include <QAction>
#include <QMainWindow>
#include <QMenu>
#include <QTest>

#include <cmath>

using namespace attnui;

class TestLessons : public QObject {
    Q_OBJECT
private slots:
    void bundledLessonsParse();
    void bundledLesson_data();
    void bundledLesson();
    void lessonClaims_data();
    void lessonClaims();
    void badLesson_data();
    void badLesson();
    void panelAndMenu();
    void proseNamesHeadsAsShown();
};

void TestLessons::bundledLessonsParse()
{
    QStringList errors;
    const QList<Lesson> lessons = loadLessons(QStringLiteral(":/lessons"), &errors);
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char('\n'))));
    QVERIFY(lessons.size() >= 5);
    QStringList workspaces;
    for (const Lesson &l : lessons) workspaces << l.workspace;
    for (const char *w : {"Pipeline", "Masks", "Equivariance", "Faithfulness", "Explore"})
        QVERIFY2(workspaces.contains(QLatin1String(w)), w);
}

void TestLessons::bundledLesson_data()
{
    QTest::addColumn<QString>("id");
    for (const Lesson &l : loadLessons()) QTest::addRow("%s", qPrintable(l.id)) << l.id;
}

void TestLessons::bundledLesson()
{
    QFETCH(QString, id);
    Lesson lesson;
    QString error;
    QVERIFY2(loadLessonFile(QStringLiteral(":/lessons/%1.json").arg(id), &lesson, &error), qPrintable(error));

    // The workspace is one the design names (DESIGN.md §3).
    static const QStringList planned{QStringLiteral("Explore"), QStringLiteral("Pipeline"), QStringLiteral("Masks"),
                                     QStringLiteral("Equivariance"), QStringLiteral("Faithfulness"),
                                     QStringLiteral("Compare"), QStringLiteral("Performance"),
                                     QStringLiteral("Encoder–Decoder"), QStringLiteral("Vision")};
    QVERIFY2(planned.contains(lesson.workspace), qPrintable(lesson.workspace));

    // The model opens and the text fits it: the Subject's text model, or the encoder–decoder the workspace opens.
    Subject subject;
    const bool encoderDecoder = attn::isSeq2SeqSpec(lesson.model.toStdString());
    const auto folder = attn::resolveModelSpec(lesson.model.toStdString());
    const bool vision = folder && attn::isVitFolder(*folder);
    if (vision) {
        auto model = attn::VitModel::loadFolder(*folder);
        QVERIFY2(model.isOk(), model.isOk() ? "" : model.status().message().c_str());
        QVERIFY2(QFileInfo::exists(visionLessonState(lesson.state, lesson.model).value("image").toString()),
                 "the lesson's image is in the model's folder");
    } else if (encoderDecoder) {
        auto model = attn::openSeq2Seq(lesson.model.toStdString());
        QVERIFY2(model.isOk(), model.isOk() ? "" : model.status().message().c_str());
        QVERIFY(model->tokenizer);
        auto tokens = model->tokenizer->encode(lesson.text.toStdString());
        QVERIFY2(tokens.isOk(), tokens.isOk() ? "" : tokens.status().message().c_str());
    } else {
        auto model = attn::TextModel::open(lesson.model.toStdString());
        QVERIFY2(model.isOk(), model.isOk() ? "" : model.status().message().c_str());
        auto tokens = model->tokenize(lesson.text.toStdString());
        QVERIFY2(tokens.isOk(), tokens.isOk() ? "" : tokens.status().message().c_str());
        subject.setModel(std::make_shared<const attn::TextModel>(std::move(model).value()), lesson.model);
        subject.setText(lesson.text);
    }

    // The workspace accepts the lesson's state (with the lesson's model as the Subject, or as its own).
    const QList<Workspace *> all = createWorkspaces(&subject);
    Workspace *target = nullptr;
    for (Workspace *w : all)
        if (w->title() == lesson.workspace) target = w;
    if (!target) {
        qDeleteAll(all);
        QSKIP(qPrintable(QStringLiteral("the %1 workspace is not registered in this build").arg(lesson.workspace)));
    }
    QCOMPARE(target->opensEncoderDecoderModels(), encoderDecoder);
    QCOMPARE(target->opensVisionModels(), vision);
    const QJsonObject state = vision           ? visionLessonState(lesson.state, lesson.model)
                              : encoderDecoder ? encoderDecoderLessonState(lesson.state, lesson.model, lesson.text)
                                               : lesson.state;
    QVERIFY2(target->restoreSessionState(state, &error), qPrintable(error));
    target->runner()->waitForIdle();
    // The state counts from 0, and so do the workspace's layer and head boxes, where it has them.
    for (const QString key : {QStringLiteral("layer"), QStringLiteral("head")}) {
        if (!lesson.state.value(key).isDouble()) continue;
        const QString prefix = key + QLatin1Char(' ');
        if (const QSpinBox *spin = test::spinBoxWithPrefix(target, prefix))
            QCOMPARE(spin->text(), prefix + QString::number(lesson.state.value(key).toInt()));
    }
    qDeleteAll(all);
}

namespace {

// After a change: the debounce fires, the run ends, a result is on screen.
bool settle(Workspace *w)
{
    QTest::qWait(250);
    return w->runner()->waitForIdle(120000) && QTest::qWaitFor([w] { return !w->hasPendingRun(); }, 10000);
}

// A lesson's workspace, opened as the Lessons menu opens it (model, text, state), shown and run.
struct OpenedLesson {
    Lesson lesson;
    Subject subject;
    QList<Workspace *> workspaces;
    Workspace *target = nullptr;
    ~OpenedLesson() { qDeleteAll(workspaces); }
};

bool openLesson(const QString &id, OpenedLesson &o, QString *error)
{
    if (!loadLessonFile(QStringLiteral(":/lessons/%1.json").arg(id), &o.lesson, error)) return false;
    const bool encoderDecoder = attn::isSeq2SeqSpec(o.lesson.model.toStdString());
    const auto folder = attn::resolveModelSpec(o.lesson.model.toStdString());
    const bool vision = folder && attn::isVitFolder(*folder);
    if (!encoderDecoder && !vision) {   // an encoder–decoder or a ViT is the workspace's own model, not the Subject's
        auto model = attn::TextModel::open(o.lesson.model.toStdString());
        if (!model) {
            *error = QString::fromStdString(model.status().message());
            return false;
        }
        o.subject.setModel(std::make_shared<const attn::TextModel>(std::move(model).value()), o.lesson.model);
        o.subject.setText(o.lesson.text);
    }
    o.workspaces = createWorkspaces(&o.subject);
    for (Workspace *w : o.workspaces)
        if (w->title() == o.lesson.workspace) o.target = w;
    if (!o.target) {
        *error = o.lesson.workspace + QStringLiteral(": no such workspace");
        return false;
    }
    const QJsonObject state = vision           ? visionLessonState(o.lesson.state, o.lesson.model)
                              : encoderDecoder ? encoderDecoderLessonState(o.lesson.state, o.lesson.model, o.lesson.text)
                                               : o.lesson.state;
    if (!o.target->restoreSessionState(state, error)) return false;
    o.target->show();
    return settle(o.target);
}

} // namespace

// Each bundled lesson states what the student should see ("expect"); here each statement is checked on the
// lesson's own model, text and state, by the lesson's id. The number of checks is held to the number of
// statements, so a statement cannot be added without its check.
void TestLessons::lessonClaims_data()
{
    bundledLesson_data();   // every bundled lesson, by id
}

void TestLessons::lessonClaims()
{
    QFETCH(QString, id);
    OpenedLesson o;
    QString error;
    QVERIFY2(openLesson(id, o, &error), qPrintable(error));
    QVERIFY2(!o.lesson.expectations.isEmpty(), "a bundled lesson states what the student should see");
    int checked = 0;
    if (id == QLatin1String("crossattention")) {
        auto *view = qobject_cast<Seq2SeqView *>(o.target);
        QVERIFY(view && view->snapshot());
        const Seq2SeqSnapshot &s = *view->snapshot();
        // 1. Greedy, no target typed: the translation of the card, ended by </s>.
        QVERIFY(s.generated && s.data.stoppedAtEos);
        QCOMPARE(s.generatedText, QStringLiteral("le hund gros un gato rojo ha vido"));
        ++checked;
        // The lesson's head, in the alignment view; rows are produced tokens, columns source tokens.
        QCOMPARE(view->view(), Seq2SeqView::View::Alignment);
        QCOMPARE(view->layer(), 1);
        QCOMPARE(view->head(), 1);
        const AlignmentView::Data &d = view->alignmentView()->data();
        const auto w = [&](const QString &target, const QString &source) {
            const int row = int(d.target.indexOf(target)), col = int(d.source.indexOf(source));
            return row < 0 || col < 0 ? -1.0 : double(d.weights[std::size_t(row) * std::size_t(d.source.size()) + std::size_t(col)]);
        };
        qInfo("hund->dog %.3f, gros->big %.3f, vido->saw %.3f, ha->saw %.3f", w("hund", "dog"), w("gros", "big"),
              w("vido", "saw"), w("ha", "saw"));
        // 2. The reordering: noun, then adjective.
        QVERIFY(w("hund", "dog") > 0.9 && w("gros", "big") > 0.9);
        ++checked;
        // 3. The verb moved to the end: the eighth target word looks at the fourth source word.
        QCOMPARE(d.target.indexOf(QStringLiteral("vido")), 7);
        QCOMPARE(d.source.indexOf(QStringLiteral("saw")), 3);
        QVERIFY(w("vido", "saw") > 0.9);
        ++checked;
        // 4. The auxiliary needs no source.
        QVERIFY(w("ha", "saw") >= 0.0 && w("ha", "saw") < 0.1);
        ++checked;
    } else if (id == QLatin1String("scaling")) {
        auto *view = qobject_cast<PipelineView *>(o.target);
        QVERIFY(view);
        const auto on = view->snapshot();
        QVERIFY(on && on->settings.scale);
        // 1. Unticking ÷√d_k saturates this head: the mean largest weight rises by more than 0.2, the entropy
        //    falls by more than 1 bit (the table's two columns are the same scores with and without it).
        qInfo("max weight %.3f -> %.3f, entropy %.2f -> %.2f bits", on->withScale.meanMaxWeight,
              on->withoutScale.meanMaxWeight, on->withScale.meanEntropyBits, on->withoutScale.meanEntropyBits);
        QVERIFY(on->withoutScale.meanMaxWeight - on->withScale.meanMaxWeight > 0.2);
        QVERIFY(on->withScale.meanEntropyBits - on->withoutScale.meanEntropyBits > 1.0);
        PipelineSettings off = view->settings();
        off.scale = false;
        view->setSettings(off);
        QVERIFY(settle(view));
        const auto unscaled = view->snapshot();
        QVERIFY(!unscaled->settings.scale);
        QVERIFY(std::abs(saturation(unscaled->stages.weights, unscaled->n).meanMaxWeight - on->withoutScale.meanMaxWeight) < 1e-12);
        ++checked;
        // 2. Temperature 0.25 with the scaling on gives the weights of the scaling off (d_k = 16: 1/√16 undone).
        QCOMPARE(on->dHead, 16);
        PipelineSettings cold = view->settings();
        cold.scale = true;
        cold.temperature = 0.25;
        view->setSettings(cold);
        QVERIFY(settle(view));
        const auto tempered = view->snapshot();
        QCOMPARE(tempered->stages.weights.size(), unscaled->stages.weights.size());
        for (std::size_t k = 0; k < tempered->stages.weights.size(); ++k)
            QVERIFY(std::abs(tempered->stages.weights[k] - unscaled->stages.weights[k]) < 1e-12);
        ++checked;
        // 3. The check line: the fp64 recomputation is the engine's softmax.
        QVERIFY(on->maxErrWeights < 1e-5);
        ++checked;
    } else if (id == QLatin1String("masks")) {
        auto *view = qobject_cast<MasksView *>(o.target);
        QVERIFY(view && view->snapshot());
        const MasksSnapshot &s = *view->snapshot();
        const int L = s.length();
        const auto variant = [&](const char *name) -> const attn::HeadUnderMask * {
            for (const attn::HeadUnderMask &v : s.comparison.variants)
                if (v.name == name) return &v;
            return nullptr;
        };
        // 1. The key-padding panel: the padding keys' columns are exactly 0 for every query, and it differs
        //    from the model's own mask.
        const attn::HeadUnderMask *padded = variant("key padding");
        QVERIFY(padded);
        QVERIFY(!s.request.padding.empty());
        for (int key : s.request.padding)
            for (int i = 0; i < L; ++i) QCOMPARE(padded->weights[std::size_t(i * L + key)], 0.0f);
        QVERIFY(padded->maxAbsWeightDiff > 0.1);
        ++checked;
        // 2. Causal keeps a subset of the keys: each weight it keeps is at least the bidirectional one.
        const attn::HeadUnderMask &causal = s.comparison.variants[s.comparison.baseline];
        QCOMPARE(causal.name.rfind("model's own: causal", 0), std::size_t(0));
        const attn::HeadUnderMask *bidirectional = variant("bidirectional");
        QVERIFY(bidirectional);
        for (int i = 0; i < L; ++i)
            for (int j = 0; j <= i; ++j)
                QVERIFY(causal.weights[std::size_t(i * L + j)] >= bidirectional->weights[std::size_t(i * L + j)] - 1e-7f);
        ++checked;
        // 3. Leakage: exactly nothing changes before j under causal; under bidirectional it does.
        QVERIFY(s.leakCausal && s.leakBidirectional);
        qInfo("leakage before j = %lld: causal %.3g, bidirectional %.3g", (long long)s.leakCausal->position,
              s.leakCausal->maxDiffBefore, s.leakBidirectional->maxDiffBefore);
        QCOMPARE(s.leakCausal->maxDiffBefore, 0.0);
        QVERIFY(s.leakBidirectional->maxDiffBefore > 1e-4);
        ++checked;
        // 4. Padding proof: masked padding is invisible, visible padding is not.
        QVERIFY(s.padding);
        QCOMPARE(s.padding->padCount, std::int64_t(3));
        QVERIFY(s.padding->maskedIsInvisible());
        QVERIFY(s.padding->maxUnmasked > 1e3 * s.padding->invisibleTolerance());
        ++checked;
    } else if (id == QLatin1String("induction")) {
        auto *view = qobject_cast<ExploreView *>(o.target);
        QVERIFY(view && view->snapshot());
        const ExploreSnapshot &s = *view->snapshot();
        const auto stats = [&](int l, int h) { return s.stats[std::size_t(l * s.heads + h)]; };
        // 1. L0 H3 is a previous-token head.
        QVERIFY(stats(0, 3).previousToken > 0.9);
        ++checked;
        // 2. L1 H1, L1 H2, L1 H3 are induction heads.
        for (int h = 1; h <= 3; ++h) {
            qInfo("L1 H%d: induction %.3f, previous token %.3f", h, stats(1, h).induction, stats(1, h).previousToken);
            QVERIFY(stats(1, h).induction > 1.0 / 3.0);
            QVERIFY(stats(1, h).previousToken < 0.1);
        }
        ++checked;
        // 3. L1 H0 looks at the earlier occurrence itself: a duplicate-token head.
        QVERIFY(stats(1, 0).duplicateToken > 0.3);
        QVERIFY(stats(1, 0).induction < 0.05);
        ++checked;
    } else if (id == QLatin1String("equivariance")) {
        auto *view = qobject_cast<EquivarianceView *>(o.target);
        QVERIFY(view && view->snapshot());
        // 1. No positions, no mask: equivariant to rounding.
        const attn::EquivarianceResult plain = view->snapshot()->result;
        QVERIFY(plain.maxAbsErrWeights < 1e-5 && plain.maxAbsErrOutputs < 1e-5);
        ++checked;
        // 2. The model's sinusoidal positions break it.
        view->setPositional(attn::PositionalChoice::Model);
        QVERIFY(settle(view));
        const double positional = view->snapshot()->result.maxAbsErrWeights;
        // 3. So does a causal mask without positions.
        view->setPositional(attn::PositionalChoice::None);
        view->setMask(attn::MaskChoice::Kind::Causal);
        QVERIFY(settle(view));
        const double causal = view->snapshot()->result.maxAbsErrWeights;
        qInfo("max |error| of the weights: %.3g plain, %.3g with positions, %.3g causal", plain.maxAbsErrWeights, positional, causal);
        QVERIFY(positional > 0.01);
        ++checked;
        QVERIFY(causal > 0.01);
        ++checked;
    } else if (id == QLatin1String("faithfulness")) {
        auto *view = qobject_cast<FaithfulnessView *>(o.target);
        QVERIFY(view);
        QVERIFY(QTest::qWaitFor([&] { return view->snapshot() != nullptr; }, 120000));
        const FaithfulnessSnapshot &s = *view->snapshot();
        const int dull = int(s.labels.indexOf(QStringLiteral("dull")));
        QVERIFY(dull > 0);
        const auto scores = [&](const char *name) -> std::vector<double> {
            for (const attn::Importance &i : s.result.importances)
                if (i.name == name) return i.scores;
            return {};
        };
        const auto argmax = [](const std::vector<double> &v) {
            int best = -1;
            for (int k = 0; k < int(v.size()); ++k)
                if (std::isfinite(v[std::size_t(k)]) && (best < 0 || v[std::size_t(k)] > v[std::size_t(best)])) best = k;
            return best;
        };
        // 1. Leave-one-out: 'dull' first, by more than 100 times any other token.
        const std::vector<double> loo = scores("loo_deletion");
        QCOMPARE(argmax(loo), dull);
        for (int k = 0; k < int(loo.size()); ++k)
            if (k != dull && std::isfinite(loo[std::size_t(k)])) QVERIFY(100 * std::abs(loo[std::size_t(k)]) < loo[std::size_t(dull)]);
        ++checked;
        // 2. The head's [CLS] row puts 'dull' first too, but it is nearly flat: all within 0.02 of each other.
        const std::vector<double> head = scores("head");
        QCOMPARE(argmax(head), dull);
        double lo = 1, hi = 0;
        for (double x : head)
            if (std::isfinite(x)) lo = std::min(lo, x), hi = std::max(hi, x);
        qInfo("head [CLS] row: %.3f to %.3f", lo, hi);
        QVERIFY(hi - lo < 0.02);
        ++checked;
        // 3. Against leave-one-out deletion, no attention ranking beats a random order by much (τ-b < 0.15).
        int attention = 0;
        for (const attn::AgreementScores &a : s.result.agreement) {
            if (a.reference != "loo_deletion" || a.method == "random") continue;
            qInfo("%s vs loo_deletion: tau-b %.3f", a.method.c_str(), a.kendallTauB);
            QVERIFY(a.kendallTauB < 0.15);
            ++attention;
        }
        QVERIFY(attention >= 4);
        ++checked;
    } else if (id == QLatin1String("multihead")) {
        auto *view = qobject_cast<PipelineView *>(o.target);
        QVERIFY(view && view->snapshot());
        QCOMPARE(view->stage(), PipelineStage::Heads);
        const PipelineSnapshot &s = *view->snapshot();
        QCOMPARE(s.settings.layer, 1);
        QCOMPARE(s.settings.head, 2);
        const int n = s.n, H = s.heads, D = s.dHead, DM = s.dModel;
        // 1. The head on screen's block of the concatenation is its ·V stage.
        for (int i = 0; i < n; ++i)
            for (int c = 0; c < D; ++c) QCOMPARE(s.concat[std::size_t(i * H * D + 2 * D + c)], s.stages.output[std::size_t(i * D + c)]);
        ++checked;
        // 2. Every head against the engine.
        QVERIFY(s.maxErrHeadOutputs >= 0 && s.maxErrHeadOutputs < 1e-5);
        QVERIFY2(view->checkText().contains(QStringLiteral("✓")), qPrintable(view->checkText()));
        ++checked;
        // 3. The output, with the checkpoint's W_O and b_O read here.
        const std::vector<float> *wo = o.subject.model()->model().parameter("layer.1.o.weight");
        const std::vector<float> *bo = o.subject.model()->model().parameter("layer.1.o.bias");
        QVERIFY(wo && bo);
        for (int i = 0; i < n; ++i)
            for (int c = 0; c < DM; ++c) {
                double y = (*bo)[std::size_t(c)];
                for (int r = 0; r < H * D; ++r) y += s.concat[std::size_t(i * H * D + r)] * (*wo)[std::size_t(r * DM + c)];
                QVERIFY(std::abs(y - s.layerOutput[std::size_t(i * DM + c)]) < 1e-9);
            }
        ++checked;
    } else if (id == QLatin1String("vision")) {
        auto *view = qobject_cast<VisionView *>(o.target);
        QVERIFY(view && view->snapshot());
        const VisionSnapshot &s = *view->snapshot();
        // 1. 8 × 8 patches and the CLS token.
        QCOMPARE(s.input.size(), QSize(32, 32));
        QCOMPARE(s.rows * s.cols, 64);
        QCOMPARE(s.length, 65);
        ++checked;
        // 2. The prediction.
        QCOMPARE(s.top.front().label, QStringLiteral("red"));
        QVERIFY(std::abs(s.top.front().probability - 0.925) < 0.0005);
        ++checked;
        // The true region, from the example's mask; the brightest patch of a map is in it or not.
        const std::vector<std::uint8_t> truth = view->truthPatches();
        QCOMPARE(int(truth.size()), 64);
        const auto brightestOnCross = [&] {
            const std::vector<double> &v = view->overlay()->data().values;
            return truth[std::size_t(std::max_element(v.begin(), v.end()) - v.begin())] != 0;
        };
        // 3. L0's mean points off the cross, L1's on it.
        QCOMPARE(view->source(), VisionSource::Mean);
        QCOMPARE(view->layer(), 0);
        QVERIFY(!brightestOnCross());
        view->setHead(1, 0);
        QVERIFY(brightestOnCross());
        ++checked;
        // 4. The rollout on it.
        view->setSource(VisionSource::Rollout);
        QVERIFY(brightestOnCross());
        ++checked;
        // 5. Deletion in the rollout's order against random orders.
        view->setPerturbationChecks(true);
        QVERIFY(settle(view));
        const auto &p = *view->snapshot()->perturbation;
        const auto method = [&](const char *name) {
            return *std::find_if(p.methods.begin(), p.methods.end(), [&](const auto &m) { return m.name == name; });
        };
        const auto rollout = method("rollout"), random = method("random");
        qInfo("deletion after 1 patch: rollout %.3f; random after 16: %.3f", rollout.curves.deletion[1], random.curves.deletion[16]);
        QVERIFY(rollout.curves.deletion[1] < 0.1);
        QVERIFY(random.curves.deletion[16] > 0.5);   // 16 of 64 patches removed
        ++checked;
    } else {
        QFAIL(qPrintable(QStringLiteral("no checks for the lesson '%1': add them here").arg(id)));
    }
    QCOMPARE(checked, int(o.lesson.expectations.size()));
}

void TestLessons::badLesson_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("field");   // empty: the message names only the file
    const QByteArray tail = R"("explanation": ["p"], "try": ["t"])";
    const auto with = [&](const char *fields) { return QByteArray("{") + fields + tail + "}"; };
    QTest::addRow("not JSON") << QByteArray("{\"title\": ") << QString();
    QTest::addRow("an array") << QByteArray("[]") << QString();
    QTest::addRow("title missing") << with(R"("workspace": "Pipeline", "model": "sample:x", "text": "",)") << "title";
    QTest::addRow("title empty") << with(R"("title": " ", "workspace": "Pipeline", "model": "m", "text": "",)") << "title";
    QTest::addRow("workspace number") << with(R"("title": "t", "workspace": 3, "model": "m", "text": "",)") << "workspace";
    QTest::addRow("model missing") << with(R"("title": "t", "workspace": "Pipeline", "text": "",)") << "model";
    QTest::addRow("text null") << with(R"("title": "t", "workspace": "Pipeline", "model": "m", "text": null,)") << "text";
    QTest::addRow("state array") << with(R"("title": "t", "workspace": "P", "model": "m", "text": "", "state": [],)") << "state";
    QTest::addRow("unknown field") << with(R"("title": "t", "workspace": "P", "model": "m", "text": "", "level": 2,)") << "level";
    QTest::addRow("explanation empty")
        << QByteArray(R"({"title": "t", "workspace": "P", "model": "m", "text": "", "explanation": [], "try": ["t"]})")
        << "explanation";
    QTest::addRow("explanation a string")
        << QByteArray(R"({"title": "t", "workspace": "P", "model": "m", "text": "", "explanation": "p", "try": ["t"]})")
        << "explanation";
    QTest::addRow("text over the limit")
        << with(("\"title\": \"t\", \"workspace\": \"P\", \"model\": \"m\", \"text\": \"" +
                 QByteArray(kMaxTextChars + 1, 'x') + "\",").constData())
        << "text";
    QTest::addRow("expect empty")
        << QByteArray(R"({"title": "t", "workspace": "P", "model": "m", "text": "", "explanation": ["p"], "try": ["t"], "expect": []})")
        << "expect";
    QTest::addRow("expect item blank")
        << QByteArray(R"({"title": "t", "workspace": "P", "model": "m", "text": "", "explanation": ["p"], "try": ["t"], "expect": [" "]})")
        << "expect";
    QTest::addRow("try item number")
        << QByteArray(R"({"title": "t", "workspace": "P", "model": "m", "text": "", "explanation": ["p"], "try": [1]})")
        << "try";
}

void TestLessons::badLesson()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, field);
    Lesson lesson;
    lesson.title = QStringLiteral("unchanged");
    QString error;
    QVERIFY(!parseLesson(json, QStringLiteral("lessons/bad.json"), &lesson, &error));
    QVERIFY2(error.startsWith(QStringLiteral("lessons/bad.json: ")), qPrintable(error));
    if (!field.isEmpty()) QVERIFY2(error.startsWith(QStringLiteral("lessons/bad.json: %1: ").arg(field)), qPrintable(error));
    QCOMPARE(lesson.title, QStringLiteral("unchanged"));
}

void TestLessons::panelAndMenu()
{
    QMainWindow window;
    QList<QJsonObject> opened;
    bool accept = true;
    QMenu *menu = createLessonsMenu(&window, [&](const QJsonObject &session, QString *error) {
        opened << session;
        if (!accept) *error = QStringLiteral("no such workspace");
        return accept;
    });
    const QList<Lesson> lessons = loadLessons();
    int entries = 0;
    for (QAction *a : menu->actions())
        for (const Lesson &l : lessons)
            if (a->text() == l.title) ++entries;
    QCOMPARE(entries, lessons.size());

    auto *panel = window.findChild<LessonPanel *>();
    QVERIFY(panel);
    QVERIFY(panel->openLesson(QStringLiteral("scaling")));
    QCOMPARE(opened.size(), 1);
    QCOMPARE(opened[0].value(QStringLiteral("workspace")).toString(), QStringLiteral("Pipeline"));
    QCOMPARE(opened[0].value(QStringLiteral("model")).toString(), QStringLiteral("sample:rationale-bert"));
    QVERIFY(opened[0].value(QStringLiteral("state")).toObject().contains(QStringLiteral("scale")));
    QVERIFY(panel->bodyText().contains(QStringLiteral("Try this")));
    QVERIFY(panel->bodyText().contains(QStringLiteral("What you should see")));
    QVERIFY(panel->errorText().isEmpty());

    accept = false;
    QVERIFY(!panel->openLesson(QStringLiteral("masks")));
    QVERIFY(panel->errorText().contains(QStringLiteral("no such workspace")));
    QCOMPARE(panel->currentId(), QStringLiteral("masks"));   // the text is still shown
    QVERIFY(!panel->openLesson(QStringLiteral("nonexistent")));
    QVERIFY(panel->errorText().contains(QStringLiteral("nonexistent")));
}

// A lesson's state counts from 0, like a session file, and so does its prose, with the names the GUI shows: the
// scaling lesson's state layer 1, head 2 is "L1 H2" in its text, and no 1-based "layer 2, head 3" is left.
void TestLessons::proseNamesHeadsAsShown()
{
    Lesson lesson;
    QString error;
    QVERIFY2(loadLessonFile(QStringLiteral(":/lessons/scaling.json"), &lesson, &error), qPrintable(error));
    QCOMPARE(lesson.state.value(QStringLiteral("layer")).toInt(), 1);
    QCOMPARE(lesson.state.value(QStringLiteral("head")).toInt(), 2);
    const QString prose = (lesson.explanation + lesson.trySteps + lesson.expectations).join(QLatin1Char('\n'));
    QVERIFY2(prose.contains(QStringLiteral("L1 H2")), qPrintable(prose));
    QVERIFY2(!prose.contains(QStringLiteral("layer 2, head 3")), qPrintable(prose));
    QVERIFY2(!prose.contains(QStringLiteral("L2 H3")), qPrintable(prose));
}

QTEST_MAIN(TestLessons)
#include "tst_lessons.moc"
