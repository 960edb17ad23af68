// SPDX-License-Identifier: GPL-3.0-or-later
// The run pipeline behind `attnscope-cli run` (and the GUI later): option parsing that needs no model, opening a
// spec, tokenizing with padding, and the forward pass with the requested captures.
#include <attnscope/export.h>

#include <algorithm>
#include <chrono>
#include <charconv>
#include <climits>

namespace attn {

namespace {

bool parseInt(std::string_view text, std::int64_t &value)
{
    if (text.empty()) return false;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc() && end == text.data() + text.size();
}

} // namespace

std::optional<MaskSpec> MaskChoice::override() const
{
    switch (kind) {
    case Kind::Model: return std::nullopt;
    case Kind::Bidirectional: return MaskSpec::bidirectional();
    case Kind::Causal: return MaskSpec::causalMask();
    case Kind::Window: return MaskSpec::slidingWindow(window, false);
    case Kind::CausalWindow: return MaskSpec::slidingWindow(window, true);
    }
    return std::nullopt;
}

std::string MaskChoice::kindName() const
{
    switch (kind) {
    case Kind::Model: return "model";
    case Kind::Bidirectional: return "bidirectional";
    case Kind::Causal: return "causal";
    case Kind::Window: return "window";
    case Kind::CausalWindow: return "causal_window";
    }
    return "model";
}

Result<MaskChoice> parseMaskChoice(const std::string &text)
{
    MaskChoice choice;
    if (text == "model") return choice;
    if (text == "bidirectional") { choice.kind = MaskChoice::Kind::Bidirectional; return choice; }
    if (text == "causal") { choice.kind = MaskChoice::Kind::Causal; return choice; }
    for (const auto &[prefix, kind] : {std::pair{std::string_view("window:"), MaskChoice::Kind::Window},
                                       std::pair{std::string_view("causal-window:"), MaskChoice::Kind::CausalWindow}}) {
        if (std::string_view(text).substr(0, prefix.size()) != prefix) continue;
        std::int64_t w = -1;
        if (!parseInt(std::string_view(text).substr(prefix.size()), w) || w < 0)
            return Status::invalid("'" + text + "': the window must be an integer >= 0, as in " + std::string(prefix) + "4");
        choice.kind = kind;
        choice.window = w;
        return choice;
    }
    return Status::invalid("unknown mask '" + text + "' (model|bidirectional|causal|window:W|causal-window:W)");
}

Result<std::optional<std::vector<HeadRef>>> parseHeadList(const std::string &text)
{
    if (text == "all") return std::optional<std::vector<HeadRef>>();
    std::vector<HeadRef> heads;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        const std::string item = text.substr(start, comma - start);
        const std::size_t dot = item.find('.');
        HeadRef ref;
        if (dot == std::string::npos || !parseInt(std::string_view(item).substr(0, dot), ref.layer) ||
            !parseInt(std::string_view(item).substr(dot + 1), ref.head) || ref.layer < 0 || ref.head < 0)
            return Status::invalid("'" + item + "' is not LAYER.HEAD (e.g. 0.1; layers and heads count from 0), or use all");
        if (std::find(heads.begin(), heads.end(), ref) == heads.end()) heads.push_back(ref);
        start = comma + 1;
    }
    return std::optional<std::vector<HeadRef>>(std::move(heads));
}

Status checkHeadList(const std::vector<HeadRef> &heads, const ModelConfig &config)
{
    for (const HeadRef &r : heads)
        if (r.layer >= config.layers || r.head >= config.heads)
            return Status::invalid("head " + std::to_string(r.layer) + "." + std::to_string(r.head) +
                                   " is outside the model's " + std::to_string(config.layers) + " layers x " +
                                   std::to_string(config.heads) + " heads (counted from 0)");
    return Status::ok();
}

std::string headKindName(ModelHead head)
{
    switch (head) {
    case ModelHead::None: return "none";
    case ModelHead::CausalLM: return "causal_lm";
    case ModelHead::MaskedLM: return "masked_lm";
    case ModelHead::Classification: return "classifier";
    }
    return "none";
}

std::string positionKindName(PositionKind kind)
{
    switch (kind) {
    case PositionKind::None: return "none";
    case PositionKind::Learned: return "learned";
    case PositionKind::Sinusoidal: return "sinusoidal";
    case PositionKind::RoPE: return "rope";
    case PositionKind::ALiBi: return "alibi";
    }
    return "none";
}

Result<OpenedModel> openModel(const std::string &spec, bool requireTokenizer)
{
    const auto start = std::chrono::steady_clock::now();
    const auto elapsed = [start] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    auto path = resolveModelSpec(spec);
    if (!path) return path.status();
    const bool synthetic = spec.rfind("random:", 0) == 0;
    if (requireTokenizer) {
        auto text = TextModel::open(spec);
        if (!text) return text.status();
        OpenedModel m{spec, synthetic ? std::string() : *path, text->displayName(), text->model(), std::nullopt,
                      text->tokenizer(), {}};
        m.textModel = std::move(text).value();
        m.loadSeconds = elapsed();
        return m;
    }
    auto model = Model::open(*path);
    if (!model) return model.status();
    OpenedModel m{spec, synthetic ? std::string() : *path, {}, std::move(model).value(), std::nullopt, std::nullopt, {}};
    m.name = spec.rfind("sample:", 0) == 0 || synthetic ? spec : m.model.name();
    if (!synthetic) {
        auto tokenizer = Tokenizer::fromFolder(*path);
        if (tokenizer) m.tokenizer = std::move(tokenizer).value();
        else m.tokenizerError = tokenizer.status().message();
    }
    m.loadSeconds = elapsed();
    return m;
}

std::int64_t paddingTokenId(const ModelConfig &c, const Tokenizer *tokenizer)
{
    if (tokenizer && tokenizer->specialTokenIds().pad >= 0) return tokenizer->specialTokenIds().pad;
    if (c.padTokenId) return *c.padTokenId;
    if (tokenizer && tokenizer->specialTokenIds().eos >= 0) return tokenizer->specialTokenIds().eos;
    if (c.eosTokenId) return *c.eosTokenId;
    return 0;
}

std::int64_t paddingTokenId(const OpenedModel &m)
{
    return paddingTokenId(m.model.config(), m.tokenizer ? &*m.tokenizer : nullptr);
}

Result<RunAnalyses> parseRunAnalyses(const std::string &text)
{
    RunAnalyses a;
    if (text == "none") return a;
    if (text == "all") return RunAnalyses{true, true, true};
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        const std::string part = text.substr(start, comma - start);
        if (part == "stats") a.stats = true;
        else if (part == "rollout") a.rollout = true;
        else if (part == "flow") a.flow = true;
        else
            return Status::invalid("analyses: '" + part + "' is not one of stats, rollout, flow (or all, none)");
        start = comma + 1;
    }
    return a;
}

OpenedModel openedModelOf(const TextModel &model)
{
    const std::string &spec = model.spec();
    const bool synthetic = spec.rfind("random:", 0) == 0;
    std::string path;
    if (!synthetic) {
        auto resolved = resolveModelSpec(spec);
        if (resolved) path = *resolved;
    }
    OpenedModel m{spec, path, model.displayName(), model.model(), model, model.tokenizer(), {}};
    if (!m.tokenizer && !synthetic) m.tokenizerError = "the model was opened without a tokenizer";
    return m;
}

namespace {

// RunRequest::analyses on the captured heads; rollout and flow fuse each layer's heads by their mean.
Status runAnalyses(const ModelConfig &c, const RunRequest &request, RunData &data)
{
    const RunAnalyses &a = request.analyses;
    const ForwardResult &r = data.result;
    const int n = static_cast<int>(r.length);
    if (a.stats)
        for (const CapturedHead &h : r.heads) data.headStats.push_back(headStatistics(h.weights.data(), data.tokens.ids));
    if (!a.rollout && !a.flow) return Status::ok();
    std::vector<std::vector<double>> layers;
    for (std::int64_t l = 0; l < c.layers; ++l) {
        std::vector<const float *> heads;
        for (std::int64_t h = 0; h < c.heads; ++h) {
            const auto it = std::find_if(r.heads.begin(), r.heads.end(),
                                         [&](const CapturedHead &x) { return x.head == HeadRef{l, h}; });
            heads.push_back(it->weights.data());   // every head was captured (checked before the forward pass)
        }
        layers.push_back(meanOverHeads(heads, n));
    }
    if (a.rollout) {
        auto rollout = attentionRollout(layers, n);
        if (!rollout) return rollout.status();
        data.rollout = std::move(rollout).value();
    }
    if (a.flow) {
        auto flow = attentionFlow(layers, n);
        if (!flow) return flow.status();
        data.flow = std::move(flow).value();
    }
    return Status::ok();
}

} // namespace

Result<RunData> runModel(const OpenedModel &m, const RunRequest &request)
{
    RunData data;
    const ModelConfig &c = m.model.config();
    if (request.text) {
        if (!m.textModel) return Status::invalid(m.name + ": text input needs a tokenizer: " + m.tokenizerError);
        TokenizeOptions options;
        options.pair = request.textPair;
        options.truncate = request.truncate;
        auto tokens = m.textModel->tokenize(*request.text, options);
        if (!tokens) return tokens.status();
        data.tokens = std::move(tokens).value();
    } else {
        if (request.textPair || request.truncate)
            return Status::invalid(std::string(request.textPair ? "text pair" : "truncation") + ": applies to text input, not to token ids");
        if (request.ids.empty()) return Status::invalid("ids: no token ids given");
        for (std::int64_t id : request.ids) {
            data.tokens.ids.push_back(id);
            const bool known = m.tokenizer && id >= 0 && id <= INT32_MAX;
            std::string label = known ? m.tokenizer->idToToken(static_cast<std::int32_t>(id)) : std::string();
            data.tokens.labels.push_back(label.empty() ? "#" + std::to_string(id) : label);
            data.tokens.begins.push_back(0);
            data.tokens.ends.push_back(0);
            data.tokens.special.push_back(known && m.tokenizer->isSpecialId(static_cast<std::int32_t>(id)) ? 1 : 0);
            data.tokens.sequence.push_back(0);
            data.tokens.typeIds.push_back(0);
        }
        data.tokens.untruncatedLength = data.tokens.ids.size();
    }
    if (request.padding < 0) return Status::invalid("padding: " + std::to_string(request.padding) + " is negative");
    if ((request.analyses.rollout || request.analyses.flow) && request.heads)
        return Status::invalid(std::string("analyses: ") + (request.analyses.rollout ? "rollout" : "flow") +
                               " fuses every head of every layer; --heads captured " +
                               std::to_string(request.heads->size()) + " of " + std::to_string(c.layers * c.heads));
    const auto length = static_cast<std::int64_t>(data.tokens.ids.size()) + request.padding;
    if (request.analyses.flow && length > kMaxFlowTokens)
        return Status::invalid("analyses: flow solves one max-flow per token pair, so it is computed for up to " +
                               std::to_string(kMaxFlowTokens) + " tokens; this input has " + std::to_string(length));
    data.attentionMask.assign(data.tokens.ids.size(), 1);
    data.padId = paddingTokenId(m);
    std::string padLabel = m.tokenizer ? m.tokenizer->idToToken(static_cast<std::int32_t>(data.padId)) : std::string();
    if (padLabel.empty()) padLabel = "<pad>";
    for (std::int64_t k = 0; k < request.padding; ++k) {
        data.tokens.ids.push_back(data.padId);
        data.tokens.labels.push_back(padLabel);
        data.tokens.begins.push_back(data.tokens.text.size());
        data.tokens.ends.push_back(data.tokens.text.size());
        data.tokens.special.push_back(1);
        data.tokens.sequence.push_back(-1);
        data.tokens.typeIds.push_back(0);   // Hugging Face's pad_token_type_id
        data.attentionMask.push_back(0);
    }

    ForwardInput input;
    input.tokenIds = data.tokens.ids;
    if (m.textModel) input.tokenTypeIds = m.textModel->forwardInput(data.tokens).tokenTypeIds;
    if (request.padding > 0) input.attentionMask = data.attentionMask;
    ForwardOptions &o = data.options;
    o.backend = request.backend;
    o.threads = request.threads;
    o.maskOverride = request.mask.override();
    if (request.heads) {
        if (Status s = checkHeadList(*request.heads, c); !s) return s;
        o.weightsMode = WeightsRequest::Mode::Heads;
        o.weightHeads = *request.heads;
    } else {
        o.weightsMode = WeightsRequest::Mode::All;
    }
    o.computeLogits = c.head != ModelHead::None;
    if (Status s = m.model.validate(input, o); !s) return s;
    auto result = m.model.forward(input, o);
    if (!result) return result.status();
    data.result = std::move(result).value();
    data.backendUsed = data.result.backend;
    if (Status s = runAnalyses(c, request, data); !s) return s;
    data.provenance = makeProvenance(m.spec, data.backendUsed, request.threads);
    return data;
}

} // namespace attn
