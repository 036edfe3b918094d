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

Status runUserKernelCpu(Context& context, const SimulatorBuild& cpu, const KernelArgs& args,
                        float* out, KernelRun& run)
{
    UserKernelCpuState& state = context.state<UserKernelCpuState>();
    RunnerRequest request = runnerRequest(args, run.launch);
    request.target = RunnerTarget::Cpu;
    request.program = cpu.library;
    request.smCount = std::uint32_t(std::max(1, simulatedHopper().smCount));
    request.threads = context.hostPool().size();
    if (Status s = state.output.reserve(runnerOutputBytes(request)); !s)
        return s;
    request.output = state.output.descriptor();
    // Nodes the kernel does not write keep their values, as if it wrote out itself.
    std::memcpy(state.output.data(), out, request.elementCount * sizeof(float));
    Timeline* timeline = context.timeline();
    const double startUs = timeline ? timeline->nowUs() : 0.0;
    RunnerReply reply;
    if (Status s = state.runner.run(request, state.output.fd(), args.timeoutMs, reply); !s)
        return s;
    if (!reply.ok)
        return Status::failure(reply.message);
    const auto* source = static_cast<const char*>(state.output.data());
    std::memcpy(out, source, request.elementCount * sizeof(float));
    if (request.withOwners)
        std::memcpy(args.owners.data, source + runnerOwnersOffset(request.elementCount),
                    2 * std::size_t(request.nx) * request.ny * sizeof(std::uint32_t));
    applyReply(reply, run);
    if (timeline)
        recordUserKernelSpan(context, context.hostLane(), SpanKind::Host,
                             cpu.source.shape == KernelShape::PerNode
                                 ? "user kernel (per node, CPU simulator)"
                                 : "user kernel (CPU simulator)",
                             run.launch, startUs, timeline->nowUs());
    if (run.outOfBoundsWrites > 0)
        return outOfBoundsStatus(run.outOfBoundsWrites, args.mesh);
    return Status::success();
}

} // namespace warpscope::gpu
