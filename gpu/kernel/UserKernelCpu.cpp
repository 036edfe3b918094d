// The CPU simulator's run: the grid's blocks spread over the context's thread pool, each
// block's threads one after another in the loaded library.
#include "kernel/KernelSimulator.h"
#include "runtime/ThreadPool.h"
#include "warpscope/gpu/LaunchLesson.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>

namespace warpscope::gpu {

Status runUserKernelCpu(Context& context, const SimulatorBuild& cpu, const KernelArgs& args,
                        float* out, KernelRun& run)
{
    const FieldLayout layout = layoutFor(args.mesh);
    const LaunchConfig launch = userKernelLaunch(cpu.source.shape, args);
    unsigned long long outOfBounds = 0;
    std::uint32_t* owners = args.owners.data;
    if (owners) {
        // As the teaching kernel leaves them: nodes no thread writes are NaN and uncovered.
        std::fill(out, out + layout.statsOffset(), std::numeric_limits<float>::quiet_NaN());
        std::fill(owners, owners + 2 * std::size_t(args.mesh.nx) * args.mesh.ny, kUncovered);
    }
    KernelAbiLaunch abi{};
    abi.out = {out,
               &outOfBounds,
               owners,
               layout.pitch,
               args.mesh.nx,
               args.mesh.ny,
               unsigned(std::max(1, simulatedHopper().smCount))};
    abi.mesh = abiMesh(args.mesh);
    abi.refs = abiRefs(args.mesh);
    abi.params = args.values.data();
    const Dim3 grid = launch.grid, block = launch.block;
    abi.grid[0] = unsigned(grid.x), abi.grid[1] = unsigned(grid.y), abi.grid[2] = unsigned(grid.z);
    abi.block[0] = unsigned(block.x), abi.block[1] = unsigned(block.y),
    abi.block[2] = unsigned(block.z);
    const auto start = std::chrono::steady_clock::now();
    const double startUs = context.timeline() ? context.timeline()->nowUs() : 0.0;
    context.hostPool().parallelFor(
        std::size_t(grid.volume()), [&](std::size_t first, std::size_t last, unsigned) {
            cpu.kernel->runBlocks(abi, (long long)first, (long long)last);
        });
    run.kernelMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (Timeline* timeline = context.timeline())
        recordUserKernelSpan(context, context.hostLane(), SpanKind::Host,
                             cpu.source.shape == KernelShape::PerNode
                                 ? "user kernel (per node, CPU simulator)"
                                 : "user kernel (CPU simulator)",
                             launch, startUs, timeline->nowUs());
    run.outOfBoundsWrites = (long long)__atomic_load_n(&outOfBounds, __ATOMIC_RELAXED);
    run.stats = writeFieldStats(layout, out);
    if (run.outOfBoundsWrites > 0)
        return outOfBoundsStatus(run.outOfBoundsWrites, args.mesh);
    return Status::success();
}

} // namespace warpscope::gpu
