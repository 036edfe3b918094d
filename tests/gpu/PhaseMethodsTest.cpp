// Phase dispersion minimisation and conditional entropy against the NumPy references of
// tests/fixtures/period-methods/ (generate_period_methods.py), on the CPU and on CUDA, and
// their refusals of hostile input.
#include "TestSupport.h"
#include "warpscope/gpu/ConditionalEntropy.h"
#include "warpscope/gpu/PhaseDispersion.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace warpscope::gpu::test {
namespace {

// The references' relative tolerance: the sums differ from NumPy's only in their order.
constexpr double kTolerance = 1e-9;

std::string methodsDir()
{
    return fixtureDir() + "/period-methods";
}

// eclipsing.csv, and the period its comment names (P=...).
TimeSeries eclipsingSeries(double* period = nullptr)
{
    std::string comments;
    TimeSeries s;
    for (const auto& row : readCsv(methodsDir() + "/eclipsing.csv", &comments)) {
        s.t.push_back(std::stod(row[0]));
        s.y.push_back(std::stod(row[1]));
        s.dy.push_back(std::stod(row[2]));
    }
    if (period) {
        const std::size_t at = comments.find("P=");
        *period = at == std::string::npos ? 0.0 : std::stod(comments.substr(at + 2));
    }
    return s;
}

struct Reference
{
    std::vector<double> frequency, value;
};

Reference loadReference(const std::string& name)
{
    Reference r;
    for (const auto& row : readCsv(methodsDir() + "/" + name)) {
        r.frequency.push_back(std::stod(row[0]));
        r.value.push_back(std::stod(row[1]));
    }
    return r;
}

// The references' grid, np.linspace(0.2, 3.0, 2801), as the product builds it; each frequency
// checked against the file's own column.
FrequencyGrid referenceGrid(const Reference& r)
{
    const FrequencyGrid grid = frequencyGrid(r.frequency.front(), r.frequency.back(),
                                             (long long)r.frequency.size(), false);
    for (std::size_t k = 0; k < r.frequency.size(); ++k)
        EXPECT_NEAR(grid.frequency((long long)k), r.frequency[k], 1e-14 * r.frequency[k]) << k;
    return grid;
}

void expectMatches(const std::vector<double>& got, const Reference& r, const char* what)
{
    ASSERT_EQ(got.size(), r.value.size());
    int worst = 0;
    for (std::size_t k = 0; k < got.size(); ++k) {
        EXPECT_NEAR(got[k], r.value[k], kTolerance * std::abs(r.value[k]))
            << what << " at f = " << r.frequency[k];
        if (std::abs(got[k] - r.value[k]) > kTolerance * std::abs(r.value[k]) && ++worst > 5)
            return; // a few are enough to see what is wrong
    }
}

std::vector<double> phaseDispersion(Context& context, const TimeSeries& s, const FrequencyGrid& g,
                                    const PhaseDispersionOptions& o = {})
{
    std::vector<double> theta(std::size_t(g.count), -1.0);
    const Status status = computePhaseDispersion(context, s, g, o, theta);
    EXPECT_TRUE(status.ok()) << status.message();
    return theta;
}

std::vector<double> conditionalEntropy(Context& context, const TimeSeries& s,
                                       const FrequencyGrid& g,
                                       const ConditionalEntropyOptions& o = {})
{
    std::vector<double> h(std::size_t(g.count), -1.0);
    const Status status = computeConditionalEntropy(context, s, g, o, h);
    EXPECT_TRUE(status.ok()) << status.message();
    return h;
}

// The values at the reference's own frequencies: the grid's, except where np.linspace's
// differ from fmin + k df in the last place (its last, set to fmax exactly), which are
// computed on a grid of that one frequency. A last-place difference matters: on the 30-minute
// cadence at f = 3 the phases fall exactly on bin edges.
template <typename Compute>
std::vector<double> atReferenceFrequencies(const Reference& r, Compute compute)
{
    const FrequencyGrid grid = referenceGrid(r);
    std::vector<double> values = compute(grid);
    int single = 0;
    for (std::size_t k = 0; k < values.size(); ++k)
        if (grid.frequency((long long)k) != r.frequency[k]) {
            values[k] = compute(FrequencyGrid{r.frequency[k], 1.0, 1, false}).front();
            ++single;
        }
    EXPECT_LT(single, 10) << "the grid is np.linspace's but for rounding";
    return values;
}

void expectMatchReferences(Context& context)
{
    const TimeSeries series = eclipsingSeries();
    const Reference pdm = loadReference("pdm.csv"), ce = loadReference("ce.csv");
    expectMatches(
        atReferenceFrequencies(
            pdm, [&](const FrequencyGrid& g) { return phaseDispersion(context, series, g); }),
        pdm, "theta");
    expectMatches(
        atReferenceFrequencies(
            ce, [&](const FrequencyGrid& g) { return conditionalEntropy(context, series, g); }),
        ce, "H_c");
}

// The frequency of the least value, which must be the grid's nearest to 1 / period.
void expectLeastAtPeriod(const std::vector<double>& values, const FrequencyGrid& grid,
                         double period, const char* what)
{
    const long long best = std::min_element(values.begin(), values.end()) - values.begin();
    EXPECT_NEAR(grid.frequency(best), 1.0 / period, grid.df / 2) << what;
}

// n points of a noisy sinusoid at uneven times, for comparisons between backends.
TimeSeries randomSeries(int n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 30.0);
    std::normal_distribution<double> noise(0.0, 0.3);
    TimeSeries s;
    for (int i = 0; i < n; ++i) {
        s.t.push_back(u(rng));
        s.y.push_back(std::sin(2.0 * 3.14159265358979 * s.t.back() / 1.7) + noise(rng));
    }
    return s;
}

TEST(PhaseMethods, CpuMatchesTheReferences)
{
    expectMatchReferences(*cpuContext());
}

TEST(PhaseMethods, LeastAtTheEclipsingBinarysPeriod)
{
    double period = 0.0;
    const TimeSeries series = eclipsingSeries(&period);
    ASSERT_GT(period, 0.0) << "eclipsing.csv's comment names its period";
    EXPECT_NEAR(period, 0.8123, 1e-12);
    const FrequencyGrid grid = frequencyGrid(0.2, 3.0, 2801, false);
    auto cpu = cpuContext();
    expectLeastAtPeriod(phaseDispersion(*cpu, series, grid), grid, period, "theta");
    expectLeastAtPeriod(conditionalEntropy(*cpu, series, grid), grid, period, "H_c");
}

TEST(PhaseMethods, ThreadsDoNotChangeTheValues)
{
    const TimeSeries series = randomSeries(300, 3);
    const FrequencyGrid grid = frequencyGrid(0.05, 5.0, 3001, true);
    auto one = cpuContext(1), four = cpuContext(4);
    EXPECT_EQ(phaseDispersion(*one, series, grid), phaseDispersion(*four, series, grid));
    EXPECT_EQ(conditionalEntropy(*one, series, grid), conditionalEntropy(*four, series, grid));
}

// theta does not depend on y's scale or offset: values near double's limits, whose squares
// overflow or underflow, give the same theta.
TEST(PhaseMethods, DispersionHoldsAtTheLimitsOfDouble)
{
    const TimeSeries series = randomSeries(200, 5);
    const FrequencyGrid grid = frequencyGrid(0.1, 3.0, 500, false);
    auto cpu = cpuContext();
    const std::vector<double> plain = phaseDispersion(*cpu, series, grid);
    for (const double scale : {1e300, 1e-300}) {
        TimeSeries scaled = series;
        for (double& y : scaled.y)
            y = std::ldexp(y, std::ilogb(scale));
        const std::vector<double> theta = phaseDispersion(*cpu, scaled, grid);
        for (std::size_t k = 0; k < theta.size(); ++k)
            ASSERT_NEAR(theta[k], plain[k], 1e-12 * plain[k]) << "scale " << scale << ", k " << k;
    }
}

// With one point more than bins, some bin of every cover holds two points at any frequency,
// so every theta is defined.
TEST(PhaseMethods, DispersionOfTheFewestPointsIsFinite)
{
    const TimeSeries series = randomSeries(11, 7);
    const FrequencyGrid grid = frequencyGrid(0.01, 20.0, 20000, false);
    auto cpu = cpuContext();
    for (const double theta : phaseDispersion(*cpu, series, grid))
        ASSERT_TRUE(std::isfinite(theta) && theta >= 0.0) << theta;
}

// Each refusal, with a message that names what to change; nothing is written.
struct Refusal
{
    const char* name;
    TimeSeries series;
    FrequencyGrid grid;
    PhaseDispersionOptions dispersion;
    ConditionalEntropyOptions entropy;
    std::string dispersionMessage, entropyMessage;
};

std::vector<Refusal> refusals()
{
    const TimeSeries good = randomSeries(50, 11);
    const FrequencyGrid grid = frequencyGrid(0.1, 3.0, 100, false);
    std::vector<Refusal> r;
    const auto add = [&](const char* name, TimeSeries s, FrequencyGrid g, const char* both) {
        r.push_back({name, std::move(s), g, {}, {}, both, both});
    };
    add("empty", {}, grid, "needs at least");
    add("one point", TimeSeries{{1.0}, {2.0}, {}}, grid, "needs at least");
    TimeSeries flat = good;
    std::fill(flat.y.begin(), flat.y.end(), 3.25);
    add("equal y", flat, grid, "y does not vary");
    TimeSeries nanY = good;
    nanY.y[7] = std::numeric_limits<double>::quiet_NaN();
    add("NaN y", nanY, grid, "NaN or infinite");
    TimeSeries infT = good;
    infT.t[3] = std::numeric_limits<double>::infinity();
    add("infinite t", infT, grid, "NaN or infinite");
    TimeSeries sameT = good;
    std::fill(sameT.t.begin(), sameT.t.end(), 5.0);
    add("equal t", sameT, grid, "times are equal");
    TimeSeries farT = good;
    farT.t[0] = -1e308;
    farT.t[1] = 1e308;
    add("times beyond double", farT, grid, "span more than double");
    TimeSeries longT = good;
    longT.t[1] = 1e307;
    add("phases beyond double", longT, frequencyGrid(0.1, 1000.0, 100, false), "beyond double");
    TimeSeries wideY = good;
    wideY.y[0] = -1.7e308;
    wideY.y[1] = 1.7e308;
    add("y beyond double", wideY, grid, "y spans more");
    TimeSeries ragged = good;
    ragged.y.pop_back();
    add("ragged", ragged, grid, "differ in length");
    add("too many frequencies", good, FrequencyGrid{0.1, 1e-9, kMaxFrequencies + 1, false},
        "number of frequencies");
    add("no frequencies", good, FrequencyGrid{0.1, 1e-3, 0, false}, "number of frequencies");
    add("zero fmin", good, FrequencyGrid{0.0, 1e-3, 10, false}, "minimum frequency");
    add("NaN step", good, FrequencyGrid{0.1, std::nan(""), 10, false}, "finite");
    for (const int bins : {1, 1001}) {
        Refusal b{"bins", good, grid, {bins, 2}, {bins, 5}, "phase bins", "phase bins"};
        r.push_back(b);
    }
    for (const int n : {0, 101})
        r.push_back({"covers", good, grid, {10, n}, {}, "covers", ""});
    for (const int n : {1, 1001})
        r.push_back({"magnitude bins", good, grid, {}, {10, n}, "", "magnitude bins"});
    TimeSeries few = randomSeries(10, 13); // as many points as the default bins
    r.push_back({"points = bins", few, grid, {}, {}, "at least 11 points", ""});
    return r;
}

TEST(PhaseMethods, HostileInputIsRefusedWithAMessage)
{
    auto cpu = cpuContext();
    for (const Refusal& r : refusals()) {
        const std::size_t size = std::size_t(std::clamp(r.grid.count, 1LL, 100LL));
        std::vector<double> out(size, -1.0);
        if (!r.dispersionMessage.empty()) {
            const Status s = computePhaseDispersion(*cpu, r.series, r.grid, r.dispersion, out);
            EXPECT_FALSE(s.ok()) << r.name;
            EXPECT_NE(s.message().find(r.dispersionMessage), std::string::npos)
                << r.name << ": " << s.message();
            EXPECT_FALSE(validatePhaseDispersion(r.series, r.grid, r.dispersion).empty()) << r.name;
        } else {
            EXPECT_TRUE(validatePhaseDispersion(r.series, r.grid, r.dispersion).empty()) << r.name;
        }
        if (!r.entropyMessage.empty()) {
            const Status s = computeConditionalEntropy(*cpu, r.series, r.grid, r.entropy, out);
            EXPECT_FALSE(s.ok()) << r.name;
            EXPECT_NE(s.message().find(r.entropyMessage), std::string::npos)
                << r.name << ": " << s.message();
        } else {
            EXPECT_TRUE(validateConditionalEntropy(r.series, r.grid, r.entropy).empty()) << r.name;
        }
        EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](double v) { return v == -1.0; }))
            << r.name << ": a refused request wrote values";
    }
}

TEST(PhaseMethods, OutputTooSmallIsRefused)
{
    auto cpu = cpuContext();
    const TimeSeries series = randomSeries(50, 17);
    const FrequencyGrid grid = frequencyGrid(0.1, 3.0, 100, false);
    std::vector<double> out(99);
    const Status a = computePhaseDispersion(*cpu, series, grid, {}, out);
    const Status b = computeConditionalEntropy(*cpu, series, grid, {}, out);
    EXPECT_NE(a.message().find("holds 99 values"), std::string::npos) << a.message();
    EXPECT_NE(b.message().find("holds 99 values"), std::string::npos) << b.message();
}

TEST(PhaseMethods, CancelStopsTheCpu)
{
    auto cpu = cpuContext();
    const TimeSeries series = randomSeries(50, 19);
    const FrequencyGrid grid = frequencyGrid(0.1, 3.0, 5000, false);
    std::vector<double> out(5000);
    const std::atomic<bool> cancel{true};
    const Status a = computePhaseDispersion(*cpu, series, grid, {}, out, nullptr, &cancel);
    const Status b = computeConditionalEntropy(*cpu, series, grid, {}, out, nullptr, &cancel);
    EXPECT_NE(a.message().find("cancelled"), std::string::npos) << a.message();
    EXPECT_NE(b.message().find("cancelled"), std::string::npos) << b.message();
}

// dy is not read: the definitions are unweighted.
TEST(PhaseMethods, UncertaintiesAreIgnored)
{
    auto cpu = cpuContext();
    TimeSeries series = randomSeries(80, 23);
    const FrequencyGrid grid = frequencyGrid(0.1, 3.0, 300, false);
    const std::vector<double> theta = phaseDispersion(*cpu, series, grid);
    const std::vector<double> h = conditionalEntropy(*cpu, series, grid);
    series.dy.assign(series.t.size(), 0.0); // would be refused by a weighted method
    series.dy[4] = std::numeric_limits<double>::quiet_NaN();
    EXPECT_EQ(phaseDispersion(*cpu, series, grid), theta);
    EXPECT_EQ(conditionalEntropy(*cpu, series, grid), h);
}

class CudaPhaseMethodsTest : public CudaContextTest
{};

TEST_F(CudaPhaseMethodsTest, MatchesTheReferences)
{
    expectMatchReferences(*m_cuda);
}

// The most bins and covers take the kernels' passes over the points (their bins do not fit
// shared memory at once); the CPU fills them in one.
TEST_F(CudaPhaseMethodsTest, MatchesTheCpuWithTheMostBins)
{
    auto cpu = cpuContext();
    const TimeSeries series = randomSeries(3000, 29);
    const FrequencyGrid grid = frequencyGrid(0.05, 4.0, 700, true);
    for (const PhaseDispersionOptions o : {PhaseDispersionOptions{}, PhaseDispersionOptions{5, 1},
                                           PhaseDispersionOptions{1000, 100}}) {
        const std::vector<double> a = phaseDispersion(*cpu, series, grid, o);
        const std::vector<double> b = phaseDispersion(*m_cuda, series, grid, o);
        for (std::size_t k = 0; k < a.size(); ++k)
            ASSERT_NEAR(b[k], a[k], 1e-12 * a[k]) << o.bins << " x " << o.covers << ", k " << k;
    }
    for (const ConditionalEntropyOptions o :
         {ConditionalEntropyOptions{}, ConditionalEntropyOptions{1000, 1000},
          ConditionalEntropyOptions{2, 1000}}) {
        const std::vector<double> a = conditionalEntropy(*cpu, series, grid, o);
        const std::vector<double> b = conditionalEntropy(*m_cuda, series, grid, o);
        for (std::size_t k = 0; k < a.size(); ++k)
            ASSERT_NEAR(b[k], a[k], 1e-12 * std::max(a[k], 1e-3))
                << o.phaseBins << " x " << o.magnitudeBins << ", k " << k;
    }
}

} // namespace
} // namespace warpscope::gpu::test
