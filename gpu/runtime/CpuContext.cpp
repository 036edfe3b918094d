#include "runtime/CpuContext.h"

namespace warpscope::gpu {

std::string CpuBacking::name() const
{
    return "CPU, " + std::to_string(m_pool.size()) + " threads";
}

void CpuBacking::setTimeline(const std::shared_ptr<Timeline>& timeline, const std::string& role)
{
    m_workerLanes.clear();
    if (timeline)
        for (unsigned w = 0; w < m_pool.size(); ++w)
            m_workerLanes.push_back(
                timeline->lane("CPU thread " + std::to_string(w) + ": " + role));
}

std::unique_ptr<ContextBacking> makeCpuBacking(unsigned threads)
{
    return std::make_unique<CpuBacking>(threads > 0 ? threads
                                                    : std::thread::hardware_concurrency());
}

CpuBacking& cpuBacking(Context& context)
{
    return static_cast<CpuBacking&>(context.backing());
}

KernelOccupancy presetOccupancy(const DeviceInfo& device, const KernelResources& kernel,
                                long long blockThreads)
{
    KernelOccupancy o;
    o.resources = kernel;
    o.theoretical = theoreticalOccupancy(device, kernel, blockThreads);
    o.suggestedBlock = suggestedBlockThreads(device, kernel);
    return o;
}

} // namespace warpscope::gpu
