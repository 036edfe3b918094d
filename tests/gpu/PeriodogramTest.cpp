#include "warpscope/gpu/Periodogram.h"

#include "TestSupport.h"
#include "periodogram/PeriodogramPlan.h"
#include "periodogram/PeriodogramShared.h"
#include "warpscope/gpu/FrequencyFit.h"
#include "warpscope/gpu/PeriodogramSampling.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <map>
#include <numbers>

namespace warpscope::gpu::test {
namespace {

struct AstropyCase
{
    Normalization normalization;
    bool fitMean, center;
    std::vector<double> power;
};

// "# grid fmin=F df=D count=M" (evenly spaced) or "# grid fmin=F fmax=G count=M log".
FrequencyGrid fixtureGrid(const std::string& comments)
{
    const auto at = comments.find("# grid ");
    EXPECT_NE(at, std::string::npos);
    const std::string line = comments.substr(at, comments.find('\n', at) - at);
    double fmin = 0.0, fmax = 0.0;
    long long count = 0;
    if (std::sscanf(line.c_str(), "# grid fmin=%lf fmax=%lf count=%lld", &fmin, &fmax, &count) ==
        3) {
        EXPECT_TRUE(line.ends_with(" log")) << line;
        return frequencyGrid(fmin, fmax, count, true);
    }
    FrequencyGrid g;
    std::sscanf(line.c_str(), "# grid fmin=%lf df=%lf count=%lld", &g.fmin, &g.df, &g.count);
    return g;
}

std::vector<AstropyCase> loadPower(const std::string& name, FrequencyGrid& grid)
{
    std::string comments;
    const auto rows = readCsv(fixtureDir() + "/periodogram/power_" + name + ".csv", &comments);
    grid = fixtureGrid(comments);
    std::map<std::string, AstropyCase> cases;
    for (const auto& row : rows) {
        const std::string key = row[0] + row[1] + row[2];
        AstropyCase& c = cases[key];
        c.normalization = *parseNormalization(row[0]);
        c.fitMean = row[1] == "1";
        c.center = row[2] == "1";
        c.power.push_back(std::stod(row[4]));
    }
    std::vector<AstropyCase> out;
    for (auto& [key, c] : cases)
        out.push_back(c);
    return out;
}

// Largest relative error, with elements far below the peak (under 1e-6 of it, where the
// power is the difference of nearly equal sums) measured against 1e-6 of the peak.
double maxRelativeError(const std::vector<double>& p, const std::vector<double>& ref)
{
    double peak = 0.0;
    for (double r : ref)
        peak = std::max(peak, std::abs(r));
    double worst = 0.0;
    for (std::size_t k = 0; k < ref.size(); ++k) {
        const double e = std::abs(p[k] - ref[k]) / std::max(std::abs(ref[k]), 1e-6 * peak);
        worst = std::isnan(e) ? INFINITY : std::max(worst, e);
    }
    return worst;
}

double normwiseError(const std::vector<double>& p, const std::vector<double>& ref)
{
    double num = 0.0, den = 0.0;
    for (std::size_t k = 0; k < ref.size(); ++k) {
        num += (p[k] - ref[k]) * (p[k] - ref[k]);
        den += ref[k] * ref[k];
    }
    return std::sqrt(num / den);
}

// Independent of the backends' rotations: every phase from sinl/cosl in long double, the
// sums in long double, then the same closed form.
std::vector<double> longDoubleReference(const TimeSeries& series, const PeriodogramOptions& o)
{
    const std::size_t n = series.t.size();
    long double wsum = 0, mean = 0, yy = 0;
    std::vector<long double> w(n);
    for (std::size_t i = 0; i < n; ++i) {
        const long double d = series.dy.empty() ? 1.0L : series.dy[i];
        w[i] = 1.0L / (d * d);
        wsum += w[i];
    }
    for (std::size_t i = 0; i < n; ++i)
        mean += w[i] / wsum * series.y[i];
    const bool center = o.fitMean || o.centerData;
    std::vector<long double> y(n);
    for (std::size_t i = 0; i < n; ++i) {
        y[i] = series.y[i] - (center ? mean : 0.0L);
        yy += w[i] / wsum * y[i] * y[i];
    }
    std::vector<double> power(std::size_t(o.grid.count));
    for (long long k = 0; k < o.grid.count; ++k) {
        const long double f = o.grid.logarithmic
                                  ? (long double)o.grid.fmin * expl((long double)o.grid.df * k)
                                  : (long double)o.grid.fmin + (long double)o.grid.df * k;
        long double c = 0, s = 0, cc = 0, ss = 0, cs = 0, yc = 0, ys = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const long double x = 2.0L * std::numbers::pi_v<long double> * f * series.t[i];
            const long double cx = cosl(x), sx = sinl(x), wi = w[i] / wsum;
            c += wi * cx;
            s += wi * sx;
            cc += wi * cx * cx;
            ss += wi * sx * sx;
            cs += wi * cx * sx;
            yc += wi * y[i] * cx;
            ys += wi * y[i] * sx;
        }
        if (o.fitMean) {
            cc -= c * c;
            ss -= s * s;
            cs -= c * s;
        }
        const long double p =
            (ss * yc * yc + cc * ys * ys - 2 * cs * yc * ys) / (cc * ss - cs * cs);
        switch (o.normalization) {
        case Normalization::Model:
            power[k] = double(p / (yy - p));
            break;
        case Normalization::Log:
            power[k] = double(-logl(1 - p / yy));
            break;
        case Normalization::Psd:
            power[k] = double(p * 0.5L * wsum);
            break;
        case Normalization::Standard:
            power[k] = double(p / yy);
        }
    }
    return power;
}

std::vector<double> run(Context& backend, const TimeSeries& s, const PeriodogramOptions& o)
{
    std::vector<double> power = poisoned<double>(std::size_t(o.grid.count));
    const Status status = computePeriodogram(backend, s, o, std::span<double>(power));
    EXPECT_TRUE(status.ok()) << status.message();
    EXPECT_EQ(unwrittenCount(power), 0u) << "frequencies left unwritten";
    return power;
}

// Calls check(name, series, options, astropy's case) for every fixture series and case,
// with the case's grid, normalisation and mean options. logB is series B on a logarithmic
// grid.
template <typename Check> void forEachFixtureCase(Check&& check)
{
    for (const char* name : {"A", "B", "C", "logB"}) {
        const TimeSeries series = loadFixtureSeries(name == std::string("logB") ? "B" : name);
        FrequencyGrid grid;
        for (const AstropyCase& c : loadPower(name, grid)) {
            PeriodogramOptions o;
            o.grid = grid;
            o.normalization = c.normalization;
            o.fitMean = c.fitMean;
            o.centerData = c.center;
            check(name, series, o, c);
        }
    }
}

// Every normalisation and both mean choices, against astropy's exact implementation.
void expectMatchesAstropy(Context& backend, double tolerance, Precision precision,
                          PeriodogramMethod method = PeriodogramMethod::Auto)
{
    forEachFixtureCase([&](const char* name, const TimeSeries& series, PeriodogramOptions o,
                           const AstropyCase& c) {
        o.precision = precision;
        o.method = method;
        if (method == PeriodogramMethod::Matrix && o.grid.logarithmic) {
            // The matrix products need even spacing, and say so rather than guess.
            std::vector<double> p(std::size_t(o.grid.count));
            const Status s = computePeriodogram(backend, series, o, std::span<double>(p));
            EXPECT_FALSE(s.ok());
            EXPECT_NE(s.message().find("evenly spaced"), std::string::npos) << s.message();
            return;
        }
        const std::vector<double> p = run(backend, series, o);
        const double error = precision == Precision::Float64 ? maxRelativeError(p, c.power)
                                                             : normwiseError(p, c.power);
        EXPECT_LE(error, tolerance)
            << "series " << name << ", " << normalizationName(c.normalization) << ", fit_mean "
            << c.fitMean << ", center " << c.center;
    });
}

// astropy computes in double too: against the long-double reference its own error reaches
// 1.9e-9 on series C (times near MJD 58000), where the backends stay under 1e-12 (see
// CpuMatchesLongDoubleOnTheFixtureSeries). Hence 5e-9 here; 1e-9 holds against long double.
constexpr double kAstropyTolerance = 5e-9;

TEST(Periodogram, CpuMatchesAstropyInFloat64)
{
    auto cpuOwner = cpuContext(2);
    Context& cpu = *cpuOwner;
    expectMatchesAstropy(cpu, kAstropyTolerance, Precision::Float64);
}

TEST(Periodogram, CpuMatchesAstropyInFloat32)
{
    auto cpuOwner = cpuContext(2);
    Context& cpu = *cpuOwner;
    expectMatchesAstropy(cpu, 1e-4, Precision::Float32);
}

// SciPy's lombscargle is the classic periodogram: astropy's psd scale, no floating mean.
// The fixtures' own series, against the long-double reference: this bounds the backend's
// error where the comparison with astropy also carries astropy's rounding.
TEST(Periodogram, CpuMatchesLongDoubleOnTheFixtureSeries)
{
    auto cpuOwner = cpuContext(2);
    Context& cpu = *cpuOwner;
    forEachFixtureCase([&](const char* name, const TimeSeries& series, const PeriodogramOptions& o,
                           const AstropyCase&) {
        const std::vector<double> ref = longDoubleReference(series, o);
        EXPECT_LE(maxRelativeError(run(cpu, series, o), ref), 1e-9) << name;
    });
}

TEST(Periodogram, CpuMatchesScipy)
{
    const TimeSeries series = loadFixtureSeries("A");
    FrequencyGrid grid;
    loadPower("A", grid);
    std::vector<double> ref;
    for (const auto& row : readCsv(fixtureDir() + "/periodogram/scipy_A.csv"))
        ref.push_back(std::stod(row[1]));
    PeriodogramOptions o;
    o.grid = grid;
    o.normalization = Normalization::Psd;
    o.fitMean = false;
    auto cpuOwner = cpuContext(2);
    Context& cpu = *cpuOwner;
    EXPECT_LE(maxRelativeError(run(cpu, series, o), ref), 1e-9);
}

TEST(Periodogram, AutomaticGridFollowsAstropy)
{
    for (const auto& row : readCsv(fixtureDir() + "/periodogram/autogrid.csv")) {
        const FrequencyGrid g =
            autoFrequencyGrid(loadFixtureSeries(row[0]), std::stod(row[1]), std::stod(row[2]));
        EXPECT_NEAR(g.fmin, std::stod(row[3]), 1e-12 * std::stod(row[3])) << row[0];
        EXPECT_NEAR(g.df, std::stod(row[4]), 1e-9 * std::stod(row[4])) << row[0];
        EXPECT_EQ(g.count, std::stoll(row[5])) << row[0] << " " << row[1] << " " << row[2];
    }
}

TEST(Periodogram, BaluevFalseAlarmProbabilityFollowsAstropy)
{
    for (const auto& row : readCsv(fixtureDir() + "/periodogram/fap.csv")) {
        const double expected = std::stod(row[4]);
        const std::optional<double> fap =
            falseAlarmProbability(std::stod(row[2]), std::stod(row[3]), loadFixtureSeries(row[0]),
                                  *parseNormalization(row[1]));
        ASSERT_TRUE(fap.has_value()) << row[0];
        EXPECT_NEAR(*fap, expected, 1e-9 + 1e-7 * expected)
            << row[0] << " " << row[1] << " z " << row[2];
    }
}

TimeSeries randomSeries(std::mt19937& rng, int n, bool withDy, double t0)
{
    std::uniform_real_distribution<double> u(0.0, 1.0);
    TimeSeries s;
    const double period = 0.5 + 20.0 * u(rng);
    for (int i = 0; i < n; ++i) {
        const double t = t0 + 200.0 * u(rng);
        s.t.push_back(t);
        s.y.push_back(3.0 + std::sin(2 * std::numbers::pi * t / period) +
                      std::normal_distribution<>(0, 0.7)(rng));
        if (withDy)
            s.dy.push_back(0.2 + u(rng));
    }
    return s;
}

// Random series, grids, options: float64 within 1e-9 of the long-double reference
// everywhere; float32 within 1e-4 norm-wise.
struct WorstErrors
{
    double float64 = 0.0, float32 = 0.0, element32 = 0.0; // the last two norm-wise and worst
};

// One method in both precisions against the long-double reference, over random series (with
// and without dy, some with times near 50000) with every normalisation and mean option;
// sizes(trial, random) gives the points (below the maximum the grid allows) and frequencies.
// A logarithmic grid spans the automatic grid's range, three decades at most.
template <typename Sizes>
WorstErrors worstAgainstLongDouble(Context& backend, PeriodogramMethod method, unsigned seed,
                                   int trials, Sizes&& sizes, bool logGrid = false)
{
    std::mt19937 rng(seed);
    WorstErrors worst;
    for (int trial = 0; trial < trials; ++trial) {
        const auto [n, count] = sizes(trial, int(rng() % 100000));
        const TimeSeries s = randomSeries(rng, n, trial % 2 == 1, trial % 3 == 0 ? 50000.0 : 0.0);
        PeriodogramOptions o;
        o.grid = autoFrequencyGrid(s, 4.0, 3.0);
        o.grid.count = std::min<long long>(o.grid.count, count);
        if (logGrid)
            o.grid = frequencyGrid(std::max(o.grid.fmin, 1e-3 * o.grid.fmax()), o.grid.fmax(),
                                   o.grid.count, true);
        o.normalization = Normalization(trial % 4);
        o.fitMean = trial % 5 != 1;
        o.centerData = trial % 7 != 2;
        o.method = method;
        const std::vector<double> ref = longDoubleReference(s, o);
        worst.float64 = std::max(worst.float64, maxRelativeError(run(backend, s, o), ref));
        o.precision = Precision::Float32;
        const std::vector<double> p32 = run(backend, s, o);
        worst.float32 = std::max(worst.float32, normwiseError(p32, ref));
        worst.element32 = std::max(worst.element32, maxRelativeError(p32, ref));
    }
    return worst;
}

// Prints a method's worst errors and checks them: float64 within 1e-9 of the long-double
// reference everywhere, float32 within 1e-4 norm-wise.
void expectWithinLimits(const char* what, const WorstErrors& worst)
{
    std::printf("%s: float64 max relative error %.2e, float32 norm-wise %.2e (worst element "
                "%.2e)\n",
                what, worst.float64, worst.float32, worst.element32);
    EXPECT_LE(worst.float64, 1e-9);
    EXPECT_LE(worst.float32, 1e-4);
}

TEST(Periodogram, CpuMatchesLongDoubleOnLogGrids)
{
    auto cpuOwner = cpuContext(2);
    Context& cpu = *cpuOwner;
    const WorstErrors worst = worstAgainstLongDouble(
        cpu, PeriodogramMethod::Auto, 17, 8,
        [](int, int random) { return std::pair<int, long long>(20 + random % 300, 600); }, true);
    expectWithinLimits("CPU periodogram, logarithmic grids", worst);
}

TEST(Periodogram, CpuMatchesLongDoubleOnRandomInputs)
{
    auto cpuOwner = cpuContext(2);
    Context& cpu = *cpuOwner;
    const WorstErrors worst =
        worstAgainstLongDouble(cpu, PeriodogramMethod::Auto, 11, 12, [](int, int random) {
            return std::pair<int, long long>(20 + random % 400, 700);
        });
    expectWithinLimits("CPU periodogram", worst);
}

TEST(Periodogram, BadInputIsExplained)
{
    auto cpuOwner = cpuContext(2);
    Context& cpu = *cpuOwner;
    PeriodogramOptions o;
    o.grid = {0.01, 0.01, 100};
    std::vector<double> power(100);
    auto message = [&](const TimeSeries& s, const PeriodogramOptions& opt) {
        const Status st = computePeriodogram(cpu, s, opt, std::span<double>(power));
        EXPECT_FALSE(st.ok());
        return st.message();
    };
    EXPECT_NE(message({{1, 2}, {1, 2}, {}}, o).find("at least 3 points"), std::string::npos);
    EXPECT_NE(message({{1, 2, NAN}, {1, 2, 3}, {}}, o).find("NaN"), std::string::npos);
    EXPECT_NE(message({{1, 2, 3}, {5, 5, 5}, {}}, o).find("zero variance"), std::string::npos);
    EXPECT_NE(message({{1, 2, 3}, {1, 2, 4}, {1, 0, 1}}, o).find("dy"), std::string::npos);
    EXPECT_NE(message({{1, 1, 1}, {1, 2, 4}, {}}, o).find("times are equal"), std::string::npos);
    EXPECT_NE(message({{1, 2, 3}, {1, 2}, {}}, o).find("differ in length"), std::string::npos);
    const TimeSeries good{{1, 2, 3.5}, {1, 2, 4}, {}};
    PeriodogramOptions bad = o;
    bad.grid.fmin = 0;
    EXPECT_NE(message(good, bad).find("minimum frequency"), std::string::npos);
    bad = o;
    bad.grid.df = -1;
    EXPECT_NE(message(good, bad).find("maximum frequency"), std::string::npos);
    bad = o;
    bad.grid.count = kMaxFrequencies + 1;
    EXPECT_NE(message(good, bad).find("number of frequencies"), std::string::npos);
    std::atomic<bool> cancel{true};
    PeriodogramOptions cancelled = o;
    cancelled.cancel = &cancel;
    EXPECT_NE(message(good, cancelled).find("cancelled"), std::string::npos);
    std::vector<double> small(10);
    EXPECT_FALSE(computePeriodogram(cpu, good, o, std::span<double>(small)).ok());
}

// Values near the ends of double's range: the sums of squares would overflow (or underflow
// to zero), yet the periodogram is well defined. The standard, model and log powers do not
// change when y is scaled, so the reference is the long-double one of y brought near 1; the
// psd scale needs y and dy scaled together. float64 within 1e-9 everywhere, float32 within
// 1e-4 norm-wise, as on ordinary data.
void expectExtremeValuesScaled(Context& backend, PeriodogramMethod method, Precision precision)
{
    std::mt19937 rng(23);
    const TimeSeries base = randomSeries(rng, 60, true, 0.0);
    auto expectClose = [&](const TimeSeries& s, const TimeSeries& ref, PeriodogramOptions o,
                           const std::string& what) {
        o.method = method;
        o.precision = precision;
        EXPECT_TRUE(validatePeriodogram(s, o).empty()) << what;
        const std::vector<double> p = run(backend, s, o), expected = longDoubleReference(ref, o);
        if (precision == Precision::Float64)
            EXPECT_LE(maxRelativeError(p, expected), 1e-9) << what;
        else
            EXPECT_LE(normwiseError(p, expected), 1e-4) << what;
    };
    for (const double scale : {1e308, 1e-300}) {
        TimeSeries extreme = base;
        TimeSeries unit = base;
        for (std::size_t i = 0; i < base.y.size(); ++i) {
            unit.y[i] = (base.y[i] - 3.0) / 4.0; // about -1 to 1 around no offset
            extreme.y[i] = unit.y[i] * scale;
        }
        PeriodogramOptions o;
        o.grid = autoFrequencyGrid(base, 4.0, 2.0);
        for (const Normalization normalization :
             {Normalization::Standard, Normalization::Model, Normalization::Log}) {
            o.normalization = normalization;
            for (const bool weighted : {false, true}) {
                TimeSeries s = extreme, ref = unit;
                if (!weighted) {
                    s.dy.clear();
                    ref.dy.clear();
                }
                expectClose(s, ref, o,
                            "y scaled by " + std::to_string(scale) + ", " +
                                normalizationName(normalization) + (weighted ? ", with dy" : ""));
            }
        }
        // psd: y and dy scaled together keep the powers, which are representable.
        o.normalization = Normalization::Psd;
        TimeSeries both = extreme, ref = unit;
        for (std::size_t i = 0; i < both.dy.size(); ++i) {
            ref.dy[i] = base.dy[i] / 4.5;
            both.dy[i] = ref.dy[i] * scale;
        }
        expectClose(both, ref, o, "psd, y and dy scaled by " + std::to_string(scale));
    }
}

TEST(Periodogram, ExtremeValuesGiveTheScaledPeriodogram)
{
    auto cpuOwner = cpuContext(2);
    Context& cpu = *cpuOwner;
    for (const Precision precision : {Precision::Float64, Precision::Float32})
        expectExtremeValuesScaled(cpu, PeriodogramMethod::Auto, precision);
}

// The psd powers of y = +-1e308 without dy are about 1e616: refused, saying why, rather than
// computed as infinity or NaN.
TEST(Periodogram, UnrepresentablePsdIsRefused)
{
    std::mt19937 rng(29);
    TimeSeries s = randomSeries(rng, 50, false, 0.0);
    for (double& y : s.y)
        y = y > 3.0 ? 1e308 : -1e308;
    PeriodogramOptions o;
    o.grid = autoFrequencyGrid(s);
    o.normalization = Normalization::Psd;
    const auto problems = validatePeriodogram(s, o);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].message.find("psd"), std::string::npos) << problems[0].message;
    auto cpuOwner = cpuContext(2);
    Context& cpu = *cpuOwner;
    std::vector<double> power(std::size_t(o.grid.count));
    EXPECT_FALSE(computePeriodogram(cpu, s, o, std::span<double>(power)).ok());
}

// Baluev's approximation needs more points than the model has terms: with 3 it has no
// answer (rather than NaN); with 4 and more it gives a probability for any power, including
// powers a hair outside their range from rounding.
TEST(Periodogram, FalseAlarmProbabilityIsNeverNaN)
{
    const TimeSeries three{{0.0, 1.3, 2.9}, {1.0, -0.5, 0.7}, {}};
    const TimeSeries four{{0.0, 1.3, 2.9, 3.4}, {1.0, -0.5, 0.7, 0.1}, {0.1, 0.2, 0.1, 0.3}};
    for (const Normalization normalization :
         {Normalization::Standard, Normalization::Model, Normalization::Log, Normalization::Psd})
        for (const double z : {-1e-17, 0.0, 0.3, 0.999, 1.0, 1.0000001, 5.0}) {
            EXPECT_FALSE(falseAlarmProbability(z, 2.0, three, normalization).has_value());
            const std::optional<double> fap = falseAlarmProbability(z, 2.0, four, normalization);
            ASSERT_TRUE(fap.has_value()) << normalizationName(normalization) << " z " << z;
            EXPECT_TRUE(*fap >= 0.0 && *fap <= 1.0) << *fap;
        }
}

// All times equal: one message, about the times (no grid can be made from them).
TEST(Periodogram, EqualTimesAreOneProblem)
{
    const TimeSeries s{{4.0, 4.0, 4.0, 4.0}, {1.0, 2.0, 0.5, 3.0}, {}};
    PeriodogramOptions o;
    o.grid = autoFrequencyGrid(s);
    const auto problems = validatePeriodogram(s, o);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].message.find("times are equal"), std::string::npos)
        << problems[0].message;
}

// A long series asks the automatic grid for more frequencies than a periodogram may have: it
// keeps the resolution (df), stops below the maximum count, and says what it gave up.
TEST(Periodogram, AutomaticGridIsCapped)
{
    SyntheticOptions synthetic;
    synthetic.points = 20000;
    synthetic.baseline = 1e7;
    const TimeSeries s = syntheticSeries(synthetic);
    const auto [lo, hi] = std::minmax_element(s.t.begin(), s.t.end());
    AutoGridCap cap;
    const FrequencyGrid g = autoFrequencyGrid(s, 100.0, 100.0, std::nullopt, std::nullopt, &cap);
    const double baseline = *hi - *lo;
    EXPECT_EQ(g.count, kMaxFrequencies);
    EXPECT_DOUBLE_EQ(g.df, 1.0 / baseline / 100.0);
    EXPECT_EQ(g.fmin, 0.5 * g.df);
    // astropy's rule: up to 100 x the average Nyquist frequency, 100 samples a peak.
    const double fmax = 100.0 * 0.5 * 20000.0 / baseline;
    EXPECT_DOUBLE_EQ(cap.wantedFmax, fmax);
    EXPECT_EQ(cap.wanted, 1.0 + std::round((fmax - g.fmin) / g.df));
    EXPECT_GT(cap.wanted, 9.9e7);
    // Under the maximum, nothing is left out.
    EXPECT_EQ(autoFrequencyGrid(s, 5.0, 5.0, std::nullopt, std::nullopt, &cap).count, 250001);
    EXPECT_EQ(cap.wanted, 0.0);
    PeriodogramOptions o;
    o.grid = g;
    EXPECT_TRUE(validatePeriodogram(s, o).empty());
}

// Frequencies closer than double can tell apart would repeat in the peak table; infinite
// ends are not numbers to space a grid between.
TEST(Periodogram, UnrepresentableGridsAreRefused)
{
    const TimeSeries s = syntheticSeries({});
    auto problem = [&](const FrequencyGrid& grid) {
        PeriodogramOptions o;
        o.grid = grid;
        const auto problems = validatePeriodogram(s, o);
        return problems.empty() ? std::string() : problems.front().message;
    };
    EXPECT_NE(problem(frequencyGrid(1.0, 1.0000000000000002, 1000, false)).find("apart"),
              std::string::npos);
    EXPECT_NE(problem(frequencyGrid(1.0, 1.00000001, kMaxFrequencies, true)).find("apart"),
              std::string::npos);
    EXPECT_NE(problem(frequencyGrid(0.1, INFINITY, 10, false)).find("finite"), std::string::npos);
    EXPECT_NE(problem(frequencyGrid(0.1, NAN, 10, true)).find("finite"), std::string::npos);
    EXPECT_NE(problem(frequencyGrid(INFINITY, 1.0, 10, false)).find("finite"), std::string::npos);
    // Steps of 1e-15 of the frequency, a few units in its last place, pass.
    EXPECT_EQ(problem(frequencyGrid(1.0, 1.0 + 1e-9, 1000000, false)), "");
    EXPECT_EQ(problem(frequencyGrid(1.0, 1.0 + 1e-9, 1000000, true)), "");
}

// Three points and a floating mean: the fit is exact at every frequency, so the model and
// log powers are infinite (rounding makes them NaN or noise). Refused, saying why; the
// standard power (1 everywhere) is still computed.
void expectExactFitsRefused(Context& backend)
{
    const TimeSeries three{{0.0, 1.3, 2.9}, {1.0, -0.5, 0.7}, {}};
    PeriodogramOptions o;
    o.grid = autoFrequencyGrid(three);
    std::vector<double> power(std::size_t(o.grid.count));
    for (const Normalization normalization : {Normalization::Model, Normalization::Log}) {
        o.normalization = normalization;
        const Status s = computePeriodogram(backend, three, o, std::span<double>(power));
        ASSERT_FALSE(s.ok());
        EXPECT_NE(s.message().find("exactly"), std::string::npos) << s.message();
    }
    o.normalization = Normalization::Standard;
    for (const double p : run(backend, three, o))
        EXPECT_NEAR(p, 1.0, 1e-9);
}

TEST(Periodogram, ExactFitsAreRefused)
{
    auto cpuOwner = cpuContext(2);
    expectExactFitsRefused(*cpuOwner);
}

// Powers that come out NaN or infinite are refused, except those a launch leaves out.
TEST(Periodogram, NonFinitePowersAreRefused)
{
    PeriodogramOptions o;
    o.grid = {0.01, 0.01, 100};
    EXPECT_TRUE(checkPowers(0, 0, o).ok());
    EXPECT_TRUE(checkPowers(40, 40, o).ok());
    const Status s = checkPowers(41, 40, o);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("1 of its 60 powers came out as NaN"), std::string::npos)
        << s.message();
    o.normalization = Normalization::Log;
    EXPECT_NE(checkPowers(1, 0, o).message().find("exactly"), std::string::npos);
}

TEST(Periodogram, SyntheticSeriesIsRepeatableWithGaps)
{
    SyntheticOptions o;
    const TimeSeries a = syntheticSeries(o), b = syntheticSeries(o);
    EXPECT_EQ(a.t, b.t);
    EXPECT_EQ(a.y, b.y);
    ASSERT_EQ(a.t.size(), std::size_t(o.points));
    EXPECT_EQ(a.dy.size(), a.t.size());
    EXPECT_TRUE(std::is_sorted(a.t.begin(), a.t.end()));
    double widest = 0.0;
    for (std::size_t i = 1; i < a.t.size(); ++i)
        widest = std::max(widest, a.t[i] - a.t[i - 1]);
    // At least one gap of its planned length (gaps may overlap, never shrink).
    EXPECT_GE(widest, o.gapFraction * o.baseline / o.gaps);
    o.seed = 2;
    EXPECT_NE(syntheticSeries(o).t, a.t);
    EXPECT_TRUE(validatePeriodogram(a, {autoFrequencyGrid(a)}).empty());
}

TEST(Periodogram, TopPeaksAreLocalMaximaHighestFirst)
{
    const FrequencyGrid g{1.0, 0.5, 9};
    const std::vector<double> p{5, 1, 3, 3, 2, 7, 1, 4, 6};
    const std::vector<Peak> peaks = topPeaks(p, g, 3);
    ASSERT_EQ(peaks.size(), 3u);
    EXPECT_EQ(peaks[0].index, 5);
    EXPECT_EQ(peaks[0].frequency, 3.5);
    EXPECT_EQ(peaks[1].index, 8); // the last point counts when it is above its neighbour
    EXPECT_EQ(peaks[2].index, 0);
    EXPECT_EQ(topPeaks(p, g, 20).size(), 4u); // 0, 2 (a plateau, once), 5, 8
    EXPECT_TRUE(topPeaks(p, g, 0).empty());
}

// On the default synthetic scene, the periodogram's highest peak is the strongest sinusoid,
// and its false-alarm probability is tiny; the fit at that peak recovers the amplitude.
TEST(Periodogram, FindsTheSyntheticSignal)
{
    SyntheticOptions o;
    const TimeSeries s = syntheticSeries(o);
    PeriodogramOptions opt;
    opt.grid = autoFrequencyGrid(s);
    auto cpuOwner = cpuContext(2);
    Context& cpu = *cpuOwner;
    const std::vector<double> power = run(cpu, s, opt);
    const std::vector<Peak> peaks = topPeaks(power, opt.grid, 5);
    ASSERT_FALSE(peaks.empty());
    EXPECT_NEAR(peaks[0].frequency, 1.0 / o.sinusoids[0].period, opt.grid.df);
    EXPECT_LT(falseAlarmProbability(peaks[0].power, opt.grid.fmax(), s, opt.normalization).value(),
              1e-10);
    const HarmonicFit fit = fitHarmonics(s, peaks[0].frequency, 1, true);
    ASSERT_EQ(fit.harmonics.size(), 1u);
    EXPECT_NEAR(std::hypot(fit.harmonics[0].first, fit.harmonics[0].second),
                o.sinusoids[0].amplitude, 0.2);
    EXPECT_NEAR(fit.offset, o.mean, 0.2);
}

// The fold's one-term fit: its coefficients are at the epoch (the middle of the times), so the
// sinusoid's amplitude and every value come back, whatever the phase.
TEST(Periodogram, SinusoidFitIsExactOnNoiselessData)
{
    TimeSeries s;
    const double f = 0.37;
    for (int i = 0; i < 50; ++i) {
        const double t = 0.1 * i * i;
        s.t.push_back(t);
        s.y.push_back(2.0 + 0.5 * std::cos(2 * std::numbers::pi * f * t) -
                      0.3 * std::sin(2 * std::numbers::pi * f * t));
        s.dy.push_back(0.1 + 0.01 * i);
    }
    const HarmonicFit fit = fitHarmonics(s, f, 1, true);
    ASSERT_EQ(fit.harmonics.size(), 1u);
    EXPECT_NEAR(fit.offset, 2.0, 1e-9);
    EXPECT_NEAR(std::hypot(fit.harmonics[0].first, fit.harmonics[0].second), std::hypot(0.5, 0.3),
                1e-9);
    for (std::size_t i = 0; i < s.t.size(); ++i)
        EXPECT_NEAR(fit.at(f, s.t[i]), s.y[i], 1e-9);
}

// astropy's false_alarm_level: the power whose Baluev probability is 1 % and 0.1 %. astropy
// solves with scipy's Levenberg-Marquardt to about 1.5e-8 relative; the bisection here goes
// to the last bit, so 1e-6 relative leaves room for astropy's own stopping point.
TEST(Periodogram, FalseAlarmLevelFollowsAstropy)
{
    const auto rows = readCsv(fixtureDir() + "/periodogram/fal.csv");
    ASSERT_EQ(rows.size(), 3u * 4u * 2u);
    for (const auto& row : rows) {
        const double expected = std::stod(row[4]);
        const double probability = std::stod(row[2]);
        const TimeSeries series = loadFixtureSeries(row[0]);
        const std::optional<double> level =
            falseAlarmLevel(probability, std::stod(row[3]), series, *parseNormalization(row[1]));
        ASSERT_TRUE(level.has_value()) << row[0] << " " << row[1];
        EXPECT_NEAR(*level, expected, 1e-6 * expected)
            << row[0] << " " << row[1] << " p " << row[2];
    }
}

TEST(Periodogram, FalseAlarmLevelExplainsWhatItCannotGive)
{
    const TimeSeries series = loadFixtureSeries("A");
    EXPECT_FALSE(falseAlarmLevel(0.0, 1.0, series, Normalization::Standard));
    EXPECT_FALSE(falseAlarmLevel(1.0, 1.0, series, Normalization::Standard));
    EXPECT_FALSE(falseAlarmLevel(std::nan(""), 1.0, series, Normalization::Standard));
    TimeSeries three;
    three.t = {0, 1, 2.5};
    three.y = {1, 0, 2};
    EXPECT_FALSE(falseAlarmLevel(0.01, 1.0, three, Normalization::Standard));
    // Julian Dates: the times' spread, not their size, sets the level.
    TimeSeries jd = series;
    for (double& t : jd.t)
        t += 2.4e6;
    for (Normalization n :
         {Normalization::Standard, Normalization::Model, Normalization::Log, Normalization::Psd}) {
        const std::optional<double> a = falseAlarmLevel(0.01, 1.0, series, n);
        const std::optional<double> b = falseAlarmLevel(0.01, 1.0, jd, n);
        ASSERT_TRUE(a && b) << normalizationName(n);
        EXPECT_NEAR(*b, *a, 1e-6 * *a) << normalizationName(n);
    }
}

// astropy's spectral window (y = 1, no floating mean, no centring, dy as weights) of series B.
TEST(Periodogram, SpectralWindowFollowsAstropy)
{
    std::string comments;
    std::vector<double> expected;
    for (const auto& row : readCsv(fixtureDir() + "/periodogram/window_B.csv", &comments))
        expected.push_back(std::stod(row[1]));
    PeriodogramOptions o;
    o.grid = fixtureGrid(comments);
    ASSERT_EQ(std::size_t(o.grid.count), expected.size());
    const TimeSeries series = windowSeries(loadFixtureSeries("B"));
    const PeriodogramOptions window = windowOptions(o);
    // A constant y is the window's data, not a problem, once nothing is centred.
    EXPECT_TRUE(validatePeriodogram(series, window).empty());
    EXPECT_FALSE(validatePeriodogram(series, o).empty());
    auto cpuOwner = cpuContext(2);
    Context& cpu = *cpuOwner;
    EXPECT_LE(maxRelativeError(run(cpu, series, window), expected), kAstropyTolerance);
}

// Yearly means from 1700, as sunspot numbers come: an 11-year cycle and noise.
TimeSeries yearlySeries(int years, double first = 1700.0)
{
    std::mt19937 rng(11);
    std::normal_distribution<double> noise(0.0, 20.0);
    TimeSeries s;
    for (int i = 0; i < years; ++i) {
        const double t = first + i;
        s.t.push_back(t);
        s.y.push_back(80.0 + 60.0 * std::sin(2.0 * std::numbers::pi * (t - 1700.0) / 11.0) +
                      noise(rng));
    }
    return s;
}

TEST(Periodogram, RegularSamplingIsDetected)
{
    TimeSeries yearly = yearlySeries(320);
    std::optional<RegularSampling> s = regularSampling(yearly.t);
    ASSERT_TRUE(s);
    EXPECT_DOUBLE_EQ(s->step, 1.0);
    EXPECT_DOUBLE_EQ(s->nyquist, 0.5);
    EXPECT_EQ(s->intervals, 319);
    EXPECT_EQ(s->singleSteps, 319);
    // Unsorted, with a repeated time and a decade missing: the same lattice.
    std::vector<double> t = yearly.t;
    t.erase(t.begin() + 50, t.begin() + 60);
    t.push_back(t[3]);
    std::reverse(t.begin(), t.end());
    s = regularSampling(t);
    ASSERT_TRUE(s);
    EXPECT_DOUBLE_EQ(s->step, 1.0);
    EXPECT_EQ(s->intervals, 309);
    EXPECT_EQ(s->singleSteps, 308);
    // Half-hour cadence in Julian Dates, the times rounded to 1e-5 d (0.05 % of a step).
    t.clear();
    for (int i = 0; i < 500; ++i)
        t.push_back(std::round((2459000.25 + i / 48.0) * 1e5) / 1e5);
    s = regularSampling(t);
    ASSERT_TRUE(s);
    EXPECT_NEAR(s->step, 1.0 / 48.0, 1e-7);
    EXPECT_NEAR(s->nyquist, 24.0, 1e-4);
    // Not regular: random times, jitter of 5 % of a step, a step that does not divide a gap,
    // too few times, equal times, a single time, NaN.
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    t.clear();
    for (int i = 0; i < 100; ++i)
        t.push_back(100.0 * u(rng));
    EXPECT_FALSE(regularSampling(t));
    t.clear();
    for (int i = 0; i < 100; ++i)
        t.push_back(i + 0.1 * (u(rng) - 0.5));
    EXPECT_FALSE(regularSampling(t));
    EXPECT_FALSE(regularSampling({0, 1, 2, 3, 4, 5, 6, 7, 8.5, 9.5}));
    EXPECT_TRUE(regularSampling({0, 1, 2, 3, 4, 5, 6, 7}));
    EXPECT_FALSE(regularSampling({0, 1, 2, 3, 4, 5, 6}));
    EXPECT_FALSE(regularSampling(std::vector<double>(20, 58000.0)));
    EXPECT_FALSE(regularSampling({1.0}));
    EXPECT_FALSE(regularSampling({0, 1, 2, 3, 4, 5, 6, 7, std::nan("")}));
}

// A TESS sector: 2-minute cadence in BTJD over 27 days with the orbit's 1-day gap, the times
// written with d decimals.
std::vector<double> tessTimes(int decimals)
{
    const double scale = std::pow(10.0, decimals);
    std::vector<double> t;
    for (int i = 0; i < 27 * 720; ++i)
        if (i < 13 * 720 || i >= 14 * 720)
            t.push_back(std::round((1468.27 + i / 720.0) * scale) / scale);
    return t;
}

// Times written with six decimals make a 2-minute step's intervals 0.001388 and 0.001389 d,
// whose median is 2 steps short over 27 days; the step comes out right, the sampling regular,
// and the automatic grid stops at 360 cycles a day, not astropy's 1 720.
TEST(Periodogram, RegularSamplingSeesThroughTimesRoundedToTheirPrintedDecimals)
{
    for (const int decimals : {6, 5, 4}) {
        const std::vector<double> t = tessTimes(decimals);
        const std::optional<RegularSampling> s = regularSampling(t);
        ASSERT_TRUE(s) << decimals << " decimals";
        EXPECT_NEAR(s->step, 1.0 / 720.0, 1e-8) << decimals << " decimals";
        EXPECT_NEAR(s->nyquist, 360.0, 1e-3) << decimals << " decimals";
        EXPECT_EQ(s->intervals, long(t.size()) - 1);
        EXPECT_EQ(s->singleSteps, long(t.size()) - 2); // all but the gap
    }
    TimeSeries series;
    series.t = tessTimes(6);
    for (const double v : series.t)
        series.y.push_back(std::sin(2.0 * std::numbers::pi * v / 4.217));
    const AutomaticGrid a = automaticGrid(series, 5.0, 5.0);
    ASSERT_TRUE(a.sampling);
    EXPECT_TRUE(a.stopsAtNyquist);
    EXPECT_LE(a.grid.fmax(), 360.0 + 1e-3);
    EXPECT_GT(a.grid.fmax(), 360.0 - a.grid.df - 1e-3);
    EXPECT_GT(a.wantedFmax, 1700.0);
    // Jitter of 5 % of a step is no rounding: still not regular, whatever the decimals.
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> u(-0.05, 0.05);
    std::vector<double> jittered = tessTimes(9);
    for (double& v : jittered)
        v = std::round((v + u(rng) / 720.0) * 1e6) / 1e6;
    EXPECT_FALSE(regularSampling(jittered));
}

// The sunspot case: yearly times, so above 0.5 cycles per year the periodogram mirrors the
// part below, and the 11-year cycle has an equal twin at 1 + 1/11 cycles per year.
TEST(Periodogram, AutomaticGridStopsAtTheNyquistFrequencyOfRegularTimes)
{
    const TimeSeries yearly = yearlySeries(320);
    const AutomaticGrid a = automaticGrid(yearly, 5.0, 5.0);
    ASSERT_TRUE(a.sampling);
    EXPECT_TRUE(a.stopsAtNyquist);
    EXPECT_EQ(a.cap.wanted, 0.0);
    const FrequencyGrid astropy = autoFrequencyGrid(yearly, 5.0, 5.0);
    EXPECT_DOUBLE_EQ(a.wantedFmax, astropy.fmax());
    EXPECT_EQ(a.grid.fmin, astropy.fmin);
    EXPECT_EQ(a.grid.df, astropy.df);
    EXPECT_LE(a.grid.fmax(), 0.5);
    EXPECT_GT(a.grid.fmax(), 0.5 - a.grid.df);

    auto cpuOwner = cpuContext(2);
    Context& cpu = *cpuOwner;
    PeriodogramOptions o;
    o.grid = a.grid;
    const std::vector<double> power = run(cpu, yearly, o);
    const std::vector<Peak> peaks =
        reportablePeaks(topPeaks(power, o.grid, 20), o.grid, timeBaseline(yearly), 10);
    ASSERT_FALSE(peaks.empty());
    EXPECT_NEAR(1.0 / peaks[0].frequency, 11.0, 0.2);
    // Beyond the Nyquist frequency (astropy's grid), the twin at 1 + 1/11 is as high.
    o.grid = astropy;
    const std::vector<double> full = run(cpu, yearly, o);
    const std::vector<Peak> all = topPeaks(full, o.grid, 20);
    const auto twin = std::find_if(all.begin(), all.end(), [&](const Peak& p) {
        return std::abs(p.frequency - (1.0 + 1.0 / 11.0)) < 2.0 * o.grid.df;
    });
    ASSERT_NE(twin, all.end());
    EXPECT_GT(twin->power, 0.95 * peaks[0].power);

    // Irregular times keep astropy's grid.
    const TimeSeries uneven = syntheticSeries({});
    const AutomaticGrid b = automaticGrid(uneven, 5.0, 5.0);
    EXPECT_FALSE(b.sampling);
    EXPECT_FALSE(b.stopsAtNyquist);
    EXPECT_EQ(b.grid, autoFrequencyGrid(uneven, 5.0, 5.0));
    // A Nyquist factor below 1 asks for less than the Nyquist frequency: nothing stops it.
    const AutomaticGrid c = automaticGrid(yearly, 5.0, 0.5);
    EXPECT_FALSE(c.stopsAtNyquist);
    EXPECT_EQ(c.grid, autoFrequencyGrid(yearly, 5.0, 0.5));
}

TEST(Periodogram, AliasesOfAPeak)
{
    const auto frequencies = [](const std::vector<Alias>& aliases) {
        std::vector<double> f;
        for (const Alias& a : aliases)
            f.push_back(a.frequency);
        return f;
    };
    // Days: the daily and the yearly aliases, sorted.
    std::vector<Alias> a = aliasFrequencies(0.1, TimeUnit::Day, std::nullopt);
    ASSERT_EQ(a.size(), 4u);
    EXPECT_DOUBLE_EQ(a[0].frequency, 0.1 - 1.0 / 365.25);
    EXPECT_EQ(a[0].label, "f - 1/yr");
    EXPECT_DOUBLE_EQ(a[1].frequency, 0.1 + 1.0 / 365.25);
    EXPECT_DOUBLE_EQ(a[2].frequency, 0.9);
    EXPECT_EQ(a[2].label, "1/d - f");
    EXPECT_DOUBLE_EQ(a[3].frequency, 1.1);
    // Years sampled yearly: the lattice's aliases are the yearly ones, listed once.
    const RegularSampling yearly{1.0, 0.5, 319, 319};
    a = aliasFrequencies(1.0 / 11.0, TimeUnit::Year, yearly);
    EXPECT_EQ(frequencies(a), (std::vector<double>{1.0 - 1.0 / 11.0, 1.0 + 1.0 / 11.0}));
    EXPECT_EQ(a[0].label, "1/dt - f");
    // Plain numbers sampled every 0.25: 4 - f and 4 + f.
    a = aliasFrequencies(1.5, TimeUnit::Unknown, RegularSampling{0.25, 2.0, 9, 9});
    EXPECT_EQ(frequencies(a), (std::vector<double>{2.5, 5.5}));
    EXPECT_TRUE(aliasFrequencies(1.5, TimeUnit::Unknown, std::nullopt).empty());
    EXPECT_TRUE(aliasFrequencies(0.0, TimeUnit::Day, std::nullopt).empty());
    EXPECT_TRUE(aliasFrequencies(std::nan(""), TimeUnit::Day, std::nullopt).empty());
}

// No peak at the grid's ends (the slope of a peak beyond them) or at a period longer than
// the baseline (not seen to repeat).
TEST(Periodogram, ReportablePeaksExcludeEdgesAndPeriodsBeyondTheBaseline)
{
    const FrequencyGrid g{1.0, 0.5, 9};
    const std::vector<double> p{5, 1, 3, 3, 2, 7, 1, 4, 6};
    const std::vector<Peak> all = topPeaks(p, g, 20); // 5, 8, 0, 2
    std::vector<Peak> kept = reportablePeaks(all, g, 10.0, 20);
    ASSERT_EQ(kept.size(), 2u);
    EXPECT_EQ(kept[0].index, 5);
    EXPECT_EQ(kept[1].index, 2);
    EXPECT_EQ(reportablePeaks(all, g, 10.0, 1).size(), 1u);
    // Index 2 is f = 2, period 0.5: beyond a baseline of 0.4, within one of 0.5.
    kept = reportablePeaks(all, g, 0.4, 20);
    ASSERT_EQ(kept.size(), 1u);
    EXPECT_EQ(kept[0].index, 5);
    EXPECT_EQ(reportablePeaks(all, g, 0.5, 20).size(), 2u);
    EXPECT_TRUE(reportablePeaks(all, g, 10.0, 0).empty());
    TimeSeries s;
    EXPECT_EQ(timeBaseline(s), 0.0);
    s.t = {58003.5, 58000.0, 58010.25};
    EXPECT_EQ(timeBaseline(s), 10.25);
}

// A grid too small for the frequency grid leaves frequencies unevaluated (NaN); grid-stride
// covers them all with the same grid; a block beyond the kernel's limit is explained.
void expectLaunchCoverage(Context& backend)
{
    const TimeSeries s = syntheticSeries({});
    PeriodogramOptions o;
    o.grid = autoFrequencyGrid(s);
    o.method = PeriodogramMethod::Direct; // the kernel the launch shapes
    const std::vector<double> full = run(backend, s, o);
    o.launch = {64, 3, false}; // 3 x 64 x 8 = 1536 frequencies of 5001
    std::vector<double> power = poisoned<double>(std::size_t(o.grid.count));
    ASSERT_TRUE(computePeriodogram(backend, s, o, std::span<double>(power)).ok());
    EXPECT_EQ(coveredFrequencies(o.launch, o.grid.count), 1536);
    for (std::size_t k = 0; k < power.size(); ++k) {
        if (k < 1536)
            ASSERT_NEAR(power[k], full[k], 1e-12 * std::abs(full[k]) + 1e-15) << k;
        else
            ASSERT_TRUE(std::isnan(power[k])) << k;
    }
    o.launch.gridStride = true;
    const std::vector<double> strided = run(backend, s, o);
    EXPECT_LE(maxRelativeError(strided, full), 1e-12);
    o.launch = {1024, 0, false};
    std::vector<double> out(std::size_t(o.grid.count));
    const Status refused = computePeriodogram(backend, s, o, std::span<double>(out));
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.message().find("at most 512 threads"), std::string::npos)
        << refused.message();
    o.launch = {2048, 0, false};
    EXPECT_FALSE(computePeriodogram(backend, s, o, std::span<double>(out)).ok());
}

TEST(Periodogram, CpuSimulatesTheLaunchsCoverage)
{
    auto cpuOwner = cpuContext(2);
    Context& cpu = *cpuOwner;
    expectLaunchCoverage(cpu);
    // The sm_90 build's resources give the simulated device's occupancy and suggestion.
    const KernelOccupancy o = periodogramOccupancy(cpu, Precision::Float64, 128);
    EXPECT_EQ(o.resources.registersPerThread, 128);
    EXPECT_EQ(o.theoretical.activeBlocksPerSm, 4); // 128 registers: 16 warps of 64
    EXPECT_GE(o.suggestedBlock, 32);
}

class CudaPeriodogramTest : public CudaContextTest
{
protected:
    bool hasTensorCores() const { return m_cuda->info().ccMajor >= 8; }
};

TEST_F(CudaPeriodogramTest, MatchesAstropy)
{
    expectMatchesAstropy(*m_cuda, kAstropyTolerance, Precision::Float64, PeriodogramMethod::Direct);
    expectMatchesAstropy(*m_cuda, 1e-4, Precision::Float32);
    if (hasTensorCores()) {
        expectMatchesAstropy(*m_cuda, kAstropyTolerance, Precision::Float64,
                             PeriodogramMethod::Matrix);
        expectMatchesAstropy(*m_cuda, 1e-4, Precision::Float32, PeriodogramMethod::Matrix);
    }
}

// The matrix products against the long-double reference, in both precisions: sample counts
// that leave partial stages, grids that leave partial CTAs and span many, every
// normalisation, with and without the floating mean, and times far from zero.
TEST_F(CudaPeriodogramTest, MatrixProductsMatchLongDouble)
{
    if (!hasTensorCores())
        GTEST_SKIP() << "no tensor cores on " << m_cuda->name();
    const WorstErrors worst = worstAgainstLongDouble(
        *m_cuda, PeriodogramMethod::Matrix, 29, 10, [](int trial, int random) {
            return std::pair<int, long long>(trial < 8 ? 3 + random % 300 : 1000 + trial,
                                             trial < 8 ? 1000 + 997 * trial : 2048);
        });
    expectWithinLimits("CUDA matrix periodogram (float32 as three FP16 products)", worst);
}

// A call into host memory runs the matrix products in pieces of whole waves, each copied out
// while the next computes; the device-resident spectrum runs them in one launch. Every CTA
// works from its absolute place in the grid, so both give the same bits, on a grid of many
// waves with a partial last CTA, in both precisions, with and without the floating mean. The
// timeline shows the pieces, so the test cannot pass with one piece.
TEST_F(CudaPeriodogramTest, MatrixProductsInPiecesGiveTheBitsOfOneLaunch)
{
    if (!hasTensorCores())
        GTEST_SKIP() << "no tensor cores on " << m_cuda->name();
    std::mt19937 rng(61);
    const TimeSeries s = randomSeries(rng, 1024, true, 0.0);
    auto timeline = std::make_shared<Timeline>();
    m_cuda->setTimeline(timeline, "periodogram");
    PeriodogramOptions o;
    o.method = PeriodogramMethod::Matrix;
    for (const Precision precision : {Precision::Float64, Precision::Float32})
        for (const bool fitMean : {true, false}) {
            o.precision = precision;
            o.fitMean = fitMean;
            // 8 waves of one CTA per SM (2048 frequencies a CTA), plus part of a CTA.
            const long long count = 8LL * m_cuda->info().smCount * 2048 + 777;
            o.grid = {0.001, 50.0 / double(count), count};
            timeline->clear();
            const std::vector<double> pieces = run(*m_cuda, s, o);
            ASSERT_TRUE(m_cuda->collectTimeline());
            long long copies = 0;
            for (const Span& span : timeline->snapshot().spans)
                copies += span.name == "power out";
            EXPECT_GE(copies, 2) << precisionName(precision) << ", fit_mean " << fitMean;
            std::shared_ptr<const Spectrum> spectrum;
            ASSERT_TRUE(computeSpectrum(*m_cuda, s, o, spectrum));
            std::vector<double> whole = poisoned<double>(std::size_t(count));
            ASSERT_TRUE(spectrum->read(std::span<double>(whole)));
            long long differing = 0;
            for (long long i = 0; i < count; ++i)
                differing += std::memcmp(&pieces[std::size_t(i)], &whole[std::size_t(i)],
                                         sizeof(double)) != 0;
            EXPECT_EQ(differing, 0) << precisionName(precision) << ", fit_mean " << fitMean;
        }
    m_cuda->setTimeline(nullptr, "periodogram");
}

// float32's FP16 halves over weights spanning eight decades and values near 1e5: the scaling
// keeps them in range, so the small weights still count.
TEST_F(CudaPeriodogramTest, MatrixProductsKeepFloat32AccuracyOverWideWeights)
{
    if (!hasTensorCores())
        GTEST_SKIP() << "no tensor cores on " << m_cuda->name();
    std::mt19937 rng(31);
    TimeSeries s = randomSeries(rng, 900, true, 0.0);
    for (std::size_t i = 0; i < s.t.size(); ++i) {
        s.dy[i] = std::pow(10.0, -2.0 + 4.0 * double(i % 97) / 96.0);
        s.y[i] = 1e5 + 10.0 * s.y[i];
    }
    PeriodogramOptions o;
    o.grid = autoFrequencyGrid(s, 4.0, 3.0);
    o.method = PeriodogramMethod::Matrix;
    o.precision = Precision::Float32;
    for (const bool fitMean : {true, false}) {
        o.fitMean = fitMean;
        const std::vector<double> ref = longDoubleReference(s, o);
        const double error = normwiseError(run(*m_cuda, s, o), ref);
        std::printf("CUDA matrix periodogram, float32, weights over 8 decades, fit_mean %d: "
                    "norm-wise %.2e\n",
                    int(fitMean), error);
        EXPECT_LE(error, 1e-4);
    }
}

TEST_F(CudaPeriodogramTest, LaunchCoverageAndOccupancy)
{
    expectLaunchCoverage(*m_cuda);
    for (Precision precision : {Precision::Float32, Precision::Float64})
        for (long long threads = 32; threads <= kPeriodogramMaxBlock; threads += 32) {
            const KernelOccupancy o = periodogramOccupancy(*m_cuda, precision, threads);
            ASSERT_TRUE(o.api.has_value());
            EXPECT_EQ(o.theoretical.activeBlocksPerSm, o.api->activeBlocksPerSm)
                << threads << " threads, " << o.resources.registersPerThread << " registers";
        }
}

// The powers that come back to the host are counted there as they are copied to the caller:
// infinite and NaN powers must be found.
TEST_F(CudaPeriodogramTest, ExactFitsAreRefused)
{
    expectExactFitsRefused(*m_cuda);
}

TEST_F(CudaPeriodogramTest, DirectKernelMatchesLongDouble)
{
    // Sizes that leave partial tiles and partial thread chunks.
    const WorstErrors worst = worstAgainstLongDouble(
        *m_cuda, PeriodogramMethod::Direct, 12, 12, [](int trial, int random) {
            return std::pair<int, long long>(3 + random % 700, 1000 + trial);
        });
    expectWithinLimits("CUDA periodogram, direct kernel", worst);
}

// Series of more than 256 KiB (t, w and wy) are copied to the GPU before the steps and the
// poison; smaller ones are read in place by one kernel. The tests above use small ones.
TEST_F(CudaPeriodogramTest, LargeSeriesCopiedFirstMatchLongDouble)
{
    const auto sizes = [](int trial, int random) {
        return std::pair<int, long long>(16500 + random % 3000, 300 + trial);
    };
    expectWithinLimits("CUDA periodogram, large series, direct kernel",
                       worstAgainstLongDouble(*m_cuda, PeriodogramMethod::Direct, 31, 3, sizes));
    expectWithinLimits("CUDA periodogram, large series, Auto",
                       worstAgainstLongDouble(*m_cuda, PeriodogramMethod::Auto, 32, 3, sizes));
}

// The scaling happens in the plan both backends share; the kernels then see values near 1,
// in either precision and with either method.
TEST_F(CudaPeriodogramTest, ExtremeValuesGiveTheScaledPeriodogram)
{
    for (const Precision precision : {Precision::Float64, Precision::Float32}) {
        expectExtremeValuesScaled(*m_cuda, PeriodogramMethod::Direct, precision);
        if (hasTensorCores())
            expectExtremeValuesScaled(*m_cuda, PeriodogramMethod::Matrix, precision);
    }
}

// Logarithmic grids take the direct kernel's exact path, whichever method is asked for by Auto.
TEST_F(CudaPeriodogramTest, LogGridsMatchLongDouble)
{
    const WorstErrors worst = worstAgainstLongDouble(
        *m_cuda, PeriodogramMethod::Auto, 13, 8,
        [](int trial, int random) {
            return std::pair<int, long long>(3 + random % 700, 1000 + 97 * trial);
        },
        true);
    expectWithinLimits("CUDA periodogram, logarithmic grids", worst);

    std::mt19937 rng(5);
    PeriodogramOptions o;
    o.grid = frequencyGrid(0.01, 10.0, 5000, true);
    std::shared_ptr<const Spectrum> spectrum;
    const Status s = computeSpectrum(*m_cuda, randomSeries(rng, 300, false, 0.0), o, spectrum);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(spectrum->method(), periodogramMethodName(PeriodogramMethod::Direct));
}

} // namespace
} // namespace warpscope::gpu::test
