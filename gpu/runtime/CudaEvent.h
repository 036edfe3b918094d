#pragma once

#include <cuda_runtime.h>
#include <utility>

namespace warpscope::gpu {

// A CUDA event, destroyed with its owner. Move-only; empty until create() succeeds. Destroying
// returns at once: work queued to record it still runs.
class CudaEvent
{
public:
    CudaEvent() = default;
    ~CudaEvent() { reset(); }
    CudaEvent(CudaEvent&& other) noexcept : m_event(std::exchange(other.m_event, nullptr)) {}
    CudaEvent& operator=(CudaEvent&& other) noexcept
    {
        if (this != &other) {
            reset();
            m_event = std::exchange(other.m_event, nullptr);
        }
        return *this;
    }
    CudaEvent(const CudaEvent&) = delete;
    CudaEvent& operator=(const CudaEvent&) = delete;

    // A new event (on the current device) in place of this one's; empty when it fails.
    // cudaEventDisableTiming for one that only orders work.
    [[nodiscard]] cudaError_t create(unsigned flags = cudaEventDefault)
    {
        reset();
        cudaEvent_t event = nullptr;
        const cudaError_t error = cudaEventCreateWithFlags(&event, flags);
        m_event = error == cudaSuccess ? event : nullptr;
        return error;
    }
    void reset()
    {
        if (m_event)
            cudaEventDestroy(std::exchange(m_event, nullptr));
    }

    cudaEvent_t get() const { return m_event; }
    operator cudaEvent_t() const { return m_event; }
    explicit operator bool() const { return m_event != nullptr; }

private:
    cudaEvent_t m_event = nullptr;
};

} // namespace warpscope::gpu
