// The workbench's run entry: each request is checked here, once, then run by the simulator
// or the GPU.
#include "kernel/KernelRunner.h"
#include "kernel/KernelShared.h"
#include "warpscope/gpu/LaunchLesson.h"

#include <algorithm>
#include <cmath>

namespace warpscope::gpu {

LaunchConfig userKernelLaunch(KernelShape shape, const KernelArgs& args)
{
    if (shape == KernelShape::WholeKernel)
        return args.launch;
    LaunchConfig launch;
    launch.block = {kPerNodeBlock, kPerNodeBlock, 1};
    launch.grid = {(args.mesh.nx + kPerNodeBlock - 1) / kPerNodeBlock,
                   (args.mesh.ny + kPerNodeBlock - 1) / kPerNodeBlock, 1};
    return launch;
}

FieldStats writeFieldStats(const FieldLayout& layout, float* out, const std::uint32_t* owners)
{
    float lo = INFINITY, hi = -INFINITY;
    long long nonFinite = 0;
    for (int row = 0; row < layout.ny; ++row)
        for (int col = 0; col < layout.nx; ++col) {
            const float v = out[layout.index(row, col)];
            if (std::isfinite(v)) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            } else if (!owners || owners[2 * (std::size_t(row) * layout.nx + col)] != kUncovered) {
                ++nonFinite;
            }
        }
    if (!(lo <= hi))
        lo = hi = 0.0f; // no finite node
    out[layout.statsOffset()] = lo;
    out[layout.statsOffset() + 1] = hi;
    return {lo, hi, nonFinite};
}

void recordUserKernelSpan(Context& context, int lane, const std::string& name,
                          const LaunchConfig& launch, double startUs, double endUs)
{
    Timeline* timeline = context.timeline();
    if (!timeline || lane < 0)
        return;
    Span span;
    span.lane = lane;
    span.kind = SpanKind::Kernel; // the simulator's run too: what a GPU would run
    span.name = name;
    span.startUs = startUs;
    span.endUs = std::max(startUs, endUs);
    const Dim3 g = launch.grid, b = launch.block;
    span.detail = "grid (" + std::to_string(g.x) + ", " + std::to_string(g.y) + ", " +
                  std::to_string(g.z) + "), block (" + std::to_string(b.x) + ", " +
                  std::to_string(b.y) + ", " + std::to_string(b.z) + ")";
    timeline->add(std::move(span));
}

Status outOfBoundsStatus(long long writes, const DistanceParams& mesh)
{
    return Status::failure("The kernel tried to write " + std::to_string(writes) +
                           " value(s) outside its output (rows 0 to " +
                           std::to_string(mesh.ny - 1) + ", columns 0 to " +
                           std::to_string(mesh.nx - 1) + "); the bounds-checked view refused them");
}

namespace {

struct PendingState : SliceState
{
    PendingUserKernel pending;
};

} // namespace

PendingUserKernel& pendingUserKernel(Context& context)
{
    return context.state<PendingState>().pending;
}

KernelRunner& userKernelRunner(Context& context)
{
    return context.isCuda() ? cudaKernelRunner(context) : cpuKernelRunner(context);
}

Status prepareUserKernels(Context& context)
{
    return userKernelRunner(context).launch();
}

namespace {

// The checks a run's request needs before anything is sent.
Status checkRequest(Context& context, const CompiledKernel& gpu, const SimulatorBuild& cpu,
                    const KernelArgs& args)
{
    if (const auto errors = validate(args.mesh); !errors.empty())
        return Status::failure(errors.front().message);
    const bool cuda = context.isCuda();
    const std::vector<KernelParam>& params = cuda ? gpu.params : cpu.params;
    if (cuda ? !gpu.ok : !(cpu.ok && !cpu.library.empty()))
        return Status::failure(cuda ? "The kernel has no GPU build to run"
                                    : "The kernel has no CPU simulator build to run");
    if (const std::string problem = kernelValuesProblem(params, args.values); !problem.empty())
        return Status::failure(problem);
    if (!(args.timeoutMs > 0.0) || !std::isfinite(args.timeoutMs))
        return Status::failure("The kernel's timeout must be a positive number of milliseconds");
    const KernelShape shape = cuda ? gpu.source.shape : cpu.source.shape;
    if (shape == KernelShape::WholeKernel) {
        if (const auto errors = validateLaunch(args.launch, context.info()); !errors.empty())
            return Status::failure(errors.front().message);
    }
    return Status::success();
}

// The checks of the memory a run's output goes to.
Status checkOutput(Context& context, const PendingUserKernel& pending, BufferView<float> out,
                   BufferView<std::uint32_t> owners)
{
    const FieldLayout layout = layoutFor(pending.mesh);
    if (out.size < layout.elementCount())
        return Status::failure("The output holds " + std::to_string(out.size) +
                               " values; the field needs " + std::to_string(layout.elementCount()));
    const std::size_t ownerWords = 2 * std::size_t(pending.mesh.nx) * std::size_t(pending.mesh.ny);
    if (pending.withOwners && (!owners.data || owners.size < ownerWords))
        return Status::failure("The owner record holds " + std::to_string(owners.size) +
                               " words; the mesh needs " + std::to_string(ownerWords));
    if (!context.isCuda() && (out.space == MemorySpace::Device ||
                              (pending.withOwners && owners.space == MemorySpace::Device)))
        return Status::failure("The CPU cannot write into device memory");
    return Status::success();
}

// Sends a checked request (checkRequest) to the context's runner, after seeding the shared
// output with seed when given.
Status start(Context& context, const CompiledKernel& gpu, const SimulatorBuild& cpu,
             const KernelArgs& args, bool recordOwners, BufferView<float> seed)
{
    PendingUserKernel& pending = pendingUserKernel(context);
    if (pending.active)
        stopUserKernel(context); // a new run replaces the one in flight
    const bool cuda = context.isCuda();
    const KernelShape shape = cuda ? gpu.source.shape : cpu.source.shape;
    pending = {};
    pending.mesh = args.mesh;
    pending.withOwners = recordOwners;
    pending.launch = userKernelLaunch(shape, args);
    if (shape == KernelShape::PerNode)
        pending.spanName =
            cuda ? "user kernel (per node)" : "user kernel (per node, CPU simulator)";
    else
        pending.spanName = cuda ? "user kernel" : "user kernel (CPU simulator)";
    RunnerRequest request = runnerRequest(args, cuda ? gpu.params : cpu.params, pending.launch,
                                          cuda ? gpu.buffers : cpu.buffers);
    if (const std::string problem = runnerBuffersProblem(request); !problem.empty())
        return Status::failure(problem);
    request.withOwners = recordOwners ? 1 : 0;
    request.recordMemory = !cuda && cpu.source.recordMemory ? 1 : 0;
    int outputFd = -1;
    if (Status s = cuda ? prepareUserKernelCuda(context, gpu, seed, request, outputFd)
                        : prepareUserKernelCpu(context, cpu, seed, request, outputFd);
        !s)
        return s;
    Timeline* timeline = context.timeline();
    pending.sentUs = timeline ? timeline->nowUs() : 0.0;
    if (Status s = userKernelRunner(context).send(request, outputFd, args.timeoutMs); !s)
        return s;
    pending.active = true;
    return Status::success();
}

} // namespace

Status startUserKernel(Context& context, const CompiledKernel& gpu, const SimulatorBuild& cpu,
                       const KernelArgs& args, bool recordOwners)
{
    if (Status s = checkRequest(context, gpu, cpu, args); !s)
        return s;
    return start(context, gpu, cpu, args, recordOwners, {});
}

bool userKernelRunning(Context& context)
{
    return pendingUserKernel(context).active;
}

bool userKernelAnswered(Context& context, double waitMs)
{
    return !pendingUserKernel(context).active || userKernelRunner(context).answered(waitMs);
}

int userKernelSocket(Context& context)
{
    return pendingUserKernel(context).active ? userKernelRunner(context).socket() : -1;
}

Status finishUserKernel(Context& context, BufferView<float> out, BufferView<std::uint32_t> owners,
                        KernelRun& run)
{
    PendingUserKernel& pending = pendingUserKernel(context);
    run = {};
    if (!pending.active)
        return Status::failure("No kernel run was started");
    run.launch = pending.launch;
    if (Status s = checkOutput(context, pending, out, owners); !s) {
        stopUserKernel(context);
        return s;
    }
    pending.active = false;
    RunnerReply reply;
    KernelRunner& runner = userKernelRunner(context);
    const Status received = runner.receive(reply);
    run.printed = runner.printed(run.printedCapped);
    run.gpuFault = context.isCuda() && (!received || (!reply.ok && reply.runnerEnds));
    if (!received)
        return received;
    run.printLines = std::move(reply.printLines);
    run.printLinesDropped = (long long)reply.printLinesDropped;
    run.findings = std::move(reply.findings);
    run.memory = std::move(reply.memory);
    if (!reply.ok)
        return Status::failure(reply.message);
    if (Status s = context.isCuda() ? finishUserKernelCuda(context, pending, out, owners)
                                    : finishUserKernelCpu(context, pending, out, owners);
        !s)
        return s;
    run.kernelMs = reply.kernelMs;
    run.outOfBoundsWrites = (long long)reply.outOfBounds;
    run.bufferOutOfBounds = (long long)reply.bufferOutOfBounds;
    run.stats = {reply.lo, reply.hi, (long long)reply.nonFinite};
    if (Timeline* timeline = context.timeline()) {
        const bool cuda = context.isCuda();
        const int lane =
            cuda ? timeline->lane("CUDA user kernel (" + context.role() + ")") : context.hostLane();
        const double startUs = cuda ? pending.sentUs + 1000.0 * reply.startMs : pending.sentUs;
        const double endUs = cuda ? pending.sentUs + 1000.0 * reply.stopMs : timeline->nowUs();
        recordUserKernelSpan(context, lane, pending.spanName, pending.launch, startUs, endUs);
    }
    if (run.outOfBoundsWrites > 0)
        return outOfBoundsStatus(run.outOfBoundsWrites, pending.mesh);
    if (run.bufferOutOfBounds > 0)
        return Status::failure("The kernel reached " + std::to_string(run.bufferOutOfBounds) +
                               " element(s) outside its @buffers; the bounds-checked buffers "
                               "refused them");
    return Status::success();
}

void stopUserKernel(Context& context)
{
    PendingUserKernel& pending = pendingUserKernel(context);
    if (pending.active)
        userKernelRunner(context).cancel();
    pending.active = false;
}

Status runUserKernel(Context& context, const CompiledKernel& gpu, const SimulatorBuild& cpu,
                     const KernelArgs& args, BufferView<float> out, KernelRun* run)
{
    KernelRun local;
    KernelRun& result = run ? *run : local;
    result = {};
    result.launch = userKernelLaunch(context.isCuda() ? gpu.source.shape : cpu.source.shape, args);
    if (Status s = checkRequest(context, gpu, cpu, args); !s)
        return s;
    PendingUserKernel probe;
    probe.mesh = args.mesh;
    probe.withOwners = args.owners.data != nullptr;
    if (Status s = checkOutput(context, probe, out, args.owners); !s)
        return s;
    if (Status s = start(context, gpu, cpu, args, probe.withOwners, out); !s)
        return s;
    return finishUserKernel(context, out, args.owners, result);
}

} // namespace warpscope::gpu
