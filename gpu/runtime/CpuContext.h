#pragma once

#include "runtime/ContextBacking.h"
#include "runtime/ThreadPool.h"

#include <vector>

namespace warpscope::gpu {

// The host's cores as a device: a persistent thread pool, one timeline lane per thread.
class CpuBacking final : public ContextBacking
{
public:
    explicit CpuBacking(unsigned threads) : m_pool(threads) {}
    const DeviceInfo& info() const override { return m_info; }
    std::string name() const override;
    std::optional<DeviceMemory> memory() const override { return std::nullopt; }
    void setTimeline(const std::shared_ptr<Timeline>& timeline, const std::string& role) override;
    Status collectTimeline() override { return Status::success(); }
    int hostLane() const override { return workerLane(0); }
    int streamLane() const override { return -1; }
    ThreadPool& hostPool() override { return m_pool; }
    void finish() override {}

    // The lane of pool worker w (0 is the calling thread), or -1 without a timeline.
    int workerLane(unsigned w) const { return m_workerLanes.empty() ? -1 : m_workerLanes[w]; }

private:
    DeviceInfo m_info = simulatedHopper();
    ThreadPool m_pool;
    std::vector<int> m_workerLanes;
};

// The CPU side of a context that runs on the CPU.
CpuBacking& cpuBacking(Context& context);

// A kernel's occupancy on the simulated device, from the resources its sm_90 build reports.
KernelOccupancy presetOccupancy(const DeviceInfo& device, const KernelResources& kernel,
                                long long blockThreads);

} // namespace warpscope::gpu
