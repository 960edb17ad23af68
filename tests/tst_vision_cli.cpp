// SPDX-License-Identifier: GPL-3.0-or-later
// `attnscope-cli run --model VIT --image F | --pixel-values F.npy` (app/cli/verb_vision.cpp), run as scripts run it:
// the export's attention and outputs against transformers' (tests/fixtures/vision, tools/make_vision_fixtures.py),
// the image fields, and the refusals (exit 2 for arguments, 1 for inputs).

#include <attnscope/npy.h>

#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>

namespace {

const QString kFixtures = QStringLiteral(ATTNSCOPE_TEST_DATA_DIR "/fixtures/");

struct CliRun {
    int exitCode = -1;
    QByteArray out, err;
};

// The wait is a guard against a hung process, not a timing assertion.
CliRun runCli(const QStringList &args)
{
    QProcess process;
    process.start(QStringLiteral(ATTNSCOPE_CLI_PATH), args);
    CliRun run;
    if (!process.waitForFinished(120000)) {
        process.kill();
        process.waitForFinished();
        run.err = "did not finish";
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

QJsonObject readJson(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

std::vector<float> fixture(const QString &caseName, const char *file)
{
    auto r = attn::readNpyFloat32((kFixtures + "vision/" + caseName + "/" + file).toStdString());
    return r ? r->values : std::vector<float>{};
}

// max |export − fixture| over attention [layer][head][T][T] (flattened in that order); +inf on any size mismatch.
double attentionError(const QJsonArray &attention, const std::vector<float> &want)
{
    std::size_t k = 0;
    double err = 0.0;
    for (const QJsonValue layer : attention)
        for (const QJsonValue head : layer.toArray())
            for (const QJsonValue row : head.toArray())
                for (const QJsonValue v : row.toArray()) {
                    if (k >= want.size()) return INFINITY;
                    err = std::max(err, std::abs(v.toDouble() - double(want[k++])));
                }
    return k == want.size() ? err : INFINITY;
}

double vectorError(const QJsonArray &got, const std::vector<float> &want)
{
    if (std::size_t(got.size()) != want.size()) return INFINITY;
    double err = 0.0;
    for (qsizetype i = 0; i < got.size(); ++i) err = std::max(err, std::abs(got[i].toDouble() - double(want[std::size_t(i)])));
    return err;
}

} // namespace

class TestVisionCli : public QObject {
    Q_OBJECT
private slots:
    void imageRun_data();
    void imageRun();
    void pixelValuesInterpolated();
    void refusals();
    void info();
    void figureViews_data();
    void figureViews();
    void figureRefusals();
    void deitWithTeacher();
};

void TestVisionCli::imageRun_data()
{
    QTest::addColumn<QString>("backend");
    QTest::newRow("reference") << "reference";
    QTest::newRow("tiled") << "tiled";
}

void TestVisionCli::imageRun()
{
    QFETCH(QString, backend);
    QTemporaryDir dir;
    const QString out = dir.filePath("vit.json");
    const CliRun run = runCli({"run", "--model", kFixtures + "models/vit-cls-d48h3", "--image",
                               kFixtures + "vision/gradient_45x37.png", "--backend", backend, "--top-k", "3", "--out", out});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject j = readJson(out);
    QCOMPARE(j["kind"].toString(), QStringLiteral("vision"));
    QCOMPARE(j["model"]["architecture_class"].toString(), QStringLiteral("ViTForImageClassification"));
    const QJsonObject input = j["input"].toObject();
    QCOMPARE(input["image_width"].toInt(), 45);
    QCOMPARE(input["image_height"].toInt(), 37);
    QCOMPARE(input["height"].toInt(), 28);
    QCOMPARE(input["patch_grid"].toArray(), (QJsonArray{7, 7}));
    QCOMPARE(input["special_tokens"].toInt(), 1);
    QCOMPARE(input["length"].toInt(), 50);
    QCOMPARE(input["tokens"][0].toString(), QStringLiteral("[CLS]"));
    QCOMPARE(input["tokens"][9].toString(), QStringLiteral("r1c1"));
    QCOMPARE(j["settings"]["backend"].toString(), backend);

    const double attErr = attentionError(j["attention"].toArray(), fixture("vit-cls-image", "attentions.npy"));
    const std::vector<float> logits = fixture("vit-cls-image", "logits.npy");
    const double logitErr = vectorError(j["outputs"]["logits"].toArray(), logits);
    qInfo("CLI --image on %s: attention %.3g, logits %.3g", qPrintable(backend), attErr, logitErr);
    QVERIFY(attErr <= 1e-5);
    QVERIFY(logitErr <= 1e-4);
    const QJsonArray predictions = j["outputs"]["predictions"].toArray();
    QCOMPARE(predictions.size(), 3);
    const auto best = std::max_element(logits.begin(), logits.end()) - logits.begin();
    QCOMPARE(predictions[0]["id"].toInt(), int(best));
    QCOMPARE(predictions[0]["label"].toString(), QStringLiteral("class_%1").arg(best));
    QVERIFY(predictions[0]["probability"].toDouble() >= predictions[1]["probability"].toDouble());
}

void TestVisionCli::pixelValuesInterpolated()
{
    QTemporaryDir dir;
    const QString out = dir.filePath("interp.json");
    const QString npy = kFixtures + "vision/vit-base-interp/pixel_values.npy";
    const CliRun run = runCli({"run", "--model", kFixtures + "models/vit-base-d80h5", "--pixel-values", npy,
                               "--interpolate-pos-encoding", "--backend", "tiled", "--out", out});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject j = readJson(out);
    QCOMPARE(j["input"]["patch_grid"].toArray(), (QJsonArray{7, 4}));
    QVERIFY(j["input"]["image"].isNull());
    QVERIFY(j["settings"]["interpolate_pos_encoding"].toBool());
    const double attErr = attentionError(j["attention"].toArray(), fixture("vit-base-interp", "attentions.npy"));
    const double pooledErr = vectorError(j["outputs"]["pooled"].toArray(), fixture("vit-base-interp", "pooled.npy"));
    qInfo("CLI --pixel-values, interpolated: attention %.3g, pooled %.3g", attErr, pooledErr);
    QVERIFY(attErr <= 1e-5);
    QVERIFY(pooledErr <= 1e-4);

    // The same file without the flag: the size is refused as an input error.
    const CliRun refused = runCli({"run", "--model", kFixtures + "models/vit-base-d80h5", "--pixel-values", npy,
                                   "--out", dir.filePath("no.json")});
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(refused.err.contains("image 35×20 differs from the model's image_size 30×30"), refused.err.constData());
    QVERIFY(!QFile::exists(dir.filePath("no.json")));
}

// `info` on a ViT folder describes it (it said model_type 'vit' is not supported while run opened it).
void TestVisionCli::info()
{
    const QString folder = kFixtures + "models/vit-cls-d48h3";
    const CliRun r = runCli({"info", "--model", folder});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QJsonParseError error;
    const QJsonObject info = QJsonDocument::fromJson(r.out, &error).object();
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    const QJsonObject config = readJson(folder + "/config.json");
    QCOMPARE(info["architecture"].toString(), QStringLiteral("vit"));
    QCOMPARE(info["layers"].toInt(), config["num_hidden_layers"].toInt());
    QCOMPARE(info["heads"].toInt(), config["num_attention_heads"].toInt());
    QCOMPARE(info["d_model"].toInt(), config["hidden_size"].toInt());
    const int image = config["image_size"].toInt(), patch = config["patch_size"].toInt();
    QCOMPARE(info["patch_grid"].toArray(), (QJsonArray{image / patch, image / patch}));
    QCOMPARE(info["labels"].toArray().size(), config["id2label"].toObject().size());
}

void TestVisionCli::refusals()
{
    QTemporaryDir dir;
    const QString out = dir.filePath("x.json"), png = kFixtures + "vision/gradient_45x37.png";
    const QString vit = kFixtures + "models/vit-cls-d48h3";
    CliRun r = runCli({"run", "--model", kFixtures + "models/gpt2-tiny", "--image", png, "--out", out});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("need a ViT folder"), r.err.constData());
    r = runCli({"run", "--model", vit, "--image", png, "--pixel-values", png, "--out", out});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains("exactly one of --image and --pixel-values"));
    r = runCli({"run", "--model", vit, "--image", dir.filePath("missing.png"), "--out", out});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("cannot read or decode the image"), r.err.constData());
    r = runCli({"run", "--model", vit, "--pixel-values", png, "--out", out});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("gradient_45x37.png"), r.err.constData());
    QVERIFY(!QFile::exists(out));
}

// `attnscope-cli figure --image`: each view is drawn by the Vision workspace and written as a real PNG.
void TestVisionCli::figureViews_data()
{
    QTest::addColumn<QString>("view");
    for (const char *v : {"overlay:0.1", "overlay:1.mean", "overlay:rollout", "patches:1.2", "patches:rollout"}) QTest::newRow(v) << v;
}

void TestVisionCli::figureViews()
{
    QFETCH(QString, view);
    QTemporaryDir dir;
    const QString out = dir.filePath("figure.png");
    const CliRun run = runCli({"figure", "--model", kFixtures + "models/vit-cls-d48h3", "--image",
                               kFixtures + "vision/gradient_45x37.png", "--view", view, "--out", out, "--dpi", "96"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QImage png(out);
    QVERIFY(!png.isNull());
    QVERIFY2(png.width() >= 300 && png.height() >= 300, qPrintable(QStringLiteral("%1 x %2").arg(png.width()).arg(png.height())));
}

void TestVisionCli::figureRefusals()
{
    QTemporaryDir dir;
    const QString out = dir.filePath("figure.png"), model = kFixtures + "models/vit-cls-d48h3",
                  image = kFixtures + "vision/gradient_45x37.png";
    struct Case {
        QStringList args;
        int exit;
        const char *says;
    };
    const QList<Case> cases{
        {{"--model", model, "--image", image, "--view", "overlay:2.0"}, 2, "layers 0..1"},
        {{"--model", model, "--image", image, "--view", "head:0.0"}, 2, "unknown view"},
        {{"--model", model, "--text", "a cat", "--view", "overlay:0.0"}, 2, "give --image"},
        {{"--model", model, "--view", "overlay:0.0"}, 2, "--image"},
        {{"--model", kFixtures + "models/gpt2-tiny", "--image", image, "--view", "grid"}, 2, "only for Vision Transformer"},
        {{"--model", model, "--image", dir.filePath("missing.png"), "--view", "overlay:0.0"}, 1, "missing.png"},
    };
    for (const Case &c : cases) {
        const CliRun run = runCli(QStringList{"figure"} + c.args + QStringList{"--out", out});
        QVERIFY2(run.exitCode == c.exit, qPrintable(c.args.join(' ') + ": " + QString::number(run.exitCode) + " " + run.err));
        QVERIFY2(run.err.contains(c.says), qPrintable(c.args.join(' ') + ": " + run.err));
    }
}

QTEST_GUILESS_MAIN(TestVisionCli)
// A distilled DeiT from its image (resize 28², centre crop 24², bicubic): two special tokens named [CLS] [DIST], the
// attention and all three logit vectors against transformers; info reports S = 2 and the two-headed classifier.
void TestVisionCli::deitWithTeacher()
{
    QTemporaryDir dir;
    const QString out = dir.filePath("deit.json"), folder = kFixtures + "models/deit-teacher-d40h4";
    const CliRun run = runCli({"run", "--model", folder, "--image", kFixtures + "vision/gradient_45x37.png", "--out", out});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject j = readJson(out);
    QCOMPARE(j["model"]["architecture"].toString(), QStringLiteral("deit"));
    QCOMPARE(j["model"]["architecture_class"].toString(), QStringLiteral("DeiTForImageClassificationWithTeacher"));
    QCOMPARE(j["model"]["head"].toString(), QStringLiteral("classifier_with_teacher"));
    const QJsonObject input = j["input"].toObject();
    QCOMPARE(input["height"].toInt(), 24);
    QCOMPARE(input["special_tokens"].toInt(), 2);
    QCOMPARE(input["length"].toInt(), 38);
    QCOMPARE(input["tokens"][0].toString(), QStringLiteral("[CLS]"));
    QCOMPARE(input["tokens"][1].toString(), QStringLiteral("[DIST]"));
    QCOMPARE(input["tokens"][2 + 6 + 1].toString(), QStringLiteral("r1c1"));
    const double attErr = attentionError(j["attention"].toArray(), fixture("deit-teacher-image", "attentions.npy"));
    double logitErr = 0.0;
    for (const char *name : {"logits", "cls_logits", "distillation_logits"})
        logitErr = std::max(logitErr, vectorError(j["outputs"][QLatin1String(name)].toArray(),
                                                  fixture("deit-teacher-image", (std::string(name) + ".npy").c_str())));
    qInfo("CLI DeiT with teacher --image: attention %.3g, logits %.3g", attErr, logitErr);
    QVERIFY(attErr <= 1e-5);
    QVERIFY(logitErr <= 1e-4);

    const CliRun info = runCli({"info", "--model", folder});
    QVERIFY2(info.exitCode == 0, info.err.constData());
    const QJsonObject i = QJsonDocument::fromJson(info.out).object();
    QCOMPARE(i["architecture"].toString(), QStringLiteral("deit"));
    QCOMPARE(i["family"].toString(), QStringLiteral("DeiT"));
    QCOMPARE(i["special_tokens"].toInt(), 2);
    QCOMPARE(i["head"].toString(), QStringLiteral("classifier_with_teacher"));
    QCOMPARE(i["labels"].toArray().size(), 4);
}

#include "tst_vision_cli.moc"
