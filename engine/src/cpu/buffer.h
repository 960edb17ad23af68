// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Per-thread scratch for the CPU kernels: a 64-byte aligned float buffer that only grows. The alignment is fixed
// so that no kernel's rounding can depend on where malloc happened to put its scratch (Eigen peels unaligned
// heads of vectorised loops in scalar code), which keeps results bit-identical across runs and thread counts.

#include <cstddef>
#include <new>

namespace attn::detail {

class Buffer {
public:
    Buffer() = default;
    Buffer(const Buffer &) = delete;
    Buffer &operator=(const Buffer &) = delete;
    ~Buffer() { release(); }

    // Throws std::bad_alloc when the memory is not there.
    float *ensure(std::size_t count)
    {
        if (count > m_size) {
            release();
            m_data = static_cast<float *>(::operator new(count * sizeof(float), std::align_val_t(64)));
            m_size = count;
        }
        return m_data;
    }

private:
    void release()
    {
        if (m_data) ::operator delete(m_data, std::align_val_t(64));
        m_data = nullptr;
        m_size = 0;
    }
    float *m_data = nullptr;
    std::size_t m_size = 0;
};

} // namespace attn::detail
