// SPDX-License-Identifier: GPL-3.0-or-later
// Vision Transformers (vit.h) against Hugging Face transformers: tiny random-weight ViTModel and
// ViTForImageClassification checkpoints with peaked attention (tests/fixtures/models/vit-*, made with
// tools/make_vision_fixtures.py), the same pixel_values in: attentions ≤ 1e-5, hidden states, pooled and logits
// ≤ 1e-4, on the reference and tiled backends; once with interpolated positions (another image size); once from a
// PNG through Qt's decoder and the engine's preprocessing (image.h). Config and checkpoint refusals name the field.

#include <attnscope/npy.h>
#include <attnscope/vit.h>
#include <attnscope/vitfaithfulness.h>

#include <QDir>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace attn;

namespace {

const QString kFixtures = QStringLiteral(ATTNSCOPE_TEST_DATA_DIR "/fixtures/");

QByteArray msg(const std::string &s) { return QByteArray::fromStdString(s); }

QJsonObject caseEntry(const QString &name)
{
    QFile f(kFixtures + "vision/index.json");
    if (!f.open(QIODevice::ReadOnly)) return {};
    for (const QJsonValue v : QJsonDocument::fromJson(f.readAll()).object()["cases"].toArray())
        if (v["case"].toString() == name) return v.toObject();
    return {};
}

NpyArray npy(const QString &caseName, const char *file)
{
    auto r = readNpyFloat32((kFixtures + "vision/" + caseName + "/" + file).toStdString());
    return r ? std::move(r).value() : NpyArray{};
}

// max |a − b| over equal-length arrays; +inf when the lengths differ (so a size bug fails every comparison).
double maxDiff(const float *a, const float *b, std::size_t n, std::size_t m)
{
    if (n != m) return INFINITY;
    double d = 0.0;
    for (std::size_t i = 0; i < n; ++i) d = std::max(d, std::abs(double(a[i]) - double(b[i])));
    return d;
}
double maxDiff(const std::vector<float> &a, const std::vector<float> &b)
{
    return maxDiff(a.data(), b.data(), a.size(), b.size());
}

// Qt decodes to RGB8 with alpha dropped, as PIL's convert("RGB") (the CLI and GUI path).
ImageRgb8 decode(const QString &path)
{
    QImage q(path);
    if (q.isNull()) return {};
    q = q.convertToFormat(QImage::Format_RGB888);
    ImageRgb8 im{q.width(), q.height(), std::vector<std::uint8_t>(std::size_t(q.width()) * q.height() * 3)};
    for (int y = 0; y < q.height(); ++y)
        std::copy_n(q.constScanLine(y), q.width() * 3, im.pixels.begin() + std::ptrdiff_t(y) * q.width() * 3);
    return im;
}

// Everything the model computes, compared with the fixture; returns the attention error.
double compare(const VitForwardResult &r, const VitConfig &c, const QString &caseName)
{
    const NpyArray att = npy(caseName, "attentions.npy"), hs = npy(caseName, "hidden_states.npy"),
                   last = npy(caseName, "last_hidden.npy");
    const std::int64_t T = r.length;
    if (att.shape != std::vector<std::int64_t>{c.layers, c.heads, T, T}) return INFINITY;
    double attErr = 0.0;
    for (std::size_t i = 0; i < r.attentions.size(); ++i)
        attErr = std::max(attErr, maxDiff(r.attentions[i].data(), att.values.data() + i * T * T,
                                          r.attentions[i].size(), std::size_t(T * T)));
    if (r.attentions.size() != std::size_t(c.layers * c.heads)) attErr = INFINITY;
    double hsErr = r.hiddenStates.size() == std::size_t(c.layers + 1) ? 0.0 : INFINITY;
    const std::size_t TD = std::size_t(T * c.hiddenSize);
    for (std::size_t i = 0; i < r.hiddenStates.size() && hs.values.size() == r.hiddenStates.size() * TD; ++i)
        hsErr = std::max(hsErr, maxDiff(r.hiddenStates[i].data(), hs.values.data() + i * TD, r.hiddenStates[i].size(), TD));
    if (hs.values.size() != r.hiddenStates.size() * TD) hsErr = INFINITY;
    const double lastErr = maxDiff(r.lastHidden, last.values);
    double headErr = c.classifier ? maxDiff(r.logits, npy(caseName, "logits.npy").values)
                                  : maxDiff(r.pooled, npy(caseName, "pooled.npy").values);
    if (c.teacher)   // DeiT with teacher: both halves of the mean too
        headErr = std::max({headErr, maxDiff(r.clsLogits, npy(caseName, "cls_logits.npy").values),
                            maxDiff(r.distillationLogits, npy(caseName, "distillation_logits.npy").values)});
    else if (!r.clsLogits.empty() || !r.distillationLogits.empty())
        headErr = INFINITY;
    qInfo("%s on %s: attentions %.3g, hidden states %.3g, last hidden %.3g, %s %.3g", qPrintable(caseName),
          backendName(r.backend).c_str(), attErr, hsErr, lastErr, c.classifier ? "logits" : "pooled", headErr);
    if (!(hsErr <= 1e-4) || !(lastErr <= 1e-4) || !(headErr <= 1e-4)) return INFINITY;
    return attErr;
}

// The softmax probability of `target` (in double over the float32 logits), the score vitPerturbation follows.
double classProbability(const VitModel &model, const PixelValues &px, int target)
{
    VitForwardOptions o;
    o.captureAttentions = false;
    auto r = model.forward(px, o);
    if (!r) return NAN;
    const std::vector<float> &z = r->logits;
    const double m = *std::max_element(z.begin(), z.end());
    double sum = 0.0;
    for (float v : z) sum += std::exp(double(v) - m);
    return std::exp(double(z[std::size_t(target)]) - m) / sum;
}

} // namespace

class TestVision : public QObject {
    Q_OBJECT
private slots:
    void parity_data();
    void parity();
    void imageThroughPreprocessing_data();
    void imageThroughPreprocessing();
    void attentionRowsAndGrid();
    void deitTokens();
    void inputErrors();
    void configErrors_data();
    void configErrors();
    void checkpointErrors();
    void perturbationByHand();
    void blurredSubstrate();
};

void TestVision::parity_data()
{
    QTest::addColumn<QString>("caseName");
    QTest::addColumn<QString>("backend");
    for (const char *c : {"vit-cls-plain", "vit-base-plain", "vit-base-interp", "deit-teacher-plain", "deit-cls-plain",
                          "deit-base-plain", "deit-base-interp"})
        for (const char *b : {"reference", "tiled", "cuda"})
            QTest::newRow(qPrintable(QStringLiteral("%1 %2").arg(c, b))) << QString(c) << QString(b);
}

void TestVision::parity()
{
    QFETCH(QString, caseName);
    QFETCH(QString, backend);
    if (backend == QLatin1String("cuda") && !cudaAvailable())
        QSKIP(qPrintable("CUDA: " + QString::fromStdString(cudaUnavailableReason())));
    const QJsonObject entry = caseEntry(caseName);
    QVERIFY2(!entry.isEmpty(), "tests/fixtures/vision/index.json: case missing");
    auto model = VitModel::loadFolder((kFixtures + "models/" + entry["model"].toString()).toStdString());
    QVERIFY2(model.isOk(), msg(model.status().message()));
    auto pixels = readPixelValuesNpy((kFixtures + "vision/" + caseName + "/pixel_values.npy").toStdString());
    QVERIFY2(pixels.isOk(), msg(pixels.status().message()));
    QCOMPARE(pixels->height, entry["height"].toInteger());

    VitForwardOptions o;
    o.backend = *parseBackend(backend.toStdString());
    o.captureHiddenStates = true;
    o.interpolatePositions = entry["interpolate_pos_encoding"].toBool();
    auto r = model->forward(*pixels, o);
    QVERIFY2(r.isOk(), msg(r.status().message()));
    QCOMPARE(r->length, entry["tokens"].toInteger());
    QCOMPARE(backendName(r->backend), backend.toStdString());
    const double err = compare(*r, model->config(), caseName);
    QVERIFY2(err <= 1e-5, qPrintable(QStringLiteral("attention error %1").arg(err)));
}

void TestVision::imageThroughPreprocessing_data()
{
    QTest::addColumn<QString>("caseName");
    QTest::addColumn<QString>("backend");
    for (const char *c : {"vit-cls-image", "deit-teacher-image", "deit-base-image-interp"})
        for (const char *b : {"reference", "tiled"})
            QTest::newRow(qPrintable(QStringLiteral("%1 %2").arg(c, b))) << QString(c) << QString(b);
}

void TestVision::imageThroughPreprocessing()
{
    // A 45×37 PNG resized (Pillow-exact) by the checkpoint's preprocessor_config.json: ViT to 28×28 (bilinear);
    // DeiT to 28×28 (bicubic), then its centre 24×24 cropped; or by the case's own processor (DeiT to 21×15, the
    // positions then interpolated from the 6×6 grid to 7×5).
    QFETCH(QString, caseName);
    QFETCH(QString, backend);
    const QJsonObject entry = caseEntry(caseName);
    auto model = VitModel::loadFolder((kFixtures + "models/" + entry["model"].toString()).toStdString());
    QVERIFY2(model.isOk(), msg(model.status().message()));
    QVERIFY(model->preprocessor().has_value());
    PreprocessorConfig pre = *model->preprocessor();
    if (const QString own = kFixtures + "vision/" + caseName + "/preprocessor_config.json"; QFile::exists(own)) {
        auto p = loadPreprocessorConfig(own.toStdString());
        QVERIFY2(p.isOk(), msg(p.status().message()));
        pre = *p;
    }
    const ImageRgb8 image = decode(kFixtures + "vision/" + entry["image"].toString());
    QCOMPARE(image.width, 45);
    auto pixels = preprocessImage(image, pre);
    QVERIFY2(pixels.isOk(), msg(pixels.status().message()));
    const NpyArray want = npy(caseName, "pixel_values.npy");
    QCOMPARE(pixels->height, entry["height"].toInteger());
    QCOMPARE(pixels->width, entry["width"].toInteger());
    // The engine's resize is Pillow's bit for bit (tst_image), so the preprocessing adds nothing here.
    QCOMPARE(maxDiff(pixels->values, want.values), 0.0);
    VitForwardOptions o;
    o.backend = *parseBackend(backend.toStdString());
    o.captureHiddenStates = true;
    o.interpolatePositions = entry["interpolate_pos_encoding"].toBool();
    auto r = model->forward(*pixels, o);
    QVERIFY2(r.isOk(), msg(r.status().message()));
    QCOMPARE(r->length, entry["tokens"].toInteger());
    QVERIFY(compare(*r, model->config(), caseName) <= 1e-5);
}

void TestVision::attentionRowsAndGrid()
{
    auto model = VitModel::loadFolder((kFixtures + "models/vit-base-d80h5").toStdString());
    QVERIFY2(model.isOk(), msg(model.status().message()));
    QCOMPARE(model->name(), std::string("vit-base-d80h5"));
    QCOMPARE(model->config().dHead, 16);
    QVERIFY(!model->config().qkvBias);
    // 35×20 pixels in 5×5 patches: 7 rows and 4 columns, T = 29; 23×7 keeps only whole patches (4×1).
    PixelValues px{35, 20, std::vector<float>(3 * 35 * 20, 0.25f)};
    VitForwardOptions o;
    o.interpolatePositions = true;
    auto r = model->forward(px, o);
    QVERIFY2(r.isOk(), msg(r.status().message()));
    QCOMPARE(r->patchRows, 7);
    QCOMPARE(r->patchCols, 4);
    QCOMPARE(r->specialTokens, 1);
    QCOMPARE(r->length, 29);
    QCOMPARE(r->attentions.size(), std::size_t(15));
    for (const std::vector<float> &P : r->attentions)
        for (std::int64_t i = 0; i < 29; ++i) {
            double s = 0.0;
            for (std::int64_t j = 0; j < 29; ++j) s += P[std::size_t(i * 29 + j)];
            QVERIFY(std::abs(s - 1.0) < 1e-5);
        }
    auto small = model->patchGrid(PixelValues{23, 7, std::vector<float>(3 * 23 * 7)}, o);
    QVERIFY(small.isOk() && small->height == 4 && small->width == 1);
    o.captureAttentions = false;
    auto none = model->forward(px, o);
    QVERIFY(none.isOk() && none->attentions.empty() && none->pooled.size() == 80);
}

// DeiT: two special tokens (CLS at 0, the distillation token at 1), the patches from token 2; every class reads the
// same token layout; the teacher's logits are the mean of its two heads.
void TestVision::deitTokens()
{
    struct Expect { const char *model; const char *arch; bool classifier, teacher; std::int64_t labels; };
    for (const Expect &e : {Expect{"deit-teacher-d40h4", "DeiTForImageClassificationWithTeacher", true, true, 4},
                            Expect{"deit-cls-d32h2", "DeiTForImageClassification", true, false, 3},
                            Expect{"deit-base-d36h3", "DeiTModel", false, false, 0}}) {
        auto model = VitModel::loadFolder((kFixtures + "models/" + e.model).toStdString());
        QVERIFY2(model.isOk(), msg(model.status().message()));
        const VitConfig &c = model->config();
        QCOMPARE(c.modelType, std::string("deit"));
        QCOMPARE(c.architectureClass, std::string(e.arch));
        QCOMPARE(c.classifier, e.classifier);
        QCOMPARE(c.teacher, e.teacher);
        QCOMPARE(c.specialTokens(), 2);
        QCOMPARE(c.numLabels, e.labels);
        QVERIFY(isVitFolder((kFixtures + "models/" + e.model).toStdString()));
        const PixelValues px{c.imageHeight, c.imageWidth,
                             std::vector<float>(std::size_t(3 * c.imageHeight * c.imageWidth), -0.3f)};
        auto r = model->forward(px);
        QVERIFY2(r.isOk(), msg(r.status().message()));
        QCOMPARE(r->specialTokens, 2);
        QCOMPARE(r->length, 2 + c.patchRows() * c.patchCols());
        QCOMPARE(r->logits.size(), std::size_t(e.labels));
        QCOMPARE(r->clsLogits.empty(), !e.teacher);
        for (std::size_t i = 0; e.teacher && i < r->logits.size(); ++i)
            QCOMPARE(r->logits[i], (r->clsLogits[i] + r->distillationLogits[i]) / 2.0f);
        QCOMPARE(r->pooled.empty(), e.classifier);
    }
}

void TestVision::inputErrors()
{
    auto model = VitModel::loadFolder((kFixtures + "models/vit-cls-d48h3").toStdString());
    QVERIFY2(model.isOk(), msg(model.status().message()));
    const auto error = [&](PixelValues px, bool interp) {
        VitForwardOptions o;
        o.interpolatePositions = interp;
        auto r = model->forward(px, o);
        return r.isOk() ? std::string() : r.status().message();
    };
    QVERIFY(error({30, 28, std::vector<float>(3 * 30 * 28)}, false).find("image 30×28 differs from the model's "
                                                                         "image_size 28×28") != std::string::npos);
    QVERIFY(error({28, 28, std::vector<float>(28 * 28)}, false).find("784 values for [3, 28, 28]") != std::string::npos);
    QVERIFY(error({3, 28, std::vector<float>(3 * 3 * 28)}, true).find("smaller than one 4×4 patch") != std::string::npos);
}

void TestVision::configErrors_data()
{
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("expected");
    const QString base = R"("model_type": "vit", "hidden_size": 48, "num_attention_heads": 3)";
    QTest::newRow("not vit") << R"({"model_type": "beit"})" << "field 'model_type' is 'beit'; expected 'vit' or 'deit'";
    QTest::newRow("architecture") << R"({"model_type": "vit", "architectures": ["ViTForMaskedImageModeling"]})"
                                  << "field 'architectures' names ViTForMaskedImageModeling";
    QTest::newRow("deit architecture") << R"({"model_type": "deit", "architectures": ["DeiTForMaskedImageModeling"]})"
                                       << "names DeiTForMaskedImageModeling; for model_type 'deit' this engine runs "
                                          "DeiTModel, DeiTForImageClassification and DeiTForImageClassificationWithTeacher";
    QTest::newRow("class of the other type") << R"({"model_type": "vit", "architectures": ["DeiTModel"]})"
                                             << "names DeiTModel; for model_type 'vit' this engine runs ViTModel";
    QTest::newRow("heads") << R"({"model_type": "vit", "hidden_size": 50, "num_attention_heads": 3})"
                           << "'hidden_size' 50 is not a multiple of num_attention_heads 3";
    QTest::newRow("image size") << "{" + base + R"(, "image_size": [28])" + "}"
                                << "field 'image_size' has 1 entries; expected [height, width]";
    QTest::newRow("patch") << "{" + base + R"(, "image_size": 8, "patch_size": 9})" << "field 'patch_size' is larger";
    QTest::newRow("act") << "{" + base + R"(, "hidden_act": "gelu_foo"})" << "field 'hidden_act' 'gelu_foo' is not";
    QTest::newRow("channels") << "{" + base + R"(, "num_channels": 1})" << "field 'num_channels' is 1; expected 3";
    QTest::newRow("eps") << "{" + base + R"(, "layer_norm_eps": -1})" << "field 'layer_norm_eps' must be a positive number";
    QTest::newRow("labels") << R"({"model_type": "vit", "architectures": ["ViTForImageClassification"],
                                   "id2label": {"0": "a", "2": "c"}})"
                            << "id2label is missing label id 1";
    QTest::newRow("json") << "[1]" << "cfg.json: not a JSON object";
}

void TestVision::configErrors()
{
    QFETCH(QString, json);
    QFETCH(QString, expected);
    auto r = parseVitConfig(json.toStdString(), "cfg.json");
    QVERIFY(!r.isOk());
    QVERIFY2(r.status().message().find(expected.toStdString()) != std::string::npos, msg(r.status().message()));
    QVERIFY(r.status().message().rfind("cfg.json", 0) == 0);
}

void TestVision::checkpointErrors()
{
    // The classifier's weights read as a ViTModel of the same sizes: the classifier tensors are unexpected; with
    // another hidden size the first tensor read names its shape.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString src = kFixtures + "models/vit-cls-d48h3/";
    QVERIFY(QFile::copy(src + "model.safetensors", dir.filePath("model.safetensors")));
    QFile cfgIn(src + "config.json");
    QVERIFY(cfgIn.open(QIODevice::ReadOnly));
    QJsonObject cfg = QJsonDocument::fromJson(cfgIn.readAll()).object();
    const auto write = [&](const QJsonObject &o) {
        QFile f(dir.filePath("config.json"));
        return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(QJsonDocument(o).toJson()) > 0;
    };
    cfg["architectures"] = QJsonArray{"ViTModel"};
    QVERIFY(write(cfg));
    auto r = VitModel::loadFolder(dir.path().toStdString());
    QVERIFY(!r.isOk());
    QVERIFY2(r.status().message().find("unexpected tensor 'classifier.") != std::string::npos, msg(r.status().message()));
    cfg["architectures"] = QJsonArray{"ViTForImageClassification"};
    cfg["intermediate_size"] = 64;
    QVERIFY(write(cfg));
    r = VitModel::loadFolder(dir.path().toStdString());
    QVERIFY(!r.isOk());
    QVERIFY2(r.status().message().find("tensor 'vit.encoder.layer.0.intermediate.dense.weight' has shape [96, 48]; "
                                       "expected [64, 48]") != std::string::npos,
             msg(r.status().message()));
    QVERIFY(QFile::remove(dir.filePath("model.safetensors")));
    r = VitModel::loadFolder(dir.path().toStdString());
    QVERIFY(!r.isOk() && r.status().message().find("no model.safetensors") != std::string::npos);
    QVERIFY(!isVitFolder(dir.path().toStdString() + "/nothing"));
    QVERIFY(isVitFolder(dir.path().toStdString()));
    QVERIFY(!isVitFolder((kFixtures + "models/gpt2-tiny").toStdString()));

    // A ViT's tensors under a DeiT config: the distillation token is missing. A DeiT with teacher read as the
    // single-head class: its classifier is missing (the first tensor looked for), its two heads unexpected.
    cfg = QJsonDocument::fromJson(R"({"model_type": "deit", "architectures": ["DeiTForImageClassification"],
        "hidden_size": 48, "num_hidden_layers": 2, "num_attention_heads": 3, "intermediate_size": 96,
        "image_size": 28, "patch_size": 4, "num_labels": 5})").object();
    QVERIFY(write(cfg));
    QVERIFY(QFile::copy(src + "model.safetensors", dir.filePath("model.safetensors")));
    r = VitModel::loadFolder(dir.path().toStdString());
    QVERIFY(!r.isOk());
    QVERIFY2(r.status().message().find("embeddings.distillation_token") != std::string::npos, msg(r.status().message()));
    QVERIFY(QFile::remove(dir.filePath("model.safetensors")));
    QFile teacherIn(kFixtures + "models/deit-teacher-d40h4/config.json");
    QVERIFY(teacherIn.open(QIODevice::ReadOnly));
    cfg = QJsonDocument::fromJson(teacherIn.readAll()).object();
    cfg["architectures"] = QJsonArray{"DeiTForImageClassification"};
    QVERIFY(write(cfg));
    QVERIFY(QFile::copy(kFixtures + "models/deit-teacher-d40h4/model.safetensors", dir.filePath("model.safetensors")));
    r = VitModel::loadFolder(dir.path().toStdString());
    QVERIFY(!r.isOk());
    QVERIFY2(r.status().message().find("classifier.weight") != std::string::npos, msg(r.status().message()));
}

// Occlusion and deletion / insertion on the fixture classifier, every point against a forward pass of the image
// with those patches set to 0 here: the curve ends are the image and the all-removed image, occlusion[p] the drop.
void TestVision::perturbationByHand()
{
    auto model = VitModel::loadFolder((kFixtures + "models/vit-cls-d48h3").toStdString());
    QVERIFY2(model.isOk(), msg(model.status().message()));
    auto pixels = readPixelValuesNpy((kFixtures + "vision/vit-cls-plain/pixel_values.npy").toStdString());
    QVERIFY2(pixels.isOk(), msg(pixels.status().message()));
    const int P = 49, W = int(pixels->width), plane = int(pixels->height) * W;
    // removePatches: patch 3 (row 0, columns 12 … 15 of 4-pixel patches) and nothing else.
    std::vector<std::uint8_t> kept(P, 1);
    kept[3] = 0;
    const PixelValues removed = removePatches(*pixels, 4, 4, kept, 0.0f);
    int changed = 0, inPatch = 0;
    for (int ch = 0; ch < 3; ++ch)
        for (int y = 0; y < int(pixels->height); ++y)
            for (int x = 0; x < W; ++x) {
                const std::size_t e = std::size_t(ch * plane + y * W + x);
                const bool in = y < 4 && x >= 12 && x < 16;
                inPatch += in && removed.values[e] == 0.0f;
                changed += !in && removed.values[e] != pixels->values[e];
            }
    QCOMPARE(changed, 0);
    QCOMPARE(inPatch, 3 * 16);

    const auto probability = [&](const PixelValues &px, int target) { return classProbability(*model, px, target); };
    std::vector<double> ramp(P);
    for (int p = 0; p < P; ++p) ramp[std::size_t(p)] = double(P - p);   // patch 0 first
    auto r = vitPerturbation(*model, *pixels, {{"ramp", ramp}});
    QVERIFY2(r.isOk(), msg(r.status().message()));
    auto full = model->forward(*pixels, {});
    const int target = int(std::max_element(full->logits.begin(), full->logits.end()) - full->logits.begin());
    QCOMPARE(r->target, target);
    const double p0 = probability(*pixels, target);
    QVERIFY(std::abs(r->probability - p0) < 1e-12);
    QCOMPARE(r->step, 1);
    for (int p : {0, 17, 48}) {
        std::vector<std::uint8_t> one(P, 1);
        one[std::size_t(p)] = 0;
        QVERIFY(std::abs(r->occlusion[std::size_t(p)] - (p0 - probability(removePatches(*pixels, 4, 4, one), target))) < 1e-12);
    }
    QCOMPARE(int(r->methods.size()), 3);
    QCOMPARE(r->methods[0].name, std::string("ramp"));
    QCOMPARE(r->methods[1].name, std::string("occlusion"));
    QCOMPARE(r->methods[2].name, std::string("random"));
    const double none = probability(removePatches(*pixels, 4, 4, std::vector<std::uint8_t>(P, 0)), target);
    for (const auto &m : r->methods) {
        QCOMPARE(int(m.curves.deletion.size()), P + 1);
        QVERIFY(std::abs(m.curves.deletion.front() - p0) < 1e-12 && std::abs(m.curves.deletion.back() - none) < 1e-12);
        QVERIFY(std::abs(m.curves.insertion.front() - none) < 1e-12 && std::abs(m.curves.insertion.back() - p0) < 1e-12);
    }
    // The ramp's deletion after 10 points: patches 0 … 9 removed.
    std::vector<std::uint8_t> first10(P, 1);
    std::fill(first10.begin(), first10.begin() + 10, 0);
    QVERIFY(std::abs(r->methods[0].curves.deletion[10] - probability(removePatches(*pixels, 4, 4, first10), target)) < 1e-12);
    QCOMPARE(r->forwards, 1 + P + (2 + 5) * 2 * (P + 1));
    // Refusals: a map of the wrong size, a model without a classifier.
    auto bad = vitPerturbation(*model, *pixels, {{"short", std::vector<double>(5)}});
    QVERIFY(!bad.isOk() && bad.status().message().find("'short' has 5 values for 49 patches") != std::string::npos);
    auto base = VitModel::loadFolder((kFixtures + "models/vit-base-d80h5").toStdString());
    QVERIFY(base.isOk());
    auto none2 = vitPerturbation(*base, *pixels, {});
    QVERIFY(!none2.isOk() && none2.status().message().find("no classifier") != std::string::npos);
}

QTEST_MAIN(TestVision)
// The blurred substrate (RISE's insertion start). gaussianBlur by hand: a constant stays constant; an impulse
// becomes the product of the 1-D weights w_k = exp(−k²/2σ²) over their sum, inside and (renormalised over the taps
// that fall inside) at a corner. removePatches takes the removed patches' pixels from the substrate and leaves the
// rest; vitPerturbation with it: the insertion start is the blurred image's probability, occlusion the drop with
// one patch blurred, each against a forward pass here.
void TestVision::blurredSubstrate()
{
    const double sigma = 1.5;
    const int radius = 2, n = 9;
    std::vector<double> w;
    for (int k = -radius; k <= radius; ++k) w.push_back(std::exp(-double(k * k) / (2 * sigma * sigma)));
    const double sum = std::accumulate(w.begin(), w.end(), 0.0), half = w[2] + w[3] + w[4];   // corner: k = 0, 1, 2
    PixelValues flat{n, n, std::vector<float>(3 * n * n, 0.75f)};
    const PixelValues flatBlur = gaussianBlur(flat, sigma, radius);
    for (float v : flatBlur.values) QVERIFY(std::abs(v - 0.75f) < 1e-6f);
    PixelValues impulse{n, n, std::vector<float>(3 * n * n, 0.0f)};
    impulse.values[std::size_t(4 * n + 4)] = 1.0f;                   // channel 0, the centre
    impulse.values[std::size_t(2 * n * n)] = 1.0f;                   // channel 2, the corner (0, 0)
    const PixelValues b = gaussianBlur(impulse, sigma, radius);
    double worst = 0.0;
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            const int dy = y - 4, dx = x - 4;
            const double want = std::abs(dy) <= radius && std::abs(dx) <= radius
                                    ? w[std::size_t(dy + radius)] * w[std::size_t(dx + radius)] / (sum * sum) : 0.0;
            worst = std::max(worst, std::abs(b.values[std::size_t(y * n + x)] - want));
            QCOMPARE(b.values[std::size_t(n * n + y * n + x)], 0.0f);   // channel 1 untouched by the others
            // The corner impulse: at (y, x) ≤ radius the taps inside are k = −y … radius for the output row y.
            double rowNorm = 0.0, colNorm = 0.0;
            for (int k = -radius; k <= radius; ++k) {
                rowNorm += (y + k >= 0 && y + k < n) ? w[std::size_t(k + radius)] : 0.0;
                colNorm += (x + k >= 0 && x + k < n) ? w[std::size_t(k + radius)] : 0.0;
            }
            const double corner = y <= radius && x <= radius
                                      ? w[std::size_t(radius - y)] * w[std::size_t(radius - x)] / (rowNorm * colNorm) : 0.0;
            worst = std::max(worst, std::abs(b.values[std::size_t(2 * n * n + y * n + x)] - corner));
        }
    QVERIFY2(worst < 1e-7, qPrintable(QString::number(worst)));
    QVERIFY(std::abs(b.values[0] - 0.0) < 1e-9);
    QVERIFY(std::abs(b.values[std::size_t(2 * n * n)] - w[2] * w[2] / (half * half)) < 1e-7);
    QCOMPARE(gaussianBlur(impulse, sigma, 0).values, impulse.values);

    auto model = VitModel::loadFolder((kFixtures + "models/vit-cls-d48h3").toStdString());
    QVERIFY2(model.isOk(), msg(model.status().message()));
    auto pixels = readPixelValuesNpy((kFixtures + "vision/vit-cls-plain/pixel_values.npy").toStdString());
    QVERIFY2(pixels.isOk(), msg(pixels.status().message()));
    const int P = 49, W = int(pixels->width), plane = int(pixels->height) * W;
    const PixelValues blurred = gaussianBlur(*pixels, 5.0, 5);
    std::vector<std::uint8_t> kept(P, 1);
    kept[10] = 0;   // row 1, column 3: y 4 … 7, x 12 … 15
    const PixelValues one = removePatches(*pixels, 4, 4, kept, blurred);
    int wrong = 0;
    for (int ch = 0; ch < 3; ++ch)
        for (int y = 0; y < int(pixels->height); ++y)
            for (int x = 0; x < W; ++x) {
                const std::size_t e = std::size_t(ch * plane + y * W + x);
                const bool in = y >= 4 && y < 8 && x >= 12 && x < 16;
                wrong += one.values[e] != (in ? blurred.values[e] : pixels->values[e]);
            }
    QCOMPARE(wrong, 0);

    const auto probability = [&](const PixelValues &px, int target) { return classProbability(*model, px, target); };
    VitPerturbationOptions po;
    po.substrate = PatchSubstrate::Blur;
    po.randomSeeds = 2;
    std::vector<double> ramp(P);
    for (int p = 0; p < P; ++p) ramp[std::size_t(p)] = double(P - p);
    auto r = vitPerturbation(*model, *pixels, {{"ramp", ramp}}, po);
    QVERIFY2(r.isOk(), msg(r.status().message()));
    QCOMPARE(r->substrate, PatchSubstrate::Blur);
    QCOMPARE(r->blurRadius, 5);
    const double pBlur = probability(blurred, r->target), p0 = probability(*pixels, r->target);
    for (const auto &m : r->methods) {
        QVERIFY(std::abs(m.curves.insertion.front() - pBlur) < 1e-12);
        QVERIFY(std::abs(m.curves.deletion.back() - pBlur) < 1e-12);
        QVERIFY(std::abs(m.curves.insertion.back() - p0) < 1e-12);
    }
    QVERIFY(std::abs(r->occlusion[10] - (p0 - probability(one, r->target))) < 1e-12);
    // Not the mean-colour substrate's start.
    const double pFill = probability(removePatches(*pixels, 4, 4, std::vector<std::uint8_t>(P, 0)), r->target);
    QVERIFY(std::abs(pBlur - pFill) > 1e-6);
    po.blurSigma = 0.0;
    auto bad = vitPerturbation(*model, *pixels, {}, po);
    QVERIFY(!bad.isOk() && bad.status().message().find("blur: sigma must be") != std::string::npos);
}

#include "tst_vision.moc"
