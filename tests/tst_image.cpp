// SPDX-License-Identifier: GPL-3.0-or-later
// Image preprocessing (image.h, npy.h) against Pillow, transformers' PIL-backend processors and torch
// (tests/fixtures/images, tools/make_image_fixtures.py): resize bit for bit for all six filters, pixel_values and
// the position-embedding interpolation within 1e-6; hand-worked resize cases; every parser refusal names its field.

#include <attnscope/image.h>
#include <attnscope/npy.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>
#include <cstring>

using namespace attn;

namespace {

const QString kDir = QStringLiteral(ATTNSCOPE_TEST_DATA_DIR "/fixtures/images/");

QByteArray msg(const std::string &s) { return QByteArray::fromStdString(s); }

QJsonObject fixtureIndex()
{
    QFile f(kDir + "index.json");
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

// Binary PPM (P6, maxval 255) as written by the fixture script: "P6\n<w> <h>\n255\n" then RGB bytes.
ImageRgb8 readPpm(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    const QByteArray all = f.readAll();
    QList<QByteArray> head;
    qsizetype pos = 0;
    while (head.size() < 4 && pos < all.size()) {
        const qsizetype end = all.indexOf(head.size() == 1 ? ' ' : '\n', pos);
        if (end < 0) return {};
        head.append(all.mid(pos, end - pos));
        pos = end + 1;
    }
    if (head.size() != 4 || head[0] != "P6" || head[3] != "255") return {};
    ImageRgb8 im{head[1].toLongLong(), head[2].toLongLong(), {}};
    im.pixels.assign(all.begin() + pos, all.end());
    return im;
}

std::string npyBytes(const std::string &header, std::size_t dataBytes, int major = 1)
{
    std::string h = header;
    const std::size_t prefix = major == 1 ? 10 : 12;
    while ((prefix + h.size() + 1) % 64 != 0) h += ' ';
    h += '\n';
    std::string out = "\x93NUMPY";
    out += static_cast<char>(major);
    out += '\0';
    const std::size_t n = h.size();
    out += static_cast<char>(n & 0xff);
    out += static_cast<char>((n >> 8) & 0xff);
    if (major != 1) {
        out += static_cast<char>((n >> 16) & 0xff);
        out += static_cast<char>((n >> 24) & 0xff);
    }
    return out + h + std::string(dataBytes, '\0');
}

} // namespace

class TestImage : public QObject {
    Q_OBJECT

private slots:
    void resizeMatchesPillow_data();
    void resizeMatchesPillow();
    void resizeHandWorked_data();
    void resizeHandWorked();
    void preprocessMatchesTransformers_data();
    void preprocessMatchesTransformers();
    void positionGridMatchesTorch_data();
    void positionGridMatchesTorch();
    void positionGridIdentityAndConstant();
    void configDefaultsAndForms();
    void configErrors_data();
    void configErrors();
    void imageAndResizeErrors();
    void npyReads_data();
    void npyReads();
    void npyErrors_data();
    void npyErrors();
    void pixelValuesShapeChecked();
};

void TestImage::resizeMatchesPillow_data()
{
    QTest::addColumn<QString>("input");
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::addColumn<int>("resample");
    QTest::addColumn<QString>("expected");
    const QJsonArray cases = fixtureIndex()["resize"].toArray();
    QVERIFY2(cases.size() >= 54, "tests/fixtures/images/index.json: missing resize cases");
    for (const QJsonValue &v : cases) {
        const QJsonObject c = v.toObject();
        const int code = c["resample"].toInt();
        QTest::addRow("%s -> %dx%d %s", qPrintable(c["input"].toString()), c["width"].toInt(), c["height"].toInt(),
                      resampleName(static_cast<Resample>(code)).c_str())
            << c["input"].toString() << c["width"].toInt() << c["height"].toInt() << code << c["expected"].toString();
    }
}

void TestImage::resizeMatchesPillow()
{
    QFETCH(QString, input);
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(int, resample);
    QFETCH(QString, expected);
    const ImageRgb8 in = readPpm(kDir + input), want = readPpm(kDir + expected);
    QVERIFY2(validateImage(in).isOk() && validateImage(want).isOk(), "unreadable fixture");
    auto got = resizeImage(in, width, height, static_cast<Resample>(resample));
    QVERIFY2(got.isOk(), msg(got.status().message()));
    QCOMPARE(got->width, want.width);
    QCOMPARE(got->height, want.height);
    int maxDiff = 0, differing = 0;
    for (std::size_t i = 0; i < want.pixels.size(); ++i) {
        const int d = std::abs(int(got->pixels[i]) - int(want.pixels[i]));
        maxDiff = std::max(maxDiff, d);
        differing += d != 0;
    }
    QVERIFY2(maxDiff == 0, qPrintable(QString("%1 of %2 bytes differ from Pillow, by up to %3")
                                           .arg(differing).arg(want.pixels.size()).arg(maxDiff)));
}

void TestImage::resizeHandWorked_data()
{
    QTest::addColumn<std::vector<std::uint8_t>>("in");    // one row of grey pixels (R = G = B)
    QTest::addColumn<int>("outWidth");
    QTest::addColumn<int>("resample");
    QTest::addColumn<std::vector<std::uint8_t>>("want");
    // 2 → 1 bilinear: scale 2 widens the triangle to support 2 around centre 1; taps at 0 and 1 get weight
    // 1 − |0.5 − 1|/2 = 0.75 each, normalised to 1/2 = 2^21 in 22-bit fixed point; (2^21 + 10·2^21 + 21·2^21) >> 22
    // = 16 (15.5 rounded half up).
    QTest::newRow("bilinear 2->1 rounds half up") << std::vector<std::uint8_t>{10, 21} << 1 << 2
                                                  << std::vector<std::uint8_t>{16};
    // 4 → 2 box: each output averages two inputs; (2^21 + 2^21·(0 + 255)) >> 22 = 128, (2^21 + 2^21·(7 + 8)) >> 22 = 8.
    QTest::newRow("box 4->2 averages pairs") << std::vector<std::uint8_t>{0, 255, 7, 8} << 2 << 4
                                             << std::vector<std::uint8_t>{128, 8};
    // 3 → 2 nearest: source positions 0.75 and 2.25 → pixels 0 and 2.
    QTest::newRow("nearest 3->2") << std::vector<std::uint8_t>{1, 2, 3} << 2 << 0 << std::vector<std::uint8_t>{1, 3};
    // 1 → 3 bicubic: every output reads the single pixel with weight 1 → the same value.
    QTest::newRow("bicubic 1->3 constant") << std::vector<std::uint8_t>{77} << 3 << 3
                                           << std::vector<std::uint8_t>{77, 77, 77};
}

void TestImage::resizeHandWorked()
{
    QFETCH(std::vector<std::uint8_t>, in);
    QFETCH(int, outWidth);
    QFETCH(int, resample);
    QFETCH(std::vector<std::uint8_t>, want);
    ImageRgb8 im{static_cast<std::int64_t>(in.size()), 1, {}};
    for (const std::uint8_t v : in) im.pixels.insert(im.pixels.end(), {v, v, v});
    auto got = resizeImage(im, outWidth, 1, static_cast<Resample>(resample));
    QVERIFY2(got.isOk(), msg(got.status().message()));
    for (std::size_t i = 0; i < want.size(); ++i)
        for (std::size_t c = 0; c < 3; ++c) QCOMPARE(int(got->pixels[i * 3 + c]), int(want[i]));
}

void TestImage::preprocessMatchesTransformers_data()
{
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("config");
    QTest::addColumn<QString>("expected");
    const QJsonArray cases = fixtureIndex()["preprocess"].toArray();
    QVERIFY2(cases.size() >= 6, "tests/fixtures/images/index.json: missing preprocess cases");
    for (const QJsonValue &v : cases) {
        const QJsonObject c = v.toObject();
        QTest::addRow("%s", qPrintable(c["name"].toString()))
            << c["input"].toString() << c["config"].toString() << c["expected"].toString();
    }
}

void TestImage::preprocessMatchesTransformers()
{
    QFETCH(QString, input);
    QFETCH(QString, config);
    QFETCH(QString, expected);
    auto cfg = loadPreprocessorConfig((kDir + config).toStdString());
    QVERIFY2(cfg.isOk(), msg(cfg.status().message()));
    auto want = readPixelValuesNpy((kDir + expected).toStdString());
    QVERIFY2(want.isOk(), msg(want.status().message()));
    auto got = preprocessImage(readPpm(kDir + input), *cfg);
    QVERIFY2(got.isOk(), msg(got.status().message()));
    QCOMPARE(got->height, want->height);
    QCOMPARE(got->width, want->width);
    double maxErr = 0.0;
    for (std::size_t i = 0; i < want->values.size(); ++i)
        maxErr = std::max(maxErr, std::abs(double(got->values[i]) - double(want->values[i])));
    qInfo("max |pixel_values - transformers| = %.3g", maxErr);
    QVERIFY2(maxErr <= 1e-6, qPrintable(QString("max error %1").arg(maxErr)));
}

void TestImage::positionGridMatchesTorch_data()
{
    QTest::addColumn<QJsonObject>("c");
    const QJsonArray cases = fixtureIndex()["posembed"].toArray();
    QVERIFY2(cases.size() >= 7, "tests/fixtures/images/index.json: missing posembed cases");
    for (const QJsonValue &v : cases) {
        const QJsonObject c = v.toObject();
        QTest::addRow("%dx%d d=%d -> %dx%d (%s)", c["in_rows"].toInt(), c["in_cols"].toInt(), c["dim"].toInt(),
                      c["out_rows"].toInt(), c["out_cols"].toInt(), qPrintable(c["source"].toString()))
            << c;
    }
}

void TestImage::positionGridMatchesTorch()
{
    QFETCH(QJsonObject, c);
    auto in = readNpyFloat32((kDir + c["input"].toString()).toStdString());
    auto want = readNpyFloat32((kDir + c["expected"].toString()).toStdString());
    QVERIFY2(in.isOk() && want.isOk(), "unreadable fixture");
    const int dim = c["dim"].toInt();
    auto got = interpolatePositionGrid(in->values.data(), c["in_rows"].toInt(), c["in_cols"].toInt(), dim,
                                       c["out_rows"].toInt(), c["out_cols"].toInt());
    QVERIFY2(got.isOk(), msg(got.status().message()));
    QCOMPARE(got->size(), want->values.size());
    double maxErr = 0.0;
    for (std::size_t i = 0; i < got->size(); ++i)
        maxErr = std::max(maxErr, std::abs(double((*got)[i]) - double(want->values[i])));
    // torch computes the weights in float32 and so do we (posembed.cpp): torch's float32 result is 1.7e-6 away from
    // its own float64 result on the 14×14 → 17×23 grid, mostly from those weights, and we are ≤ 1e-6 from it.
    qInfo("max |interpolated - torch float32| = %.3g", maxErr);
    QVERIFY2(maxErr <= 1e-6, qPrintable(QString("max error %1").arg(maxErr)));
}

void TestImage::positionGridIdentityAndConstant()
{
    // Same size: src = dst, t = 0, weights (0, 1, 0, 0) → the grid itself, exactly.
    std::vector<float> grid(5 * 3 * 2);
    for (std::size_t i = 0; i < grid.size(); ++i) grid[i] = 0.1f * float(i) - 1.0f;
    auto same = interpolatePositionGrid(grid.data(), 5, 3, 2, 5, 3);
    QVERIFY(same.isOk());
    QCOMPARE(*same, grid);
    // Cubic-convolution weights sum to 1 and taps are clamped: a constant grid stays constant at any size (up to
    // the float32 rounding of the four weights per axis, as torch's: ≤ 8 · 2^-24 relative).
    std::vector<float> constant(4 * 4, 0.625f);
    auto big = interpolatePositionGrid(constant.data(), 4, 4, 1, 9, 2);
    QVERIFY(big.isOk());
    for (const float v : *big) QVERIFY(std::abs(v - 0.625f) <= 0.625f * 8 * 0x1p-24f);
    QVERIFY(!interpolatePositionGrid(grid.data(), 0, 3, 2, 5, 3).isOk());
    QVERIFY(!interpolatePositionGrid(grid.data(), 5, 3, 0, 5, 3).isOk());
    QVERIFY(!interpolatePositionGrid(grid.data(), 5, 3, 2, 9000, 3).isOk());
}

void TestImage::configDefaultsAndForms()
{
    auto empty = parsePreprocessorConfig("{}", "p.json");
    QVERIFY2(empty.isOk(), msg(empty.status().message()));
    QCOMPARE(empty->height, 224);
    QCOMPARE(empty->width, 224);
    QCOMPARE(int(empty->resample), int(Resample::Bilinear));
    QCOMPARE(empty->rescaleFactor, 1.0 / 255.0);
    QCOMPARE(empty->imageMean[2], 0.5);
    auto square = parsePreprocessorConfig(R"({"size": 384, "image_std": 0.25})", "p.json");
    QVERIFY(square.isOk());
    QCOMPARE(square->height, 384);
    QCOMPARE(square->width, 384);
    QCOMPARE(square->imageStd[1], 0.25);
    auto shortest = parsePreprocessorConfig(R"({"size": {"shortest_edge": 20}})", "p.json");
    QVERIFY(shortest.isOk());
    QCOMPARE(int(shortest->sizeMode), int(PreprocessorConfig::SizeMode::ShortestEdge));
    auto size = preprocessedSize(*shortest, 61, 97);   // int(20 · 97 / 61) = 31
    QVERIFY(size.isOk());
    QCOMPARE(size->height, 20);
    QCOMPARE(size->width, 31);
}

void TestImage::configErrors_data()
{
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("expected");
    QTest::newRow("not json") << "{" << "p.json: not valid JSON";
    QTest::newRow("not an object") << "[1]" << "p.json: the top level is not a JSON object";
    QTest::newRow("resample 7") << R"({"resample": 7})" << "field 'resample' is 7, not a PIL filter code";
    QTest::newRow("resample string") << R"({"resample": "bilinear"})" << "field 'resample' is \"bilinear\"";
    QTest::newRow("size 0") << R"({"size": 0})" << "field 'size' is 0; expected 1 … 8192";
    QTest::newRow("size huge") << R"({"size": {"height": 9000, "width": 3}})" << "field 'size.height' is 9000";
    QTest::newRow("size only height") << R"({"size": {"height": 9}})" << "field 'size' needs both height and width";
    QTest::newRow("size longest_edge") << R"({"size": {"shortest_edge": 9, "longest_edge": 20}})"
                                       << "field 'size.longest_edge' is not supported";
    QTest::newRow("size list") << R"({"size": [1, 2]})" << "field 'size' is [1,2]; expected an integer";
    QTest::newRow("size float") << R"({"size": {"height": 2.5, "width": 2}})" << "field 'size.height' is 2.5";
    QTest::newRow("crop shortest") << R"({"crop_size": {"shortest_edge": 9}})"
                                   << "field 'crop_size.shortest_edge' is not supported";
    QTest::newRow("do_resize string") << R"({"do_resize": "yes"})" << "field 'do_resize' is \"yes\"; expected true";
    QTest::newRow("rescale 0") << R"({"rescale_factor": 0})" << "field 'rescale_factor' is 0; expected > 0";
    QTest::newRow("rescale string") << R"({"rescale_factor": "1/255"})" << "field 'rescale_factor' is \"1/255\"";
    QTest::newRow("mean two") << R"({"image_mean": [0.5, 0.5]})" << "field 'image_mean' is [0.5,0.5]";
    QTest::newRow("mean item") << R"({"image_mean": [0.5, null, 0.5]})" << "field 'image_mean[1]' is null";
    QTest::newRow("std zero") << R"({"image_std": [0.5, 0.0, 0.5]})" << "field 'image_std' has 0 for channel 1";
    QTest::newRow("clip processor") << R"({"image_processor_type": "CLIPImageProcessor"})"
                                    << "field 'image_processor_type' is \"CLIPImageProcessor\"; supported";
    QTest::newRow("type number") << R"({"feature_extractor_type": 3})" << "field 'feature_extractor_type' is 3";
    QTest::newRow("do_pad") << R"({"do_pad": true})" << "field 'do_pad' is true: that step is not part";
}

void TestImage::configErrors()
{
    QFETCH(QString, json);
    QFETCH(QString, expected);
    auto r = parsePreprocessorConfig(json.toStdString(), "p.json");
    QVERIFY(!r.isOk());
    QVERIFY2(r.status().message().find(expected.toStdString()) != std::string::npos, msg(r.status().message()));
    QVERIFY(r.status().message().rfind("p.json: ", 0) == 0);
    auto missing = loadPreprocessorConfig("/nonexistent/preprocessor_config.json");
    QCOMPARE(int(missing.status().code()), int(ErrorCode::IoError));
}

void TestImage::imageAndResizeErrors()
{
    ImageRgb8 bad{2, 2, std::vector<std::uint8_t>(11)};
    QVERIFY(validateImage(bad).message().find("11 bytes of pixels for 2×2×3") != std::string::npos);
    QVERIFY(!validateImage(ImageRgb8{0, 3, {}}).isOk());
    QVERIFY(!validateImage(ImageRgb8{70000, 1, std::vector<std::uint8_t>(210000)}).isOk());
    ImageRgb8 ok{2, 2, std::vector<std::uint8_t>(12, 9)};
    QVERIFY(!resizeImage(ok, 0, 3, Resample::Bilinear).isOk());
    QVERIFY(!resizeImage(ok, 8193, 1, Resample::Bilinear).isOk());
    QVERIFY(!resizeImage(ok, 5000, 5000, Resample::Bilinear).isOk());   // 2^24 pixels is the limit
    // A tall strip widened first: the horizontal pass alone would be 4096 × 65535 pixels (over 2^26).
    const ImageRgb8 strip{1, 65535, std::vector<std::uint8_t>(65535 * 3, 7)};
    auto wide = resizeImage(strip, 4096, 4096, Resample::Bilinear);
    QVERIFY(!wide.isOk() && wide.status().message().find("intermediate image over 2^26") != std::string::npos);
    auto same = resizeImage(ok, 2, 2, Resample::Lanczos);
    QVERIFY(same.isOk() && same->pixels == ok.pixels);
    PreprocessorConfig crop;
    crop.doCenterCrop = true;
    crop.cropHeight = 300;
    auto r = preprocessImage(ok, crop);
    QVERIFY(!r.isOk() && r.status().message().find("crop_size 300×224") != std::string::npos);
}

void TestImage::npyReads_data()
{
    QTest::addColumn<QString>("header");
    QTest::addColumn<int>("major");
    QTest::addColumn<QList<qint64>>("shape");
    QTest::newRow("v1 3-d") << "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2, 1), }" << 1
                            << QList<qint64>{3, 2, 1};
    QTest::newRow("v2 1-d tuple") << "{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }" << 2
                                  << QList<qint64>{5};
    QTest::newRow("v3 scalar, other order") << "{\"shape\": (), \"fortran_order\": False, \"descr\": \"<f4\"}" << 3
                                            << QList<qint64>{};
    QTest::newRow("zero-size") << "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 7), }" << 1
                               << QList<qint64>{0, 7};
}

void TestImage::npyReads()
{
    QFETCH(QString, header);
    QFETCH(int, major);
    QFETCH(QList<qint64>, shape);
    std::size_t n = 1;
    for (const qint64 d : shape) n *= std::size_t(d);
    std::string bytes = npyBytes(header.toStdString(), n * 4, major);
    if (n > 0) {   // the last value: 1.5f little-endian
        const float v = 1.5f;
        std::memcpy(bytes.data() + bytes.size() - 4, &v, 4);
    }
    auto a = parseNpyFloat32(bytes, "a.npy");
    QVERIFY2(a.isOk(), msg(a.status().message()));
    QCOMPARE(a->shape, std::vector<std::int64_t>(shape.begin(), shape.end()));
    QCOMPARE(a->values.size(), n);
    if (n > 0) QCOMPARE(a->values.back(), 1.5f);
}

void TestImage::npyErrors_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected");
    const auto file = [](const std::string &header, std::size_t data, int major = 1) {
        return QByteArray::fromStdString(npyBytes(header, data, major));
    };
    QTest::newRow("no magic") << QByteArray("PK\x03\x04 not npy") << "a.npy: not a .npy file";
    QTest::newRow("version 4") << file("{}", 0, 4) << "a.npy: .npy format version 4.0 is not supported";
    QTest::newRow("float64") << file("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", 16)
                             << "header field 'descr' is '<f8'; expected '<f4'";
    QTest::newRow("big-endian") << file("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8)
                                << "header field 'descr' is '>f4'";
    QTest::newRow("fortran") << file("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", 8)
                             << "header field 'fortran_order' is True; expected False";
    QTest::newRow("no shape") << file("{'descr': '<f4', 'fortran_order': False, }", 8)
                              << "header field 'shape' is missing";
    QTest::newRow("negative dim") << file("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", 8)
                                  << "header field 'shape' holds something other than non-negative integers";
    QTest::newRow("short data") << file("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 8)
                                << "the data holds 8 bytes but 'shape' needs 12";
    QTest::newRow("extra data") << file("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", 8)
                                << "the data holds 8 bytes but 'shape' needs 4";
    QTest::newRow("huge shape") << file("{'descr': '<f4', 'fortran_order': False, 'shape': (65536, 65536), }", 0)
                                << "header field 'shape' holds more data than the limit";
    QTest::newRow("unknown key") << file("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", 4)
                                 << "unknown header field 'x'";
    QTest::newRow("object dtype") << file("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", 4)
                                  << "header field 'descr' is not a string";
    QTest::newRow("truncated header") << QByteArray("\x93NUMPY\x01\x00\xff\x00{'descr'", 17)
                                      << "truncated .npy header";
}

void TestImage::npyErrors()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    auto a = parseNpyFloat32(std::string_view(bytes.constData(), std::size_t(bytes.size())), "a.npy",
                             std::size_t(1) << 30);
    QVERIFY(!a.isOk());
    QCOMPARE(int(a.status().code()), int(ErrorCode::FormatError));
    QVERIFY2(a.status().message().find(expected.toStdString()) != std::string::npos, msg(a.status().message()));
    QVERIFY(a.status().message().rfind("a.npy: ", 0) == 0);
}

void TestImage::pixelValuesShapeChecked()
{
    // A [N, D] position-embedding fixture is a valid .npy but not pixel_values: refused by the shape field.
    const QJsonObject c = fixtureIndex()["posembed"].toArray().first().toObject();
    auto r = readPixelValuesNpy((kDir + c["input"].toString()).toStdString());
    QVERIFY(!r.isOk());
    QVERIFY2(r.status().message().find("header field 'shape' is (16, 16); expected (3, H, W)") != std::string::npos,
             msg(r.status().message()));
    QCOMPARE(int(readPixelValuesNpy("/nonexistent.npy").status().code()), int(ErrorCode::IoError));
}

QTEST_APPLESS_MAIN(TestImage)
#include "tst_image.moc"
