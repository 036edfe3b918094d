#pragma once

#include <cuda_runtime.h>
#include <utility>

namespace warpscope::gpu {

// A non-blocking CUDA stream, destroyed with its owner. Move-only; empty until create()
// succeeds. Destroying returns at once: work queued on it still runs.
class CudaStream
{
public:
    CudaStream() = default;
    ~CudaStream() { reset(); }
    CudaStream(CudaStream&& other) noexcept : m_stream(std::exchange(other.m_stream, nullptr)) {}
    CudaStream& operator=(CudaStream&& other) noexcept
    {
        if (this != &other) {
            reset();
            m_stream = std::exchange(other.m_stream, nullptr);
        }
        return *this;
    }
    CudaStream(const CudaStream&) = delete;
    CudaStream& operator=(const CudaStream&) = delete;

    // A new stream (on the current device) in place of this one's, of the default priority;
    // empty when it fails.
    [[nodiscard]] cudaError_t create()
    {
        reset();
        cudaStream_t stream = nullptr;
        const cudaError_t error = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
        m_stream = error == cudaSuccess ? stream : nullptr;
        return error;
    }
    // The same with a priority (lower numbers first, cudaDeviceGetStreamPriorityRange).
    [[nodiscard]] cudaError_t create(int priority)
    {
        reset();
        cudaStream_t stream = nullptr;
        const cudaError_t error =
            cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, priority);
        m_stream = error == cudaSuccess ? stream : nullptr;
        return error;
    }
    void reset()
    {
        if (m_stream)
            cudaStreamDestroy(std::exchange(m_stream, nullptr));
    }

    cudaStream_t get() const { return m_stream; }
    operator cudaStream_t() const { return m_stream; }
    explicit operator bool() const { return m_stream != nullptr; }

private:
    cudaStream_t m_stream = nullptr;
};

} // namespace warpscope::gpu
