// CUDA's execution model on the CPU simulator: classic kernels (tests/fixtures/sim-kernels/)
// built and run as the app runs them (buildSimulatedKernel, runUserKernel, the kernel runner's
// sandboxed process), checked against plain loops written here. The same sources and checks
// run through NVRTC on a GPU where there is one (the Gpu instances), so that the simulator and
// the hardware are held to the same answers.
#include "KernelTargets.h"
#include "TestSupport.h"
#include "warpscope/gpu/UserKernel.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <numeric>
#include <unistd.h>

namespace warpscope::gpu::test {
namespace {

// The fixtures' inputs, written again here from their comments.
int input(long long i)
{
    return int((i * 7919 + 13) % 1001) - 500;
}
unsigned voteInput(long long i)
{
    return unsigned((i * 37 + 11) % 97);
}

// The classic kernels, on each target.
class SimulatorKernels : public KernelTargets, public ::testing::WithParamInterface<Target>
{
protected:
    void SetUp() override { open(GetParam()); }
};

// What only the simulator does: printf lines per thread, the bugs it names, its limits.
class SimulatorOnly : public KernelTargets
{
protected:
    void SetUp() override { open(Target::Simulator); }
};

// The sum of each block's 256 inputs, as both reductions write it.
void expectBlockSums(const Field& field, int blocks)
{
    const long long n = (long long)field.mesh.nx * field.mesh.ny;
    for (int b = 0; b < blocks; ++b) {
        long long sum = 0;
        for (long long i = 256ll * b; i < std::min(n, 256ll * (b + 1)); ++i)
            sum += input(i);
        ASSERT_EQ(field.at(b / field.mesh.nx, b % field.mesh.nx), float(sum)) << "block " << b;
    }
}

TEST_P(SimulatorKernels, SharedMemoryTreeReductionWithDynamicSharedMemory)
{
    Field field;
    const int nx = 100, ny = 90, blocks = (nx * ny + 255) / 256;
    const Status s = run("reduce_shared.cu", nx, ny, {blocks, 1, 1}, {256, 1, 1}, field, 1024);
    ASSERT_TRUE(s.ok()) << s.message();
    expectBlockSums(field, blocks);
}

TEST_P(SimulatorKernels, WarpShuffleReduction)
{
    Field field;
    const int nx = 100, ny = 90, blocks = (nx * ny + 255) / 256;
    const Status s = run("reduce_warp.cu", nx, ny, {blocks, 1, 1}, {256, 1, 1}, field);
    ASSERT_TRUE(s.ok()) << s.message();
    expectBlockSums(field, blocks);
}

TEST_P(SimulatorKernels, BlockScan)
{
    Field field;
    const int nx = 200, ny = 12; // rows shorter than the block: the tail adds zeros
    const Status s = run("scan_block.cu", nx, ny, {ny, 1, 1}, {256, 1, 1}, field);
    ASSERT_TRUE(s.ok()) << s.message();
    for (int row = 0; row < ny; ++row) {
        long long sum = 0;
        for (int col = 0; col < nx; ++col) {
            sum += input((long long)row * nx + col);
            ASSERT_EQ(field.at(row, col), float(sum)) << row << ", " << col;
        }
    }
}

TEST_P(SimulatorKernels, TiledTransposeWithAndWithoutPadding)
{
    for (const char* name : {"transpose_tiled.cu", "transpose_padded.cu"}) {
        Field field;
        const int n = 70; // not a multiple of the tile: edge tiles are partial
        const Status s = run(name, n, n, {(n + 31) / 32, (n + 31) / 32, 1}, {32, 8, 1}, field);
        ASSERT_TRUE(s.ok()) << name << ": " << s.message();
        for (int row = 0; row < n; ++row)
            for (int col = 0; col < n; ++col)
                ASSERT_EQ(field.at(col, row), float(row * n + col)) << name << " " << row;
    }
}

// The average of each node's 3 x 3 neighbours, the edge repeated: float sums of nine small
// integers are exact, and the division by 9 rounds alike, so 1e-6 covers the order of adds.
TEST_P(SimulatorKernels, TiledBlurWithAHaloInSharedMemory)
{
    Field field;
    const int nx = 45, ny = 37;
    const Status s =
        run("blur_tiled.cu", nx, ny, {(nx + 15) / 16, (ny + 15) / 16, 1}, {16, 16, 1}, field);
    ASSERT_TRUE(s.ok()) << s.message();
    const auto value = [&](int r, int c) {
        r = std::clamp(r, 0, ny - 1);
        c = std::clamp(c, 0, nx - 1);
        return double((r * 37 + c * 11) % 17);
    };
    for (int r = 0; r < ny; ++r)
        for (int c = 0; c < nx; ++c) {
            double sum = 0.0;
            for (int dr = -1; dr <= 1; ++dr)
                for (int dc = -1; dc <= 1; ++dc)
                    sum += value(r + dr, c + dc);
            ASSERT_NEAR(field.at(r, c), sum / 9.0, 1e-6) << r << ", " << c;
        }
}

TEST_P(SimulatorKernels, SharedMemoryHistogramWithAtomics)
{
    const int nx = 300, ny = 211;
    std::vector<long long> expected(64, 0);
    for (long long i = 0; i < (long long)nx * ny; ++i)
        ++expected[(i * 2654435761ll >> 7) % 64];
    // Twice: the last block clears the global bins for the next launch.
    for (int launch = 0; launch < 2; ++launch) {
        Field field;
        const Status s = run("histogram_shared.cu", nx, ny, {23, 1, 1}, {256, 1, 1}, field);
        ASSERT_TRUE(s.ok()) << s.message();
        for (int b = 0; b < 64; ++b)
            ASSERT_EQ(field.at(0, b), float(expected[b])) << "bin " << b << ", launch " << launch;
    }
}

TEST_P(SimulatorKernels, EveryGlobalAtomic)
{
    const int blocks = 37;
    const long long n = 256ll * blocks;
    long long addInt = 0, minInt = 1 << 30, maxInt = 0, addWide = 0, maxWide = 0, minLong = 0;
    std::uint32_t andWord = 0xffffffffu, orWord = 0, xorWord = 0, inc = 0, dec = 0, sub = 0;
    std::uint32_t minUnsigned = 0xffffffffu;
    double addDouble = 0.0;
    for (long long i = 0; i < n; ++i) {
        const int v = int(i % 1000) + 1;
        addInt += v;
        minInt = std::min<long long>(minInt, 500 - v);
        maxInt = std::max<long long>(maxInt, 3 * v);
        andWord &= ~(1u << (v % 32));
        orWord |= 1u << (v % 31);
        xorWord ^= std::uint32_t(v);
        inc = inc >= 99u ? 0u : inc + 1u;
        dec = (dec == 0u || dec > 99u) ? 99u : dec - 1u;
        sub -= 1u;
        minUnsigned = std::min(minUnsigned, std::uint32_t(v + 5));
        addWide += (long long)v << 20;
        maxWide = std::max<long long>(maxWide, v);
        addDouble += 0.25 * v;
        minLong = std::min<long long>(minLong, -v);
    }
    const double expected[] = {double(addInt),
                               double(-addInt),
                               double(minInt),
                               double(maxInt),
                               7.0,
                               double(std::uint32_t(addInt)),
                               double(andWord),
                               double(orWord),
                               double(xorWord),
                               double(inc),
                               double(dec),
                               double(sub),
                               double(minUnsigned),
                               double(addWide),
                               double(maxWide),
                               double(n) * 0.5,
                               addDouble,
                               double(minLong),
                               3.0 * double(n),
                               double(blocks)};
    for (int launch = 0; launch < 2; ++launch) {
        Field field;
        const Status s = run("atomics_global.cu", 32, 4, {blocks, 1, 1}, {256, 1, 1}, field);
        ASSERT_TRUE(s.ok()) << s.message();
        for (int k = 0; k < 20; ++k)
            ASSERT_EQ(field.at(0, k), float(expected[k])) << "word " << k << ", launch " << launch;
    }
}

// Warps of 32 lanes in CUDA's order: x, then y, then z across a 16 x 4 x 2 block.
TEST_P(SimulatorKernels, WarpVotesMatchesReductionsAndShuffles)
{
    Field field;
    const int blocks = 3, threads = 128;
    const Status s = run("warp_votes.cu", 32, blocks * threads, {blocks, 1, 1}, {16, 4, 2}, field);
    ASSERT_TRUE(s.ok()) << s.message();
    for (int w = 0; w < blocks * threads / 32; ++w) {
        std::uint32_t v[32];
        for (int l = 0; l < 32; ++l)
            v[l] = voteInput(32ll * w + l);
        std::uint32_t ballot = 0, add = 0, mn = ~0u, mx = 0, andAll = ~0u, orAll = 0, xorAll = 0;
        bool any = false, all = true;
        for (int l = 0; l < 32; ++l) {
            ballot |= (v[l] & 1u) << l;
            any = any || v[l] > 90;
            all = all && v[l] > 2;
            add += v[l], mn = std::min(mn, v[l]), mx = std::max(mx, v[l]);
            andAll &= v[l], orAll |= v[l], xorAll ^= v[l];
        }
        for (int l = 0; l < 32; ++l) {
            std::uint32_t match = 0;
            for (int k = 0; k < 32; ++k)
                match |= std::uint32_t(v[k] % 4 == v[l] % 4) << k;
            const std::uint32_t up = l % 16 >= 3 ? v[l - 3] : v[l];
            const std::uint32_t words[] = {std::uint32_t(l),
                                           ballot,
                                           any,
                                           all,
                                           match,
                                           ~0u,
                                           1u,
                                           add,
                                           mn,
                                           mx,
                                           andAll,
                                           orAll,
                                           xorAll,
                                           ~0u,
                                           v[l / 8 * 8 + 5],
                                           up};
            const int row = 32 * w + l;
            for (int k = 0; k < 16; ++k) {
                ASSERT_EQ(field.at(row, 2 * k), float(words[k] & 0xffffu)) << row << ":" << k;
                ASSERT_EQ(field.at(row, 2 * k + 1), float(words[k] >> 16)) << row << ":" << k;
            }
        }
    }
}

TEST_P(SimulatorKernels, CooperativeGroupsBlockAndTiles)
{
    Field field;
    const int blocks = 5;
    const Status s = run("cooperative_groups.cu", 32, blocks, {blocks, 1, 1}, {128, 1, 1}, field);
    ASSERT_TRUE(s.ok()) << s.message();
    for (int b = 0; b < blocks; ++b) {
        int total = 0;
        for (int k = 0; k < 8; ++k) {
            int sum = 0, odd = 0;
            bool any = false, all = true;
            for (int l = 0; l < 16; ++l) {
                const int v = int(voteInput(128ll * b + 16 * k + l));
                sum += v, odd += v & 1, any = any || v > 90, all = all && v > 2;
            }
            total += sum;
            EXPECT_EQ(field.at(b, k), float(sum)) << b << ", " << k;
            EXPECT_EQ(field.at(b, 8 + k), float(odd)) << b << ", " << k;
            EXPECT_EQ(field.at(b, 16 + k), float(int(any) + 2 * int(all))) << b << ", " << k;
        }
        EXPECT_EQ(field.at(b, 24), float(total)) << b;
        EXPECT_EQ(field.at(b, 25), float(voteInput(128ll * b + 3))) << b;
    }
}

// Each printf is a line with its block and thread; past 1000 lines the rest are counted.
TEST_F(SimulatorOnly, PrintfIsCollectedPerThread)
{
    Field field;
    KernelRun printed;
    ASSERT_TRUE(run("printf_threads.cu", 8, 8, {2, 1, 1}, {4, 2, 1}, field, 0, &printed).ok());
    ASSERT_EQ(printed.printLines.size(), 16u);
    EXPECT_EQ(printed.printLinesDropped, 0);
    std::vector<std::string> seen;
    for (const KernelPrintLine& line : printed.printLines) {
        const unsigned t = line.thread[1] * 4 + line.thread[0];
        char expected[80];
        std::snprintf(expected, sizeof expected, "block %u thread %u value %.2f\n", line.block[0],
                      t, 0.25 * t);
        EXPECT_EQ(line.text, expected);
        seen.push_back(line.text);
    }
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(std::unique(seen.begin(), seen.end()), seen.end()) << "a thread printed twice";
    ASSERT_TRUE(run("printf_threads.cu", 8, 8, {300, 1, 1}, {4, 2, 1}, field, 0, &printed).ok());
    EXPECT_EQ(printed.printLines.size(), 1000u);
    EXPECT_EQ(printed.printLinesDropped, 300 * 8 - 1000);
}

// --- Kernels that cannot finish ----------------------------------------------------------

TEST_F(SimulatorOnly, ThreadsThatSkipABarrierAreNamedWithTheBlockAndLine)
{
    Field field;
    const Status s = run("barrier_skipped.cu", 300, 2, {2, 1, 1}, {256, 1, 1}, field);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("Block (0,0,0)"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("threads (200,0,0)..(255,0,0) ended without reaching the "
                               "__syncthreads at line 10"),
              std::string::npos)
        << s.message();
    EXPECT_NE(s.message().find("threads (0,0,0)..(199,0,0) wait"), std::string::npos)
        << s.message();
    EXPECT_TRUE(
        std::all_of(field.values.begin(), field.values.end(), [](float v) { return v == -1.0f; }));
}

TEST_F(SimulatorOnly, LanesWaitingAtDifferentBarriersEndTheRunWithBothLines)
{
    Field field;
    const Status s = run("warp_divergent.cu", 64, 2, {1, 1, 1}, {64, 1, 1}, field);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("wait for each other for ever"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("__syncthreads at line 8"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("__syncwarp at line 6"), std::string::npos) << s.message();
}

// --- Bugs a GPU hides, found at their lines ------------------------------------------------

// The one finding of a run, of the given kind (its first words).
class SimulatorFindings : public SimulatorOnly
{
protected:
    void SetUp() override
    {
        SimulatorOnly::SetUp();
        if (!IsSkipped() && !simulatorChecksMemory())
            GTEST_SKIP() << "the simulator's compiler is not clang++: its checks are off";
    }

    KernelMessage only(const std::string& code, Dim3 block, const std::string& kind,
                       long long sharedBytes = 0)
    {
        Field field;
        KernelRun done;
        const Status s = runCode(code, 64, 4, {2, 1, 1}, block, field, sharedBytes, done);
        EXPECT_TRUE(s.ok()) << s.message();
        EXPECT_EQ(done.findings.size(), 1u);
        for (const KernelMessage& m : done.findings)
            std::printf("finding at line %d: %s\n", m.line, m.text.c_str());
        if (done.findings.empty())
            return {};
        EXPECT_EQ(done.findings[0].severity, Severity::Warning);
        EXPECT_EQ(done.findings[0].text.rfind(kind, 0), 0u) << done.findings[0].text;
        return done.findings[0];
    }
};

const char* kHeader = "__global__ void kernel(Out out, Mesh mesh, Refs refs, Params p)\n{\n";

TEST_F(SimulatorFindings, ASharedRaceNamesBothThreadsAndLines)
{
    // The last thread sums the block's slots with no barrier after the other threads' writes.
    const KernelMessage m = only(std::string(kHeader) + "    __shared__ float s[64];\n"
                                                        "    s[threadIdx.x] = threadIdx.x;\n"
                                                        "    if (threadIdx.x == 63) {\n"
                                                        "        float sum = 0.0f;\n"
                                                        "        for (int i = 0; i < 64; ++i)\n"
                                                        "            sum += s[i];\n"
                                                        "        out.write(blockIdx.x, 0, sum);\n"
                                                        "    }\n"
                                                        "}\n",
                                 {64, 1, 1}, "shared-memory race in block (0,0,0)");
    EXPECT_EQ(m.line, 8);
    EXPECT_NE(m.text.find("thread (63,0,0) reads byte 0 of `s`, which thread (0,0,0) wrote at "
                          "line 4 with no __syncthreads() between them"),
              std::string::npos)
        << m.text;
    // Threads 0..62 in each block: the finding is kept once, with how often it happened.
    EXPECT_NE(m.text.find("(126 times)"), std::string::npos) << m.text;
}

TEST_F(SimulatorFindings, ABarrierOrAWarpSyncOrdersTheSameAccesses)
{
    for (const char* sync : {"__syncthreads();", "__syncwarp();"}) {
        Field field;
        KernelRun done;
        const Status s = runCode(std::string(kHeader) +
                                     "    __shared__ float s[32];\n"
                                     "    s[threadIdx.x] = threadIdx.x;\n    " +
                                     sync +
                                     "\n"
                                     "    out.write(blockIdx.x, threadIdx.x, s[(threadIdx.x + 1) "
                                     "% 32]);\n"
                                     "}\n",
                                 64, 4, {2, 1, 1}, {32, 1, 1}, field, 0, done);
        ASSERT_TRUE(s.ok()) << s.message();
        EXPECT_TRUE(done.findings.empty()) << sync << ": " << done.findings[0].text;
        EXPECT_EQ(field.at(1, 31), 0.0f);
        EXPECT_EQ(field.at(0, 4), 5.0f);
    }
}

TEST_F(SimulatorFindings, ASharedWritePastAnArrayIsOutOfBounds)
{
    const KernelMessage m = only(std::string(kHeader) + "    __shared__ int counts[32];\n"
                                                        "    __shared__ int other[32];\n"
                                                        "    counts[threadIdx.x + 1] = 1;\n"
                                                        "    other[threadIdx.x] = 2;\n"
                                                        "}\n",
                                 {32, 1, 1}, "thread (31,0,0) of block (0,0,0) writes 4 bytes");
    EXPECT_EQ(m.line, 5);
    EXPECT_NE(m.text.find("out of bounds, 0 bytes past the end of `counts` (128 bytes, declared "
                          "at line 3)"),
              std::string::npos)
        << m.text;
}

TEST_F(SimulatorFindings, DynamicSharedMemoryPastTheLaunchsBytesIsOutOfBounds)
{
    const KernelMessage m = only(std::string(kHeader) + "    extern __shared__ float tile[];\n"
                                                        "    tile[threadIdx.x] = 1.0f;\n"
                                                        "}\n",
                                 {32, 1, 1}, "thread (16,0,0) of block (0,0,0) writes 4 bytes", 64);
    EXPECT_EQ(m.line, 4);
    EXPECT_NE(m.text.find("0 bytes past the end of the 64 bytes of dynamic shared memory"),
              std::string::npos)
        << m.text;
}

// Built by another compiler the checks are off: atomics alone, the only accesses it would
// see, must not read as accesses to memory no thread wrote.
TEST_F(SimulatorOnly, WithoutClangAtomicsFindNothing)
{
    if (::access("/usr/bin/g++", X_OK) != 0)
        GTEST_SKIP() << "no /usr/bin/g++";
    const char* before = std::getenv("CXX");
    const std::string saved = before ? before : "";
    ::setenv("CXX", "/usr/bin/g++", 1);
    EXPECT_FALSE(simulatorChecksMemory());
    Field field;
    KernelRun done;
    const int blocks = (64 * 64 + 255) / 256;
    const Status s =
        run("histogram_shared.cu", 64, 64, {blocks, 1, 1}, {256, 1, 1}, field, 0, &done);
    before ? ::setenv("CXX", saved.c_str(), 1) : ::unsetenv("CXX");
    ASSERT_TRUE(s.ok()) << s.message();
}

// Over CUDA's 48 KiB of static shared memory the run stops with the variable and its line, as
// the GPU's compiler would refuse it; a variable of megabytes does not take the runner down.
TEST_F(SimulatorFindings, StaticSharedMemoryPastCudasLimitStopsTheRun)
{
    for (const char* size : {"13000", "1000000"}) {
        Field field;
        KernelRun done;
        const Status s = runCode(std::string(kHeader) + "    __shared__ float big[" + size +
                                     "];\n"
                                     "    big[threadIdx.x] = 1.0f;\n"
                                     "    big[" +
                                     size +
                                     " - 1] = 2.0f;\n"
                                     "}\n",
                                 64, 4, {2, 1, 1}, {32, 1, 1}, field, 0, done);
        ASSERT_FALSE(s.ok()) << size;
        EXPECT_NE(s.message().find("the __shared__ variable `big` at line 3 brings the block's "
                                   "static shared memory to " +
                                   std::to_string(4 * std::stoll(size)) +
                                   " bytes; CUDA allows "
                                   "48 KiB"),
                  std::string::npos)
            << s.message();
    }
}

TEST_F(SimulatorFindings, AReadOfSharedMemoryNoThreadWroteIsNamed)
{
    // Thread 0 forgets slot 31: the block's threads write slots 0..30 only.
    const KernelMessage m =
        only(std::string(kHeader) + "    __shared__ float s[32];\n"
                                    "    if (threadIdx.x < 31)\n"
                                    "        s[threadIdx.x] = 1.0f;\n"
                                    "    __syncthreads();\n"
                                    "    out.write(blockIdx.x, threadIdx.x, s[31 - threadIdx.x]);\n"
                                    "}\n",
             {32, 1, 1}, "thread (0,0,0) of block (0,0,0) reads byte 124 of `s`");
    EXPECT_EQ(m.line, 7);
    EXPECT_NE(m.text.find("which no thread of the block has written"), std::string::npos) << m.text;
}

TEST_F(SimulatorFindings, AWarpMaskNamingLanesTheBlockLacksIsNamed)
{
    // 48 threads: warp 1 has lanes 0..15 only, and the full mask names 16..31 too.
    const KernelMessage m =
        only(std::string(kHeader) + "    const float v = __shfl_down_sync(0xffffffffu, "
                                    "float(threadIdx.x), 1);\n"
                                    "    out.write(blockIdx.x, threadIdx.x, v);\n"
                                    "}\n",
             {48, 1, 1},
             "__shfl_down_sync in block (0,0,0) names lanes 16..31 "
             "of warp 1");
    EXPECT_EQ(m.line, 3);
}

// Hopper's 227 KiB a block: the GPU's runner opts the kernel in past 48 KiB.
TEST_P(SimulatorKernels, DynamicSharedMemoryUpToHoppersLimit)
{
    if (GetParam() == Target::Gpu && m_context->info().ccMajor < 9)
        GTEST_SKIP() << "227 KiB of shared memory a block needs Hopper or later";
    Field field;
    const int blocks = 16 * 16 / 256;
    const Status fits =
        run("reduce_shared.cu", 16, 16, {blocks, 1, 1}, {256, 1, 1}, field, 227ll << 10);
    ASSERT_TRUE(fits.ok()) << fits.message();
    expectBlockSums(field, blocks);
    const Status s = run("reduce_shared.cu", 16, 16, {1, 1, 1}, {256, 1, 1}, field, 228ll << 10);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("shared memory per block exceed"), std::string::npos) << s.message();
}

INSTANTIATE_TEST_SUITE_P(, SimulatorKernels, ::testing::Values(Target::Simulator, Target::Gpu),
                         [](const ::testing::TestParamInfo<Target>& info) {
                             return info.param == Target::Gpu ? "Gpu" : "Simulator";
                         });

} // namespace
} // namespace warpscope::gpu::test
