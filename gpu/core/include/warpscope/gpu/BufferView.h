#pragma once

#include <cstddef>
#include <span>

namespace warpscope::gpu {

// Where a buffer view's memory is: the host's, or the context's device's (a CUDA pointer,
// which the host must not touch).
enum class MemorySpace
{
    Host,
    Device,
};

// Memory a slice writes its results into, owned by someone else: a span of host memory, or
// device memory of the context the slice runs on (for example a mapped OpenGL buffer).
template <typename T> struct BufferView
{
    T* data = nullptr;
    std::size_t size = 0; // in elements
    MemorySpace space = MemorySpace::Host;

    static BufferView host(std::span<T> values) { return {values.data(), values.size()}; }
    static BufferView device(T* data, std::size_t size)
    {
        return {data, size, MemorySpace::Device};
    }
    std::size_t bytes() const { return size * sizeof(T); }
};

} // namespace warpscope::gpu
