// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/vision/visionrun.h"

#include <attnscope/analysis.h>
#include <attnscope/metrics.h>
#include <attnscope/textmodel.h>

#include <QDir>
#include <QFileInfo>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace attnui {

std::optional<attn::ImageRgb8> decodeImageFile(const QString &path, QString *error)
{
    QImage q(path);
    if (q.isNull()) {
        if (error) *error = QStringLiteral("%1: cannot read or decode the image").arg(path);
        return std::nullopt;
    }
    q = q.convertToFormat(QImage::Format_RGB888);
    attn::ImageRgb8 im{q.width(), q.height(), std::vector<std::uint8_t>(std::size_t(q.width()) * std::size_t(q.height()) * 3)};
    for (int y = 0; y < q.height(); ++y)
        std::copy_n(q.constScanLine(y), std::size_t(q.width()) * 3, im.pixels.begin() + std::ptrdiff_t(y) * q.width() * 3);
    return im;
}

QJsonObject visionLessonState(const QJsonObject &state, const QString &model)
{
    QJsonObject out = state;
    if (!out.contains(QStringLiteral("model")) && !model.isEmpty()) out.insert(QStringLiteral("model"), model);
    const QString image = out.value(QStringLiteral("image")).toString();
    if (!image.isEmpty() && QFileInfo(image).isRelative())
        if (auto folder = attn::resolveModelSpec(out.value(QStringLiteral("model")).toString().toStdString()))
            out.insert(QStringLiteral("image"), QDir(QString::fromStdString(*folder)).filePath(image));
    return out;
}

QString visionModelName(const QString &folder)
{
    if (folder.startsWith(QLatin1String("sample:"))) return folder.mid(7);
    return QFileInfo(folder).fileName();
}

QString visionTokenLabel(int token, int special, int cols)
{
    return QString::fromStdString(attn::vitTokenLabel(token, special, cols));
}

QStringList VisionSnapshot::tokenLabels() const
{
    QStringList l;
    for (int t = 0; t < length; ++t) l << visionTokenLabel(t, special, cols);
    return l;
}

QString VisionSnapshot::queryText(int token, bool article) const
{
    QString t = token <= 0        ? QStringLiteral("the CLS token")
                : token < special ? QStringLiteral("the distillation token")
                                  : QStringLiteral("patch %1").arg(visionTokenLabel(token, special, cols));
    return article || token >= special ? t : t.mid(4);
}

std::vector<double> VisionSnapshot::matrix(VisionSource source, int layer, int head) const
{
    const std::size_t T = std::size_t(length);
    layer = std::clamp(layer, 0, std::max(0, layers - 1));
    switch (source) {
    case VisionSource::Occlusion: return perturbation ? perturbation->occlusion : std::vector<double>(std::size_t(patches()), 0.0);
    case VisionSource::Rollout: return rollout;
    case VisionSource::Mean: return means.at(std::size_t(layer));
    case VisionSource::Head: break;
    }
    head = std::clamp(head, 0, std::max(0, heads - 1));
    const std::vector<float> &a = result.attentions.at(std::size_t(layer) * std::size_t(heads) + std::size_t(head));
    std::vector<double> m(T * T);
    std::copy(a.begin(), a.end(), m.begin());
    return m;
}

std::vector<double> VisionSnapshot::patchRow(VisionSource source, int layer, int head, int query) const
{
    const std::vector<double> m = matrix(source, layer, head);
    if (source == VisionSource::Occlusion) return m;
    const std::size_t T = std::size_t(length), q = std::size_t(std::clamp(query, 0, length - 1));
    // The columns after the special tokens are the patches (the CLS column is not a place in the image).
    const std::size_t first = std::size_t(std::max<std::int64_t>(1, result.specialTokens));
    return std::vector<double>(m.begin() + std::ptrdiff_t(q * T + first), m.begin() + std::ptrdiff_t(q * T + T));
}

attn::Result<std::shared_ptr<Snapshot>> runVisionJob(const VisionRequest &request, const JobContext &ctx)
{
    using attn::Status;
    VitModelPtr model = request.model;
    if (!model) {
        auto folder = attn::resolveModelSpec(request.folder.toStdString());
        if (!folder) return folder.status();
        if (!attn::isVitFolder(*folder))
            return Status::invalid(request.folder.toStdString() + ": not a Vision Transformer folder (config.json "
                                                                  "model_type \"vit\" or \"deit\")");
        auto loaded = attn::VitModel::loadFolder(*folder);
        if (!loaded) return loaded.status();
        model = std::make_shared<const attn::VitModel>(std::move(loaded).value());
    }
    if (request.image.isEmpty()) return Status::invalid("image: open an image (File ▸ Open Image, or drop one here)");
    if (!model->preprocessor())
        return Status::invalid(request.folder.toStdString() + ": no preprocessor_config.json, so an image cannot be "
                                                              "prepared for this model");
    QString error;
    const auto image = decodeImageFile(request.image, &error);
    if (!image) return Status::invalid(error.toStdString());
    auto px = attn::preprocessImage(*image, *model->preprocessor());
    if (!px) return Status::invalid(request.image.toStdString() + ": " + px.status().message());

    const attn::VitConfig &c = model->config();
    attn::VitForwardOptions options;
    options.backend = request.backend;
    options.interpolatePositions = px->height != c.imageHeight || px->width != c.imageWidth;
    options.progress = ctx.progressFn();
    options.cancel = ctx.cancelFn();
    auto result = model->forward(*px, options);
    if (!result) return result.status();

    auto snap = std::make_shared<VisionSnapshot>();
    snap->model = model;
    snap->request = request;
    snap->request.model = model;
    snap->imageWidth = int(image->width);
    snap->imageHeight = int(image->height);
    snap->interpolated = options.interpolatePositions;
    snap->layers = int(c.layers);
    snap->heads = int(c.heads);
    snap->result = std::move(result).value();
    snap->pixels = *px;
    snap->rows = int(snap->result.patchRows);
    snap->cols = int(snap->result.patchCols);
    snap->length = int(snap->result.length);
    snap->special = int(snap->result.specialTokens);
    snap->backend = attn::backendName(snap->result.backend);

    // What the model saw, back in RGB: x · std + mean (when normalized), ÷ rescale_factor (when rescaled).
    const attn::PreprocessorConfig &pre = *model->preprocessor();
    const int H = int(px->height), W = int(px->width);
    snap->input = QImage(W, H, QImage::Format_RGB888);
    for (int y = 0; y < H; ++y) {
        uchar *line = snap->input.scanLine(y);
        for (int x = 0; x < W; ++x)
            for (int ch = 0; ch < 3; ++ch) {
                double v = px->values[std::size_t(ch) * std::size_t(H) * std::size_t(W) + std::size_t(y) * std::size_t(W) + std::size_t(x)];
                if (pre.doNormalize) v = v * pre.imageStd[std::size_t(ch)] + pre.imageMean[std::size_t(ch)];
                if (pre.doRescale && pre.rescaleFactor > 0) v /= pre.rescaleFactor;
                line[x * 3 + ch] = uchar(std::clamp(std::lround(v), 0L, 255L));
            }
    }

    // The true region, when the image comes with a mask.
    if (!request.mask.isEmpty()) {
        QImage mask(request.mask);
        if (mask.isNull()) return Status::invalid(request.mask.toStdString() + ": cannot read or decode the mask");
        mask = mask.convertToFormat(QImage::Format_Grayscale8);
        if (mask.size() != snap->input.size()) mask = mask.scaled(snap->input.size(), Qt::IgnoreAspectRatio, Qt::FastTransformation);
        const int rows = snap->rows, cols = snap->cols, ph = H / rows, pw = W / cols;
        snap->truth.assign(std::size_t(rows) * std::size_t(cols), 0);
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c) {
                int inside = 0;
                for (int y = r * ph; y < (r + 1) * ph; ++y)
                    for (int x = c * pw; x < (c + 1) * pw; ++x) inside += mask.constScanLine(y)[x] >= 128;
                snap->truth[std::size_t(r * cols + c)] = 4 * inside >= ph * pw;
            }
    }

    // Each layer's mean over heads, and the rollout through every layer.
    const int T = snap->length;
    for (int l = 0; l < snap->layers; ++l) {
        std::vector<const float *> heads;
        for (int h = 0; h < snap->heads; ++h)
            heads.push_back(snap->result.attentions.at(std::size_t(l) * std::size_t(snap->heads) + std::size_t(h)).data());
        snap->means.push_back(attn::meanOverHeads(heads, T));
    }
    auto rollout = attn::attentionRollout(snap->means, T);
    if (!rollout) return rollout.status();
    snap->rollout = std::move(rollout).value();

    // A classifier's most likely labels (softmax over the logits).
    if (!snap->result.logits.empty()) {
        const std::vector<float> &z = snap->result.logits;
        const std::vector<double> p = attn::softmax(std::vector<double>(z.begin(), z.end()));
        std::vector<std::size_t> order(z.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] > p[b]; });
        for (std::size_t k = 0; k < std::min<std::size_t>(5, order.size()); ++k) {
            const std::size_t i = order[k];
            const QString label = i < c.labels.size() ? QString::fromStdString(c.labels[i]) : QStringLiteral("LABEL_%1").arg(i);
            snap->top.push_back({label, p[i]});
        }
    }
    // The perturbation checks: each layer's mean CLS attention and the rollout, against occlusion and random orders.
    if (request.perturb && c.classifier) {
        std::vector<std::pair<std::string, std::vector<double>>> methods;
        for (int l = 0; l < snap->layers; ++l)
            methods.emplace_back("L" + std::to_string(l) + " mean", snap->patchRow(VisionSource::Mean, l, 0, 0));
        methods.emplace_back("rollout", snap->patchRow(VisionSource::Rollout, 0, 0, 0));
        attn::VitPerturbationOptions po;
        po.substrate = request.substrate;
        po.backend = request.backend;
        po.cancel = ctx.cancelFn();
        po.progress = ctx.progressFn();
        auto checks = attn::vitPerturbation(*model, *px, methods, po);
        if (!checks) return checks.status();
        snap->perturbation = std::move(checks).value();
    }
    return std::shared_ptr<Snapshot>(std::move(snap));
}

} // namespace attnui
