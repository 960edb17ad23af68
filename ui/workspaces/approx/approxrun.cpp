// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/approx/approxrun.h"

#include "kit/tokenlimits.h"
#include "workspaces/explore/modelrun.h"

#include <attnscope/maskeffects.h>

#include <QObject>

#include <algorithm>

namespace attnui {

namespace {

attn::MatrixD toMatrix(const attn::TensorView &t)
{
    // [1, 1, L, d] (one head of one batch row).
    const std::int64_t rows = t.length(), cols = t.dim();
    attn::MatrixD m(rows, cols);
    for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < cols; ++j) m.at(i, j) = double(t.at(0, 0, i, j));
    return m;
}

} // namespace

QString approxParameterName(attn::ApproxKind kind)
{
    switch (kind) {
    case attn::ApproxKind::LocalWindow: return QObject::tr("window");
    case attn::ApproxKind::BlockLocal: return QObject::tr("block");
    case attn::ApproxKind::Strided: return QObject::tr("stride");
    case attn::ApproxKind::Dilated: return QObject::tr("dilation");
    case attn::ApproxKind::RandomFeatures: return QObject::tr("features");
    case attn::ApproxKind::LinearElu: break;
    }
    return {};
}

int approxParameter(const attn::ApproxSpec &s)
{
    switch (s.kind) {
    case attn::ApproxKind::LocalWindow: return int(s.window);
    case attn::ApproxKind::BlockLocal: return int(s.block);
    case attn::ApproxKind::Strided: return int(s.stride);
    case attn::ApproxKind::Dilated: return int(s.dilation);
    case attn::ApproxKind::RandomFeatures: return int(s.features);
    case attn::ApproxKind::LinearElu: break;
    }
    return 0;
}

void setApproxParameter(attn::ApproxSpec &s, int value)
{
    switch (s.kind) {
    case attn::ApproxKind::LocalWindow: s.window = value; break;
    case attn::ApproxKind::BlockLocal: s.block = value; break;
    case attn::ApproxKind::Strided: s.stride = value; break;
    case attn::ApproxKind::Dilated: s.dilation = value; break;
    case attn::ApproxKind::RandomFeatures: s.features = value; break;
    case attn::ApproxKind::LinearElu: break;
    }
}

QString describeApprox(const attn::ApproxSpec &s)
{
    switch (s.kind) {
    case attn::ApproxKind::LocalWindow: return QObject::tr("local window |i − j| ≤ %1").arg(s.window);
    case attn::ApproxKind::BlockLocal: return QObject::tr("block-local, blocks of %1").arg(s.block);
    case attn::ApproxKind::Strided: return QObject::tr("strided, stride %1 (band + every %1th key)").arg(s.stride);
    case attn::ApproxKind::Dilated:
        return QObject::tr("dilated window, %1 steps of %2").arg(s.window).arg(s.dilation);
    case attn::ApproxKind::LinearElu: return QObject::tr("linear attention, φ = elu + 1");
    case attn::ApproxKind::RandomFeatures:
        return QObject::tr("random features (Performer), m = %1, seed %2").arg(s.features).arg(s.seed);
    }
    return {};
}

attn::Result<std::shared_ptr<Snapshot>> runApprox(const ApproxRequest &request, const JobContext &ctx)
{
    if (!request.model) return attn::Status::invalid("no model: open one in Explore");
    const attn::TextModel &tm = *request.model;
    const attn::ModelConfig &config = tm.model().config();
    if (request.text.trimmed().isEmpty()) return attn::Status::invalid("the text is empty: type a few words in Explore");
    auto tokenized = tm.tokenize(request.text.toStdString(), request.tokenize);
    if (!tokenized) return tokenized.status();
    const int L = int(tokenized->ids.size());
    if (L == 0) return attn::Status::invalid("the text gives no tokens");
    if (auto s = checkTokenLimit(L, kApproxMaxTokens, "Approximate", "exact, approximate and difference maps in fp64"); !s)
        return s;

    auto snap = std::make_shared<ApproxSnapshot>();
    snap->request = request;
    snap->modelName = QString::fromStdString(tm.displayName());
    snap->layers = int(config.layers);
    snap->heads = int(config.heads);
    for (const std::string &label : tokenized->labels) snap->tokens << tokenDisplayLabel(label);
    ApproxRequest &r = snap->request;
    r.layer = std::clamp(r.layer, 0, snap->layers - 1);
    r.head = std::clamp(r.head, 0, snap->heads - 1);

    attn::ForwardInput input;
    input.tokenIds = tokenized->ids;
    input.tokenTypeIds = tm.forwardInput(*tokenized).tokenTypeIds;
    attn::ForwardOptions fo;
    fo.backend = request.backend;
    fo.cancel = ctx.cancelFn();
    fo.captureQKV = true;
    fo.computeLogits = false;
    fo.progress = [&ctx](double f) { ctx.reportProgress(0.6 * f); };
    auto run = tm.model().forward(input, fo);
    if (!run) return run.status();
    const attn::LayerQKV &qkv = run->qkv[std::size_t(r.layer)];
    const attn::MatrixD Q = toMatrix(attn::headSlice(qkv.q, r.head)), K = toMatrix(attn::headSlice(qkv.k, r.head)),
                        V = toMatrix(attn::headSlice(qkv.v, r.head));
    snap->dHead = int(Q.cols);
    attn::ApproxSpec spec = r.spec;
    spec.scale = attn::modelAttentionScale(config, r.layer);
    spec.causal = config.causal;
    auto result = attn::approximateAttention(Q, K, V, spec);
    if (!result) return result.status();
    snap->result = std::move(result).value();
    std::vector<std::int64_t> ns;
    for (std::int64_t n = 16; n <= 65536; n *= 2) ns.push_back(n);
    auto curve = attn::costCurve(spec, ns, Q.cols, V.cols);
    if (!curve) return curve.status();
    snap->curve = std::move(curve).value();
    snap->backend = "fp64 (here) + " + attn::backendName(request.backend);
    return std::shared_ptr<Snapshot>(std::move(snap));
}

} // namespace attnui
