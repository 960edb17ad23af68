// SPDX-License-Identifier: GPL-3.0-or-later
// Attention dropout as a teaching view (variants.h).
#include "variants_common.h"

namespace attn {

Result<DropoutView> attentionDropout(const MatrixD &P, double p, std::uint64_t seed, const MatrixD *V)
{
    if (Status s = detail::checkOperand(P, "dropout: P"); !s) return s;
    if (P.rows * P.cols > kVariantMaxCells)
        return Status::invalid("dropout: P is " + detail::dims(P) + ", over the limit of 2^22 weights");
    if (!(p >= 0.0 && p < 1.0))
        return Status::invalid("dropout: p = " + std::to_string(p) + " (0 ≤ p < 1; p = 1 would divide by zero)");
    if (V) {
        if (Status s = detail::checkOperand(*V, "dropout: V"); !s) return s;
        if (V->rows != P.cols)
            return Status::invalid("dropout: V has " + std::to_string(V->rows) + " rows but P has " +
                                   std::to_string(P.cols) + " columns (one value per key)");
    }
    DropoutView d;
    d.p = p;
    d.seed = seed;
    d.keep.resize(P.values.size());
    d.dropped = MatrixD(P.rows, P.cols);
    d.rescaled = MatrixD(P.rows, P.cols);
    d.droppedRowSums.assign(static_cast<std::size_t>(P.rows), 0.0);
    d.rescaledRowSums.assign(static_cast<std::size_t>(P.rows), 0.0);
    detail::SeededStream stream(seed);
    const double inverse = 1.0 / (1.0 - p);
    for (std::int64_t i = 0; i < P.rows; ++i)
        for (std::int64_t j = 0; j < P.cols; ++j) {
            const std::size_t e = static_cast<std::size_t>(i * P.cols + j);
            const bool keep = stream.uniform() >= p;   // P(keep) = 1 − p up to the 2^-53 grid
            d.keep[e] = keep ? 1 : 0;
            d.keptCount += keep;
            d.dropped.values[e] = keep ? P.values[e] : 0.0;
            d.rescaled.values[e] = keep ? P.values[e] * inverse : 0.0;
            d.droppedRowSums[static_cast<std::size_t>(i)] += d.dropped.values[e];
            d.rescaledRowSums[static_cast<std::size_t>(i)] += d.rescaled.values[e];
        }
    if (V) d.output = detail::matmul(d.rescaled, *V);
    return d;
}

} // namespace attn
