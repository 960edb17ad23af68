// SPDX-License-Identifier: GPL-3.0-or-later
// `run --model VIT (--image F.png | --pixel-values F.npy)`: one forward pass of a Vision Transformer (vit.h).
// Qt decodes the image to RGB8 (alpha dropped, as PIL's convert("RGB")); the engine resizes, rescales and
// normalizes it per the folder's preprocessor_config.json. The JSON is the run export's frame (docs/json-format.md,
// "Vision runs") with image fields in `input` and the classifier's outputs.
#include "common.h"
#include "verbs.h"

#include <workspaces/vision/visionrun.h>

#include <attnscope/visionexport.h>
#include <attnscope/vit.h>


#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <numeric>

namespace attncli {

namespace {

// The strings of `info` as the run document writes them.
void putString(std::string &s, const std::string &v) { attn::appendJsonString(s, v); }

struct VisionRun {
    QString image, pixelValuesPath;
    std::int64_t imageWidth = 0, imageHeight = 0;   // the decoded file; 0 with --pixel-values
    attn::VitForwardOptions options;
    std::int64_t topK = 5;
};

} // namespace

std::optional<std::string> visionInfo(const QString &spec)
{
    const auto start = std::chrono::steady_clock::now();
    auto model = attn::VitModel::loadFolder(spec.toStdString());
    if (!model) {
        printError(QStringLiteral("info"), QStringLiteral("--model %1: %2").arg(spec, QString::fromStdString(model.status().message())));
        return std::nullopt;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const attn::VitConfig &c = model->config();
    std::string s = "{\n  \"format\": \"attnscope-info\",\n  \"version\": 1,\n  \"name\": ";
    putString(s, model->name());
    s += ",\n  \"source\": ";
    putString(s, spec.toStdString());
    s += ",\n  \"path\": ";
    putString(s, std::filesystem::absolute(model->source()).lexically_normal().string());
    s += ",\n  \"architecture\": ";
    putString(s, c.modelType);
    s += ",\n  \"architecture_class\": ";
    putString(s, c.architectureClass);
    s += ",\n  \"family\": ";
    putString(s, attn::vitFamily(c));
    s += ",\n  \"head\": \"" + std::string(c.teacher ? "classifier_with_teacher" : c.classifier ? "classifier" : "none") + "\"";
    s += ",\n  \"layers\": " + std::to_string(c.layers) + ",\n  \"heads\": " + std::to_string(c.heads) +
         ",\n  \"d_model\": " + std::to_string(c.hiddenSize) + ",\n  \"d_head\": " + std::to_string(c.dHead) +
         ",\n  \"intermediate_size\": " + std::to_string(c.intermediate) +
         ",\n  \"image_size\": [" + std::to_string(c.imageHeight) + ", " + std::to_string(c.imageWidth) +
         "],\n  \"patch_size\": [" + std::to_string(c.patchHeight) + ", " + std::to_string(c.patchWidth) +
         "],\n  \"patch_grid\": [" + std::to_string(c.patchRows()) + ", " + std::to_string(c.patchCols()) +
         "],\n  \"special_tokens\": " + std::to_string(c.specialTokens()) + ",\n  \"positional\": \"learned\",\n  \"labels\": ";
    if (c.classifier) {
        s += '[';
        for (std::size_t i = 0; i < c.labels.size(); ++i) {
            if (i) s += ", ";
            putString(s, c.labels[i]);
        }
        s += ']';
    } else {
        s += "null";
    }
    s += std::string(",\n  \"preprocessor\": ") + (model->preprocessor() ? "true" : "false");
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", seconds);
    s += std::string(",\n  \"load_seconds\": ") + buf + "\n}\n";
    return s;
}

bool isVisionRun(const QStringList &args)
{
    return std::any_of(args.begin(), args.end(), [](const QString &a) {
        for (const char *o : {"--image", "--pixel-values"})
            if (a == QLatin1String(o) || a.startsWith(QLatin1String(o) + QLatin1Char('='))) return true;
        return false;
    });
}

int visionRunVerb(const QStringList &args)
{
    VerbOptions opts(QStringLiteral("run"), QStringLiteral(
        "Run a Vision Transformer folder (config.json model_type \"vit\" or \"deit\") on one image and write the\n"
        "attention weights [layer][head][S + patches][S + patches] (S special tokens first: [CLS], and DeiT's [DIST]),\n"
        "the patch grid and the classifier's outputs as JSON (docs/json-format.md, \"Vision runs\"). Exactly one of\n"
        "--image and --pixel-values."));
    opts.use({{"model", QStringLiteral("a ViT or DeiT model folder (config.json model_type \"vit\" or \"deit\")")}, "image", "pixel-values",
              "backend", "threads"});
    using T = OptionType;
    opts.add({{"top-k", T::Integer, "K", "predictions listed", "5", 1, 100000},
              {"interpolate-pos-encoding", T::Flag, {},
               "allow pixel_values of another size than the model's image_size (transformers' interpolate_pos_encoding)",
               {}}});
    opts.use({"out", "quiet", "progress"});
    if (auto stop = opts.parse(args)) return *stop;

    const QString verb = opts.verb();
    Chatter chatter;
    if (!opts.readChatter(chatter) || !opts.require({"model", "out"})) return opts.fail();
    VisionRun run;
    if (opts.isSet("image") == opts.isSet("pixel-values"))
        return opts.fail(QStringLiteral("give exactly one of --image and --pixel-values"));
    if (!opts.readBackend(run.options.backend) || !opts.read("threads", run.options.threads) ||
        !opts.read("top-k", run.topK))
        return opts.fail();
    run.options.interpolatePositions = opts.isSet("interpolate-pos-encoding");
    const QString modelPath = opts.value("model");
    if (!attn::isVitFolder(modelPath.toStdString()))
        return opts.fail(QStringLiteral("--model %1: --image and --pixel-values need a ViT folder (config.json with "
                                        "model_type \"vit\" or \"deit\")").arg(modelPath));

    progress(chatter, verb, QStringLiteral("opening %1").arg(modelPath));
    auto model = attn::VitModel::loadFolder(modelPath.toStdString());
    if (!model) {
        printError(verb, QStringLiteral("--model %1: %2").arg(modelPath, QString::fromStdString(model.status().message())));
        return kExitError;
    }
    attn::PixelValues px;
    if (opts.isSet("image")) {
        run.image = opts.value("image");
        if (!model->preprocessor()) {
            printError(verb, QStringLiteral("--model %1: no preprocessor_config.json, so --image cannot be prepared; "
                                            "give --pixel-values").arg(modelPath));
            return kExitError;
        }
        QString error;
        const auto image = attnui::decodeImageFile(run.image, &error);   // Qt, as the GUI decodes it
        if (!image) {
            printError(verb, QStringLiteral("--image ") + error);
            return kExitError;
        }
        run.imageWidth = image->width;
        run.imageHeight = image->height;
        auto pre = attn::preprocessImage(*image, *model->preprocessor());
        if (!pre) {
            printError(verb, QStringLiteral("--image %1: %2").arg(run.image, QString::fromStdString(pre.status().message())));
            return kExitError;
        }
        px = std::move(pre).value();
    } else {
        run.pixelValuesPath = opts.value("pixel-values");
        auto read = attn::readPixelValuesNpy(run.pixelValuesPath.toStdString());
        if (!read) {
            printError(verb, QString::fromStdString(read.status().message()));
            return kExitError;
        }
        px = std::move(read).value();
    }
    progress(chatter, verb, QStringLiteral("running the forward pass"));
    const auto result = model->forward(px, run.options);
    if (!result) {
        printError(verb, QString::fromStdString(result.status().message()));
        return kExitError;
    }
    attn::VisionRunInfo info;
    info.image = run.image.toStdString();
    info.pixelValues = run.pixelValuesPath.toStdString();
    info.imageWidth = run.imageWidth;
    info.imageHeight = run.imageHeight;
    info.threads = run.options.threads;
    info.interpolatePositions = run.options.interpolatePositions;
    info.topK = run.topK;
    return writeOutput(verb, opts.value("out"), attn::visionRunJson(*model, info, px, *result), chatter) ? kExitOk : kExitError;
}

} // namespace attncli
