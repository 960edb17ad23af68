// SPDX-License-Identifier: GPL-3.0-or-later
// The bundled Vision Transformer sample (sample_models/shapes-vit): its class is the colour of one cross whose pixels
// are known. AttnScope's engine, on the card's 200 held-out images (eval/, decoded by Qt and prepared per
// preprocessor_config.json), reproduces what tools/sample_models/shapes.py measured with transformers
// (metrics.json): the predictions, the truth patches of each mask, and the pointing game and IoU of every head, each
// layer's mean, the rollout, occlusion and the random expectation. The definitions are the card's.
#include <attnscope/analysis.h>
#include <attnscope/metrics.h>
#include <attnscope/textmodel.h>
#include <attnscope/vit.h>

#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

namespace {

QJsonObject readJson(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object() : QJsonObject();
}

attn::ImageRgb8 decode(const QString &path)
{
    QImage q = QImage(path).convertToFormat(QImage::Format_RGB888);
    attn::ImageRgb8 im{q.width(), q.height(), std::vector<std::uint8_t>(std::size_t(q.width()) * std::size_t(q.height()) * 3)};
    for (int y = 0; y < q.height(); ++y)
        std::copy_n(q.constScanLine(y), std::size_t(q.width()) * 3, im.pixels.begin() + std::ptrdiff_t(y) * q.width() * 3);
    return im;
}

// Indices by descending relevance, ties to the lower index (numpy's argmax and a stable sort).
std::vector<int> ranking(const std::vector<double> &r)
{
    std::vector<int> order(r.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return r[std::size_t(a)] > r[std::size_t(b)]; });
    return order;
}

std::vector<double> softmax(const std::vector<float> &logits)
{
    return attn::softmax(std::vector<double>(logits.begin(), logits.end()));   // metrics.h, in float64
}

} // namespace

class TstVisionSample : public QObject {
    Q_OBJECT
private slots:
    void sampleScoresMatchCard();
};

void TstVisionSample::sampleScoresMatchCard()
{
    auto folder = attn::resolveModelSpec("sample:shapes-vit");
    if (!folder) QSKIP("sample:shapes-vit not found");
    const QString dir = QString::fromStdString(*folder) + QLatin1Char('/');
    auto model = attn::VitModel::loadFolder(*folder);
    QVERIFY2(model.isOk(), model.status().message().c_str());
    const attn::VitConfig &c = model->config();
    const QJsonObject index = readJson(dir + "eval/index.json"), metrics = readJson(dir + "metrics.json")["metrics"].toObject();
    const QJsonArray items = index["items"].toArray();
    QCOMPARE(items.size(), 200);
    const int rows = int(c.patchRows()), cols = int(c.patchCols()), P = rows * cols, ph = int(c.patchHeight), pw = int(c.patchWidth);
    QCOMPARE(P, 64);

    std::map<std::string, double> pointing, iou;
    int correct = 0, truthMismatches = 0;
    for (const QJsonValue v : items) {
        const QJsonObject item = v.toObject();
        auto px = attn::preprocessImage(decode(dir + item["image"].toString()), *model->preprocessor());
        QVERIFY2(px.isOk(), px.status().message().c_str());
        attn::VitForwardOptions o;
        o.backend = attn::Backend::Reference;
        auto r = model->forward(*px, o);
        QVERIFY2(r.isOk(), r.status().message().c_str());
        const std::vector<double> p = softmax(r->logits);
        const int predicted = int(std::max_element(p.begin(), p.end()) - p.begin());
        correct += predicted == item["label"].toInt();
        QCOMPARE(predicted, item["predicted"].toInt());

        // The truth: patches with at least 4 of their 16 pixels in the mask, against the index's list.
        const QImage mask = QImage(dir + item["mask"].toString()).convertToFormat(QImage::Format_Grayscale8);
        std::vector<int> truth;
        for (int pr = 0; pr < rows; ++pr)
            for (int pc = 0; pc < cols; ++pc) {
                int inside = 0;
                for (int y = pr * ph; y < (pr + 1) * ph; ++y)
                    for (int x = pc * pw; x < (pc + 1) * pw; ++x) inside += mask.constScanLine(y)[x] >= 128;
                if (inside >= 4) truth.push_back(pr * cols + pc);
            }
        std::vector<int> listed;
        for (const QJsonValue t : item["truth_patches"].toArray()) listed.push_back(t.toInt());
        truthMismatches += truth != listed;
        const auto isTruth = [&](int patch) { return std::find(truth.begin(), truth.end(), patch) != truth.end(); };
        const int k = int(truth.size());
        const auto score = [&](const std::string &method, const std::vector<double> &relevance) {
            const std::vector<int> order = ranking(relevance);
            pointing[method] += isTruth(order[0]);
            int hit = 0;
            for (int i = 0; i < k; ++i) hit += isTruth(order[std::size_t(i)]);
            iou[method] += double(hit) / double(2 * k - hit);
        };

        // Attention: the CLS row over the patches, per head and per layer mean; the rollout.
        const int T = int(r->length);
        std::vector<std::vector<double>> means;
        for (int l = 0; l < int(c.layers); ++l) {
            std::vector<const float *> heads;
            for (int h = 0; h < int(c.heads); ++h) {
                const std::vector<float> &a = r->attentions[std::size_t(l) * std::size_t(c.heads) + std::size_t(h)];
                heads.push_back(a.data());
                score("L" + std::to_string(l) + " H" + std::to_string(h), std::vector<double>(a.begin() + 1, a.begin() + T));
            }
            means.push_back(attn::meanOverHeads(heads, T));
            score("L" + std::to_string(l) + " mean", std::vector<double>(means.back().begin() + 1, means.back().begin() + T));
        }
        auto rollout = attn::attentionRollout(means, T);
        QVERIFY(rollout.isOk());
        score("rollout", std::vector<double>(rollout->begin() + 1, rollout->begin() + T));

        // Occlusion: each patch's pixels set to 0.0 (grey) in all channels; the predicted class's probability drop.
        std::vector<double> drop(static_cast<std::size_t>(P));
        attn::VitForwardOptions fast;
        fast.captureAttentions = false;
        for (int patch = 0; patch < P; ++patch) {
            attn::PixelValues occluded = *px;
            const int pr = patch / cols, pc = patch % cols;
            for (int ch = 0; ch < 3; ++ch)
                for (int y = pr * ph; y < (pr + 1) * ph; ++y)
                    for (int x = pc * pw; x < (pc + 1) * pw; ++x)
                        occluded.values[std::size_t(ch) * std::size_t(px->height * px->width) + std::size_t(y) * std::size_t(px->width) + std::size_t(x)] = 0.0f;
            auto ro = model->forward(occluded, fast);
            QVERIFY(ro.isOk());
            drop[std::size_t(patch)] = p[std::size_t(predicted)] - softmax(ro->logits)[std::size_t(predicted)];
        }
        score("occlusion", drop);
    }
    QCOMPARE(truthMismatches, 0);
    QCOMPARE(double(correct) / items.size(), metrics["accuracy"].toDouble());
    // Every method of the card, within two images' worth of pointing (a float32 tie broken the other way) and 0.01 IoU.
    const QJsonObject cardPointing = metrics["pointing"].toObject(), cardIou = metrics["iou"].toObject();
    int methods = 0;
    for (const auto &[method, hits] : pointing) {
        const double ours = hits / items.size(), oursIou = iou[method] / items.size();
        const double card = cardPointing[QString::fromStdString(method)].toDouble(-1), cardI = cardIou[QString::fromStdString(method)].toDouble(-1);
        qInfo("%-10s pointing %.3f (card %.3f)  IoU %.4f (card %.4f)", method.c_str(), ours, card, oursIou, cardI);
        QVERIFY2(card >= 0 && std::abs(ours - card) <= 0.0101, method.c_str());
        QVERIFY2(cardI >= 0 && std::abs(oursIou - cardI) <= 0.01, method.c_str());
        ++methods;
    }
    QCOMPARE(methods, int(c.layers * c.heads + c.layers + 2));
    // The card's finding holds here too: the rollout points at the cross far above the random expectation.
    QVERIFY(pointing["rollout"] / items.size() > cardPointing["random"].toDouble() + 0.5);
}

QTEST_MAIN(TstVisionSample)
#include "tst_vision_sample.moc"
