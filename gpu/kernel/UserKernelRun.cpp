// The workbench's run entry: each request is checked here, once, then run by the simulator
// or the GPU.
#include "kernel/KernelRunner.h"
#include "kernel/KernelShared.h"

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

FieldStats writeFieldStats(const FieldLayout& layout, float* out)
{
    float lo = INFINITY, hi = -INFINITY;
    for (int row = 0; row < layout.ny; ++row)
        for (int col = 0; col < layout.nx; ++col) {
            const float v = out[layout.index(row, col)];
            if (std::isfinite(v)) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
        }
    if (!(lo <= hi))
        lo = hi = 0.0f; // no finite node
    out[layout.statsOffset()] = lo;
    out[layout.statsOffset() + 1] = hi;
    return {lo, hi};
}

void recordUserKernelSpan(Context& context, int lane, SpanKind kind, const std::string& name,
                          const LaunchConfig& launch, double startUs, double endUs)
{
    Timeline* timeline = context.timeline();
    if (!timeline || lane < 0)
        return;
    Span span;
    span.lane = lane;
    span.kind = kind;
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

Status prepareUserKernels(Context& context)
{
    return context.isCuda() ? prepareUserKernelsCuda(context) : cpuKernelRunner(context).launch();
}

Status runUserKernel(Context& context, const CompiledKernel& gpu, const SimulatorBuild& cpu,
                     const KernelArgs& args, BufferView<float> out, KernelRun* run)
{
    if (const auto errors = validate(args.mesh); !errors.empty())
        return Status::failure(errors.front().message);
    const bool cuda = context.isCuda();
    const std::vector<KernelParam>& params = cuda ? gpu.params : cpu.params;
    if (cuda ? !gpu.ok : !(cpu.ok && !cpu.library.empty()))
        return Status::failure(cuda ? "The kernel has no GPU build to run"
                                    : "The kernel has no CPU simulator build to run");
    if (args.values.size() != params.size())
        return Status::failure("The kernel takes " + std::to_string(params.size()) +
                               " parameter value(s); " + std::to_string(args.values.size()) +
                               " were given");
    for (std::size_t i = 0; i < params.size(); ++i)
        if (!std::isfinite(args.values[i]))
            return Status::failure("The value of @param '" + params[i].name + "' is not finite");
    if (!(args.timeoutMs > 0.0) || !std::isfinite(args.timeoutMs))
        return Status::failure("The kernel's timeout must be a positive number of milliseconds");
    const FieldLayout layout = layoutFor(args.mesh);
    if (out.size < layout.elementCount())
        return Status::failure("The output holds " + std::to_string(out.size) +
                               " values; the field needs " + std::to_string(layout.elementCount()));
    const std::size_t ownerWords = 2 * std::size_t(args.mesh.nx) * std::size_t(args.mesh.ny);
    if (args.owners.data && args.owners.size < ownerWords)
        return Status::failure("The owner record holds " + std::to_string(args.owners.size) +
                               " words; the mesh needs " + std::to_string(ownerWords));
    if (!cuda && args.owners.data && args.owners.space == MemorySpace::Device)
        return Status::failure("The CPU cannot write the owner record into device memory");
    const KernelShape shape = cuda ? gpu.source.shape : cpu.source.shape;
    if (shape == KernelShape::WholeKernel) {
        if (const auto errors = validateLaunch(args.launch, context.info()); !errors.empty())
            return Status::failure(errors.front().message);
    }
    KernelRun local;
    KernelRun& result = run ? *run : local;
    result = {};
    result.launch = userKernelLaunch(shape, args);
    if (cuda)
        return runUserKernelCuda(context, gpu, args, out, result);
    if (out.space == MemorySpace::Device)
        return Status::failure("The CPU cannot write into device memory");
    return runUserKernelCpu(context, cpu, args, out.data, result);
}

} // namespace warpscope::gpu
