// The simulator's record of memory (KernelMemory.h): what a warp instruction costs, as the
// hardware counts it, and what a recorded launch reports at the user's lines. The expected
// figures are Nsight Compute's on an H200 (ncu --clock-control none, the metrics in
// docs/PERFORMANCE.md): lane strides of 1, 2 and 32 floats cost 4, 8 and 32 sectors per
// request; shared reads with 1-, 2- and 32-way bank conflicts cost 1.02, 2.04 and 32.1
// wavefronts per instruction.
#include "warpscope/gpu/KernelMemory.h"

#include "KernelTargets.h"
#include "kernel/MemoryModel.h"
#include "warpscope/gpu/LaunchLesson.h"
#include "warpscope/gpu/MemoryPaint.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <sstream>
#include <string>

namespace warpscope::gpu::test {
namespace {

WarpAccess lanes(std::uint64_t base, long long stride, unsigned size, unsigned count = 32)
{
    WarpAccess access;
    access.size = size;
    for (unsigned l = 0; l < count; ++l) {
        access.lane[access.count] = std::uint8_t(l);
        access.address[access.count++] = std::uint64_t((long long)base + stride * l);
    }
    return access;
}

TEST(MemoryModel, GlobalSectorsFollowTheLaneStride)
{
    EXPECT_EQ(globalSectors(lanes(4096, 4, 4)), 4u);
    EXPECT_EQ(globalSectors(lanes(4096, 8, 4)), 8u);
    EXPECT_EQ(globalSectors(lanes(4096, 128, 4)), 32u);
    EXPECT_EQ(idealSectors(lanes(4096, 128, 4)), 4u);
    // A warp's 128 bytes starting 4 bytes into a sector touch a fifth one.
    EXPECT_EQ(globalSectors(lanes(4100, 4, 4)), 5u);
    EXPECT_EQ(idealSectors(lanes(4100, 4, 4)), 4u);
    // Every lane at one address: one sector.
    EXPECT_EQ(globalSectors(lanes(4096, 0, 4)), 1u);
    // Doubles and 16-byte vectors, consecutive: 8 and 16 sectors, the fewest.
    EXPECT_EQ(globalSectors(lanes(4096, 8, 8)), 8u);
    EXPECT_EQ(globalSectors(lanes(4096, 16, 16)), 16u);
    EXPECT_EQ(idealSectors(lanes(4096, 16, 16)), 16u);
    // Atomics on one address are served lane by lane; on distinct ones, by sector.
    EXPECT_EQ(atomicSectors(lanes(4096, 0, 4)), 32u);
    EXPECT_EQ(atomicSectors(lanes(4096, 4, 4)), 4u);
    EXPECT_EQ(atomicSectors(lanes(4096, 0, 4, 5)), 5u);
}

TEST(MemoryModel, SharedWavefrontsCountTheBusiestBank)
{
    for (const auto& [stride, ways] : {std::pair{1, 1u}, {2, 2u}, {32, 32u}, {33, 1u}, {8, 8u}}) {
        const WarpAccess access = lanes(0, 4 * stride, 4);
        EXPECT_EQ(sharedWavefronts(access), ways) << "stride " << stride;
        EXPECT_EQ(idealWavefronts(access), 1u) << "stride " << stride;
    }
    // Every lane reading one word: a broadcast.
    EXPECT_EQ(sharedWavefronts(lanes(64, 0, 4)), 1u);
    // 8-byte accesses are served half a warp at a time, 16-byte a quarter at a time.
    EXPECT_EQ(sharedWavefronts(lanes(0, 8, 8)), 2u);
    EXPECT_EQ(idealWavefronts(lanes(0, 8, 8)), 2u);
    EXPECT_EQ(sharedWavefronts(lanes(0, 16, 16)), 4u);
    // A stride of two doubles: each half warp's 16 lanes fall in 16 of the 32 banks twice.
    EXPECT_EQ(sharedWavefronts(lanes(0, 16, 8)), 4u);
    // Half a warp active, stride 32 words: 16 lanes in one bank.
    EXPECT_EQ(sharedWavefronts(lanes(0, 128, 4, 16)), 16u);
}

TEST(MemoryModel, CausesNameTheStrideAndTheConflict)
{
    MemoryLineStats line;
    line.instructions = 1;
    line.units = 32;
    line.ideal = 4;
    EXPECT_NE(memoryCause(MemoryOp::GlobalLoad, lanes(4096, 128, 4), line)
                  .find("a stride of 32 elements (128 bytes) between lanes: each lane touches its "
                        "own sector"),
              std::string::npos);
    line.units = 4;
    EXPECT_EQ(memoryCause(MemoryOp::GlobalLoad, lanes(4096, 4, 4), line).rfind("coalesced", 0), 0u);
    line.units = 32;
    line.ideal = 1;
    EXPECT_NE(memoryCause(MemoryOp::SharedLoad, lanes(0, 128, 4), line).find("32-way conflict"),
              std::string::npos);
    line.units = 0;
    line.ideal = 0;
    line.lanes = 16;
    EXPECT_NE(memoryCause(MemoryOp::Branch, {}, line).find("16 of 32 lanes"), std::string::npos);
}

// Launches recorded by the simulator, built with clang++'s instrumentation.
class SimulatorMemory : public KernelTargets
{
protected:
    void SetUp() override
    {
        open(Target::Simulator);
        if (!IsSkipped() && !simulatorChecksMemory())
            GTEST_SKIP() << "the simulator's compiler is not clang++: nothing is recorded";
    }

public:
    // A fixture's kernel recorded on a 256 x 256 mesh.
    KernelRun recordFile(const std::string& path, Dim3 grid, Dim3 block, long long sharedBytes)
    {
        Field field;
        KernelRun run;
        const Status s = runCode(simKernelFixture("../" + path), 256, 256, grid, block, field,
                                 sharedBytes, run, true);
        EXPECT_TRUE(s.ok()) << path << ": " << s.message();
        return run;
    }

protected:
    KernelMemoryReport record(const std::string& body, Dim3 grid, Dim3 block)
    {
        Field field;
        KernelRun done;
        const Status s = runCode("__global__ void kernel(Out out, Mesh mesh, Refs refs, Params p)\n"
                                 "{\n" +
                                     body + "}\n",
                                 1024, 8, grid, block, field, 0, done, true);
        EXPECT_TRUE(s.ok()) << s.message();
        EXPECT_TRUE(done.memory.recorded);
        for (const MemoryLineStats& l : done.memory.lines)
            std::printf("line %d %s: %llu instructions, %llu lanes, %llu units (ideal %llu): %s\n",
                        l.line, memoryOpName(l.op), (unsigned long long)l.instructions,
                        (unsigned long long)l.lanes, (unsigned long long)l.units,
                        (unsigned long long)l.ideal, l.cause.c_str());
        return done.memory;
    }
};

const MemoryLineStats* find(const KernelMemoryReport& report, MemoryOp op, int line)
{
    for (const MemoryLineStats& l : report.lines)
        if (l.op == op && l.line == line)
            return &l;
    return nullptr;
}

std::string replaced(std::string text, const std::string& what, int value)
{
    return text.replace(text.find(what), what.size(), std::to_string(value));
}

TEST_F(SimulatorMemory, StoresWithALaneStrideCostTheSectorsTheHardwareCounts)
{
    for (const auto& [stride, sectors] : {std::pair{1, 4.0}, {2, 8.0}, {32, 32.0}}) {
        const KernelMemoryReport report = record(
            replaced("    out.write(blockIdx.x, threadIdx.x * STRIDE, 1.0f);\n", "STRIDE", stride),
            {8, 1, 1}, {32, 1, 1});
        const MemoryLineStats* line = find(report, MemoryOp::GlobalStore, 3);
        ASSERT_NE(line, nullptr) << "stride " << stride;
        EXPECT_EQ(line->instructions, 8u);
        EXPECT_EQ(line->lanes, 8u * 32u);
        EXPECT_DOUBLE_EQ(double(line->units) / double(line->instructions), sectors);
        EXPECT_EQ(line->ideal, 8u * 4u);
        EXPECT_NE(line->cause.find(stride == 1 ? "coalesced" : "a stride of"), std::string::npos)
            << line->cause;
        ASSERT_EQ(report.warps.sectorsPerRequest.size(), 8u);
        for (float perRequest : report.warps.sectorsPerRequest)
            EXPECT_FLOAT_EQ(perRequest, float(sectors));
    }
}

TEST_F(SimulatorMemory, SharedReadsWithBankConflictsCostTheWavefrontsTheHardwareCounts)
{
    const std::string body = "    __shared__ float s[32 * 33];\n"
                             "    for (int i = threadIdx.x; i < 32 * 33; i += 32)\n"
                             "        s[i] = float(i);\n"
                             "    __syncthreads();\n"
                             "    out.write(blockIdx.x, threadIdx.x, s[threadIdx.x * STRIDE]);\n";
    for (const auto& [stride, ncu] : {std::pair{1, 1.02}, {2, 2.04}, {32, 32.1}}) {
        const KernelMemoryReport report =
            record(replaced(body, "STRIDE", stride), {4, 1, 1}, {32, 1, 1});
        const MemoryLineStats* line = find(report, MemoryOp::SharedLoad, 7);
        ASSERT_NE(line, nullptr) << "stride " << stride;
        EXPECT_EQ(line->instructions, 4u);
        EXPECT_NEAR(double(line->units) / double(line->instructions), ncu, 0.05 * ncu);
        if (stride == 32)
            EXPECT_NE(line->cause.find("32-way conflict"), std::string::npos) << line->cause;
        // The stores of consecutive words fill a wavefront each.
        const MemoryLineStats* stores = find(report, MemoryOp::SharedStore, 5);
        ASSERT_NE(stores, nullptr);
        EXPECT_EQ(stores->units, stores->instructions);
        ASSERT_EQ(report.warps.conflictWays.size(), 4u);
        EXPECT_GT(report.warps.conflictWays[0], 0.0f);
    }
}

TEST_F(SimulatorMemory, EachSideOfADivergentBranchRunsWithHalfTheLanes)
{
    const KernelMemoryReport report =
        record("    float v = 0.0f;\n"
               "    if (threadIdx.x % 2 == 0)\n"
               "        for (int i = 0; i < 64; ++i) v += sinf(v + float(i));\n"
               "    else\n"
               "        for (int i = 0; i < 64; ++i) v += cosf(v * float(i));\n"
               "    out.write(blockIdx.x, threadIdx.x, v);\n",
               {2, 1, 1}, {32, 1, 1});
    int halves = 0;
    for (const MemoryLineStats& line : report.lines)
        if (line.op == MemoryOp::Branch && (line.line == 5 || line.line == 7)) {
            EXPECT_EQ(line.lanes, 16u * line.instructions) << "line " << line.line;
            ++halves;
        }
    EXPECT_GE(halves, 2);
    const MemoryLineStats total = memoryTotal(report, MemoryOp::Branch);
    ASSERT_GT(total.instructions, 0u);
    // The loops' turns dominate: close to half the lanes, as ncu's 17.09 threads per
    // instruction for an odd/even split.
    EXPECT_NEAR(double(total.lanes) / double(total.instructions), 17.09, 0.1 * 17.09);
    ASSERT_EQ(report.warps.activeLanes.size(), 2u);
    EXPECT_LT(report.warps.activeLanes[0], 20.0f);
}

// Each kernel of a folder's manifest as Nsight Compute counted it on an H200 (ncu-h200.csv,
// made by bench/memory-reference.sh and bench/memory_compare.py --fixture): the simulator's
// sectors per global load, store and atomic request and its shared-memory wavefronts in all lie
// within 5 % of the hardware's, and so does its threads per instruction where checked. Every
// access is named at the user's line. skip: (kernel, figure) pairs left out, each with a reason
// where it is given.
void expectTheHardwaresFigures(SimulatorMemory& test, const std::string& folder, bool threads,
                               const std::set<std::pair<std::string, int>>& skip, int kernels)
{
    const std::string dir = fixtureDir() + "/" + folder;
    std::ifstream manifest(dir + "/manifest.txt"), counted(dir + "/ncu-h200.csv");
    ASSERT_TRUE(manifest && counted) << folder;
    std::map<std::string, std::vector<double>> hardware;
    std::string line;
    std::getline(counted, line); // the header
    while (std::getline(counted, line)) {
        std::istringstream cells(line);
        std::string name, cell;
        std::getline(cells, name, ',');
        std::vector<double>& figures = hardware[name];
        while (std::getline(cells, cell, ','))
            figures.push_back(cell.empty() ? std::nan("") : std::stod(cell));
    }
    int checked = 0;
    while (std::getline(manifest, line)) {
        std::istringstream words(line);
        std::string file;
        Dim3 grid, block;
        long long shared = 0;
        if (line.empty() || line[0] == '#' ||
            !(words >> file >> grid.x >> grid.y >> block.x >> block.y))
            continue;
        if (words >> block.z)
            words >> shared;
        ASSERT_EQ(hardware[file].size(), 6u) << file;
        const KernelRun run = test.recordFile(folder + "/" + file, grid, block, shared);
        for (const MemoryLineStats& l : run.memory.lines)
            if (l.op != MemoryOp::Branch)
                EXPECT_GT(l.line, 0) << file << ": " << memoryOpName(l.op);
        const auto per = [&](MemoryOp op) {
            const MemoryLineStats t = memoryTotal(run.memory, op);
            return t.instructions ? double(t.units) / double(t.instructions) : std::nan("");
        };
        const MemoryLineStats branches = memoryTotal(run.memory, MemoryOp::Branch);
        const double mine[6] = {per(MemoryOp::GlobalLoad),
                                per(MemoryOp::GlobalStore),
                                per(MemoryOp::GlobalAtomic),
                                double(memoryTotal(run.memory, MemoryOp::SharedLoad).units),
                                double(memoryTotal(run.memory, MemoryOp::SharedStore).units),
                                double(branches.lanes) / double(branches.instructions)};
        for (int k = 0; k < (threads ? 6 : 5); ++k) {
            if (skip.count({file, k}))
                continue;
            const double counted = hardware[file][std::size_t(k)];
            if (std::isnan(counted))
                EXPECT_TRUE(std::isnan(mine[k])) << file << " figure " << k << ": " << mine[k];
            else
                EXPECT_NEAR(mine[k], counted, 0.05 * counted) << file << " figure " << k;
        }
        ++checked;
    }
    EXPECT_EQ(checked, kernels) << folder;
}

TEST_F(SimulatorMemory, TheMemoryLessonsCostWhatNsightComputeCountedOnAnH200)
{
    expectTheHardwaresFigures(*this, "memory-kernels", true, {}, 16);
}

// The classic kernels of the simulator's tests: threads per instruction is counted per basic
// block of the simulator's code, not per GPU instruction, which the shuffle reduction's and the
// cooperative groups' one-lane branches put 20 % and 47 % off; the cooperative groups' shared
// loads are those of the simulator's own groups, which keep a tile's values in shared memory
// where CUDA's shuffle them (2048 wavefronts where the GPU has 512).
TEST_F(SimulatorMemory, TheClassicKernelsCostWhatNsightComputeCountedOnAnH200)
{
    expectTheHardwaresFigures(*this, "sim-kernels", false, {{"cooperative_groups.cu", 3}}, 10);
}

// A block that makes more accesses between two barriers than a runner thread keeps is recorded
// in part, and the run says so, without failing or holding more memory.
TEST_F(SimulatorMemory, ABlockWithTooManyAccessesIsRecordedInPart)
{
    const KernelMemoryReport report = record("    __shared__ float s[32][32];\n"
                                             "    for (int j = 0; j < 32; ++j)\n"
                                             "        s[threadIdx.x][j] = 0.0f;\n"
                                             "    float sum = 0.0f;\n"
                                             "    for (int k = 0; k < 40000; ++k) {\n"
                                             "        s[threadIdx.x][k % 32] = sum;\n"
                                             "        sum += s[threadIdx.x][(k + 7) % 32] + 1.0f;\n"
                                             "    }\n"
                                             "    out.write(blockIdx.x, threadIdx.x, sum);\n",
                                             {2, 1, 1}, {32, 1, 1});
    EXPECT_EQ(report.blocks, 2u);
    EXPECT_EQ(report.blocksInPart, 2u);
}

TEST_F(SimulatorMemory, ABuildThatDoesNotRecordReportsNothing)
{
    Field field;
    KernelRun done;
    const Status s = runCode("__global__ void kernel(Out out, Mesh mesh, Refs refs, Params p)\n"
                             "{ out.write(blockIdx.x, threadIdx.x, 1.0f); }\n",
                             64, 2, {2, 1, 1}, {32, 1, 1}, field, 0, done, false);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_FALSE(done.memory.recorded);
    EXPECT_TRUE(done.memory.lines.empty());
}

// The Launch tab's memory colours: every node takes the figures of the warp whose thread wrote
// it, through the teaching record, and nodes no thread wrote are left without one.
TEST_F(SimulatorMemory, EachNodeIsPaintedWithTheFiguresOfTheWarpThatWroteIt)
{
    // Block 0's lanes store side by side (4 sectors a request); block 1's a sector apart (32).
    KernelSource source{KernelShape::WholeKernel,
                        "__global__ void kernel(Out out, Mesh mesh, Refs refs, Params p)\n"
                        "{\n"
                        "    const int stride = blockIdx.x == 0 ? 1 : 32;\n"
                        "    out.write(0, blockIdx.x * 1024 + threadIdx.x * stride, 1.0f);\n"
                        "}\n"};
    source.recordMemory = true;
    SimulatorBuild cpu;
    ASSERT_TRUE(buildSimulatedKernel(source, m_dir.str(), cpu).ok());
    KernelArgs args;
    args.mesh.nx = 2048;
    args.mesh.ny = 2;
    args.launch.grid = {2, 1, 1};
    args.launch.block = {32, 1, 1};
    args.timeoutMs = 60000.0;
    const FieldLayout layout = layoutFor(args.mesh);
    std::vector<float> out(layout.elementCount(), -1.0f);
    std::vector<std::uint32_t> owners(2 * 2 * 2048, 0u);
    KernelRun run;
    const Status started = startUserKernel(*m_context, {}, cpu, args, true);
    ASSERT_TRUE(started.ok()) << started.message();
    ASSERT_TRUE(userKernelAnswered(*m_context, 60000.0));
    const Status s = finishUserKernel(*m_context, BufferView<float>::host(out),
                                      BufferView<std::uint32_t>::host(owners), run);
    ASSERT_TRUE(s.ok()) << s.message();
    ASSERT_TRUE(run.memory.recorded);

    std::vector<float> painted(layout.elementCount());
    EXPECT_EQ(paintMemoryFigure(run.memory.warps, MemoryFigure::SectorsPerRequest, owners, layout,
                                painted),
              64u);
    for (int t = 0; t < 32; ++t) {
        EXPECT_FLOAT_EQ(painted[layout.index(0, t)], 4.0f) << "block 0, thread " << t;
        EXPECT_FLOAT_EQ(painted[layout.index(0, 1024 + 32 * t)], 32.0f) << "block 1, thread " << t;
        EXPECT_TRUE(std::isnan(painted[layout.index(0, 1025 + 32 * t)])) << "unwritten";
    }
    EXPECT_TRUE(std::isnan(painted[layout.index(0, 32)]));
    EXPECT_FLOAT_EQ(painted[layout.statsOffset()], 1.0f);
    EXPECT_FLOAT_EQ(painted[layout.statsOffset() + 1], 32.0f);
    // Each warp's ideal is the 4 sectors its 128 bytes fill; its lanes all ran.
    const std::uint32_t second[2] = {owners[2 * 1024], owners[2 * 1024 + 1]};
    std::size_t warp = 0;
    ASSERT_TRUE(nodeWarp(run.memory.warps, second, warp));
    EXPECT_EQ(warp, 1u);
    EXPECT_FLOAT_EQ(run.memory.warps.idealSectorsPerRequest[warp], 4.0f);
    paintMemoryFigure(run.memory.warps, MemoryFigure::ActiveLanes, owners, layout, painted);
    EXPECT_FLOAT_EQ(painted[layout.index(0, 1024)], 32.0f);
    // No shared memory: no node has a conflict figure.
    EXPECT_EQ(
        paintMemoryFigure(run.memory.warps, MemoryFigure::ConflictWays, owners, layout, painted),
        0u);
}

} // namespace
} // namespace warpscope::gpu::test
