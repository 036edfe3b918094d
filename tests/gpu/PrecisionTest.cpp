#include "TestSupport.h"

#include <gtest/gtest.h>

namespace warpscope::gpu::test {
namespace {

// The whole globe, with the reference's antipode on a mesh node.
DistanceParams globe()
{
    DistanceParams p;
    p.latMin = -90.0;
    p.latMax = 90.0;
    p.lonMin = -180.0;
    p.lonMax = 180.0;
    p.nx = 2161; // 1/6 degree
    p.ny = 1081;
    p.references = {{30.0, 0.0}};
    return p;
}

double maxFloat32Error(Context& backend, DistanceParams p, int* worstIndex = nullptr)
{
    const std::size_t n = layoutFor(p).elementCount();
    std::vector<double> f32(n), f64(n);
    p.precision = Precision::Float32;
    EXPECT_TRUE(computeDistance(backend, p, std::span<double>(f32)).ok());
    p.precision = Precision::Float64;
    EXPECT_TRUE(computeDistance(backend, p, std::span<double>(f64)).ok());
    double worst = 0.0;
    for (std::size_t k = 0; k < layoutFor(p).statsOffset(); ++k)
        if (std::abs(f32[k] - f64[k]) > worst) {
            worst = std::abs(f32[k] - f64[k]);
            if (worstIndex)
                *worstIndex = int(k);
        }
    return worst;
}

// float32 loses up to kilometres near the antipode. The bound is the error model's cap
// there (TestSupport.h): R * 2 * sqrt(8 eps) = 12.4 km; away from it, metres.
TEST(Precision, Float32ErrorOverTheGlobeOnCpu)
{
    auto backendOwner = cpuContext(4);
    Context& backend = *backendOwner;
    int worst = 0;
    const double err = maxFloat32Error(backend, globe(), &worst);
    const FieldLayout layout = layoutFor(globe());
    std::printf("CPU float32 max error over the globe: %.3f km at row %d col %d\n", err,
                worst / layout.pitch, worst % layout.pitch);
    EXPECT_GT(err, 0.01); // float32 does lose precision here; the hint depends on it
    EXPECT_LT(err, 12.4);

    DistanceParams local = globe();
    local.latMin = 25.0;
    local.latMax = 35.0;
    local.lonMin = -5.0;
    local.lonMax = 5.0;
    EXPECT_LT(maxFloat32Error(backend, local), 0.03) << "away from the antipode: metres";
}

// A 0.1 degree window around the reference's antipode, 1001 x 1001 nodes: where the
// float32 error reaches kilometres.
DistanceParams antipodeWindow()
{
    DistanceParams p = globe();
    p.latMin = -30.05;
    p.latMax = -29.95;
    p.lonMin = 179.95;
    p.lonMax = 180.05;
    p.nx = p.ny = 1001;
    return p;
}

TEST(Precision, Float32ErrorOverTheGlobeOnCuda)
{
    auto selection = cudaContext();
    if (!selection)
        GTEST_SKIP() << "no CUDA device";
    const double err = maxFloat32Error(*selection, globe());
    std::printf("CUDA float32 max error over the globe: %.3f km\n", err);
    EXPECT_LT(err, 12.4);
    const double nearAntipode = maxFloat32Error(*selection, antipodeWindow());
    std::printf("CUDA float32 max error within 0.05 degrees of the antipode: %.3f km\n",
                nearAntipode);
    EXPECT_GT(nearAntipode, 0.5);
    EXPECT_LT(nearAntipode, 12.4);
}

TEST(Precision, Float32LosesKilometresNextToTheAntipode)
{
    auto backendOwner = cpuContext(4);
    Context& backend = *backendOwner;
    const double err = maxFloat32Error(backend, antipodeWindow());
    std::printf("CPU float32 max error within 0.05 degrees of the antipode: %.3f km\n", err);
    EXPECT_GT(err, 0.5);
    EXPECT_LT(err, 12.4);
    const PrecisionEstimate estimate = estimateFloat32Error(antipodeWindow());
    EXPECT_GT(estimate.maxFloat32Error, estimate.cellSize) << "the hint must show here";
}

TEST(Precision, EstimateFlagsLargeMeshesOnly)
{
    const PrecisionEstimate wide = estimateFloat32Error(globe());
    EXPECT_GT(wide.maxFloat32Error, 0.1);
    EXPECT_GT(wide.cellSize, 1.0);
    EXPECT_LT(wide.maxFloat32Error, 12.4);
    const PrecisionEstimate small = estimateFloat32Error(DistanceParams{});
    EXPECT_LT(small.maxFloat32Error, 0.01);
    EXPECT_LT(small.maxFloat32Error, 0.25 * small.cellSize);
    EXPECT_NEAR(small.cellSize,
                6371.0088 * M_PI / 180.0 * 2.0 / 999.0 * std::cos(30.0 * M_PI / 180.0), 1e-6);
}

} // namespace
} // namespace warpscope::gpu::test
