#include "warpscope/gpu/Spectrum.h"

#include "TestSupport.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <optional>
#include <random>

using namespace warpscope::gpu;
using warpscope::gpu::test::cpuContext;
using warpscope::gpu::test::cudaContext;

namespace {

// Powers with random peaks, a plateau and a few NaN, as a small launch would leave.
std::vector<double> randomPower(long long count, unsigned seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<double> p(static_cast<std::size_t>(count));
    for (double& v : p)
        v = u(rng) * u(rng);
    for (int i = 0; i < 7; ++i)
        p[std::size_t(rng() % std::uint64_t(count))] = std::nan("");
    p[std::size_t(count / 3)] = p[std::size_t(count / 3) + 1] = 1.5; // a plateau, the highest
    return p;
}

// The axes a user reaches: frequency or period, linear or log, zoomed, angular.
std::vector<SpectrumAxis> axesFor(const FrequencyGrid& g)
{
    const double f0 = g.fmin, f1 = g.fmax();
    if (g.count == 1) // a single frequency: the plot puts a little room around it
        return {{0.9 * f0, 1.1 * f0, false, false, 1.0, 50},
                {0.9 / f0, 1.1 / f0, true, true, 1.0, 7}};
    return {
        {f0, f1, false, false, 1.0, 640},
        {f0, f1, false, true, 1.0, 333},
        {1.0 / f1, 1.0 / f0, true, false, 1.0, 500},
        {1.0 / f1, 1.0 / f0, true, true, 1.0, 1024},
        {2 * M_PI * f0, 2 * M_PI * f1, false, false, 2 * M_PI, 97},
        // Zoomed in so far that most columns hold no frequency.
        {g.frequency(1000), g.frequency(1040), false, false, 1.0, 800},
        // Partly beyond the grid on both sides.
        {f0 - (f1 - f0), f1 + (f1 - f0), false, false, 1.0, 300},
    };
}

// The test's own column position of index k, from the axis definition.
double positionOf(const FrequencyGrid& g, const SpectrumAxis& a, long long k)
{
    const double f = g.frequency(k);
    const double x = a.period ? 1.0 / f : f * a.frequencyScale;
    const double u = a.logX ? std::log(x / a.xMin) / std::log(a.xMax / a.xMin)
                            : (x - a.xMin) / (a.xMax - a.xMin);
    return u * a.columns;
}

// Checks a line against the powers: each column with frequencies holds their finite minimum
// and maximum (columns with a frequency within a millionth of a column of their edges are
// skipped, as either side may take it); each without holds a neighbouring frequency's point.
void expectLineMatches(const std::vector<double>& power, const FrequencyGrid& g,
                       const SpectrumAxis& a, const std::vector<float>& v)
{
    const int columns = a.columns;
    std::vector<double> lo(std::size_t(columns), INFINITY), hi(std::size_t(columns), -INFINITY);
    std::vector<int> members(std::size_t(columns), 0);
    std::vector<bool> ambiguous(std::size_t(columns), false);
    for (long long k = 0; k < g.count; ++k) {
        const double pos = positionOf(g, a, k);
        if (pos < -1.0 || pos > columns + 1.0)
            continue;
        const int c = int(std::floor(pos));
        const double edge = pos - std::floor(pos);
        if (edge < 1e-6 || edge > 1 - 1e-6) {
            for (int n : {c - 1, c, c + 1})
                if (n >= 0 && n < columns)
                    ambiguous[std::size_t(n)] = true;
        }
        if (c < 0 || c >= columns)
            continue;
        ++members[std::size_t(c)];
        if (std::isfinite(power[std::size_t(k)])) {
            lo[std::size_t(c)] = std::min(lo[std::size_t(c)], power[std::size_t(k)]);
            hi[std::size_t(c)] = std::max(hi[std::size_t(c)], power[std::size_t(k)]);
        }
    }
    int checked = 0;
    for (int c = 0; c < columns; ++c) {
        const float* col = v.data() + std::size_t(c) * kSpectrumFloatsPerColumn;
        if (ambiguous[std::size_t(c)])
            continue;
        ++checked;
        if (members[std::size_t(c)] > 0) {
            ASSERT_EQ(col[0], float(c) + 0.5f) << c;
            ASSERT_EQ(col[2], col[0]);
            if (lo[std::size_t(c)] > hi[std::size_t(c)]) {
                ASSERT_TRUE(std::isnan(col[1]) && std::isnan(col[3])) << c;
            } else {
                ASSERT_EQ(col[1], float(lo[std::size_t(c)])) << c;
                ASSERT_EQ(col[3], float(hi[std::size_t(c)])) << c;
            }
            continue;
        }
        // No frequency: one of the two grid points either side of the column's centre.
        ASSERT_TRUE(col[1] == col[3] || (std::isnan(col[1]) && std::isnan(col[3])));
        bool found = false;
        for (long long k = 0; k < g.count && !found; ++k) {
            const double pos = positionOf(g, a, k);
            if (std::abs(pos - col[0]) > 1e-3 * std::max(1.0, std::abs(pos)))
                continue;
            const float p = float(power[std::size_t(k)]);
            found = p == col[1] || (std::isnan(p) && std::isnan(col[1]));
        }
        ASSERT_TRUE(found) << "column " << c << " x " << col[0];
    }
    EXPECT_GT(checked, columns / 2);
}

TEST(Spectrum, HostLineHoldsEachColumnsMinimumAndMaximum)
{
    // Evenly spaced, and logarithmic over four decades.
    for (const FrequencyGrid& g :
         {FrequencyGrid{0.01, 0.0007, 50021}, frequencyGrid(0.001, 10.0, 40009, true)}) {
        const std::vector<double> power = randomPower(g.count, 3);
        for (const SpectrumAxis& a : axesFor(g)) {
            SCOPED_TRACE("columns " + std::to_string(a.columns) +
                         (g.logarithmic ? ", logarithmic grid" : ""));
            std::vector<float> v(std::size_t(a.columns) * kSpectrumFloatsPerColumn, -7.0f);
            decimateSpectrum(power, g, a, v);
            expectLineMatches(power, g, a, v);
        }
    }
    // Millions of frequencies in view: the columns are shared among threads.
    const FrequencyGrid big{0.01, 1e-6, (1 << 21) + 5};
    const std::vector<double> many = randomPower(big.count, 4);
    for (const SpectrumAxis& a :
         {SpectrumAxis{big.fmin, big.fmax(), false, false, 1.0, 1601},
          SpectrumAxis{1.0 / big.fmax(), 1.0 / big.fmin, true, true, 1.0, 997}}) {
        std::vector<float> v(std::size_t(a.columns) * kSpectrumFloatsPerColumn, -7.0f);
        decimateSpectrum(many, big, a, v);
        expectLineMatches(many, big, a, v);
    }
}

TEST(Spectrum, NoPeakIsLostAcrossFewColumns)
{
    const FrequencyGrid g{0.5, 0.001, 1 << 20};
    const std::vector<double> power = randomPower(g.count, 9);
    const SpectrumAxis a{g.fmin, g.fmax(), false, false, 1.0, 200};
    std::vector<float> v(std::size_t(a.columns) * kSpectrumFloatsPerColumn);
    decimateSpectrum(power, g, a, v);
    float highest = 0.0f;
    for (std::size_t i = 1; i < v.size(); i += 2)
        if (!std::isnan(v[i]))
            highest = std::max(highest, v[i]);
    EXPECT_EQ(highest, 1.5f);
}

TEST(Spectrum, BadAxesAreExplained)
{
    EXPECT_FALSE(validateSpectrumAxis({1.0, 1.0, false, false, 1.0, 10}).empty());
    EXPECT_FALSE(validateSpectrumAxis({NAN, 1.0, false, false, 1.0, 10}).empty());
    EXPECT_FALSE(validateSpectrumAxis({-1.0, 1.0, false, true, 1.0, 10}).empty());
    EXPECT_FALSE(validateSpectrumAxis({0.0, 1.0, false, false, 1.0, 0}).empty());
    EXPECT_FALSE(
        validateSpectrumAxis({0.0, 1.0, false, false, 1.0, kSpectrumMaxColumns + 1}).empty());
    EXPECT_TRUE(validateSpectrumAxis({0.0, 1.0, false, false, 1.0, 10}).empty());
}

PeriodogramOptions optionsFor(const TimeSeries& s, long long count)
{
    PeriodogramOptions o;
    o.grid = autoFrequencyGrid(s);
    o.grid.df = o.grid.df * double(o.grid.count) / double(count);
    o.grid.count = count;
    return o;
}

TEST(Spectrum, CpuSpectrumKeepsPowersPeaksAndRange)
{
    auto cpu = cpuContext();
    const TimeSeries s = syntheticSeries({});
    PeriodogramOptions o = optionsFor(s, 30011);
    o.launch = {64, 3, false}; // leaves frequencies out
    std::shared_ptr<const Spectrum> spectrum;
    ASSERT_TRUE(computeSpectrum(*cpu, s, o, spectrum).ok());
    std::vector<double> power(std::size_t(o.grid.count));
    ASSERT_TRUE(spectrum->read(power).ok());
    std::vector<double> direct(power.size());
    ASSERT_TRUE(computePeriodogram(*cpu, s, o, direct).ok());
    for (std::size_t k = 0; k < power.size(); ++k)
        ASSERT_TRUE(power[k] == direct[k] || (std::isnan(power[k]) && std::isnan(direct[k])));
    EXPECT_EQ(spectrum->nonFinite(), o.grid.count - 64 * 3 * kFrequenciesPerThread);
    const auto peaks = topPeaks(power, o.grid, kSpectrumMaxPeaks);
    ASSERT_EQ(spectrum->peaks().size(), peaks.size());
    EXPECT_EQ(spectrum->peaks()[0].index, peaks[0].index);
    double hi = 0;
    for (double p : power)
        if (std::isfinite(p))
            hi = std::max(hi, p);
    EXPECT_EQ(spectrum->maxPower(), hi);
}

// The device's peak search and line against the host's, on the same powers read back.
void expectDeviceSpectrumMatchesHost(Context& cuda, const TimeSeries& s,
                                     const PeriodogramOptions& o, bool line = true)
{
    std::shared_ptr<const Spectrum> spectrum;
    const Status computed = computeSpectrum(cuda, s, o, spectrum);
    ASSERT_TRUE(computed.ok()) << computed.message();
    std::vector<double> power(std::size_t(o.grid.count));
    ASSERT_TRUE(spectrum->read(power).ok());
    // The powers were poisoned with NaN before the kernel: only uncovered ones stay.
    const long long covered = coveredFrequencies(o.launch, o.grid.count);
    EXPECT_EQ(spectrum->nonFinite(), o.grid.count - covered);
    const std::vector<Peak> expected = topPeaks(power, o.grid, kSpectrumMaxPeaks);
    ASSERT_EQ(spectrum->peaks().size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(spectrum->peaks()[i].index, expected[i].index) << i;
        EXPECT_EQ(spectrum->peaks()[i].power, expected[i].power) << i;
    }
    double lo = INFINITY, hi = -INFINITY;
    long long nonFinite = 0;
    for (double p : power)
        if (std::isfinite(p)) {
            lo = std::min(lo, p);
            hi = std::max(hi, p);
        } else {
            ++nonFinite;
        }
    EXPECT_EQ(spectrum->minPower(), lo);
    EXPECT_EQ(spectrum->maxPower(), hi);
    EXPECT_EQ(spectrum->nonFinite(), nonFinite); // a power never written shows its poison
    if (!line)
        return;
    for (const SpectrumAxis& a : axesFor(o.grid)) {
        SCOPED_TRACE("columns " + std::to_string(a.columns));
        std::vector<float> device(std::size_t(a.columns) * kSpectrumFloatsPerColumn, -7.0f);
        ASSERT_TRUE(spectrum->decimate(a, device).ok());
        // The device rounds column edges its own way (fused multiply-adds, its own log and
        // exp), so it is checked like the host: against the powers, edges aside.
        expectLineMatches(power, o.grid, a, device);
    }
}

TEST(CudaSpectrum, PeaksRangeAndLineMatchTheHost)
{
    auto cuda = cudaContext();
    if (!cuda)
        GTEST_SKIP() << "no CUDA device";
    const TimeSeries s = syntheticSeries({});
    PeriodogramOptions o = optionsFor(s, (1 << 20) + 17);
    expectDeviceSpectrumMatchesHost(*cuda, s, o);
    o.precision = Precision::Float32;
    o.grid.count = 4099;
    expectDeviceSpectrumMatchesHost(*cuda, s, o);
    o.launch = {64, 3, false}; // a small grid of the direct kernel leaves NaN behind
    o.method = PeriodogramMethod::Direct;
    expectDeviceSpectrumMatchesHost(*cuda, s, o);
    o.launch = {};
    o.method = PeriodogramMethod::Auto;
    o.precision = Precision::Float64;
    o.grid = frequencyGrid(o.grid.fmin, o.grid.fmax(), 300007, true);
    expectDeviceSpectrumMatchesHost(*cuda, s, o);
}

// The device's search on the powers of noise from the matrix products, whose best peaks fall
// anywhere, against the host's on the same powers read back: grids that end inside one of the
// products' blocks of 64, that give the scan fewer blocks than the peaks kept (a threshold that
// bounds nothing) or more, and that fill its 512 blocks or overflow them.
TEST(CudaSpectrum, PeaksOfNoiseAreFoundWhereverTheyFall)
{
    auto cuda = cudaContext();
    if (!cuda)
        GTEST_SKIP() << "no CUDA device";
    std::mt19937_64 rng(41);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    TimeSeries s;
    for (int i = 0; i < 300; ++i) {
        s.t.push_back(100.0 * u(rng));
        s.y.push_back(u(rng) - 0.5);
    }
    std::sort(s.t.begin(), s.t.end());
    for (const long long count : {2LL, 65LL, 2049LL, 19LL * 1024, 20LL * 1024 + 1, 64LL * 900 + 31,
                                  512LL * 1024, 512LL * 2048 + 1})
        for (const Precision precision : {Precision::Float32, Precision::Float64})
            for (const bool fitMean : {true, false}) {
                SCOPED_TRACE(std::to_string(count) +
                             (fitMean ? " frequencies, floating mean" : " frequencies"));
                PeriodogramOptions o;
                o.grid = {0.01, 20.0 / double(count), count, false};
                o.precision = precision;
                o.fitMean = fitMean;
                o.method = PeriodogramMethod::Matrix;
                expectDeviceSpectrumMatchesHost(*cuda, s, o, false);
            }
}

TEST(CudaSpectrum, OneFrequencyAndDroppedSpectraAreSafe)
{
    auto cuda = cudaContext();
    if (!cuda)
        GTEST_SKIP() << "no CUDA device";
    const TimeSeries s = syntheticSeries({});
    PeriodogramOptions o = optionsFor(s, 1);
    expectDeviceSpectrumMatchesHost(*cuda, s, o);
    // Spectra dropped while others are computed free their memory without a fault.
    for (int i = 0; i < 20; ++i) {
        std::shared_ptr<const Spectrum> spectrum;
        ASSERT_TRUE(computeSpectrum(*cuda, s, optionsFor(s, 100000 + i), spectrum).ok());
    }
}

} // namespace
