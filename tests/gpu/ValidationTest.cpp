#include "TestSupport.h"
#include "warpscope/gpu/DevicePool.h"

#include <gtest/gtest.h>

namespace warpscope::gpu::test {
namespace {

bool flags(const DistanceParams& p, ParamField field)
{
    for (const ParamError& e : validate(p))
        if (e.field == field && !e.message.empty())
            return true;
    return false;
}

TEST(Validation, DefaultSceneIsValid)
{
    EXPECT_TRUE(validate(DistanceParams{}).empty());
}

TEST(Validation, LatitudeOutOfRangeOrNaN)
{
    for (double bad : {-90.5, 91.0, double(NAN), double(INFINITY)}) {
        DistanceParams p;
        p.latMin = bad;
        EXPECT_TRUE(flags(p, ParamField::LatMin)) << bad;
        DistanceParams q;
        q.latMax = bad;
        EXPECT_TRUE(flags(q, ParamField::LatMax)) << bad;
    }
}

TEST(Validation, LongitudeOutOfRange)
{
    DistanceParams p;
    p.lonMin = -181.0;
    EXPECT_TRUE(flags(p, ParamField::LonMin));
    p = {};
    p.lonMax = 360.5;
    EXPECT_TRUE(flags(p, ParamField::LonMax));
    p = {};
    p.lonMin = -180.0;
    p.lonMax = 360.0; // a 540 degree span wraps
    EXPECT_TRUE(flags(p, ParamField::LonMax));
    p = {};
    p.lonMin = 0.0;
    p.lonMax = 360.0;
    EXPECT_TRUE(validate(p).empty());
}

TEST(Validation, MinimumNotBelowMaximum)
{
    DistanceParams p;
    p.latMin = 31.0;
    EXPECT_TRUE(flags(p, ParamField::LatMax));
    p = {};
    p.lonMax = p.lonMin;
    EXPECT_TRUE(flags(p, ParamField::LonMax));
    const auto errors = validate(p);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_NE(errors[0].message.find("greater than the minimum"), std::string::npos);
}

TEST(Validation, MeshSizeLimits)
{
    for (int bad : {-5, 0, 1, kMaxMeshAxis + 1}) {
        DistanceParams p;
        p.nx = bad;
        EXPECT_TRUE(flags(p, ParamField::Nx)) << bad;
        p = {};
        p.ny = bad;
        EXPECT_TRUE(flags(p, ParamField::Ny)) << bad;
    }
    DistanceParams p;
    p.nx = 2;
    p.ny = 8192;
    EXPECT_TRUE(validate(p).empty());
}

TEST(Validation, ReferencePoints)
{
    DistanceParams p;
    p.references.clear();
    EXPECT_TRUE(flags(p, ParamField::References));
    p.references.assign(kMaxReferencePoints + 1, GeoPoint{0, 0});
    EXPECT_TRUE(flags(p, ParamField::References));
    p.references.assign(kMaxReferencePoints, GeoPoint{0, 0});
    EXPECT_TRUE(validate(p).empty());
    p.references = {{0, 0}, {NAN, 0}};
    const auto errors = validate(p);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0].index, 1);
}

TEST(Validation, Radius)
{
    for (double bad : {0.0, -1.0, double(NAN), 1e12}) {
        DistanceParams p;
        p.radiusKm = bad;
        EXPECT_TRUE(flags(p, ParamField::Radius)) << bad;
    }
}

TEST(Layout, RowsArePaddedToFourAndStatsFollow)
{
    const FieldLayout l = FieldLayout::forMesh(1001, 3);
    EXPECT_EQ(l.pitch, 1004);
    EXPECT_EQ(l.statsOffset(), 3012u);
    EXPECT_EQ(l.elementCount(), 3014u);
    EXPECT_EQ(FieldLayout::forMesh(1000, 1).pitch, 1000);
}

TEST(Units, ConversionFactors)
{
    EXPECT_DOUBLE_EQ(unitsPerKilometre(DistanceUnit::Kilometres), 1.0);
    EXPECT_DOUBLE_EQ(1.0 / unitsPerKilometre(DistanceUnit::Miles), 1.609344);
    EXPECT_DOUBLE_EQ(1.0 / unitsPerKilometre(DistanceUnit::NauticalMiles), 1.852);
}

TEST(DevicePolicy, CpuIsAlwaysAvailableAndAutoExplainsItself)
{
    DevicePool cpuPool(BackendKind::Cpu, -1, nullptr);
    std::unique_ptr<Context> cpu;
    std::string why;
    ASSERT_TRUE(cpuPool.openDisplay("field", {}, true, cpu, why).ok());
    EXPECT_FALSE(cpu->isCuda());
    EXPECT_EQ(why, "CPU: chosen with --backend cpu");
    // OpenGL on no CUDA device: Auto draws from the CPU and says why.
    DevicePool autoPool(BackendKind::Auto, -1, nullptr);
    std::unique_ptr<Context> any;
    ASSERT_TRUE(autoPool.openDisplay("field", {}, true, any, why).ok());
    EXPECT_FALSE(any->isCuda());
    EXPECT_EQ(why.rfind("CPU: ", 0), 0u) << why;
    DevicePool cudaPool(BackendKind::Cuda, -1, nullptr);
    std::unique_ptr<Context> cuda;
    if (const Status s = cudaPool.openDisplay("field", {}, true, cuda, why); !s)
        EXPECT_NE(s.message().find("CUDA"), std::string::npos);
    else // a GPU that OpenGL does not run on computes through host copies
        EXPECT_NE(why.find("host copy"), std::string::npos) << why;
    EXPECT_EQ(parseBackendKind("cuda"), BackendKind::Cuda);
    EXPECT_FALSE(parseBackendKind("gpu").has_value());
}

} // namespace
} // namespace warpscope::gpu::test
