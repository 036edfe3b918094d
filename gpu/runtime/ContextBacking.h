#pragma once

#include "warpscope/gpu/Context.h"

#include <memory>
#include <optional>
#include <string>

namespace warpscope::gpu {

// The device side of a Context: the CPU's (CpuContext.h) or a CUDA device's
// (CudaContext.h). Slices reach their device's through cpuBacking() or cudaBacking().
class ContextBacking
{
public:
    virtual ~ContextBacking() = default;
    virtual const DeviceInfo& info() const = 0;
    virtual std::string name() const = 0;
    virtual std::optional<DeviceMemory> memory() const = 0;
    virtual void setTimeline(const std::shared_ptr<Timeline>& timeline,
                             const std::string& role) = 0;
    virtual Status collectTimeline() = 0;
    virtual int hostLane() const = 0;
    virtual int streamLane() const = 0;
    virtual ThreadPool& hostPool() = 0;
    // Waits for the device's queued work, before the slices' state is released.
    virtual void finish() = 0;
};

// threads: 0 for one per core.
std::unique_ptr<ContextBacking> makeCpuBacking(unsigned threads);
// A CUDA device's backing, or why there is none: defined by CudaContext.cu, or by
// CudaUnavailable.cpp in builds without nvcc.
// precedence: Context::open's.
Status makeCudaBacking(int ordinal, unsigned hostThreads, int precedence,
                       std::unique_ptr<ContextBacking>& backing);
// The number of CUDA devices the driver offers (0 without CUDA).
int cudaDeviceCount();

} // namespace warpscope::gpu
