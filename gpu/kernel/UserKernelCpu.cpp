// The CPU simulator's run: the simulator's library runs in the kernel runner's process
// (KernelRunner.h), its blocks spread over that process's threads, writing host memory both
// processes map. A kernel that crashes or never ends costs the runner, not the app, and the
// output is copied out only when the run succeeded.
#include "kernel/KernelRunner.h"
#include "runtime/ThreadPool.h"

#include <algorithm>
#include <cstring>

namespace warpscope::gpu {
namespace {

struct UserKernelCpuState : SliceState
{
    KernelRunner runner;
    SharedOutput output;
};

} // namespace

KernelRunner& cpuKernelRunner(Context& context)
{
    return context.state<UserKernelCpuState>().runner;
}

Status prepareUserKernelCpu(Context& context, const SimulatorBuild& cpu, BufferView<float> seed,
                            RunnerRequest& request, int& outputFd)
{
    UserKernelCpuState& state = context.state<UserKernelCpuState>();
    request.target = RunnerTarget::Cpu;
    request.program = cpu.library;
    request.smCount = std::uint32_t(std::max(1, simulatedHopper().smCount));
    request.threads = context.hostPool().size();
    if (Status s = state.output.reserve(runnerOutputBytes(request)); !s)
        return s;
    request.output = state.output.descriptor();
    outputFd = state.output.fd();
    if (seed.data) // nodes the kernel does not write keep their values
        std::memcpy(state.output.data(), seed.data, request.elementCount * sizeof(float));
    return Status::success();
}

Status finishUserKernelCpu(Context& context, const PendingUserKernel& pending,
                           BufferView<float> out, BufferView<std::uint32_t> owners)
{
    UserKernelCpuState& state = context.state<UserKernelCpuState>();
    const FieldLayout layout = layoutFor(pending.mesh);
    const auto* source = static_cast<const char*>(state.output.data());
    std::memcpy(out.data, source, layout.elementCount() * sizeof(float));
    if (pending.withOwners)
        std::memcpy(owners.data, source + runnerOwnersOffset(layout.elementCount()),
                    2 * std::size_t(pending.mesh.nx) * pending.mesh.ny * sizeof(std::uint32_t));
    return Status::success();
}

} // namespace warpscope::gpu
