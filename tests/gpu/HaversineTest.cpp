#include "distance/Haversine.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

namespace warpscope::gpu::test {
namespace {

TEST(Haversine, FixtureHasPairsForEveryUnitAndRadius)
{
    const auto pairs = loadCityPairs();
    ASSERT_GE(pairs.size(), 800u) << "fixture missing in " << fixtureDir();
}

// The shared math in double precision against GeographicLib's great circle.
TEST(Haversine, MatchesGeographicLibInDouble)
{
    for (const CityPair& p : loadCityPairs()) {
        const double radius = p.radiusKm * unitsPerKilometre(p.unit);
        const double d = math::haversineDistance(p.a.lat, p.a.lon, p.b.lat, p.b.lon, radius);
        EXPECT_NEAR(d, p.distance,
                    distanceTolerance(p.distance / radius, radius, Precision::Float64))
            << p.from << " -> " << p.to << " (" << unitSymbol(p.unit) << ", R=" << p.radiusKm
            << ")";
    }
}

TEST(Haversine, IsSymmetricAndZeroOnTheDiagonal)
{
    EXPECT_EQ(math::haversineDistance(30.0, 101.0, 30.0, 101.0, 6371.0), 0.0);
    EXPECT_DOUBLE_EQ(math::haversineDistance(10.0, 20.0, -40.0, 200.0, 6371.0),
                     math::haversineDistance(-40.0, 200.0, 10.0, 20.0, 6371.0));
}

TEST(Haversine, CentralAngleNeverNaNOutsideTheUnitInterval)
{
    for (double a : {-1e-7, -0.0, 0.0, 1.0, 1.0 + 1e-7, 2.0}) {
        EXPECT_FALSE(std::isnan(math::centralAngle(a))) << a;
        EXPECT_FALSE(std::isnan(math::centralAngle(float(a)))) << a;
    }
    EXPECT_DOUBLE_EQ(math::centralAngle(1.0 + 1e-7), M_PI);
}

// A mesh whose corner node sits on p.a, with p.b as the only reference.
DistanceParams cornerScene(const CityPair& p, Precision precision)
{
    DistanceParams s;
    const double dLat = p.a.lat + 0.5 > 90.0 ? -0.5 : 0.5;
    const double dLon = p.a.lon + 0.5 > 360.0 ? -0.5 : 0.5;
    s.latMin = std::min(p.a.lat, p.a.lat + dLat);
    s.latMax = std::max(p.a.lat, p.a.lat + dLat);
    s.lonMin = std::min(p.a.lon, p.a.lon + dLon);
    s.lonMax = std::max(p.a.lon, p.a.lon + dLon);
    s.nx = 3;
    s.ny = 5;
    s.references = {p.b};
    s.precision = precision;
    s.unit = p.unit;
    s.radiusKm = p.radiusKm;
    return s;
}

std::size_t cornerIndex(const CityPair& p, const DistanceParams& s)
{
    const FieldLayout layout = layoutFor(s);
    return layout.index(s.latMin == p.a.lat ? 0 : s.ny - 1, s.lonMin == p.a.lon ? 0 : s.nx - 1);
}

void expectMatchesFixture(Context& backend, Precision precision)
{
    for (const CityPair& p : loadCityPairs()) {
        const DistanceParams s = cornerScene(p, precision);
        auto out = poisoned<double>(layoutFor(s).elementCount());
        ASSERT_TRUE(computeDistance(backend, s, std::span<double>(out)).ok());
        ASSERT_EQ(unwrittenCount(out), 0u);
        const double radius = radiusInUnit(s);
        EXPECT_NEAR(out[cornerIndex(p, s)], p.distance,
                    distanceTolerance(p.distance / radius, radius, precision))
            << p.from << " -> " << p.to << " " << precisionName(precision) << " "
            << unitSymbol(p.unit);
    }
}

TEST(Haversine, CpuMatchesGeographicLibFloat64)
{
    auto backendOwner = cpuContext(2);
    Context& backend = *backendOwner;
    expectMatchesFixture(backend, Precision::Float64);
}

TEST(Haversine, CpuMatchesGeographicLibFloat32)
{
    auto backendOwner = cpuContext(2);
    Context& backend = *backendOwner;
    expectMatchesFixture(backend, Precision::Float32);
}

TEST(Haversine, CudaMatchesGeographicLib)
{
    auto selection = cudaContext();
    if (!selection)
        GTEST_SKIP() << "no CUDA device";
    expectMatchesFixture(*selection, Precision::Float64);
    expectMatchesFixture(*selection, Precision::Float32);
}

} // namespace
} // namespace warpscope::gpu::test

namespace warpscope::gpu::test {
namespace {

// The float32 asin used by the central angle, against the double library asin over its
// whole range, every 2^-22: at most 2 units in the last place.
TEST(Haversine, AsinSmallIsWithinTwoUlps)
{
    double worst = 0.0;
    for (double x = 0.0; x <= std::sqrt(0.5); x += 1.0 / (1 << 22)) {
        const float xf = float(x);
        const double exact = std::asin(double(xf));
        const float got = math::asinSmall(xf);
        if (exact > 0)
            worst = std::max(worst, std::abs(double(got) - exact) /
                                        double(std::nextafter(float(exact), 1.0f) - float(exact)));
    }
    std::printf("asinSmall: worst error %.2f ulp\n", worst);
    EXPECT_LE(worst, 2.0);
    EXPECT_EQ(math::asinSmall(0.0f), 0.0f);
    EXPECT_EQ(math::asinSmall(0.0), 0.0);
}

} // namespace
} // namespace warpscope::gpu::test
