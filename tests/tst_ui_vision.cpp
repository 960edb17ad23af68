// SPDX-License-Identifier: GPL-3.0-or-later
// The Vision workspace on a tiny random ViT classifier (tests/fixtures/models/vit-cls-d48h3, 28 × 28 pixels in 7 × 7
// patches) and an image of another size (tests/fixtures/vision/gradient_45x37.png): the overlay, the mean and the
// rollout against transformers' attentions for the same image (tests/fixtures/vision/vit-cls-image, made by
// tools/make_vision_fixtures.py; the engine's preprocessing equals transformers' pixel_values there, tst_vision),
// the rollout written out here; the picture it shows against those pixel values; clicking a patch; the
// predictions; the true region of a card example; session state and views.

#include "kit/subject.h"
#include "plots/heatmapplot.h"
#include "plots/xyplot.h"
#include "workspaces/vision/imageoverlay.h"
#include "workspaces/vision/visionview.h"

#include <attnscope/metrics.h>
#include <attnscope/npy.h>
#include <attnscope/vitfaithfulness.h>

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPainter>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace attnui;

namespace {

const QString kFixtures = QStringLiteral(ATTNSCOPE_TEST_DATA_DIR "/fixtures/");
const QString kModel = kFixtures + QStringLiteral("models/vit-cls-d48h3");
const QString kImage = kFixtures + QStringLiteral("vision/gradient_45x37.png");

attn::NpyArray npy(const char *file)
{
    auto r = attn::readNpyFloat32((kFixtures + "vision/vit-cls-image/" + file).toStdString());
    if (!r) qFatal("%s", r.status().message().c_str());
    return std::move(r).value();
}

struct Fixture {
    Subject subject;
    VisionView view{&subject};
    Fixture(const QString &model = kModel, const QString &image = kImage)
    {
        QString error;
        if (!view.restoreSessionState(QJsonObject{{"model", model}, {"image", image}}, &error)) qFatal("%s", qPrintable(error));
        view.show();
    }
    bool run()
    {
        view.rerun();
        return view.runner()->waitForIdle() && view.snapshot() && view.errorText().isEmpty();
    }
};

double maxDiff(const std::vector<double> &a, const std::vector<double> &b)
{
    if (a.size() != b.size()) return INFINITY;
    double d = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
    return d;
}

} // namespace

class TestUiVision : public QObject {
    Q_OBJECT
private slots:
    void overlayMatchesTransformers();
    void rolloutWrittenOut();
    void pictureIsWhatTheModelSaw();
    void clickingAPatchMakesItTheQuery();
    void predictions();
    void truthOfACardExample();
    void sessionRoundTrip();
    void sessionErrors_data();
    void sessionErrors();
    void views();
    void badInputsSayWhy();
    void perturbationChecks();
    void exportsTheRunDocument();
    void deitInterpolatedRun();
    void blurredSubstrate();
};

// Every head's CLS row over the patches, and each layer's mean over heads, against transformers' attentions.
void TestUiVision::overlayMatchesTransformers()
{
    Fixture f;
    QVERIFY2(f.run(), qPrintable(f.view.errorText()));
    const auto s = f.view.snapshot();
    const attn::NpyArray att = npy("attentions.npy");   // [L, H, T, T]
    const int L = s->layers, H = s->heads, T = s->length;
    QCOMPARE(att.shape, (std::vector<std::int64_t>{L, H, T, T}));
    QCOMPARE(s->rows, 7);
    QCOMPARE(s->cols, 7);
    const auto hf = [&](int l, int h, int q, int k) { return double(att.values[((std::size_t(l) * H + h) * T + q) * T + k]); };
    double worst = 0.0, worstMean = 0.0;
    for (int l = 0; l < L; ++l) {
        std::vector<double> mean(std::size_t(T) - 1, 0.0);
        for (int h = 0; h < H; ++h) {
            f.view.setSource(VisionSource::Head);
            f.view.setHead(l, h);
            const std::vector<double> &shown = f.view.overlay()->data().values;
            std::vector<double> want(std::size_t(T) - 1);
            for (int k = 1; k < T; ++k) want[std::size_t(k) - 1] = hf(l, h, 0, k), mean[std::size_t(k) - 1] += hf(l, h, 0, k) / H;
            worst = std::max(worst, maxDiff(shown, want));
            // The patch map beside it is the whole matrix.
            const HeatmapData &map = f.view.patchMap()->data();
            QCOMPARE(map.rows, T);
            QVERIFY(std::abs(map.values[std::size_t(T) + 5] - hf(l, h, 1, 5)) < 1e-5);
        }
        f.view.setSource(VisionSource::Mean);
        worstMean = std::max(worstMean, maxDiff(f.view.overlay()->data().values, mean));
    }
    qInfo("overlay vs transformers: heads %.2e, layer means %.2e", worst, worstMean);
    QVERIFY(worst < 1e-5);
    QVERIFY(worstMean < 1e-5);
    QCOMPARE(f.view.overlay()->data().query, -1);   // no patch outlined: the CLS token is not a place
}

// Rollout (Abnar & Zuidema, with the residual): Ã_l = ½ mean_h A_l + ½ I, rows renormalised, R = Ã_{L−1} ⋯ Ã_0,
// multiplied out here in double from transformers' attentions.
void TestUiVision::rolloutWrittenOut()
{
    Fixture f;
    QVERIFY2(f.run(), qPrintable(f.view.errorText()));
    const auto s = f.view.snapshot();
    const attn::NpyArray att = npy("attentions.npy");
    const int L = s->layers, H = s->heads, T = s->length;
    const std::size_t N = std::size_t(T);
    std::vector<double> R;
    for (int l = 0; l < L; ++l) {
        std::vector<double> A(N * N, 0.0);
        for (std::size_t q = 0; q < N; ++q) {
            double sum = 0.0;
            for (std::size_t k = 0; k < N; ++k) {
                double m = 0.0;
                for (int h = 0; h < H; ++h) m += att.values[((std::size_t(l) * H + h) * N + q) * N + k];
                A[q * N + k] = 0.5 * m / H + (q == k ? 0.5 : 0.0);
                sum += A[q * N + k];
            }
            for (std::size_t k = 0; k < N; ++k) A[q * N + k] /= sum;
        }
        if (R.empty()) {
            R = A;
            continue;
        }
        std::vector<double> next(N * N, 0.0);
        for (std::size_t i = 0; i < N; ++i)
            for (std::size_t j = 0; j < N; ++j)
                for (std::size_t k = 0; k < N; ++k) next[i * N + k] += A[i * N + j] * R[j * N + k];
        R = std::move(next);
    }
    f.view.setSource(VisionSource::Rollout);
    const std::vector<double> want(R.begin() + 1, R.begin() + std::ptrdiff_t(N));
    const double err = maxDiff(f.view.overlay()->data().values, want);
    qInfo("rollout vs written out on transformers' attentions: %.2e", err);
    QVERIFY(err < 1e-5);
    QCOMPARE(f.view.overlay()->data().valueLabel, QStringLiteral("rollout relevance"));
    QVERIFY(!f.view.snapshot()->rollout.empty());
}

// The picture under the overlay: transformers' pixel_values undone (× 0.5 + 0.5, × 255), not the 45 × 37 file.
void TestUiVision::pictureIsWhatTheModelSaw()
{
    Fixture f;
    QVERIFY2(f.run(), qPrintable(f.view.errorText()));
    const QImage &im = f.view.snapshot()->input;
    QCOMPARE(im.size(), QSize(28, 28));
    QCOMPARE(f.view.snapshot()->imageWidth, 45);
    const attn::NpyArray px = npy("pixel_values.npy");   // [1, 3, 28, 28] or [3, 28, 28]
    int worst = 0;
    for (int c = 0; c < 3; ++c)
        for (int y = 0; y < 28; ++y)
            for (int x = 0; x < 28; ++x) {
                const double v = (double(px.values[std::size_t(c) * 784 + std::size_t(y) * 28 + std::size_t(x)]) * 0.5 + 0.5) * 255.0;
                worst = std::max(worst, std::abs(int(std::lround(v)) - int(im.constScanLine(y)[x * 3 + c])));
            }
    QCOMPARE(worst, 0);
    QVERIFY(f.view.predictionText().contains(QStringLiteral("28 × 28 pixels → 7 × 7 patches + CLS = 50 tokens")));
}

// A click on a patch of the picture makes that patch the query: the overlay shows its row, outlined; CLS resets.
void TestUiVision::clickingAPatchMakesItTheQuery()
{
    Fixture f;
    f.view.resize(1200, 800);
    QVERIFY2(f.run(), qPrintable(f.view.errorText()));
    f.view.setSource(VisionSource::Head);
    f.view.setHead(1, 2);
    ImageOverlay *overlay = f.view.overlay();
    const int patch = 3 * 7 + 5;   // r3c5
    const QRectF r = overlay->patchRect(patch);
    QVERIFY(!r.isEmpty());
    QCOMPARE(overlay->patchAt(r.center()), patch);
    QTest::mouseClick(overlay, Qt::LeftButton, {}, r.center().toPoint());
    QCOMPARE(f.view.query(), 1 + patch);
    QCOMPARE(overlay->data().query, patch);
    const attn::NpyArray att = npy("attentions.npy");
    const int H = 3, T = 50;
    std::vector<double> want;
    for (int k = 1; k < T; ++k) want.push_back(att.values[((std::size_t(1) * H + 2) * T + std::size_t(1 + patch)) * T + std::size_t(k)]);
    QVERIFY(maxDiff(overlay->data().values, want) < 1e-5);
    QVERIFY(overlay->data().title.contains(QStringLiteral("patch r3c5")));
    QVERIFY(f.view.figureCaption().contains(QStringLiteral("query patch r3c5")));
    // Outside the picture: nothing.
    QCOMPARE(overlay->patchAt(QPointF(1, 1)), -1);
    f.view.setQuery(0);
    QCOMPARE(overlay->data().query, -1);
    // A row of the map is a query too.
    emit f.view.patchMap()->cellClicked(7, 3);
    QCOMPARE(f.view.query(), 7);
}

// The classifier's five labels, best first, with the softmax of transformers' logits.
void TestUiVision::predictions()
{
    Fixture f;
    QVERIFY2(f.run(), qPrintable(f.view.errorText()));
    const attn::NpyArray logits = npy("logits.npy");
    std::vector<double> p(logits.values.begin(), logits.values.end());
    const double m = *std::max_element(p.begin(), p.end());
    double sum = 0.0;
    for (double &v : p) sum += v = std::exp(v - m);
    for (double &v : p) v /= sum;
    const auto best = std::max_element(p.begin(), p.end()) - p.begin();
    const auto &top = f.view.snapshot()->top;
    QCOMPARE(int(top.size()), 5);
    QCOMPARE(top.front().label, QStringLiteral("class_%1").arg(best));
    QVERIFY(std::abs(top.front().probability - p[std::size_t(best)]) < 1e-5);
    for (std::size_t i = 1; i < top.size(); ++i) QVERIFY(top[i - 1].probability >= top[i].probability);
    QVERIFY(f.view.predictionText().contains(QStringLiteral("class_%1").arg(best)));
}

// A folder's examples.json names an image and its mask: the patches with at least a quarter of their pixels in the
// mask are the true region, outlined on the overlay. Mask here: columns 4 … 9 of rows 0 … 3, so patch r0c1 (x 4 … 7)
// has 16 pixels in it, r0c2 (x 8 … 11) 8, and no other patch any.
void TestUiVision::truthOfACardExample()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    for (const char *file : {"config.json", "model.safetensors", "preprocessor_config.json"})
        QVERIFY(QFile::copy(kModel + "/" + file, dir.filePath(QString::fromLatin1(file))));
    QImage image(28, 28, QImage::Format_RGB888);
    image.fill(QColor(90, 120, 200));
    QVERIFY(image.save(dir.filePath("one.png")));
    QImage mask(28, 28, QImage::Format_Grayscale8);
    mask.fill(0);
    for (int y = 0; y < 4; ++y)
        for (int x = 4; x < 10; ++x) mask.scanLine(y)[x] = 255;
    QVERIFY(mask.save(dir.filePath("one_mask.png")));
    QFile examples(dir.filePath("examples.json"));
    QVERIFY(examples.open(QIODevice::WriteOnly));
    examples.write(R"([{"image": "one.png", "mask": "one_mask.png", "label_name": "blue", "what_to_look_for": "the top left"}])");
    examples.close();

    Subject subject;
    VisionView view(&subject);
    view.show();
    view.setModelFolder(dir.path());
    QCOMPARE(view.image(), dir.filePath("one.png"));   // a folder's first example opens with it
    view.rerun();
    QVERIFY(view.runner()->waitForIdle());
    QVERIFY2(view.errorText().isEmpty(), qPrintable(view.errorText()));
    std::vector<std::uint8_t> want(49, 0);
    want[1] = want[2] = 1;
    QCOMPARE(view.truthPatches(), want);
    QCOMPARE(view.overlay()->data().truth, want);
    // Another image: no truth.
    view.setImage(kImage);
    view.rerun();   // the truth comes with the run's result
    QVERIFY(view.runner()->waitForIdle());
    QVERIFY(view.truthPatches().empty());
}

void TestUiVision::sessionRoundTrip()
{
    Fixture f;
    QVERIFY2(f.run(), qPrintable(f.view.errorText()));
    QString error;
    const QJsonObject state{{"model", kModel}, {"image", kImage}, {"source", "head"}, {"layer", 1}, {"head", 2},
                            {"query", 9}, {"opacity", 0.35}, {"view", "overlay"}, {"perturb", true}, {"substrate", "blur"}};
    QVERIFY2(f.view.restoreSessionState(state, &error), qPrintable(error));
    QVERIFY(f.view.runner()->waitForIdle());
    QCOMPARE(f.view.sessionState(), state);
    QCOMPARE(f.view.query(), 9);
    QCOMPARE(f.view.overlay()->opacity(), 0.35);
    QCOMPARE(f.view.figureWidget(), static_cast<QWidget *>(f.view.overlay()));

    Subject subject;
    VisionView other(&subject);
    QVERIFY2(other.restoreSessionState(f.view.sessionState(), &error), qPrintable(error));
    other.show();
    QVERIFY(other.runner()->waitForIdle());
    QCOMPARE(other.sessionState(), state);
    QCOMPARE(other.overlay()->data().values, f.view.overlay()->data().values);
}

void TestUiVision::sessionErrors_data()
{
    QTest::addColumn<QJsonObject>("state");
    QTest::addColumn<QString>("field");
    QTest::addRow("source") << QJsonObject{{"source", "gradcam"}} << "source";
    QTest::addRow("view") << QJsonObject{{"view", "all"}} << "view";
    QTest::addRow("opacity") << QJsonObject{{"opacity", 1.5}} << "opacity";
    QTest::addRow("query") << QJsonObject{{"query", -1}} << "query";
    QTest::addRow("head text") << QJsonObject{{"head", "one"}} << "head";
    QTest::addRow("perturb") << QJsonObject{{"perturb", 1}} << "perturb";
    QTest::addRow("unknown") << QJsonObject{{"colour", "red"}} << "colour";
}

void TestUiVision::sessionErrors()
{
    QFETCH(QJsonObject, state);
    QFETCH(QString, field);
    Fixture f;
    const QJsonObject before = f.view.sessionState();
    QString error;
    QVERIFY(!f.view.restoreSessionState(state, &error));
    QVERIFY2(error.startsWith(field + QLatin1Char(':')), qPrintable(error));
    QCOMPARE(f.view.sessionState(), before);
}

void TestUiVision::views()
{
    Fixture f;
    QVERIFY2(f.run(), qPrintable(f.view.errorText()));
    QString error;
    QVERIFY2(f.view.showView(QStringLiteral("overlay:1.2"), &error), qPrintable(error));
    QCOMPARE(f.view.source(), VisionSource::Head);
    QCOMPARE(f.view.layer(), 1);
    QCOMPARE(f.view.head(), 2);
    QCOMPARE(f.view.figureWidget(), static_cast<QWidget *>(f.view.overlay()));
    QVERIFY(f.view.showView(QStringLiteral("overlay:0.mean"), &error));
    QCOMPARE(f.view.source(), VisionSource::Mean);
    QVERIFY(f.view.showView(QStringLiteral("patches:rollout"), &error));
    QCOMPARE(f.view.source(), VisionSource::Rollout);
    QCOMPARE(f.view.figureWidget(), static_cast<QWidget *>(f.view.patchMap()));
    QVERIFY(!f.view.showView(QStringLiteral("overlay:2.0"), &error));   // layers 0..1
    QVERIFY2(error.contains(QStringLiteral("layers 0..1")), qPrintable(error));
    QVERIFY(!f.view.showView(QStringLiteral("overlay:0.3"), &error));   // heads 0..2
    QVERIFY(!f.view.showView(QStringLiteral("overlay"), &error));
    QVERIFY(!f.view.showView(QStringLiteral("patches:mean"), &error));
    // The overlay paints: a picture of its figure size holds more than one colour.
    f.view.showView(QStringLiteral("overlay:0.0"), &error);
    QImage shot(f.view.overlay()->figureSize(), QImage::Format_RGB32);
    f.view.overlay()->resize(shot.size());
    f.view.overlay()->render(&shot);
    QSet<QRgb> colours;
    for (int y = 0; y < shot.height(); y += 7)
        for (int x = 0; x < shot.width(); x += 7) colours.insert(shot.pixel(x, y));
    QVERIFY(colours.size() > 20);
}

void TestUiVision::badInputsSayWhy()
{
    Fixture f(kModel, kFixtures + QStringLiteral("vision/no-such-image.png"));
    f.view.rerun();
    QVERIFY(f.view.runner()->waitForIdle());
    QVERIFY2(f.view.errorText().contains(QStringLiteral("no-such-image.png")), qPrintable(f.view.errorText()));
    // A text model's folder is not a ViT.
    Fixture g(kFixtures + QStringLiteral("models/gpt2-tiny"), kImage);
    g.view.rerun();
    QVERIFY(g.view.runner()->waitForIdle());
    QVERIFY2(g.view.errorText().contains(QStringLiteral("not a Vision Transformer")), qPrintable(g.view.errorText()));
}

// The perturbation checks in the view: occlusion as an overlay (negative drops drawn as 0) and on the patch grid, the
// deletion and insertion curves of each layer's mean, the rollout, occlusion and random — the engine's
// vitPerturbation (checked by hand in tst_vision) on the same pixel values and relevance maps.
void TestUiVision::perturbationChecks()
{
    Fixture f;
    QVERIFY2(f.run(), qPrintable(f.view.errorText()));
    QVERIFY(!f.view.snapshot()->perturbation);
    QVERIFY(f.view.perturbationText().isEmpty());
    f.view.setPerturbationChecks(true);
    QVERIFY2(f.run(), qPrintable(f.view.errorText()));
    const auto s = f.view.snapshot();
    QVERIFY(s->perturbation);
    const attn::VitPerturbation &p = *s->perturbation;
    QCOMPARE(p.patches, 49);
    QCOMPARE(int(p.methods.size()), s->layers + 3);   // L0 mean, L1 mean, rollout, occlusion, random

    // The same checks straight from the engine, on transformers' pixel values (equal to ours, tst_vision).
    const attn::NpyArray px = npy("pixel_values.npy");
    attn::PixelValues pixels{28, 28, px.values};
    std::vector<std::pair<std::string, std::vector<double>>> maps;
    for (int l = 0; l < s->layers; ++l) maps.emplace_back("L" + std::to_string(l) + " mean", s->patchRow(VisionSource::Mean, l, 0, 0));
    maps.emplace_back("rollout", s->patchRow(VisionSource::Rollout, 0, 0, 0));
    auto model = attn::VitModel::loadFolder(kModel.toStdString());
    QVERIFY(model.isOk());
    auto direct = attn::vitPerturbation(*model, pixels, maps);
    QVERIFY2(direct.isOk(), direct.status().message().c_str());
    QCOMPARE(p.occlusion, direct->occlusion);
    for (std::size_t m = 0; m < p.methods.size(); ++m) {
        QCOMPARE(p.methods[m].name, direct->methods[m].name);
        QCOMPARE(p.methods[m].curves.deletion, direct->methods[m].curves.deletion);
        QCOMPARE(p.methods[m].curves.insertion, direct->methods[m].curves.insertion);
    }
    // The curves on screen.
    QCOMPARE(f.view.deletionPlot()->kind(), XYKind::Lines);
    QCOMPARE(int(f.view.deletionPlot()->series().size()), int(p.methods.size()));
    QCOMPARE(f.view.insertionPlot()->series().at(1).y, p.methods[1].curves.insertion);
    QCOMPARE(f.view.deletionPlot()->series().front().x.back(), 1.0);
    QCOMPARE(f.view.deletionPlot()->series().back().name, QStringLiteral("random"));
    QCOMPARE(f.view.deletionPlot()->series().back().style, Qt::DashLine);
    QCOMPARE(f.view.deletionPlot()->series().front().style, Qt::SolidLine);
    QVERIFY(f.view.perturbationText().contains(QStringLiteral("rollout")));
    // Occlusion as the overlay and as a grid on the map.
    f.view.setSource(VisionSource::Occlusion);
    const std::vector<double> &shown = f.view.overlay()->data().values;
    for (int q = 0; q < 49; ++q) QCOMPARE(shown[std::size_t(q)], std::max(0.0, p.occlusion[std::size_t(q)]));
    QCOMPARE(f.view.overlay()->data().valueLabel, QStringLiteral("probability drop"));
    QCOMPARE(f.view.patchMap()->data().rows, 7);
    QCOMPARE(double(f.view.patchMap()->data().values[10]), double(float(p.occlusion[10])));
    QCOMPARE(f.view.sessionState().value("perturb").toBool(), true);
    QCOMPARE(f.view.sessionState().value("source").toString(), QStringLiteral("occlusion"));
    // Off again: back to attention.
    f.view.setPerturbationChecks(false);
    QCOMPARE(f.view.source(), VisionSource::Mean);
}

// Export Data as JSON: the document `run --image` writes (the same attention), with the workspace's analyses.
void TestUiVision::exportsTheRunDocument()
{
    Fixture f;
    f.view.setPerturbationChecks(true);
    QVERIFY2(f.run(), qPrintable(f.view.errorText()));
    QVERIFY(f.view.dataFormats().first().startsWith(QStringLiteral("JSON")));
    QTemporaryDir dir;
    const QString path = dir.filePath("vision.json");
    QString error;
    QVERIFY2(f.view.exportData(path, &error), qPrintable(error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject doc = QJsonDocument::fromJson(file.readAll()).object();
    QCOMPARE(doc["format"].toString(), QStringLiteral("attnscope"));
    QCOMPARE(doc["kind"].toString(), QStringLiteral("vision"));
    QCOMPARE(doc["input"]["patch_grid"].toArray(), (QJsonArray{7, 7}));
    QCOMPARE(doc["input"]["tokens"].toArray().first().toString(), QStringLiteral("[CLS]"));
    const auto s = f.view.snapshot();
    // attention [layer][head][T][T] as the engine captured it.
    const QJsonArray row = doc["attention"][1][2][0].toArray();
    QCOMPARE(row.size(), 50);
    for (int k = 0; k < 50; ++k) QCOMPARE(float(row[k].toDouble()), s->result.attentions[1 * 3 + 2][std::size_t(k)]);
    const QJsonObject analyses = doc["analyses"].toObject();
    const QJsonArray rollout = analyses["rollout"]["matrix"].toArray();
    QCOMPARE(rollout.size(), 50);
    QCOMPARE(rollout[0].toArray()[7].toDouble(), s->rollout[7]);
    QCOMPARE(analyses["layer_means"]["matrices"].toArray().size(), 2);
    const QJsonArray methods = analyses["perturbation"]["methods"].toArray();
    QCOMPARE(methods.size(), int(s->perturbation->methods.size()));
    QCOMPARE(methods.last()["name"].toString(), QStringLiteral("random"));
    QVERIFY(methods.last()["relevance"].isNull());
    QCOMPARE(methods[0]["auc_deletion"].toDouble(), s->perturbation->methods[0].curves.aucDeletion);
    QCOMPARE(analyses["perturbation"]["occlusion"].toArray().size(), 49);
    QVERIFY(!analyses.contains("true_region"));   // not a card example
    // CSV stays: the matrix on screen.
    QVERIFY2(f.view.exportData(dir.filePath("map.csv"), &error), qPrintable(error));
}

QTEST_MAIN(TestUiVision)
// DeiT through the workspace: [CLS] [DIST] then the patches (S = 2), and an image the processor resizes to 21×15
// while the model was made for 18×18, so the positions are interpolated (6×6 → 7×5). Every head's CLS row over the
// patches against transformers' attentions for the same PNG (interpolate_pos_encoding=True); the labels, the
// clicked patch's token, the distillation token's row and the exported tokens follow S.
void TestUiVision::deitInterpolatedRun()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString model = kFixtures + "models/deit-base-d36h3/", own = kFixtures + "vision/deit-base-image-interp/";
    for (const char *file : {"config.json", "model.safetensors"})
        QVERIFY(QFile::copy(model + file, dir.filePath(QString::fromLatin1(file))));
    QVERIFY(QFile::copy(own + "preprocessor_config.json", dir.filePath("preprocessor_config.json")));
    Fixture f(dir.path(), kImage);
    f.view.resize(1200, 800);
    QVERIFY2(f.run(), qPrintable(f.view.errorText()));
    const auto s = f.view.snapshot();
    QCOMPARE(s->special, 2);
    QCOMPARE(s->rows, 7);
    QCOMPARE(s->cols, 5);
    QCOMPARE(s->length, 37);
    QVERIFY(s->interpolated);
    QVERIFY2(f.view.predictionText().contains(QStringLiteral("15 × 21 pixels → 7 × 5 patches + CLS + DIST = 37 tokens "
                                                             "(positions interpolated)")),
             qPrintable(f.view.predictionText()));
    const QStringList labels = s->tokenLabels();
    QCOMPARE(labels.mid(0, 3), (QStringList{"[CLS]", "[DIST]", "r0c0"}));
    QCOMPARE(labels.last(), QStringLiteral("r6c4"));

    auto read = attn::readNpyFloat32((own + "attentions.npy").toStdString());
    QVERIFY2(read.isOk(), read.status().message().c_str());
    const attn::NpyArray &att = *read;
    const int L = s->layers, H = s->heads, T = s->length;
    QCOMPARE(att.shape, (std::vector<std::int64_t>{L, H, T, T}));
    const auto hf = [&](int l, int h, int q, int k) { return double(att.values[((std::size_t(l) * H + h) * T + q) * T + k]); };
    double worst = 0.0;
    f.view.setSource(VisionSource::Head);
    for (int l = 0; l < L; ++l)
        for (int h = 0; h < H; ++h) {
            f.view.setHead(l, h);
            std::vector<double> want;
            for (int k = 2; k < T; ++k) want.push_back(hf(l, h, 0, k));   // the patches: keys 2 …
            worst = std::max(worst, maxDiff(f.view.overlay()->data().values, want));
        }
    qInfo("DeiT, interpolated positions, overlay vs transformers: %.2e", worst);
    QVERIFY(worst < 1e-5);
    QCOMPARE(f.view.overlay()->data().query, -1);

    // Patch r2c3 clicked: token 2 + 2·5 + 3 = 15, its row outlined and shown.
    ImageOverlay *overlay = f.view.overlay();
    const int patch = 2 * 5 + 3;
    QTest::mouseClick(overlay, Qt::LeftButton, {}, overlay->patchRect(patch).center().toPoint());
    QCOMPARE(f.view.query(), 2 + patch);
    QCOMPARE(overlay->data().query, patch);
    QVERIFY(overlay->data().title.contains(QStringLiteral("patch r2c3")));
    std::vector<double> want;
    for (int k = 2; k < T; ++k) want.push_back(hf(L - 1, H - 1, 2 + patch, k));
    QVERIFY(maxDiff(overlay->data().values, want) < 1e-5);
    // The distillation token's row: no patch outlined.
    f.view.setQuery(1);
    QCOMPARE(overlay->data().query, -1);
    QVERIFY(overlay->data().title.contains(QStringLiteral("the distillation token")));
    want.clear();
    for (int k = 2; k < T; ++k) want.push_back(hf(L - 1, H - 1, 1, k));
    QVERIFY(maxDiff(overlay->data().values, want) < 1e-5);
    QVERIFY(f.view.patchMap()->title().contains(QStringLiteral("1: DIST")));

    QString error;
    const QString path = dir.filePath("deit.json");
    QVERIFY2(f.view.exportData(path, &error), qPrintable(error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject doc = QJsonDocument::fromJson(file.readAll()).object();
    QCOMPARE(doc["model"]["architecture"].toString(), QStringLiteral("deit"));
    QCOMPARE(doc["model"]["family"].toString(), QStringLiteral("DeiT"));
    QCOMPARE(doc["input"]["special_tokens"].toInt(), 2);
    QCOMPARE(doc["input"]["patch_grid"].toArray(), (QJsonArray{7, 5}));
    const QJsonArray tokens = doc["input"]["tokens"].toArray();
    QCOMPARE(tokens.size(), 37);
    QCOMPARE(tokens[1].toString(), QStringLiteral("[DIST]"));
    QCOMPARE(tokens[2].toString(), QStringLiteral("r0c0"));
    QVERIFY(doc["settings"]["interpolate_pos_encoding"].toBool());
}

// The Removed patch choice reaches the engine: with the blurred image every insertion curve starts at the
// probability of the Gaussian-blurred picture (a forward pass here); the session and the export name it.
void TestUiVision::blurredSubstrate()
{
    Fixture f;
    f.view.setPerturbationChecks(true);
    f.view.setSubstrate(attn::PatchSubstrate::Blur);
    QVERIFY2(f.run(), qPrintable(f.view.errorText()));
    const auto s = f.view.snapshot();
    QVERIFY(s->perturbation.has_value());
    QCOMPARE(s->perturbation->substrate, attn::PatchSubstrate::Blur);
    attn::VitForwardOptions o;
    o.captureAttentions = false;
    auto blurred = s->model->forward(attn::gaussianBlur(s->pixels, 5.0, 5), o);
    QVERIFY(blurred.isOk());
    const std::vector<double> p = attn::softmax(std::vector<double>(blurred->logits.begin(), blurred->logits.end()));
    for (const auto &m : s->perturbation->methods)
        QVERIFY(std::abs(m.curves.insertion.front() - p[std::size_t(s->perturbation->target)]) < 1e-12);
    QVERIFY(f.view.perturbationText().contains(QStringLiteral("blurred image")));
    QCOMPARE(f.view.sessionState()["substrate"].toString(), QStringLiteral("blur"));

    QTemporaryDir dir;
    QString error;
    QVERIFY2(f.view.exportData(dir.filePath("v.json"), &error), qPrintable(error));
    QFile file(dir.filePath("v.json"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject pert = QJsonDocument::fromJson(file.readAll()).object()["analyses"].toObject()["perturbation"].toObject();
    QCOMPARE(pert["substrate"].toString(), QStringLiteral("blur"));
    QCOMPARE(pert["blur"]["sigma"].toDouble(), 5.0);
    QVERIFY(pert["fill"].isNull());

    Fixture g;
    QVERIFY(g.view.restoreSessionState(QJsonObject{{"substrate", "fill"}}, &error));
    QCOMPARE(g.view.substrate(), attn::PatchSubstrate::Fill);
    QVERIFY(!g.view.restoreSessionState(QJsonObject{{"substrate", "smudge"}}, &error));
    QVERIFY2(error.contains(QStringLiteral("substrate")), qPrintable(error));
}

#include "tst_ui_vision.moc"
