// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Approximate workspace's job, on a worker thread through EngineRunner: one forward pass of the Subject's model
// capturing Q, K, V, then attn::approximateAttention on one head — exact softmax attention (scale as the model's,
// its causal mask when the model is causal) beside a sparse pattern or a kernel (linear-time) approximation —
// and the FLOP and memory counts of both as n grows (attn::costCurve).

#include "kit/subject.h"
#include "runner/enginerunner.h"

#include <attnscope/approximate.h>

#include <QStringList>

#include <vector>

namespace attnui {

// The parameter an approximation is tuned by: window, block, stride, dilation (with a window of 2 steps), or
// the number of random features; none for linear (elu + 1).
QString approxParameterName(attn::ApproxKind kind);   // "window", "block", ..., empty for linear-elu
int approxParameter(const attn::ApproxSpec &spec);
void setApproxParameter(attn::ApproxSpec &spec, int value);
QString describeApprox(const attn::ApproxSpec &spec);   // "local window ±2", "random features, m = 16 (seed 0)"

struct ApproxRequest {
    TextModelPtr model;
    QString text;
    attn::TokenizeOptions tokenize;
    int layer = 0;
    int head = 0;
    attn::ApproxSpec spec;      // scale and causal are the model's (filled by the job)
    attn::Backend backend = attn::Backend::Auto;
};

struct ApproxSnapshot : Snapshot {
    ApproxRequest request;      // layer and head clamped to the model
    QString modelName;
    QStringList tokens;
    int layers = 0, heads = 0, dHead = 0;
    attn::ApproxResult result;  // spec with the scale and causal flag used
    std::vector<attn::CostPoint> curve;   // n = 16, 32, …, 65536 at this head's d
};

attn::Result<std::shared_ptr<Snapshot>> runApprox(const ApproxRequest &request, const JobContext &ctx);

} // namespace attnui
