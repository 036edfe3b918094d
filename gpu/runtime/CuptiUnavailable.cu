#include "runtime/CuptiTracer.h"

// The build found no CUPTI headers: the CUPTI timing always falls back to events.
namespace warpscope::gpu {

CuptiTracer& CuptiTracer::instance()
{
    static CuptiTracer tracer;
    return tracer;
}

Status CuptiTracer::acquire()
{
    return Status::failure("This build has no CUPTI; timing with CUDA events");
}

void CuptiTracer::release() {}

Status CuptiTracer::route(cudaStream_t, const std::shared_ptr<Timeline>&, int)
{
    return Status::failure("This build has no CUPTI");
}

void CuptiTracer::unroute(cudaStream_t) {}

void CuptiTracer::flush() {}

} // namespace warpscope::gpu
