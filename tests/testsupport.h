// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Shared helpers for the engine tests. Plain C++ (no Qt), so the Qt-free test can use them too.
//
//   - deterministic random inputs (our own generator: std::normal_distribution differs between standard
//     libraries, and a failing row must reproduce everywhere from its seed);
//   - operands in several memory layouts (contiguous [B,H,L,D], packed [B,L,H,D], padded and interleaved strides);
//   - the mask kinds the suites sweep, built for a given problem;
//   - the naive fp32 attention: a straightforward full-row softmax in float, the "same-precision naive path" of
//     the accuracy rule err_fast <= 2 * err_naive + 1e-7 (reference/performance.md §5). It uses attn::maskBias,
//     so it has exactly the engine's mask semantics;
//   - error measures against the fp64 reference.

#include <attnscope/attention.h>
#include <attnscope/mask.h>
#include <attnscope/reference.h>

#include <cstdint>
#include <string>
#include <vector>

namespace attn::test {

// splitmix64 + Box–Muller: the same numbers on every platform.
class Rng {
public:
    explicit Rng(std::uint64_t seed) : m_state(seed) {}
    std::uint64_t next();
    double uniform();                 // [0, 1)
    double normal();                  // N(0, 1)
    std::int64_t below(std::int64_t n); // [0, n)

private:
    std::uint64_t m_state;
    bool m_haveSpare = false;
    double m_spare = 0.0;
};

std::vector<float> randomNormal(std::size_t count, std::uint64_t seed, float amp = 1.0f);

enum class Layout {
    BHLD,        // contiguous [B, H, L, D]
    BLHD,        // contiguous [B, L, H, D] seen through TensorView::fromBLHD
    Padded,      // [B, H, L, D] with gaps between rows and heads (row stride D + 3)
    Interleaved, // inner stride 2: every other float (a view into a wider buffer)
};
const char *layoutName(Layout layout);

// One attention operand: owning storage plus the view in the chosen layout. Logical shape [B, H, L, D].
// The view is recomputed from an offset, so copies of an Operand stay valid.
struct Operand {
    std::vector<float> storage;
    std::ptrdiff_t offset = 0;
    Shape4 shape{0, 0, 0, 0};
    Shape4 strides{0, 0, 0, 0};

    TensorView view() const { return {storage.data() + offset, shape, strides}; }
    MutableTensorView mutableView() { return {storage.data() + offset, shape, strides}; }
    float &at(std::int64_t b, std::int64_t h, std::int64_t i, std::int64_t d)
    {
        return mutableView().at(b, h, i, d);
    }
};
// Fills the logical elements with N(0, amp²) from `seed` in logical [B,H,L,D] order, so the values do not depend
// on the layout (the same seed gives the same tensor in every layout).
Operand makeOperand(Shape4 shape, Layout layout, std::uint64_t seed, float amp = 1.0f);
// From explicit logical values in [B,H,L,D] order (contiguous).
Operand operandFromValues(Shape4 shape, const std::vector<float> &values);

enum class MaskKind {
    Bidirectional,
    Causal,
    KeyPadding,          // end padding, per-batch lengths
    QueryPadding,        // some query rows are padding (fully masked)
    Window,              // sliding window W, bidirectional
    WindowCausal,        // sliding window W with causal
    Block,               // block-local
    BoolCustom,          // boolean [Lq, Lk], broadcast over batch
    BoolCustomBatched,   // boolean [B, Lq, Lk], with one fully forbidden row
    AdditiveCustom,      // additive [Lq, Lk], some -inf
    AdditiveBatched,     // additive [B, Lq, Lk]
    Alibi,               // alibiSlopes(H)
    CausalLeftPadding,   // causal + key padding at the start: the first rows see only padding (fully masked)
    CausalKeyPadding,    // causal + end key padding
    Everything,          // causal + window + key padding + query padding + additive + ALiBi
};
const char *maskKindName(MaskKind kind);
MaskSpec makeMask(MaskKind kind, std::int64_t B, std::int64_t H, std::int64_t Lq, std::int64_t Lk,
                  std::uint64_t seed);

// True when no key is visible to query row i of (b, h).
bool rowFullyMasked(const MaskSpec &mask, std::int64_t b, std::int64_t h, std::int64_t i, std::int64_t Lq,
                    std::int64_t Lk);

struct NaiveOutput {
    std::vector<float> out;   // [B, H, Lq, Dv]
    std::vector<float> lse;   // [B, H, Lq], +inf for fully masked rows
    std::vector<float> P;     // [B, H, Lq, Lk] when keepWeights
};
// Straightforward fp32 attention: scores in float, soft-capped with std::tanh when softcap > 0, row max, exp,
// sum, divide, P·V in float.
NaiveOutput naiveAttention(const TensorView &q, const TensorView &k, const TensorView &v, const MaskSpec &mask,
                           float scale = 0.0f, bool keepWeights = false, float softcap = 0.0f);

struct ErrorStat {
    double maxAbs = 0.0;        // max |a - b| over finite pairs
    std::size_t where = 0;      // flat index of the max
    std::size_t mismatchedInf = 0;  // pairs where exactly one side is non-finite, or both infinite with different sign
    double refMaxAbs = 0.0;     // max |b| over finite b (to scale tolerances)
    std::string describe() const;
};
ErrorStat compare(const float *a, const double *b, std::size_t n);
ErrorStat compare(const float *a, const float *b, std::size_t n);   // b treated as exact
std::size_t countNonFinite(const float *a, std::size_t n);

// Bytes in a human-readable number for messages.
std::string fmt(double x);

} // namespace attn::test
