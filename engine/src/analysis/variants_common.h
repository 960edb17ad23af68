// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Pieces the variants' files share (variants.h, approximate.h): the seeded stream, size checks and the one row
// softmax every variant uses (so an approximation whose pattern covers every key reproduces exact attention bit
// for bit).
#include <attnscope/variants.h>

#include "rng.h"

#include <cmath>
#include <limits>
#include <string>

namespace attn::detail {

// 53-bit uniforms in [0, 1) and Box–Muller normals from SplitMix64.
class SeededStream {
public:
    explicit SeededStream(std::uint64_t seed) : m_rng(seed) {}
    double uniform() { return static_cast<double>(m_rng.next() >> 11) * 0x1p-53; }
    double normal()
    {
        if (m_hasSpare) {
            m_hasSpare = false;
            return m_spare;
        }
        const double u1 = 1.0 - uniform();   // (0, 1]: the log is finite
        const double u2 = uniform();
        const double r = std::sqrt(-2.0 * std::log(u1));
        constexpr double kTwoPi = 6.283185307179586476925;
        m_spare = r * std::sin(kTwoPi * u2);
        m_hasSpare = true;
        return r * std::cos(kTwoPi * u2);
    }

private:
    SplitMix64 m_rng;
    double m_spare = 0.0;
    bool m_hasSpare = false;
};

inline std::string dims(const MatrixD &m) { return std::to_string(m.rows) + "×" + std::to_string(m.cols); }

// Shape, limits and finiteness of one operand; `what` names it in the message ("scoring: Q").
Status checkOperand(const MatrixD &m, const std::string &what, bool allowEmptyRows = false);

// P_i = softmax(s_i) over the finite entries of each row; −inf entries get 0; a row with none is all 0.
MatrixD softmaxRows(const MatrixD &scores);

MatrixD matmul(const MatrixD &A, const MatrixD &B);   // [m, k] · [k, n]

inline double maxAbsDifference(const MatrixD &a, const MatrixD &b)
{
    double m = 0.0;
    for (std::size_t i = 0; i < a.values.size(); ++i) m = std::max(m, std::abs(a.values[i] - b.values[i]));
    return m;
}

} // namespace attn::detail

namespace attn {
struct ApproxSpec;
struct CostCount;
} // namespace attn

namespace attn::detail {

Status checkApproxSpec(const ApproxSpec &spec);
// approximate.h's formulas for general Lq, Lk: a pattern computing c scores, and the kernel forms.
CostCount patternCost(double computedScores, std::int64_t d, std::int64_t dv);
CostCount kernelCost(const ApproxSpec &spec, std::int64_t Lq, std::int64_t Lk, std::int64_t d, std::int64_t dv);

} // namespace attn::detail
