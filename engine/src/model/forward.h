// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include "weights.h"

namespace attn::detail {

// The forward pass proper; the input and options have been validated (Model::validate).
Result<ForwardResult> runForward(const ModelWeights &w, const ForwardInput &in, const ForwardOptions &opt);

} // namespace attn::detail
