#pragma once

#include "warpscope/gpu/Status.h"
#include "warpscope/gpu/Timeline.h"

#include <cuda_runtime.h>
#include <memory>

namespace warpscope::gpu {

// CUPTI's activity records of kernels and copies as timeline spans: the GPU's own start and
// end of each, with nothing added to the streams. CUPTI is loaded at run time, so machines
// without it, or where a profiler holds it, keep timing with events. One per process, as
// CUPTI is; thread-safe (records may arrive on CUPTI's thread).
class CuptiTracer
{
public:
    static CuptiTracer& instance();

    // Starts the records, counted per user. Fails with the reason where CUPTI cannot be had.
    Status acquire();
    // Ends a user's use; the last one stops the records.
    void release();

    // Sends the records of stream to lane of timeline, from now on.
    Status route(cudaStream_t stream, const std::shared_ptr<Timeline>& timeline, int lane);
    void unroute(cudaStream_t stream);

    // Delivers the records completed so far.
    void flush();

private:
    CuptiTracer() = default;
};

} // namespace warpscope::gpu
