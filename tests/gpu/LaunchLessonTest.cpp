#include "TestSupport.h"
#include "distance/DistancePlan.h"

#include <gtest/gtest.h>

namespace warpscope::gpu::test {
namespace {

struct LessonRun
{
    std::vector<float> field;
    std::vector<std::uint32_t> owners;
};

LessonRun run(Context& backend, const DistanceParams& p, const LessonLaunch& lesson)
{
    LessonRun r{poisoned<float>(layoutFor(p).elementCount()),
                std::vector<std::uint32_t>(2 * std::size_t(p.nx) * p.ny, 0x12345678u)};
    const Status s = runLesson(backend, p, lesson, r.field, r.owners);
    EXPECT_TRUE(s.ok()) << s.message();
    return r;
}

// Every node: owned by the thread the launch rule names (or by none), holding a correct
// distance exactly when covered, and an SM id in range.
void expectFollowsTheRule(const LessonRun& r, const DistanceParams& p, const LessonLaunch& lesson,
                          int smCount)
{
    const DistancePlan<double> plan = makePlan<double>(p);
    const double radius = radiusInUnit(p);
    std::size_t covered = 0;
    for (int row = 0; row < p.ny; ++row)
        for (int col = 0; col < p.nx; ++col) {
            const std::uint32_t* owner = &r.owners[2 * (std::size_t(row) * p.nx + col)];
            const float value = r.field[layoutFor(p).index(row, col)];
            std::uint32_t block = 0, thread = 0;
            if (!expectedOwner(lesson, row, col, block, thread)) {
                ASSERT_EQ(owner[0], kUncovered) << row << "," << col;
                ASSERT_EQ(owner[1], kUncovered);
                ASSERT_TRUE(std::isnan(value)) << "an uncovered node was written";
                continue;
            }
            ++covered;
            ASSERT_EQ(owner[0], block) << "node " << row << "," << col;
            ASSERT_EQ(ownerThread(owner[1]), thread) << "node " << row << "," << col;
            ASSERT_LT(ownerSm(owner[1]), std::uint32_t(smCount));
            const double expected = planNodeDistance(plan, row, col);
            ASSERT_NEAR(value, expected,
                        distanceTolerance(expected / radius, radius, Precision::Float32) +
                            expected * 1.2e-7);
        }
    if (lesson.gridStride)
        EXPECT_EQ(covered, std::size_t(p.nx) * p.ny);
}

std::vector<LessonLaunch> lessons(const DistanceParams& p)
{
    const long long nx = p.nx, ny = p.ny;
    return {
        {{{16, 16, 1}, {(nx + 15) / 16, (ny + 15) / 16, 1}}, false}, // exact cover
        {{{16, 8, 1}, {4, 2, 1}}, false},                            // too small: uncovered
        {{{16, 8, 1}, {4, 2, 1}}, true},                             // same, grid-stride
        {{{7, 3, 1}, {5, 9, 1}}, true},                              // odd shapes
        {{{256, 1, 1}, {(nx + 255) / 256, ny, 1}}, false},           // one row per block row
        {{{8, 4, 2}, {(nx + 7) / 8, (ny + 3) / 4, 3}}, false},       // z threads and blocks idle
        {{{1, 1, 1}, {2147483647LL, 65535, 1}}, false},              // the largest grid
        {{{32, 1, 1}, {2147483647LL, 3, 1}}, true},                  // ... with a stride
    };
}

TEST(LaunchLesson, TheRuleByHand)
{
    const LessonLaunch lesson{{{16, 8, 1}, {4, 2, 1}}, false};
    std::uint32_t block = 0, thread = 0;
    ASSERT_TRUE(expectedOwner(lesson, 9, 37, block, thread));
    EXPECT_EQ(block, 6u);   // blockIdx (2, 1): 1 * 4 + 2
    EXPECT_EQ(thread, 21u); // threadIdx (5, 1): 1 * 16 + 5
    EXPECT_FALSE(expectedOwner(lesson, 16, 0, block, thread)) << "the grid covers 16 rows";
    EXPECT_FALSE(expectedOwner(lesson, 0, 64, block, thread)) << "and 64 columns";
    const LessonLaunch stride{lesson.launch, true};
    ASSERT_TRUE(expectedOwner(stride, 16 + 9, 64 + 37, block, thread));
    EXPECT_EQ(block, 6u);
    EXPECT_EQ(thread, 21u);
}

TEST(LaunchLesson, CpuSimulatorFollowsTheRule)
{
    auto backendOwner = cpuContext(3);
    Context& backend = *backendOwner;
    DistanceParams p;
    p.nx = 101;
    p.ny = 37;
    p.references = {{30.0, 101.0}, {29.5, 99.5}};
    for (const LessonLaunch& lesson : lessons(p)) {
        const LessonRun r = run(backend, p, lesson);
        expectFollowsTheRule(r, p, lesson, backend.info().smCount);
        // Simulated SM ids: the block index modulo the SM count.
        for (std::size_t k = 0; k < r.owners.size(); k += 2)
            if (r.owners[k] != kUncovered)
                ASSERT_EQ(ownerSm(r.owners[k + 1]), r.owners[k] % 132u);
    }
}

TEST(LaunchLesson, InvalidLaunchesAreExplainedNotRun)
{
    auto backendOwner = cpuContext(1);
    Context& backend = *backendOwner;
    DistanceParams p;
    p.nx = p.ny = 8;
    LessonRun r{std::vector<float>(layoutFor(p).elementCount()), std::vector<std::uint32_t>(128)};
    Status s = runLesson(backend, p, {{{32, 32, 2}, {1, 1, 1}}, false}, r.field, r.owners);
    EXPECT_NE(s.message().find("2048 threads per block"), std::string::npos) << s.message();
    s = runLesson(backend, p, {{{256, 1, 1}, {1LL << 50, 1, 1}}, false}, r.field, r.owners);
    EXPECT_NE(s.message().find("exceeds the limit"), std::string::npos) << s.message();
    std::vector<std::uint32_t> small(10);
    s = runLesson(backend, p, {{{8, 8, 1}, {1, 1, 1}}, false}, r.field, small);
    EXPECT_FALSE(s.ok());
}

TEST(LaunchLesson, CudaKernelFollowsTheRuleOnRealSms)
{
    auto selection = cudaContext();
    if (!selection)
        GTEST_SKIP() << "no CUDA device";
    Context& cuda = *selection;
    const int smCount = cuda.info().smCount;
    DistanceParams p;
    p.nx = 301;
    p.ny = 203;
    std::vector<bool> smSeen(smCount, false);
    for (const LessonLaunch& lesson : lessons(p)) {
        const LessonRun r = run(cuda, p, lesson);
        expectFollowsTheRule(r, p, lesson, smCount);
        for (std::size_t k = 1; k < r.owners.size(); k += 2)
            if (r.owners[k] != kUncovered)
                smSeen[ownerSm(r.owners[k])] = true;
    }
    const auto used = std::count(smSeen.begin(), smSeen.end(), true);
    std::printf("the teaching kernel ran on %lld of %d SMs\n", static_cast<long long>(used),
                smCount);
    EXPECT_GT(used, 1) << "blocks are spread over SMs";
}

// The calculator against the CUDA occupancy API for the teaching kernel at every block size
// a warp apart, in both precisions; and the API's suggestion reaches the calculator's best.
TEST(LaunchLesson, OccupancyMatchesTheCudaApi)
{
    auto selection = cudaContext();
    if (!selection)
        GTEST_SKIP() << "no CUDA device";
    Context& cuda = *selection;
    for (Precision precision : {Precision::Float32, Precision::Float64}) {
        double best = 0.0;
        for (long long threads = 32; threads <= 1024; threads += 32) {
            const KernelOccupancy o = lessonOccupancy(cuda, precision, threads);
            ASSERT_TRUE(o.api.has_value()) << threads;
            EXPECT_GT(o.resources.registersPerThread, 0);
            EXPECT_EQ(o.theoretical.activeBlocksPerSm, o.api->activeBlocksPerSm)
                << threads << " threads, " << o.resources.registersPerThread << " registers";
            best = std::max(best, o.theoretical.fraction);
        }
        const KernelOccupancy o = lessonOccupancy(cuda, precision, 256);
        EXPECT_DOUBLE_EQ(lessonOccupancy(cuda, precision, o.suggestedBlock).theoretical.fraction,
                         best);
        std::printf("teaching kernel, %s: %d registers, API suggests %lld threads\n",
                    precisionName(precision), o.resources.registersPerThread, o.suggestedBlock);
    }
}

TEST(LaunchLesson, BlockSizeSweepTimesEveryLaunch)
{
    auto cpuOwner = cpuContext(2);
    Context& cpu = *cpuOwner;
    DistanceParams p;
    p.nx = 200;
    p.ny = 100;
    for (long long threads : {32LL, 256LL}) {
        LessonLaunch lesson{{{threads, 1, 1}, {(p.nx + threads - 1) / threads, p.ny, 1}}, false};
        double ms = -1.0;
        ASSERT_TRUE(timeLesson(cpu, p, lesson, 3, ms).ok());
        EXPECT_GT(ms, 0.0);
    }
    double ms = 0;
    EXPECT_FALSE(timeLesson(cpu, p, {{{2048, 1, 1}, {1, 1, 1}}, false}, 1, ms).ok());
}

} // namespace
} // namespace warpscope::gpu::test
