#include "TestSupport.h"
#include "distance/DistancePlan.h"
#include "warpscope/gpu/DevicePool.h"
#include "warpscope/gpu/GraphicsBuffer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <gtest/gtest.h>
#include <thread>

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

TEST(CpuDistance, DefaultSceneIsWellFormedAndAccurate)
{
    auto backendOwner = cpuContext(2);
    Context& backend = *backendOwner;
    DistanceParams p;
    for (Precision precision : {Precision::Float32, Precision::Float64}) {
        p.precision = precision;
        auto f = poisoned<float>(layoutFor(p).elementCount());
        ASSERT_TRUE(computeDistance(backend, p, std::span<float>(f)).ok());
        expectWellFormed(f, p);
        expectMatchesNodeReference(f, p);
        ASSERT_TRUE(fieldResult(backend).has_value());
        EXPECT_EQ(fieldResult(backend)->stats.max, f[layoutFor(p).statsOffset() + 1]);
    }
}

TEST(CpuDistance, RandomScenesAreWellFormedAndAccurate)
{
    auto backendOwner = cpuContext(3);
    Context& backend = *backendOwner;
    std::mt19937 rng(20261122);
    for (int k = 0; k < 40; ++k) {
        DistanceParams p = randomScene(rng);
        p.precision = k % 2 ? Precision::Float64 : Precision::Float32;
        auto out = poisoned<double>(layoutFor(p).elementCount());
        ASSERT_TRUE(computeDistance(backend, p, std::span<double>(out)).ok());
        expectWellFormed(out, p);
        expectMatchesNodeReference(out, p);
    }
}

TEST(CpuDistance, NearestOfSeveralReferences)
{
    auto backendOwner = cpuContext(2);
    Context& backend = *backendOwner;
    DistanceParams p;
    p.nx = 7;
    p.ny = 5;
    p.references = {{30.0, 101.0}, {29.0, 99.0}, {31.0, 100.0}};
    p.precision = Precision::Float64;
    auto out = poisoned<double>(layoutFor(p).elementCount());
    ASSERT_TRUE(computeDistance(backend, p, std::span<double>(out)).ok());
    // Each reference sits on a node, so the field is zero there.
    EXPECT_EQ(out[layoutFor(p).index(2, 6)], 0.0);
    EXPECT_EQ(out[layoutFor(p).index(0, 0)], 0.0);
    EXPECT_EQ(out[layoutFor(p).index(4, 3)], 0.0);
    EXPECT_EQ(out[layoutFor(p).statsOffset()], 0.0);
}

// On the CPU a launch into host memory is done when it returns, with its figures.
TEST(CpuDistance, LaunchCompletesAtOnceWithItsFigures)
{
    auto context = cpuContext(2);
    EXPECT_FALSE(fieldResult(*context).has_value()); // before the first field
    DistanceParams p;
    p.nx = 301;
    p.ny = 77;
    auto out = poisoned<float>(layoutFor(p).elementCount());
    ASSERT_TRUE(launchDistance(*context, p, BufferView<float>::host(out)).ok());
    expectWellFormed(out, p);
    const std::optional<FieldResult> result = fieldResult(*context);
    ASSERT_TRUE(result.has_value());
    EXPECT_EQ(float(result->stats.min), out[layoutFor(p).statsOffset()]);
    EXPECT_EQ(float(result->stats.max), out[layoutFor(p).statsOffset() + 1]);
    // The CPU cannot write device memory.
    EXPECT_FALSE(
        launchDistance(*context, p, BufferView<float>::device(out.data(), out.size())).ok());
}

TEST(CpuDistance, RejectsInvalidParametersAndShortOutput)
{
    auto backendOwner = cpuContext(1);
    Context& backend = *backendOwner;
    DistanceParams p;
    p.latMin = NAN;
    std::vector<float> out(layoutFor(DistanceParams{}).elementCount());
    EXPECT_FALSE(computeDistance(backend, p, std::span<float>(out)).ok());
    DistanceParams q;
    std::vector<float> shortOut(10);
    const Status s = computeDistance(backend, q, std::span<float>(shortOut));
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find("needs"), std::string::npos);
}

class CudaDistance : public CudaContextTest
{
protected:
    std::unique_ptr<Context> m_cpuOwner = cpuContext(4);
    Context& m_cpu = *m_cpuOwner;
};

// The soak program watches device memory through this; the CPU has none of its own.
TEST_F(CudaDistance, ReportsDeviceMemoryInUse)
{
    EXPECT_FALSE(m_cpu.memory().has_value());
    const auto memory = m_cuda->memory();
    ASSERT_TRUE(memory.has_value());
    EXPECT_GT(memory->totalBytes, 0u);
    EXPECT_GT(memory->usedBytes, 0u); // this process's context at least
    EXPECT_LE(memory->usedBytes, memory->totalBytes);
}

// CPU and CUDA agree within the per-element tolerance of the precision, on random scenes
// (odd sizes, up to 64 references) and on sizes spanning many blocks.
TEST_F(CudaDistance, AgreesWithCpuOnRandomScenes)
{
    std::mt19937 rng(7);
    for (int k = 0; k < 60; ++k) {
        DistanceParams p = randomScene(rng, k < 50 ? 300 : 3000);
        p.precision = k % 2 ? Precision::Float64 : Precision::Float32;
        const std::size_t n = layoutFor(p).elementCount();
        auto gpu = poisoned<double>(n);
        ASSERT_TRUE(computeDistance(*m_cuda, p, std::span<double>(gpu)).ok());
        expectWellFormed(gpu, p);
        auto cpu = poisoned<double>(n);
        ASSERT_TRUE(computeDistance(m_cpu, p, std::span<double>(cpu)).ok());
        const double radius = radiusInUnit(p);
        for (int i = 0; i < p.ny; ++i)
            for (int j = 0; j < p.nx; ++j) {
                const std::size_t idx = layoutFor(p).index(i, j);
                const double tol = 2.0 * distanceTolerance(cpu[idx] / radius, radius, p.precision);
                ASSERT_NEAR(gpu[idx], cpu[idx], tol) << "scene " << k << " node " << i << "," << j;
            }
    }
}

TEST_F(CudaDistance, FloatOutputMatchesNodeReference)
{
    DistanceParams p;
    p.nx = 4097; // one past a block boundary, with row padding
    p.ny = 129;
    p.references = {{30.0, 101.0}, {29.5, 99.5}, {-30.0, -79.0}};
    for (Precision precision : {Precision::Float32, Precision::Float64}) {
        p.precision = precision;
        auto out = poisoned<float>(layoutFor(p).elementCount());
        ASSERT_TRUE(computeDistance(*m_cuda, p, std::span<float>(out)).ok());
        expectWellFormed(out, p);
        expectMatchesNodeReference(out, p);
    }
}

TEST_F(CudaDistance, ReportsKernelTimeAndStats)
{
    DistanceParams p;
    std::vector<float> out(layoutFor(p).elementCount());
    ASSERT_TRUE(computeDistance(*m_cuda, p, std::span<float>(out)).ok());
    const std::optional<FieldResult> result = fieldResult(*m_cuda);
    ASSERT_TRUE(result.has_value());
    EXPECT_GT(result->kernelMs, 0.0);
    EXPECT_EQ(float(result->stats.min), out[layoutFor(p).statsOffset()]);
    EXPECT_EQ(float(result->stats.max), out[layoutFor(p).statsOffset() + 1]);
}

// The display's path: the field launched into device memory (here the staging memory a
// display on another GPU gets) without waiting, its figures there once the work is done.
TEST_F(CudaDistance, LaunchIntoDeviceMemoryCompletesWithItsFigures)
{
    DistanceParams p;
    p.nx = 1025;
    p.ny = 333;
    p.references = {{10.0, 20.0}, {-40.0, 150.0}, {60.0, -30.0}};
    const std::size_t n = layoutFor(p).elementCount();
    BufferView<std::byte> staging;
    ASSERT_TRUE(stagingBuffer(*m_cuda, 7, n * sizeof(float), staging).ok());
    ASSERT_EQ(staging.space, MemorySpace::Device);
    const BufferView<float> out =
        BufferView<float>::device(reinterpret_cast<float*>(staging.data), n);
    ASSERT_TRUE(launchDistance(*m_cuda, p, out).ok());
    std::span<const std::byte> host;
    ASSERT_TRUE(readStaging(*m_cuda, 7, n * sizeof(float), host).ok()); // waits for the work
    std::vector<float> gpu(n);
    std::memcpy(gpu.data(), host.data(), host.size());
    expectWellFormed(gpu, p);
    expectMatchesNodeReference(gpu, p);
    // The first look queues the figures' copy (the buffer is no longer in use); they arrive.
    std::optional<FieldResult> result;
    for (int k = 0; k < 5000 && !(result = fieldResult(*m_cuda)); ++k)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ASSERT_TRUE(result.has_value()) << "the figures never arrived";
    EXPECT_EQ(float(result->stats.min), gpu[layoutFor(p).statsOffset()]);
    EXPECT_EQ(float(result->stats.max), gpu[layoutFor(p).statsOffset() + 1]);
    // Memory of the host given as device memory, or too little of it, is refused.
    std::vector<float> small(10);
    EXPECT_FALSE(launchDistance(*m_cuda, p, BufferView<float>::host(small)).ok());
    releaseStaging(*m_cuda, 7);
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
    auto cpuOwner = cpuContext(2);
    Context& cpu = *cpuOwner;
    ASSERT_TRUE(computeDistance(cpu, p, std::span<float>(reference)).ok());
    for (int d = 0; d < int(names.size()); ++d) {
        DevicePool pool(BackendKind::Cuda, d, nullptr);
        std::unique_ptr<Context> context;
        ASSERT_TRUE(pool.open("field", context).ok());
        EXPECT_EQ(context->info().ordinal, d);
        EXPECT_EQ(context->name(), names[std::size_t(d)]);
        std::vector<float> out = poisoned<float>(reference.size());
        ASSERT_TRUE(computeDistance(*context, p, std::span<float>(out)).ok());
        expectWellFormed(out, p);
        std::printf("CUDA device %d (%s) computed the field\n", d, names[std::size_t(d)].c_str());
    }
    DevicePool beyond(BackendKind::Cuda, int(names.size()), nullptr);
    std::unique_ptr<Context> none;
    const Status refused = beyond.open("field", none);
    EXPECT_FALSE(refused.ok());
    EXPECT_FALSE(none);
    EXPECT_NE(refused.message().find("There is no CUDA device"), std::string::npos)
        << refused.message();
}

} // namespace
} // namespace warpscope::gpu::test
