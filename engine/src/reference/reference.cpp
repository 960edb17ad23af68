// SPDX-License-Identifier: GPL-3.0-or-later
// The fp64 oracle: the textbook definition, one (batch, head, query row) at a time, in double precision.
// Kept deliberately simple; speed is not a goal here, readability and exactness are.
#include <attnscope/reference.h>

#include <cmath>
#include <limits>

namespace attn {

Result<ReferenceOutput> referenceAttention(const TensorView &q, const TensorView &k, const TensorView &v,
                                           const MaskSpec &mask, const ReferenceOptions &options)
{
    AttentionOptions check;
    check.scale = static_cast<float>(options.scale);
    check.softcap = static_cast<float>(options.softcap);
    if (Status s = validateAttention(q, k, v, mask, check); !s) return s;
    const ComputeDtype dt = options.dtype;
    // Inputs as the low-precision kernels see them (identity for F32).
    const auto in = [dt](const TensorView &t, std::int64_t b, std::int64_t h, std::int64_t i, std::int64_t c) {
        return static_cast<double>(roundToDtype(t.at(b, h, i, c), dt));
    };
    const double softcap = options.softcap;

    const std::int64_t B = q.shape[0], H = q.shape[1], Lq = q.shape[2], D = q.shape[3];
    const std::int64_t Hkv = k.shape[1], Lk = k.shape[2], Dv = v.shape[3];
    const std::int64_t group = H / Hkv;
    const double scale = options.scale > 0.0 ? options.scale : 1.0 / std::sqrt(static_cast<double>(D));
    constexpr double kInf = std::numeric_limits<double>::infinity();

    std::vector<std::int64_t> rows = options.rows;
    if (rows.empty())
        for (std::int64_t i = 0; i < Lq; ++i) rows.push_back(i);
    for (std::int64_t i : rows)
        if (i < 0 || i >= Lq)
            return Status::invalid("reference rows: query row " + std::to_string(i) + " is outside [0, " +
                                   std::to_string(Lq) + ")");
    const std::int64_t R = static_cast<std::int64_t>(rows.size());

    ReferenceOutput r;
    r.rows = R;
    r.out.assign(static_cast<std::size_t>(B * H * R * Dv), 0.0);
    r.lse.assign(static_cast<std::size_t>(B * H * R), kInf);
    if (options.keepWeights) {
        r.P.assign(static_cast<std::size_t>(B * H * R * Lk), 0.0);
        r.scores.assign(static_cast<std::size_t>(B * H * R * Lk), -kInf);
    }

    std::vector<double> s(static_cast<std::size_t>(Lk));   // one row of scores
    for (std::int64_t b = 0; b < B; ++b) {
        for (std::int64_t h = 0; h < H; ++h) {
            const std::int64_t hk = h / group;
            for (std::int64_t ri = 0; ri < R; ++ri) {
                if (options.cancel && options.cancel()) return Status::cancelled();
                const std::int64_t i = rows[static_cast<std::size_t>(ri)];
                const std::size_t rowIndex = static_cast<std::size_t>((b * H + h) * R + ri);

                // s_j = cap · tanh(scale · q_i · k_j / cap) + mask_ij      (no tanh without a cap; -inf where masked)
                double rowMax = -kInf;
                for (std::int64_t j = 0; j < Lk; ++j) {
                    const double bias = maskBias(mask, b, h, i, j, Lq, Lk);
                    double dot = 0.0;
                    if (bias != -kInf)
                        for (std::int64_t c = 0; c < D; ++c) dot += in(q, b, h, i, c) * in(k, b, hk, j, c);
                    double score = scale * dot;
                    if (softcap > 0.0) score = softcap * std::tanh(score / softcap);
                    s[static_cast<std::size_t>(j)] = bias == -kInf ? -kInf : score + bias;
                    rowMax = std::max(rowMax, s[static_cast<std::size_t>(j)]);
                }
                if (options.keepWeights)
                    std::copy(s.begin(), s.end(), r.scores.begin() + static_cast<std::ptrdiff_t>(rowIndex * Lk));
                if (rowMax == -kInf) continue;   // fully masked row: output 0, weights 0, lse +inf

                // p_j = exp(s_j - max) / Σ exp(s_l - max);  lse = max + log Σ exp(s_l - max)
                double sum = 0.0;
                for (std::int64_t j = 0; j < Lk; ++j) sum += std::exp(s[static_cast<std::size_t>(j)] - rowMax);
                r.lse[rowIndex] = rowMax + std::log(sum);

                // o_i = Σ_j p_j v_j
                double *o = r.out.data() + rowIndex * static_cast<std::size_t>(Dv);
                for (std::int64_t j = 0; j < Lk; ++j) {
                    const double p = std::exp(s[static_cast<std::size_t>(j)] - rowMax) / sum;
                    if (options.keepWeights) r.P[rowIndex * static_cast<std::size_t>(Lk) + static_cast<std::size_t>(j)] = p;
                    if (p == 0.0) continue;
                    for (std::int64_t c = 0; c < Dv; ++c) o[c] += p * in(v, b, hk, j, c);
                }
            }
            if (options.progress) options.progress(static_cast<double>(b * H + h + 1) / static_cast<double>(B * H));
        }
    }
    return r;
}

} // namespace attn
