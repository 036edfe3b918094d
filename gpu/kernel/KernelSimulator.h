#pragma once

#include "kernel/KernelShared.h"

namespace warpscope::gpu {

// A simulator library, loaded; unloaded when the last build holding it goes.
class SimulatedKernel
{
public:
    using RunBlocks = void (*)(const KernelAbiLaunch*, long long first, long long last);

    ~SimulatedKernel();
    SimulatedKernel(const SimulatedKernel&) = delete;
    SimulatedKernel& operator=(const SimulatedKernel&) = delete;

    static Status load(const std::string& path, std::shared_ptr<const SimulatedKernel>& out);
    // Runs blocks [first, last) of the launch on the calling thread.
    void runBlocks(const KernelAbiLaunch& launch, long long first, long long last) const
    {
        m_run(&launch, first, last);
    }

private:
    SimulatedKernel() = default;
    void* m_handle = nullptr;
    RunBlocks m_run = nullptr;
};

} // namespace warpscope::gpu
