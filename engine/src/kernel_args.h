// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What dispatch (attention.cpp) hands a backend after validation: checked views, the resolved scale, output
// buffers already allocated, and the weight buffers for the requested heads already sized [Lq, Lk].

#include <attnscope/attention.h>

namespace attn::detail {

struct KernelArgs {
    TensorView q, k, v;                 // [B, H, Lq, D], [B, Hkv, Lk, D], [B, Hkv, Lk, Dv]
    const MaskSpec *mask = nullptr;
    float scale = 1.0f;
    float softcap = 0.0f;               // 0: off (validated: finite, >= 0)
    MutableTensorView out;              // [B, H, Lq, Dv] contiguous; null data when lseOnly
    float *lse = nullptr;               // [B, H, Lq]
    bool lseOnly = false;               // Output::LseOnly: write lse only (no weights are requested then)
    AttentionOptions::SplitKv splitKv = AttentionOptions::SplitKv::Auto;
    std::vector<HeadWeights> *weights = nullptr;  // requested heads, each P pre-sized to Lq*Lk (zeros)
    int threads = 1;                    // resolved, >= 1
    // F16/BF16: for the CPU backends dispatch has already rounded q, k and v (the views point at rounded copies);
    // the CUDA backend rounds on the device.
    ComputeDtype dtype = ComputeDtype::F32;
    double *deviceMs = nullptr;         // CUDA: kernel time measured with cudaEvents, written when not null
    ProgressFn progress;
    CancelFn cancel;

    std::int64_t B() const { return q.shape[0]; }
    std::int64_t H() const { return q.shape[1]; }
    std::int64_t Hkv() const { return k.shape[1]; }
    std::int64_t Lq() const { return q.shape[2]; }
    std::int64_t Lk() const { return k.shape[2]; }
    std::int64_t D() const { return q.shape[3]; }
    std::int64_t Dv() const { return v.shape[3]; }
    std::int64_t kvHead(std::int64_t h) const { return h / (H() / Hkv()); }
    // The weights buffer for (b, h), or nullptr when that head's weights were not requested.
    float *weightsFor(std::int64_t b, std::int64_t h) const
    {
        if (!weights) return nullptr;
        for (auto &w : *weights)
            if (w.index.batch == b && w.index.head == h) return w.P.data();
        return nullptr;
    }
};

} // namespace attn::detail
