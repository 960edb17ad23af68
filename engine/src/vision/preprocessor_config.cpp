// SPDX-License-Identifier: GPL-3.0-or-later
// preprocessor_config.json (image.h): each field read with its type and range checked, the first bad one named.
#include <attnscope/image.h>

#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <fstream>
#include <iterator>

namespace attn {

namespace {

using nlohmann::json;

// transformers' processors whose preprocessing is the resize → crop → rescale → normalize pipeline implemented here.
constexpr std::array<const char *, 10> kKnownTypes{
    "ViTImageProcessor",  "ViTImageProcessorFast",  "ViTImageProcessorPil",  "ViTFeatureExtractor",
    "DeiTImageProcessor", "DeiTImageProcessorFast", "DeiTImageProcessorPil", "DeiTFeatureExtractor",
    "ViTHybridImageProcessor", "ViTHybridImageProcessorFast"};

std::string describe(const json &j)
{
    std::string s = j.dump();
    if (s.size() > 60) s = s.substr(0, 57) + "...";
    return s;
}

class Reader {
public:
    Reader(const json &root, const std::string &source) : m_root(root), m_source(source) {}

    Status error(const std::string &field, const std::string &what) const
    {
        return {ErrorCode::FormatError, m_source + ": field '" + field + "' " + what};
    }
    const json *get(const char *name) const
    {
        const auto it = m_root.find(name);
        return it == m_root.end() || it->is_null() ? nullptr : &*it;
    }

    Status boolean(const char *name, bool &out) const
    {
        const json *j = get(name);
        if (!j) return Status::ok();
        if (!j->is_boolean()) return error(name, "is " + describe(*j) + "; expected true or false");
        out = j->get<bool>();
        return Status::ok();
    }
    // An integer side length within 1 … kMaxTargetSide.
    Status side(const json &j, const std::string &field, std::int64_t &out) const
    {
        if (!j.is_number_integer() && !j.is_number_unsigned())
            return error(field, "is " + describe(j) + "; expected an integer");
        const auto v = j.get<std::int64_t>();
        if (v < 1 || v > kMaxTargetSide)
            return error(field, "is " + std::to_string(v) + "; expected 1 … " + std::to_string(kMaxTargetSide));
        out = v;
        return Status::ok();
    }
    Status number(const json &j, const std::string &field, double &out) const
    {
        if (!j.is_number()) return error(field, "is " + describe(j) + "; expected a number");
        out = j.get<double>();
        if (!std::isfinite(out)) return error(field, "is not finite");
        return Status::ok();
    }
    // A number (broadcast to the three channels) or a list of three numbers.
    Status triple(const char *name, std::array<double, 3> &out, bool nonZero) const
    {
        const json *j = get(name);
        if (!j) return Status::ok();
        std::array<double, 3> v{};
        if (j->is_number()) {
            if (Status s = number(*j, name, v[0]); !s) return s;
            v[1] = v[2] = v[0];
        } else if (j->is_array() && j->size() == 3) {
            for (std::size_t c = 0; c < 3; ++c)
                if (Status s = number((*j)[c], std::string(name) + "[" + std::to_string(c) + "]", v[c]); !s) return s;
        } else {
            return error(name, "is " + describe(*j) + "; expected a number or a list of 3 numbers (R, G, B)");
        }
        for (std::size_t c = 0; c < 3; ++c)
            if (nonZero && static_cast<float>(v[c]) == 0.0f)
                return error(name, "has 0 for channel " + std::to_string(c) + " (a division by zero)");
        out = v;
        return Status::ok();
    }
    // "size" / "crop_size": s, {"height", "width"}, or (size only) {"shortest_edge"}.
    Status size(const char *name, PreprocessorConfig &c, bool crop) const
    {
        const json *j = get(name);
        if (!j) return Status::ok();
        std::int64_t &h = crop ? c.cropHeight : c.height;
        std::int64_t &w = crop ? c.cropWidth : c.width;
        if (j->is_number()) {
            if (Status s = side(*j, name, h); !s) return s;
            w = h;
            if (!crop) c.sizeMode = PreprocessorConfig::SizeMode::HeightWidth;
            return Status::ok();
        }
        if (!j->is_object())
            return error(name, "is " + describe(*j) + "; expected an integer or {\"height\": H, \"width\": W}" +
                                   (crop ? "" : " or {\"shortest_edge\": S}"));
        for (const auto &[key, value] : j->items()) {
            const std::string field = std::string(name) + "." + key;
            if (value.is_null()) continue;
            if (key == "height" || key == "width") continue;
            if (key == "shortest_edge" && !crop) continue;
            return error(field, "is not supported (this pipeline implements " +
                                    std::string(crop ? "height and width" : "height and width, or shortest_edge") + ")");
        }
        const bool hasH = j->contains("height") && !(*j)["height"].is_null();
        const bool hasW = j->contains("width") && !(*j)["width"].is_null();
        const bool hasS = !crop && j->contains("shortest_edge") && !(*j)["shortest_edge"].is_null();
        if (hasS && (hasH || hasW)) return error(name, "has both shortest_edge and height/width");
        if (hasS) {
            c.sizeMode = PreprocessorConfig::SizeMode::ShortestEdge;
            return side((*j)["shortest_edge"], std::string(name) + ".shortest_edge", c.shortestEdge);
        }
        if (!hasH || !hasW) return error(name, std::string("needs both height and width"));
        if (Status s = side((*j)["height"], std::string(name) + ".height", h); !s) return s;
        if (Status s = side((*j)["width"], std::string(name) + ".width", w); !s) return s;
        if (!crop) c.sizeMode = PreprocessorConfig::SizeMode::HeightWidth;
        return Status::ok();
    }

private:
    const json &m_root;
    const std::string &m_source;
};

} // namespace

Result<PreprocessorConfig> parsePreprocessorConfig(std::string_view text, const std::string &source)
{
    json root;
    try {
        root = json::parse(text.begin(), text.end());
    } catch (const json::parse_error &e) {
        return Status{ErrorCode::FormatError, source + ": not valid JSON (" + std::string(e.what()) + ")"};
    }
    if (!root.is_object()) return Status{ErrorCode::FormatError, source + ": the top level is not a JSON object"};
    const Reader r(root, source);
    PreprocessorConfig c;

    for (const char *name : {"image_processor_type", "feature_extractor_type"}) {
        const json *j = r.get(name);
        if (!j) continue;
        if (!j->is_string()) return r.error(name, "is " + describe(*j) + "; expected a string");
        const std::string type = j->get<std::string>();
        bool known = false;
        for (const char *k : kKnownTypes) known = known || type == k;
        if (!known)
            return r.error(name, "is \"" + type + "\"; supported: the ViT and DeiT image processors and feature "
                                               "extractors (resize, center crop, rescale, normalize)");
        if (c.processorType.empty()) c.processorType = type;
    }
    if (Status s = r.boolean("do_resize", c.doResize); !s) return s;
    if (Status s = r.size("size", c, false); !s) return s;
    if (const json *j = r.get("resample")) {
        if (!j->is_number_integer() && !j->is_number_unsigned())
            return r.error("resample", "is " + describe(*j) + "; expected a PIL filter code 0 … 5");
        const auto filter = resampleFromPilCode(j->get<std::int64_t>());
        if (!filter)
            return r.error("resample", "is " + describe(*j) +
                                           ", not a PIL filter code (0 NEAREST, 1 LANCZOS, 2 BILINEAR, 3 BICUBIC, "
                                           "4 BOX, 5 HAMMING)");
        c.resample = *filter;
    }
    if (Status s = r.boolean("do_center_crop", c.doCenterCrop); !s) return s;
    if (Status s = r.size("crop_size", c, true); !s) return s;
    if (Status s = r.boolean("do_rescale", c.doRescale); !s) return s;
    if (const json *j = r.get("rescale_factor")) {
        if (Status s = r.number(*j, "rescale_factor", c.rescaleFactor); !s) return s;
        if (c.rescaleFactor <= 0.0) return r.error("rescale_factor", "is " + describe(*j) + "; expected > 0");
    }
    if (Status s = r.boolean("do_normalize", c.doNormalize); !s) return s;
    if (Status s = r.triple("image_mean", c.imageMean, false); !s) return s;
    if (Status s = r.triple("image_std", c.imageStd, true); !s) return s;
    // Steps of other processors that would change the pixels: refuse rather than silently skip them.
    for (const char *name : {"do_pad", "do_convert_rgb_to_bgr", "do_reduce_labels", "crop_pct"}) {
        const json *j = r.get(name);
        if (j && !(j->is_boolean() && !j->get<bool>()))
            return r.error(name, "is " + describe(*j) + ": that step is not part of this pipeline");
    }
    return c;
}

Result<PreprocessorConfig> loadPreprocessorConfig(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status{ErrorCode::IoError, path + ": cannot open the file"};
    std::string text;
    constexpr std::size_t kMaxBytes = 1 << 20;   // real files are a few hundred bytes
    text.resize(kMaxBytes + 1);
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxBytes) return Status{ErrorCode::FormatError, path + ": larger than 1 MiB"};
    return parsePreprocessorConfig(text, path);
}

} // namespace attn
