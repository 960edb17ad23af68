// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Tensor views: a pointer plus a 4-D shape and strides, counted in elements (not bytes), row-major by default.
// Attention inputs are 4-D [B, H, L, D] views; a [B, L, H, D] buffer (packed heads, e.g. straight from a
// projection) is passed without a copy by permuting strides: see TensorView::fromBLHD.
// Views never own memory. Tensor (below) is the owning, contiguous counterpart used for outputs.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace attn {

using Shape4 = std::array<std::int64_t, 4>;

template <typename T>
struct BasicTensorView {
    T *data = nullptr;
    Shape4 shape{0, 0, 0, 0};    // [B, H, L, D] for attention operands
    Shape4 strides{0, 0, 0, 0};  // elements between neighbours along each axis

    BasicTensorView() = default;
    BasicTensorView(T *ptr, Shape4 s, Shape4 st) : data(ptr), shape(s), strides(st) {}
    // Contiguous row-major [B, H, L, D].
    BasicTensorView(T *ptr, Shape4 s)
        : data(ptr), shape(s), strides{s[1] * s[2] * s[3], s[2] * s[3], s[3], 1} {}

    // A contiguous [B, L, H, D] buffer seen as [B, H, L, D].
    static BasicTensorView fromBLHD(T *ptr, std::int64_t B, std::int64_t L, std::int64_t H, std::int64_t D)
    {
        return BasicTensorView(ptr, {B, H, L, D}, {L * H * D, D, H * D, 1});
    }

    std::int64_t batch() const { return shape[0]; }
    std::int64_t heads() const { return shape[1]; }
    std::int64_t length() const { return shape[2]; }
    std::int64_t dim() const { return shape[3]; }
    std::int64_t numel() const { return shape[0] * shape[1] * shape[2] * shape[3]; }

    T *row(std::int64_t b, std::int64_t h, std::int64_t i) const
    {
        return data + b * strides[0] + h * strides[1] + i * strides[2];
    }
    T &at(std::int64_t b, std::int64_t h, std::int64_t i, std::int64_t j) const
    {
        return row(b, h, i)[j * strides[3]];
    }
    bool innerContiguous() const { return strides[3] == 1; }

    operator BasicTensorView<const T>() const { return {data, shape, strides}; }
};

using TensorView = BasicTensorView<const float>;
using MutableTensorView = BasicTensorView<float>;

// Owning contiguous fp32 tensor, row-major [B, H, L, D] (or any 4-D shape).
struct Tensor {
    Shape4 shape{0, 0, 0, 0};
    std::vector<float> values;

    Tensor() = default;
    explicit Tensor(Shape4 s, float fill = 0.0f)
        : shape(s), values(static_cast<std::size_t>(s[0] * s[1] * s[2] * s[3]), fill) {}

    TensorView view() const { return {values.data(), shape}; }
    MutableTensorView view() { return {values.data(), shape}; }
    std::int64_t numel() const { return static_cast<std::int64_t>(values.size()); }
};

std::string shapeString(const Shape4 &shape); // "[2, 8, 97, 64]"

} // namespace attn
