// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Vision workspace's job, on a worker thread through EngineRunner: open the ViT folder when the request names a
// path rather than a loaded model, decode the image with Qt (to RGB8, alpha dropped, as PIL's convert("RGB")),
// let the engine resize, rescale and normalize it per preprocessor_config.json (image.h), and run the forward pass
// capturing every layer's attention. The snapshot also holds what the model saw (the pixel values mapped back to
// RGB), each layer's mean over heads and the attention rollout, so the view only slices.
//
// Tokens: index 0 is the CLS token, DeiT's distillation token is 1, S + p is patch p (S = 1 for ViT, 2 for DeiT;
// p = row · cols + col, rows top to bottom); labels "[CLS]", "[DIST]" and "r{row}c{col}", as `attnscope-cli run
// --image` names them (attn::vitTokenLabel). Layers and heads count from 0.

#include "runner/enginerunner.h"

#include <attnscope/vit.h>
#include <attnscope/vitfaithfulness.h>

#include <QImage>
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>
#include <vector>

namespace attnui {

using VitModelPtr = std::shared_ptr<const attn::VitModel>;

// Decodes an image file with Qt to 8-bit RGB (alpha dropped). The error names the file.
std::optional<attn::ImageRgb8> decodeImageFile(const QString &path, QString *error);

// What relevance the overlay shows for a query token: one head's attention row, the layer's mean over heads, the
// rollout through every layer (Abnar & Zuidema, with the residual; analysis.h attentionRollout), or — with the
// perturbation checks on — occlusion (the drop of the predicted class's probability when a patch is removed; no
// query: it is about the prediction).
enum class VisionSource { Head, Mean, Rollout, Occlusion };

struct VisionRequest {
    VitModelPtr model;   // loaded; null: open `folder` first
    QString folder;      // a ViT folder or sample:NAME
    QString image;       // an image file Qt can decode
    QString mask;        // its true region's mask (a card example's), or empty
    // Perturbation checks (vitfaithfulness.h): occlusion, and deletion / insertion curves of each layer's mean CLS
    // attention, the rollout, occlusion and a random baseline. One forward pass per point: off by default.
    bool perturb = false;
    // What a removed patch becomes: the mean colour (0 after normalization) or the blurred image's pixels (RISE's
    // insertion substrate; σ = 5, radius 5 pixels).
    attn::PatchSubstrate substrate = attn::PatchSubstrate::Fill;
    attn::Backend backend = attn::Backend::Auto;
};

struct VisionSnapshot : Snapshot {
    VitModelPtr model;
    VisionRequest request;
    int imageWidth = 0, imageHeight = 0;     // the decoded file
    QImage input;                            // what the model saw: pixel_values undone (× std + mean, ÷ rescale)
    attn::PixelValues pixels;                // what ran
    attn::VitForwardResult result;
    bool interpolated = false;               // positions interpolated (an input of another size than image_size)
    int layers = 0, heads = 0, rows = 0, cols = 0, length = 0;
    int special = 1;                         // S, the tokens before the patches: 1 ([CLS]) or 2 (DeiT: [CLS] [DIST])
    std::vector<std::vector<double>> means;  // [layers] of [T, T]: the mean over heads
    std::vector<double> rollout;             // [T, T] through every layer
    struct Prediction {
        QString label;
        double probability = 0.0;
    };
    std::vector<Prediction> top;             // a classifier's five most likely labels, best first; else empty
    std::optional<attn::VitPerturbation> perturbation;   // request.perturb on a classifier
    // [rows · cols] 1 for the patches with at least a quarter of their pixels in request.mask (at the size the model
    // saw; the card's definition); empty without a mask.
    std::vector<std::uint8_t> truth;

    int patches() const { return rows * cols; }
    QStringList tokenLabels() const;         // [T]: "[CLS]", ("[DIST]"), "r0c0", …
    // "the CLS token", "the distillation token" or "patch r2c3"; `article` false drops the "the ".
    QString queryText(int token, bool article = true) const;
    // [T, T] (queries × keys) for a head, a layer's mean or the rollout (layer ignored); occlusion: [rows, cols].
    std::vector<double> matrix(VisionSource source, int layer, int head) const;
    // [rows · cols]: the query token's row of that matrix over the patches (the CLS column left out); occlusion's
    // drops (the query ignored).
    std::vector<double> patchRow(VisionSource source, int layer, int head, int query) const;
};

QString visionModelName(const QString &folder);   // sample:NAME → NAME; a folder → its last component
// 0 → "[CLS]", 1 < S → "[DIST]", S + p → "r{p / cols}c{p % cols}" (attn::vitTokenLabel, as run --image)
QString visionTokenLabel(int token, int special, int cols);

attn::Result<std::shared_ptr<Snapshot>> runVisionJob(const VisionRequest &request, const JobContext &ctx);

// The state a lesson in the Vision workspace starts from (lessons/lessons.h has the encoder–decoder one; this one
// needs the engine to find the folder): the lesson's model as "model", and a relative "image" taken as a path inside
// the model's folder (a sample's examples/…), so a lesson names its picture wherever the samples are installed.
QJsonObject visionLessonState(const QJsonObject &state, const QString &model);

} // namespace attnui
