// warpscope-memory-reference: the memory lessons (tests/fixtures/memory-kernels/), or the
// simulator's classic kernels (tests/fixtures/sim-kernels/), run as Warpscope runs them on a
// 256 x 256 mesh with the launches of DIR/manifest.txt ("file grid.x grid.y block.x block.y
// [block.z [dynamic shared bytes]]"), for checking the simulator's record of memory against
// the hardware.
//   --simulator DIR  builds each kernel for the CPU simulator with recording on, runs it, and
//                    prints the recorded totals as CSV (one row per kernel);
//   --gpu DIR        builds each with NVRTC for the first GPU and launches it once in this
//                    process, through the kernel runner's own CUDA path (no runner process:
//                    Nsight Compute profiles this one; bench/memory-reference.sh does).
// Exits 2 for bad options, 1 when a kernel fails to build or run.
#include "kernel/KernelRunner.h"
#include "kernel/KernelShared.h"
#include "warpscope/gpu/Context.h"
#include "warpscope/gpu/Device.h"
#include "warpscope/gpu/KernelMemory.h"
#include "warpscope/gpu/UserKernel.h"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

using namespace warpscope::gpu;

namespace {

constexpr int kMeshSize = 256;

struct Lesson
{
    std::string file;
    Dim3 grid, block;
    long long sharedBytes = 0;
};

std::vector<Lesson> readManifest(const std::string& dir)
{
    std::ifstream in(dir + "/manifest.txt");
    std::vector<Lesson> lessons;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#')
            continue;
        std::istringstream words(line);
        Lesson l;
        if (!(words >> l.file >> l.grid.x >> l.grid.y >> l.block.x >> l.block.y))
            continue;
        // Optional: the block's depth, then the dynamic shared memory in bytes.
        if (words >> l.block.z)
            words >> l.sharedBytes;
        lessons.push_back(l);
    }
    return lessons;
}

std::string readFile(const std::string& path)
{
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), {});
}

KernelArgs lessonArgs(const Lesson& lesson)
{
    KernelArgs args;
    args.mesh.nx = args.mesh.ny = kMeshSize;
    args.mesh.latMin = args.mesh.lonMin = -10.0;
    args.mesh.latMax = args.mesh.lonMax = 10.0;
    args.launch.grid = lesson.grid;
    args.launch.block = lesson.block;
    args.launch.sharedBytes = lesson.sharedBytes;
    args.timeoutMs = 600000.0;
    return args;
}

int simulate(const std::string& dir, const std::vector<Lesson>& lessons)
{
    std::unique_ptr<Context> context;
    if (Status s = Context::open(Device{DeviceKind::Cpu, 0}, context); !s) {
        std::fprintf(stderr, "%s\n", s.message().c_str());
        return 1;
    }
    std::printf("kernel,global_ld_requests,global_ld_sectors,global_st_requests,"
                "global_st_sectors,global_atom_requests,global_atom_sectors,shared_ld_instructions,"
                "shared_ld_wavefronts,shared_st_instructions,shared_st_wavefronts,branch_blocks,"
                "branch_lanes\n");
    for (const Lesson& lesson : lessons) {
        KernelSource source{KernelShape::WholeKernel, readFile(dir + "/" + lesson.file)};
        source.recordMemory = true;
        SimulatorBuild build;
        if (Status s = buildSimulatedKernel(source, {}, build); !s) {
            std::fprintf(stderr, "%s: %s\n", lesson.file.c_str(), s.message().c_str());
            return 1;
        }
        KernelArgs args = lessonArgs(lesson);
        std::vector<float> field(layoutFor(args.mesh).elementCount());
        KernelRun run;
        if (Status s =
                runUserKernel(*context, {}, build, args, BufferView<float>::host(field), &run);
            !s) {
            std::fprintf(stderr, "%s: %s\n", lesson.file.c_str(), s.message().c_str());
            return 1;
        }
        std::printf("%s", lesson.file.c_str());
        for (MemoryOp op : {MemoryOp::GlobalLoad, MemoryOp::GlobalStore, MemoryOp::GlobalAtomic,
                            MemoryOp::SharedLoad, MemoryOp::SharedStore}) {
            const MemoryLineStats t = memoryTotal(run.memory, op);
            std::printf(",%llu,%llu", (unsigned long long)t.instructions,
                        (unsigned long long)t.units);
        }
        const MemoryLineStats branches = memoryTotal(run.memory, MemoryOp::Branch);
        std::printf(",%llu,%llu\n", (unsigned long long)branches.instructions,
                    (unsigned long long)branches.lanes);
    }
    return 0;
}

int launchOnGpu(const std::string& dir, const std::vector<Lesson>& lessons)
{
    std::unique_ptr<Context> context;
    if (Status s = Context::open(Device{DeviceKind::Cuda, 0}, context); !s) {
        std::fprintf(stderr, "%s\n", s.message().c_str());
        return 1;
    }
    if (Status s = openRunnerCuda(cudaRunnerBusId(*context)); !s) {
        std::fprintf(stderr, "%s\n", s.message().c_str());
        return 1;
    }
    for (const Lesson& lesson : lessons) {
        const KernelSource source{KernelShape::WholeKernel, readFile(dir + "/" + lesson.file)};
        KernelOptions options;
        options.smMajor = context->info().ccMajor;
        options.smMinor = context->info().ccMinor;
        CompiledKernel build;
        if (Status s = compileKernel(source, options, {}, build); !s) {
            std::fprintf(stderr, "%s: %s\n", lesson.file.c_str(), s.message().c_str());
            return 1;
        }
        const KernelArgs args = lessonArgs(lesson);
        RunnerRequest request = runnerRequest(args, build.params, args.launch, build.buffers);
        request.target = RunnerTarget::Cuda;
        request.program.assign(build.cubin.begin(), build.cubin.end());
        request.entry = build.entry;
        request.smCount = unsigned(context->info().smCount);
        request.output.kind = RunnerOutput::Kind::Host;
        request.output.bytes = runnerOutputBytes(request);
        std::vector<char> output(request.output.bytes);
        const RunnerReply reply = runOnRunnerCuda(request, output.data());
        if (!reply.ok) {
            std::fprintf(stderr, "%s: %s\n", lesson.file.c_str(), reply.message.c_str());
            return 1;
        }
        std::printf("%s: %.3f ms, %llu refused accesses\n", lesson.file.c_str(), reply.kernelMs,
                    (unsigned long long)(reply.outOfBounds + reply.bufferOutOfBounds));
    }
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 3 || (std::string(argv[1]) != "--simulator" && std::string(argv[1]) != "--gpu")) {
        std::fprintf(stderr, "usage: warpscope-memory-reference --simulator|--gpu DIR\n");
        return 2;
    }
    const std::vector<Lesson> lessons = readManifest(argv[2]);
    if (lessons.empty()) {
        std::fprintf(stderr, "No lessons in %s/manifest.txt\n", argv[2]);
        return 1;
    }
    return std::string(argv[1]) == "--gpu" ? launchOnGpu(argv[2], lessons)
                                           : simulate(argv[2], lessons);
}
