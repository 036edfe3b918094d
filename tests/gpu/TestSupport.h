#pragma once

#include "warpscope/gpu/Context.h"
#include "warpscope/gpu/Distance.h"
#include "warpscope/gpu/DistanceParams.h"
#include "warpscope/gpu/LaunchLesson.h"
#include "warpscope/gpu/Periodogram.h"
#include "warpscope/gpu/Spectrum.h"
#include "warpscope/gpu/StreamsLab.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace warpscope::gpu::test {

// A folder of its own for each test, removed afterwards.
class TempDir
{
public:
    TempDir()
    {
        static int counter = 0;
        m_path = std::filesystem::temp_directory_path() /
                 ("warpscope-kernel-test-" + std::to_string(::getpid()) + "-" +
                  std::to_string(counter++));
        std::filesystem::create_directories(m_path);
    }
    ~TempDir()
    {
        std::error_code error;
        std::filesystem::remove_all(m_path, error);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    std::string str() const { return m_path.string(); }
    const std::filesystem::path& path() const { return m_path; }

private:
    std::filesystem::path m_path;
};

// For tests of the CPU simulator, which builds kernels with the system's C++ compiler.
#define SKIP_WITHOUT_COMPILER()                                                                    \
    if (hostCompiler().empty())                                                                    \
    GTEST_SKIP() << "no C++ compiler on PATH for the CPU simulator"

// A context on the CPU with a pool of `threads`.
inline std::unique_ptr<Context> cpuContext(unsigned threads = 2)
{
    std::unique_ptr<Context> context;
    Context::open({DeviceKind::Cpu, 0}, context, threads); // the CPU is always there
    return context;
}

// A context on CUDA device `ordinal`, or null where there is none (the test then skips).
inline std::unique_ptr<Context> cudaContext(int ordinal = 0)
{
    std::unique_ptr<Context> context;
    if (Context::open({DeviceKind::Cuda, ordinal}, context))
        return context;
    return nullptr;
}

// The rows of a fixture CSV after its header line, split at commas; comment lines (#)
// are skipped, or collected into comments.
inline std::vector<std::vector<std::string>> readCsv(const std::string& path,
                                                     std::string* comments = nullptr)
{
    std::ifstream in(path);
    EXPECT_TRUE(in.good()) << path;
    std::vector<std::vector<std::string>> rows;
    std::string line;
    bool header = true;
    while (std::getline(in, line)) {
        if (line.empty())
            continue;
        if (line[0] == '#') {
            if (comments)
                *comments += line + "\n";
            continue;
        }
        if (header) {
            header = false;
            continue;
        }
        std::vector<std::string> fields;
        std::stringstream ss(line);
        std::string field;
        while (std::getline(ss, field, ','))
            fields.push_back(field);
        rows.push_back(fields);
    }
    return rows;
}

// A fixture for tests on the first CUDA device; they skip where there is none.
class CudaContextTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        m_cuda = cudaContext();
        if (!m_cuda)
            GTEST_SKIP() << "no CUDA device";
    }
    std::unique_ptr<Context> m_cuda;
};

// One row of tests/fixtures/city_distances.csv (GeographicLib on a sphere).
struct CityPair
{
    std::string from, to;
    GeoPoint a, b;
    double radiusKm = 0.0;
    DistanceUnit unit = DistanceUnit::Kilometres;
    double distance = 0.0;
};

// The fixture folder; WARPSCOPE_FIXTURE_DIR in the environment overrides the build's path,
// for test binaries run on another machine.
inline std::string fixtureDir()
{
    const char* dir = std::getenv("WARPSCOPE_FIXTURE_DIR");
    return dir ? dir : WARPSCOPE_FIXTURE_DIR;
}

// tests/fixtures/periodogram/series_<name>.csv: t, y and, where present, dy.
inline TimeSeries loadFixtureSeries(const std::string& name)
{
    TimeSeries s;
    for (const auto& row : readCsv(fixtureDir() + "/periodogram/series_" + name + ".csv")) {
        s.t.push_back(std::stod(row[0]));
        s.y.push_back(std::stod(row[1]));
        if (row.size() > 2)
            s.dy.push_back(std::stod(row[2]));
    }
    return s;
}

inline std::vector<CityPair> loadCityPairs()
{
    std::ifstream in(fixtureDir() + "/city_distances.csv");
    std::vector<CityPair> pairs;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#')
            continue;
        std::stringstream ss(line);
        std::string f[9];
        for (std::string& field : f)
            std::getline(ss, field, ',');
        CityPair p;
        p.from = f[0];
        p.a = {std::stod(f[1]), std::stod(f[2])};
        p.to = f[3];
        p.b = {std::stod(f[4]), std::stod(f[5])};
        p.radiusKm = std::stod(f[6]);
        p.unit = f[7] == "mi"    ? DistanceUnit::Miles
                 : f[7] == "nmi" ? DistanceUnit::NauticalMiles
                                 : DistanceUnit::Kilometres;
        p.distance = std::stod(f[8]);
        pairs.push_back(p);
    }
    return pairs;
}

// Tolerance for a computed distance, from an error model of the haversine in precision eps:
//  - coordinates and their differences are rounded: an absolute angle error c0
//    (4e-6 rad, about 25 m on Earth, in float32; 1e-12 rad in float64);
//  - a = sin²(θ/2) carries an absolute error of about 8 eps; θ = 2 atan2(√a, √(1 − a)) turns
//    that into δ / √(1 − a), which near the antipode (a → 1) is capped by 2 √δ.
// With θ the true central angle.
inline double distanceTolerance(double theta, double radius, Precision precision)
{
    const bool f32 = precision == Precision::Float32;
    const double eps = f32 ? double(std::numeric_limits<float>::epsilon())
                           : std::numeric_limits<double>::epsilon();
    const double c0 = f32 ? 4e-6 : 1e-12;
    const double delta = 8.0 * eps;
    const double s = std::sin(theta / 2.0);
    const double oneMinusA = std::max(1.0 - s * s, 1e-300);
    return radius * (c0 + std::min(delta / std::sqrt(oneMinusA), 2.0 * std::sqrt(delta)));
}

inline double radiusInUnit(const DistanceParams& p)
{
    return p.radiusKm * unitsPerKilometre(p.unit);
}

// NaN payload that no computation produces, so an element still holding it was not written.
template <typename T> T poisonValue()
{
    if constexpr (sizeof(T) == 4) {
        const std::uint32_t bits = 0x7fa5a5a5u;
        float v;
        std::memcpy(&v, &bits, 4);
        return v;
    } else {
        const std::uint64_t bits = 0x7ff5a5a5a5a5a5a5ull;
        double v;
        std::memcpy(&v, &bits, 8);
        return v;
    }
}

template <typename T> std::vector<T> poisoned(std::size_t n)
{
    return std::vector<T>(n, poisonValue<T>());
}

// Counts the elements that still hold the poison (or any NaN).
template <typename T> std::size_t unwrittenCount(const std::vector<T>& v)
{
    std::size_t n = 0;
    for (T x : v)
        n += std::isnan(x) ? 1 : 0;
    return n;
}

// A random but valid scene: bounds anywhere on the globe, odd sizes (row padding), 1 to 64
// reference points, either precision and unit.
inline DistanceParams randomScene(std::mt19937& rng, int maxAxis = 300)
{
    std::uniform_real_distribution<double> lat(-90.0, 90.0), lon(-180.0, 360.0), unit01(0, 1);
    std::uniform_int_distribution<int> axis(2, maxAxis), refCount(1, kMaxReferencePoints);
    DistanceParams p;
    do {
        p.latMin = lat(rng);
        p.latMax = lat(rng);
    } while (p.latMin == p.latMax);
    if (p.latMin > p.latMax)
        std::swap(p.latMin, p.latMax);
    p.lonMin = lon(rng);
    p.lonMax = std::min(360.0, p.lonMin + 1e-3 + unit01(rng) * 300.0);
    p.nx = axis(rng);
    p.ny = axis(rng);
    p.references.clear();
    const int refs = unit01(rng) < 0.3 ? 1 : refCount(rng);
    for (int r = 0; r < refs; ++r)
        p.references.push_back({lat(rng), lon(rng)});
    p.unit = DistanceUnit(std::uniform_int_distribution<int>(0, 2)(rng));
    p.radiusKm = 1000.0 + unit01(rng) * 10000.0;
    return p;
}

} // namespace warpscope::gpu::test
