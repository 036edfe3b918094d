#pragma once

// For the CUDA implementations of the slices that fill the distance field (this one and the
// teaching kernel): what a CUDA context keeps for the field between frames.
#include "distance/DistanceKernel.cuh"
#include "distance/DistanceShared.h"
#include "runtime/CudaContext.h"
#include "runtime/CudaEvent.h"

#include <optional>

namespace warpscope::gpu {

// The field's device state, its timing events, and its figures on their way back: the
// stats are copied to pinned memory behind the kernel, and read once an event says they
// arrived, so nothing waits for the GPU.
class CudaFieldState : public SliceState
{
public:
    ~CudaFieldState() override;

    // Makes the events and the small buffers, once.
    Status prepare();
    // Makes room for the kernel's tables for params, outside any timed region.
    Status prepareScratch(const DistanceParams& params, cudaStream_t stream);

    // Marks a field's work as queued on the context's stream. Its figures are copied by the
    // first poll() after it, which the owner of a mapped GL buffer calls once it is unmapped.
    void markQueued()
    {
        m_pending = true;
        m_copyQueued = false;
    }
    // The figures once they have arrived, without blocking; queues their copy on cuda's
    // stream first.
    std::optional<FieldResult> poll(CudaBacking& cuda);
    void setResult(const FieldResult& result)
    {
        m_last = result;
        m_pending = false;
    }

    CudaEvent start; // around the kernel
    CudaEvent stop;
    DistanceStatsState* statsState = nullptr; // kept by the kernel between launches
    unsigned int* lessonKeys = nullptr;       // the teaching kernel's min/max scratch
    CudaBuffer scratch{"the kernel's tables", false};
    CudaBuffer field{"the field", false}; // for results that go to the host

private:
    CudaEvent m_arrived;             // the stats are in m_pinnedStats
    double* m_pinnedStats = nullptr; // DistanceStatsState::finalMin, finalMax
    bool m_copyQueued = false;
    bool m_pending = false;
    std::optional<FieldResult> m_last;
};

} // namespace warpscope::gpu
