// SPDX-License-Identifier: GPL-3.0-or-later
#include <attnscope/visionexport.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numeric>

namespace attn {

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
void putPathOrNull(std::string &s, const std::string &path)
{
    if (path.empty()) s += "null";
    else putString(s, path);
}


} // namespace

void appendJsonString(std::string &out, const std::string &text) { putString(out, text); }

std::string visionRunJson(const VitModel &model, const VisionRunInfo &run, const PixelValues &px,
                          const VitForwardResult &r, const std::string &analysesJson)
{
    const VitConfig &c = model.config();
    std::string s = "{\"format\":\"attnscope\",\"version\":1,\"kind\":\"vision\",\"model\":{\"name\":";
    putString(s, model.name());
    s += ",\"source\":";
    putString(s, model.source());
    s += ",\"path\":";
    putString(s, std::filesystem::absolute(model.source()).lexically_normal().string());
    s += ",\"architecture\":";
    putString(s, c.modelType);
    s += ",\"family\":";
    putString(s, vitFamily(c));
    s += ",\"architecture_class\":";
    putString(s, c.architectureClass);
    s += std::string(",\"head\":\"") + (c.teacher ? "classifier_with_teacher" : c.classifier ? "classifier" : "none") + "\"";
    s += ",\"layers\":" + std::to_string(c.layers) + ",\"heads\":" + std::to_string(c.heads) +
         ",\"d_model\":" + std::to_string(c.hiddenSize) + ",\"d_head\":" + std::to_string(c.dHead) +
         ",\"image_size\":[" + std::to_string(c.imageHeight) + "," + std::to_string(c.imageWidth) +
         "],\"patch_size\":[" + std::to_string(c.patchHeight) + "," + std::to_string(c.patchWidth) + "]}";
    s += ",\"input\":{\"image\":";
    putPathOrNull(s, run.image);
    s += ",\"pixel_values\":";
    putPathOrNull(s, run.pixelValues);
    s += ",\"image_width\":" + (run.imageWidth ? std::to_string(run.imageWidth) : std::string("null"));
    s += ",\"image_height\":" + (run.imageHeight ? std::to_string(run.imageHeight) : std::string("null"));
    s += ",\"height\":" + std::to_string(px.height) + ",\"width\":" + std::to_string(px.width);
    s += ",\"patch_grid\":[" + std::to_string(r.patchRows) + "," + std::to_string(r.patchCols) + "]";
    s += ",\"special_tokens\":" + std::to_string(r.specialTokens) + ",\"length\":" + std::to_string(r.length);
    s += ",\"tokens\":[";
    for (std::int64_t t = 0; t < r.length; ++t) {
        if (t) s += ',';
        putString(s, vitTokenLabel(t, r.specialTokens, r.patchCols));
    }
    s += "]},\"settings\":{\"backend\":";
    putString(s, backendName(r.backend));
    s += ",\"threads\":" + std::to_string(run.threads);
    s += std::string(",\"interpolate_pos_encoding\":") + (run.interpolatePositions ? "true" : "false") + "}";
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
        if (c.teacher) {   // DeiT with teacher: logits = (cls_logits + distillation_logits) / 2
            s += ",\"cls_logits\":";
            putFloats(s, r.clsLogits.data(), r.clsLogits.size());
            s += ",\"distillation_logits\":";
            putFloats(s, r.distillationLogits.data(), r.distillationLogits.size());
        }
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
    s += "},\"analyses\":" + (analysesJson.empty() ? std::string("{}") : analysesJson) + "}\n";
    return s;
}


} // namespace attn
