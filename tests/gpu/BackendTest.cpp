#include "DistancePlan.h"
#include "TestSupport.h"
#include "cpu/CpuBackend.h"

#include <algorithm>
#include <gtest/gtest.h>

namespace warpscope::gpu::test {
namespace {

// Checks the structure every backend must produce: no poison left, padding repeats the last
// column, and the stats are exactly the minimum and maximum of the mesh values.
template <typename T> void expectWellFormed(const std::vector<T>& out, const DistanceParams& p)
{
    const FieldLayout layout = layoutFor(p);
    ASSERT_EQ(out.size(), layout.elementCount());
    ASSERT_EQ(unwrittenCount(out), 0u) << "elements left unwritten";
    T lo = out[0], hi = out[0];
    for (int i = 0; i < p.ny; ++i) {
        for (int j = 0; j < p.nx; ++j) {
            const T v = out[layout.index(i, j)];
            ASSERT_GE(v, T(0));
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
        for (int j = p.nx; j < layout.pitch; ++j)
            ASSERT_EQ(out[layout.index(i, j)], out[layout.index(i, p.nx - 1)]);
    }
    EXPECT_EQ(out[layout.statsOffset()], lo);
    EXPECT_EQ(out[layout.statsOffset() + 1], hi);
}

// Compares a backend's field with an independent double-precision evaluation of each node
// (the one-node-at-a-time formula, not the separable loops), within distanceTolerance.
template <typename T>
void expectMatchesNodeReference(const std::vector<T>& out, const DistanceParams& p)
{
    const FieldLayout layout = layoutFor(p);
    const DistancePlan<double> plan = makePlan<double>(p);
    const double radius = radiusInUnit(p);
    int failures = 0;
    for (int i = 0; i < p.ny && failures < 5; ++i)
        for (int j = 0; j < p.nx && failures < 5; ++j) {
            const double expected = planNodeDistance(plan, i, j);
            // Plus one unit in the last place of the output type, which may be narrower.
            const double tol = distanceTolerance(expected / radius, radius, p.precision) +
                               expected * double(std::numeric_limits<T>::epsilon());
            const double got = out[layout.index(i, j)];
            if (std::abs(got - expected) > tol) {
                ++failures;
                ADD_FAILURE() << "node (" << i << ", " << j << "): " << got << " vs " << expected
                              << ", tolerance " << tol << ", " << precisionName(p.precision);
            }
        }
}

TEST(CpuBackend, DefaultSceneIsWellFormedAndAccurate)
{
    CpuBackend backend(2);
    DistanceParams p;
    for (Precision precision : {Precision::Float32, Precision::Float64}) {
        p.precision = precision;
        auto f = poisoned<float>(layoutFor(p).elementCount());
        ASSERT_TRUE(backend.computeDistance(p, std::span<float>(f)).ok());
        expectWellFormed(f, p);
        expectMatchesNodeReference(f, p);
        ASSERT_TRUE(backend.lastStats().has_value());
        EXPECT_EQ(backend.lastStats()->max, f[layoutFor(p).statsOffset() + 1]);
    }
}

TEST(CpuBackend, RandomScenesAreWellFormedAndAccurate)
{
    CpuBackend backend(3);
    std::mt19937 rng(20261122);
    for (int k = 0; k < 40; ++k) {
        DistanceParams p = randomScene(rng);
        p.precision = k % 2 ? Precision::Float64 : Precision::Float32;
        auto out = poisoned<double>(layoutFor(p).elementCount());
        ASSERT_TRUE(backend.computeDistance(p, std::span<double>(out)).ok());
        expectWellFormed(out, p);
        expectMatchesNodeReference(out, p);
    }
}

TEST(CpuBackend, NearestOfSeveralReferences)
{
    CpuBackend backend(2);
    DistanceParams p;
    p.nx = 7;
    p.ny = 5;
    p.references = {{30.0, 101.0}, {29.0, 99.0}, {31.0, 100.0}};
    p.precision = Precision::Float64;
    auto out = poisoned<double>(layoutFor(p).elementCount());
    ASSERT_TRUE(backend.computeDistance(p, std::span<double>(out)).ok());
    // Each reference sits on a node, so the field is zero there.
    EXPECT_EQ(out[layoutFor(p).index(2, 6)], 0.0);
    EXPECT_EQ(out[layoutFor(p).index(0, 0)], 0.0);
    EXPECT_EQ(out[layoutFor(p).index(4, 3)], 0.0);
    EXPECT_EQ(out[layoutFor(p).statsOffset()], 0.0);
}

TEST(CpuBackend, RejectsInvalidParametersAndShortOutput)
{
    CpuBackend backend(1);
    DistanceParams p;
    p.latMin = NAN;
    std::vector<float> out(layoutFor(DistanceParams{}).elementCount());
    EXPECT_FALSE(backend.computeDistance(p, std::span<float>(out)).ok());
    DistanceParams q;
    std::vector<float> shortOut(10);
    const Status s = backend.computeDistance(q, std::span<float>(shortOut));
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find("needs"), std::string::npos);
}

class CudaBackendTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        auto selection = createBackend(BackendKind::Cuda);
        if (!selection.backend)
            GTEST_SKIP() << selection.reason;
        m_cuda = std::move(selection.backend);
    }
    std::unique_ptr<Backend> m_cuda;
    CpuBackend m_cpu{4};
};

// The soak program watches device memory through this; the CPU has none of its own.
TEST_F(CudaBackendTest, ReportsDeviceMemoryInUse)
{
    EXPECT_FALSE(m_cpu.deviceMemory().has_value());
    const auto memory = m_cuda->deviceMemory();
    ASSERT_TRUE(memory.has_value());
    EXPECT_GT(memory->totalBytes, 0u);
    EXPECT_GT(memory->usedBytes, 0u); // this process's context at least
    EXPECT_LE(memory->usedBytes, memory->totalBytes);
}

// CPU and CUDA agree within the per-element tolerance of the precision, on random scenes
// (odd sizes, up to 64 references) and on sizes spanning many blocks.
TEST_F(CudaBackendTest, AgreesWithCpuOnRandomScenes)
{
    std::mt19937 rng(7);
    for (int k = 0; k < 60; ++k) {
        DistanceParams p = randomScene(rng, k < 50 ? 300 : 3000);
        p.precision = k % 2 ? Precision::Float64 : Precision::Float32;
        const std::size_t n = layoutFor(p).elementCount();
        auto gpu = poisoned<double>(n);
        ASSERT_TRUE(m_cuda->computeDistance(p, std::span<double>(gpu)).ok());
        expectWellFormed(gpu, p);
        auto cpu = poisoned<double>(n);
        ASSERT_TRUE(m_cpu.computeDistance(p, std::span<double>(cpu)).ok());
        const double radius = radiusInUnit(p);
        for (int i = 0; i < p.ny; ++i)
            for (int j = 0; j < p.nx; ++j) {
                const std::size_t idx = layoutFor(p).index(i, j);
                const double tol = 2.0 * distanceTolerance(cpu[idx] / radius, radius, p.precision);
                ASSERT_NEAR(gpu[idx], cpu[idx], tol) << "scene " << k << " node " << i << "," << j;
            }
    }
}

TEST_F(CudaBackendTest, FloatOutputMatchesNodeReference)
{
    DistanceParams p;
    p.nx = 4097; // one past a block boundary, with row padding
    p.ny = 129;
    p.references = {{30.0, 101.0}, {29.5, 99.5}, {-30.0, -79.0}};
    for (Precision precision : {Precision::Float32, Precision::Float64}) {
        p.precision = precision;
        auto out = poisoned<float>(layoutFor(p).elementCount());
        ASSERT_TRUE(m_cuda->computeDistance(p, std::span<float>(out)).ok());
        expectWellFormed(out, p);
        expectMatchesNodeReference(out, p);
    }
}

TEST_F(CudaBackendTest, ReportsKernelTimeAndStats)
{
    DistanceParams p;
    std::vector<float> out(layoutFor(p).elementCount());
    ASSERT_TRUE(m_cuda->computeDistance(p, std::span<float>(out)).ok());
    ASSERT_TRUE(m_cuda->lastKernelMs().has_value());
    EXPECT_GT(*m_cuda->lastKernelMs(), 0.0);
    ASSERT_TRUE(m_cuda->lastStats().has_value());
    EXPECT_EQ(float(m_cuda->lastStats()->min), out[layoutFor(p).statsOffset()]);
    EXPECT_EQ(float(m_cuda->lastStats()->max), out[layoutFor(p).statsOffset() + 1]);
}

// Every CUDA device can be chosen by index and computes the same field; an index beyond the
// last is refused with a reason.
TEST(CudaDevices, EachDeviceComputesTheField)
{
    const std::vector<std::string> names = cudaDeviceNames();
    if (names.empty())
        GTEST_SKIP() << "no CUDA device";
    DistanceParams p;
    p.nx = 513;
    p.ny = 257;
    std::vector<float> reference(layoutFor(p).elementCount());
    CpuBackend cpu(2);
    ASSERT_TRUE(cpu.computeDistance(p, std::span<float>(reference)).ok());
    for (int d = 0; d < int(names.size()); ++d) {
        BackendOptions options;
        options.device = d;
        auto selection = createBackend(BackendKind::Cuda, options);
        ASSERT_TRUE(selection.backend) << selection.reason;
        EXPECT_EQ(selection.backend->deviceInfo().ordinal, d);
        EXPECT_EQ(selection.backend->deviceName(), names[std::size_t(d)]);
        std::vector<float> out = poisoned<float>(reference.size());
        ASSERT_TRUE(selection.backend->computeDistance(p, std::span<float>(out)).ok());
        expectWellFormed(out, p);
        std::printf("CUDA device %d (%s) computed the field\n", d, names[std::size_t(d)].c_str());
    }
    BackendOptions beyond;
    beyond.device = int(names.size());
    const BackendSelection none = createBackend(BackendKind::Cuda, beyond);
    EXPECT_FALSE(none.backend);
    EXPECT_NE(none.reason.find("there is no CUDA device"), std::string::npos) << none.reason;
}

} // namespace
} // namespace warpscope::gpu::test
