// SPDX-License-Identifier: GPL-3.0-or-later
// Synthetic "random:" specs → ModelConfig (model.h parseSyntheticSpec). The weights are built in model.cpp.
#include <attnscope/modelconfig.h>

#include <charconv>
#include <map>
#include <set>

namespace attn {

Result<ModelConfig> parseSyntheticSpec(const std::string &spec)
{
    const std::string prefix = "random:";
    const auto bad = [&](const std::string &what) {
        return Status(ErrorCode::InvalidArgument, "synthetic model spec '" + spec + "': " + what);
    };
    if (spec.rfind(prefix, 0) != 0) return bad("must start with 'random:'");

    ModelConfig c;
    c.architecture = Architecture::Synthetic;
    c.modelType = "synthetic";
    c.architectureClass = "SyntheticAttention";
    c.head = ModelHead::None;
    c.layers = 1;
    c.heads = 4;
    c.dModel = 64;
    c.vocabSize = 256;
    c.maxPositions = 0;
    c.positions = PositionKind::None;
    c.activation = Activation::Gelu;
    c.layerNormEps = 1e-5f;

    struct Range {
        std::int64_t lo, hi;
    };
    const std::map<std::string, Range> numeric{{"layers", {1, 64}},      {"heads", {1, 256}},
                                               {"d_model", {1, 8192}},   {"seed", {0, INT64_MAX}},
                                               {"vocab", {1, 1 << 20}},  {"causal", {0, 1}}};
    std::set<std::string> seen;
    std::string body = spec.substr(prefix.size());
    std::size_t pos = 0;
    while (pos <= body.size() && !body.empty()) {
        const std::size_t comma = body.find(',', pos);
        const std::string item = body.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        pos = comma == std::string::npos ? body.size() + 1 : comma + 1;
        const std::size_t eq = item.find('=');
        if (item.empty() || eq == std::string::npos || eq == 0 || eq + 1 == item.size())
            return bad("'" + item + "' is not a key=value pair");
        const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
        if (!seen.insert(key).second) return bad("key '" + key + "' is given twice");
        if (key == "pe") {
            if (value == "none") c.positions = PositionKind::None;
            else if (value == "sinusoidal") c.positions = PositionKind::Sinusoidal;
            else if (value == "rope") c.positions = PositionKind::RoPE;
            else if (value == "alibi") c.positions = PositionKind::ALiBi;
            else return bad("pe '" + value + "' is unknown; use none, sinusoidal, rope or alibi");
            continue;
        }
        const auto range = numeric.find(key);
        if (range == numeric.end())
            return bad("unknown key '" + key + "'; known: layers, heads, d_model, seed, pe, vocab, causal");
        std::int64_t v = 0;
        const auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
        if (ec != std::errc() || p != value.data() + value.size())
            return bad(key + " '" + value + "' is not an integer");
        if (v < range->second.lo || v > range->second.hi)
            return bad(key + " is " + value + "; it must be in [" + std::to_string(range->second.lo) + ", " +
                       std::to_string(range->second.hi) + "]");
        if (key == "layers") c.layers = v;
        else if (key == "heads") c.heads = v;
        else if (key == "d_model") c.dModel = v;
        else if (key == "seed") c.seed = static_cast<std::uint64_t>(v);
        else if (key == "vocab") c.vocabSize = v;
        else if (key == "causal") c.causal = v != 0;
    }
    if (c.dModel % c.heads != 0)
        return bad("d_model (" + std::to_string(c.dModel) + ") is not a multiple of heads (" + std::to_string(c.heads) + ")");
    c.dHead = c.dModel / c.heads;
    c.kvHeads = c.heads;
    c.family = "synthetic";
    c.tiedEmbeddings = false;
    if (c.positions == PositionKind::RoPE) {
        c.rotaryDim = c.dHead;
        c.rope.theta = 10000.0;
    }
    if (c.positions == PositionKind::RoPE && c.dHead % 2 != 0)
        return bad("pe=rope needs an even head size, but d_model / heads = " + std::to_string(c.dHead));
    return c;
}

} // namespace attn
