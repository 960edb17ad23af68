// SPDX-License-Identifier: GPL-3.0-or-later
// `run --model VIT (--image F.png | --pixel-values F.npy)`: one forward pass of a Vision Transformer (vit.h).
// Qt decodes the image to RGB8 (alpha dropped, as PIL's convert("RGB")); the engine resizes, rescales and
// normalizes it per the folder's preprocessor_config.json. The JSON is the run export's frame (docs/json-format.md,
// "Vision runs") with image fields in `input` and the classifier's outputs.
#include "common.h"
#include "verbs.h"

#include <attnscope/vit.h>

#include <QImage>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <numeric>

namespace attncli {

namespace {

// JSON text helpers: floats as the shortest decimal that reads back to the same float32, as the run export writes.
void putFloat(std::string &s, float v)
{
    if (!std::isfinite(v)) {
        s += "null";
        return;
    }
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    s.append(buf, r.ptr);
}
void putString(std::string &s, const std::string &v)
{
    s += '"';
    for (const unsigned char c : v) {
        if (c == '"' || c == '\\') s += '\\', s += char(c);
        else if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            s += buf;
        } else s += char(c);
    }
    s += '"';
}
void putFloats(std::string &s, const float *v, std::size_t n)
{
    s += '[';
    for (std::size_t i = 0; i < n; ++i) {
        if (i) s += ',';
        putFloat(s, v[i]);
    }
    s += ']';
}
void putPathOrNull(std::string &s, const QString &path)
{
    if (path.isEmpty()) s += "null";
    else putString(s, path.toStdString());
}

std::optional<attn::ImageRgb8> decodeImage(const QString &path, QString &error)
{
    QImage q(path);
    if (q.isNull()) {
        error = QStringLiteral("--image %1: cannot read or decode the image").arg(path);
        return std::nullopt;
    }
    q = q.convertToFormat(QImage::Format_RGB888);
    attn::ImageRgb8 im{q.width(), q.height(), std::vector<std::uint8_t>(std::size_t(q.width()) * q.height() * 3)};
    for (int y = 0; y < q.height(); ++y)
        std::copy_n(q.constScanLine(y), std::size_t(q.width()) * 3, im.pixels.begin() + std::ptrdiff_t(y) * q.width() * 3);
    return im;
}

struct VisionRun {
    QString image, pixelValuesPath;
    std::int64_t imageWidth = 0, imageHeight = 0;   // the decoded file; 0 with --pixel-values
    attn::VitForwardOptions options;
    std::int64_t topK = 5;
};

std::string visionJson(const attn::VitModel &model, const VisionRun &run, const attn::PixelValues &px,
                       const attn::VitForwardResult &r)
{
    const attn::VitConfig &c = model.config();
    std::string s = "{\"format\":\"attnscope\",\"version\":1,\"kind\":\"vision\",\"model\":{\"name\":";
    putString(s, model.name());
    s += ",\"source\":";
    putString(s, model.source());
    s += ",\"path\":";
    putString(s, std::filesystem::absolute(model.source()).lexically_normal().string());
    s += ",\"architecture\":\"vit\",\"architecture_class\":";
    putString(s, c.architectureClass);
    s += std::string(",\"head\":\"") + (c.classifier ? "classifier" : "none") + "\"";
    s += ",\"layers\":" + std::to_string(c.layers) + ",\"heads\":" + std::to_string(c.heads) +
         ",\"d_model\":" + std::to_string(c.hiddenSize) + ",\"d_head\":" + std::to_string(c.dHead) +
         ",\"image_size\":[" + std::to_string(c.imageHeight) + "," + std::to_string(c.imageWidth) +
         "],\"patch_size\":[" + std::to_string(c.patchHeight) + "," + std::to_string(c.patchWidth) + "]}";
    s += ",\"input\":{\"image\":";
    putPathOrNull(s, run.image);
    s += ",\"pixel_values\":";
    putPathOrNull(s, run.pixelValuesPath);
    s += ",\"image_width\":" + (run.imageWidth ? std::to_string(run.imageWidth) : std::string("null"));
    s += ",\"image_height\":" + (run.imageHeight ? std::to_string(run.imageHeight) : std::string("null"));
    s += ",\"height\":" + std::to_string(px.height) + ",\"width\":" + std::to_string(px.width);
    s += ",\"patch_grid\":[" + std::to_string(r.patchRows) + "," + std::to_string(r.patchCols) + "]";
    s += ",\"special_tokens\":" + std::to_string(r.specialTokens) + ",\"length\":" + std::to_string(r.length);
    s += ",\"tokens\":[\"[CLS]\"";
    for (std::int64_t p = 0; p < r.patchRows * r.patchCols; ++p)
        s += ",\"r" + std::to_string(p / r.patchCols) + "c" + std::to_string(p % r.patchCols) + "\"";
    s += "]},\"settings\":{\"backend\":";
    putString(s, attn::backendName(r.backend));
    s += ",\"threads\":" + std::to_string(run.options.threads);
    s += std::string(",\"interpolate_pos_encoding\":") + (run.options.interpolatePositions ? "true" : "false") + "}";
    s += ",\"attention\":[";
    for (std::int64_t l = 0; l < c.layers; ++l) {
        s += l ? ",[" : "[";
        for (std::int64_t h = 0; h < c.heads; ++h) {
            s += h ? ",[" : "[";
            const std::vector<float> &P = r.attentions[std::size_t(l * c.heads + h)];
            for (std::int64_t i = 0; i < r.length; ++i) {
                if (i) s += ',';
                putFloats(s, P.data() + i * r.length, std::size_t(r.length));
            }
            s += ']';
        }
        s += ']';
    }
    s += "],\"outputs\":{";
    if (c.classifier) {
        s += "\"logits\":";
        putFloats(s, r.logits.data(), r.logits.size());
        // Softmax in double over the float32 logits; the top K by probability, ties by label id.
        const double top = *std::max_element(r.logits.begin(), r.logits.end());
        std::vector<double> p(r.logits.size());
        double sum = 0.0;
        for (std::size_t i = 0; i < p.size(); ++i) sum += p[i] = std::exp(double(r.logits[i]) - top);
        std::vector<std::size_t> order(p.size());
        std::iota(order.begin(), order.end(), std::size_t(0));
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] > p[b]; });
        s += ",\"predictions\":[";
        for (std::size_t k = 0; k < std::min<std::size_t>(order.size(), std::size_t(run.topK)); ++k) {
            if (k) s += ',';
            s += "{\"id\":" + std::to_string(order[k]) + ",\"label\":";
            putString(s, c.labels[order[k]]);
            s += ",\"probability\":";
            putFloat(s, float(p[order[k]] / sum));
            s += '}';
        }
        s += ']';
    } else {
        s += "\"pooled\":";
        if (r.pooled.empty()) s += "null";
        else putFloats(s, r.pooled.data(), r.pooled.size());
    }
    s += "},\"analyses\":{}}\n";
    return s;
}

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
    s += ",\n  \"architecture\": \"vit\",\n  \"architecture_class\": ";
    putString(s, c.architectureClass);
    s += ",\n  \"family\": \"ViT\",\n  \"head\": \"" + std::string(c.classifier ? "classifier" : "none") + "\"";
    s += ",\n  \"layers\": " + std::to_string(c.layers) + ",\n  \"heads\": " + std::to_string(c.heads) +
         ",\n  \"d_model\": " + std::to_string(c.hiddenSize) + ",\n  \"d_head\": " + std::to_string(c.dHead) +
         ",\n  \"intermediate_size\": " + std::to_string(c.intermediate) +
         ",\n  \"image_size\": [" + std::to_string(c.imageHeight) + ", " + std::to_string(c.imageWidth) +
         "],\n  \"patch_size\": [" + std::to_string(c.patchHeight) + ", " + std::to_string(c.patchWidth) +
         "],\n  \"patch_grid\": [" + std::to_string(c.patchRows()) + ", " + std::to_string(c.patchCols()) +
         "],\n  \"special_tokens\": 1,\n  \"positional\": \"learned\",\n  \"labels\": ";
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
        "Run a Vision Transformer folder (config.json model_type \"vit\") on one image and write the attention\n"
        "weights [layer][head][1 + patches][1 + patches] (the CLS token first), the patch grid and the classifier's\n"
        "outputs as JSON (docs/json-format.md, \"Vision runs\"). Exactly one of --image and --pixel-values."));
    opts.use({{"model", QStringLiteral("a ViT model folder (config.json model_type \"vit\")")}, "image", "pixel-values",
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
                                        "model_type \"vit\")").arg(modelPath));

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
        const auto image = decodeImage(run.image, error);
        if (!image) {
            printError(verb, error);
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
    return writeOutput(verb, opts.value("out"), visionJson(*model, run, px, *result), chatter) ? kExitOk : kExitError;
}

} // namespace attncli
