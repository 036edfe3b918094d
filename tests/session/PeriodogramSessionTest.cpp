// The periodogram's headless session, as the window, the command line and the batch program
// share it, against astropy's and scipy's figures (tests/fixtures/periodogram).
#include "warpscope/scene/PeriodogramSession.h"

#include "../gpu/TestSupport.h"

#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <numbers>

namespace warpscope::scene {
namespace {

using gpu::test::cpuContext;
using gpu::test::fixtureDir;
using gpu::test::loadFixtureSeries;
using gpu::test::readCsv;

void expectSameOptions(const gpu::PeriodogramOptions& a, const gpu::PeriodogramOptions& b)
{
    EXPECT_EQ(a.grid, b.grid);
    EXPECT_EQ(a.normalization, b.normalization);
    EXPECT_EQ(a.fitMean, b.fitMean);
    EXPECT_EQ(a.centerData, b.centerData);
    EXPECT_EQ(a.precision, b.precision);
    EXPECT_EQ(a.method, b.method);
    EXPECT_EQ(a.nterms, b.nterms);
    EXPECT_EQ(a.launch.blockThreads, b.launch.blockThreads);
    EXPECT_EQ(a.launch.gridBlocks, b.launch.gridBlocks);
    EXPECT_EQ(a.launch.gridStride, b.launch.gridStride);
}

// The window makes its request on the GUI thread from the masked series, before the trend and
// the prewhitened sinusoids come out on a worker; the command line and the batch make it from
// the prepared series. Both roads give one request, the grid astropy's.
TEST(PeriodogramSession, WindowAndCommandLineMakeOneRequest)
{
    PeriodogramScene scene;
    scene.samplesPerPeak = 5;
    scene.nyquistFactor = 5;
    scene.normalization = gpu::Normalization::Model;
    scene.fitMean = false;
    scene.precision = gpu::Precision::Float32;
    scene.method = gpu::PeriodogramMethod::Direct;
    scene.nterms = 2;
    scene.blockThreads = 256;
    scene.gridBlocks = 7;
    scene.gridStride = true;
    scene.detrend = {gpu::DetrendMethod::Polynomial, 1, 10.0};
    scene.prewhitened = {{0.137, 0.3, 0.25}}; // frequency, amplitude, phase
    const gpu::TimeSeries loaded = loadFixtureSeries("A");

    PeriodogramSession session(scene);
    ASSERT_TRUE(session.prepare(loaded));
    ASSERT_TRUE(session.makeRequest());
    PeriodogramRequest window;
    ASSERT_TRUE(makePeriodogramRequest(scene, session.prepared().unmasked, window));
    expectSameOptions(window.options, session.request().options);

    const gpu::PeriodogramOptions& o = session.request().options;
    EXPECT_EQ(o.normalization, gpu::Normalization::Model);
    EXPECT_FALSE(o.fitMean);
    EXPECT_EQ(o.precision, gpu::Precision::Float32);
    EXPECT_EQ(o.method, gpu::PeriodogramMethod::Direct);
    EXPECT_EQ(o.nterms, 2);
    EXPECT_EQ(o.launch.blockThreads, 256);
    EXPECT_EQ(o.launch.gridBlocks, 7);
    EXPECT_TRUE(o.launch.gridStride);
    // astropy 5.2.1's autofrequency of series A, samples per peak 5, Nyquist factor 5.
    EXPECT_NEAR(o.grid.fmin, 0.001005133864952428, 1e-12 * 0.001005133864952428);
    EXPECT_NEAR(o.grid.df, 0.002010267729904856, 1e-9 * 0.002010267729904856);
    EXPECT_EQ(o.grid.count, 751);
}

// A manual grid typed in angular frequency reaches the kernels in cycles, on both roads.
TEST(PeriodogramSession, AngularManualGridIsInCycles)
{
    PeriodogramScene scene;
    scene.gridMode = GridMode::Linear;
    scene.unit = FrequencyUnit::Angular;
    scene.fmin = std::numbers::pi;
    scene.fmax = 4.0 * std::numbers::pi;
    scene.count = 301;
    scene.masks = {{10.0, 20.0}};
    PeriodogramSession session(scene);
    ASSERT_TRUE(session.prepare(loadFixtureSeries("A")));
    ASSERT_GT(session.prepared().masked, 0u);
    ASSERT_TRUE(session.makeRequest());
    PeriodogramRequest window;
    ASSERT_TRUE(makePeriodogramRequest(scene, session.prepared().unmasked, window));
    expectSameOptions(window.options, session.request().options);
    const gpu::FrequencyGrid& g = session.request().options.grid;
    EXPECT_NEAR(g.fmin, 0.5, 1e-15);
    EXPECT_NEAR(g.df, 0.005, 1e-15);
    EXPECT_EQ(g.count, 301);
}

// Baluev's false-alarm probability at fmax from astropy's at fmax0: the single-frequency term
// stays and the term of independent frequencies, tau, grows with fmax.
double falseAlarmAt(double fap0, double single, double fmax0, double fmax)
{
    const double tau0 = -std::log1p(-fap0) + std::log1p(-single);
    return -std::expm1(std::log1p(-single) - tau0 * fmax / fmax0);
}

TEST(PeriodogramSession, PeaksAndFalseAlarmFollowAstropy)
{
    // power_A.csv's grid; its highest power is at k = 53.
    PeriodogramScene scene;
    scene.gridMode = GridMode::Linear;
    scene.fmin = 0.005;
    scene.fmax = 0.005 + 399 * 0.0025;
    scene.count = 400;
    PeriodogramSession session(scene);
    ASSERT_TRUE(session.prepare(loadFixtureSeries("A")));
    ASSERT_TRUE(session.makeRequest());
    auto context = cpuContext(2);
    for (const bool spectrum : {true, false}) {
        ASSERT_TRUE(spectrum ? session.computeSpectrum(*context) : session.computePower(*context));
        const ReportedPeaks peaks = session.peaks(3);
        ASSERT_EQ(peaks.peaks.size(), 3u);
        ASSERT_EQ(peaks.falseAlarm.size(), 3u);
        EXPECT_EQ(peaks.peaks[0].index, 53);
        EXPECT_NEAR(peaks.peaks[0].power, 0.6671314464465558, 1e-9);
        ASSERT_TRUE(peaks.falseAlarm[0].has_value());
        // fap.csv: z = 0.6671314464465558 at fmax 1.0021184633575706 has 2.081210412710491e-11;
        // astropy's single-frequency probability for N = 60 is (1 - z)^((N - 3) / 2).
        const double z = 0.6671314464465558;
        const double single = std::pow(1.0 - z, (60 - 3) / 2.0);
        const double expected =
            falseAlarmAt(2.081210412710491e-11, single, 1.0021184633575706, scene.fmax);
        EXPECT_NEAR(*peaks.falseAlarm[0], expected, 1e-6 * expected) << spectrum;
        EXPECT_GT(*peaks.falseAlarm[1], *peaks.falseAlarm[0]);
    }
}

// What scipy's curve_fit found in series P (fit_P.csv): rows of one case.
std::map<std::string, std::pair<double, double>> scipyFit(const std::string& which, double& epoch)
{
    std::string comments;
    std::map<std::string, std::pair<double, double>> fit;
    for (const auto& row : readCsv(fixtureDir() + "/periodogram/fit_P.csv", &comments))
        if (row[0] == which)
            fit[row[1]] = {std::stod(row[2]), std::stod(row[3])};
    epoch = std::stod(comments.substr(comments.find("epoch=") + 6));
    return fit;
}

TEST(PeriodogramSession, FoldModelAtTheBestFrequencyIsScipys)
{
    double epoch = 0.0;
    auto ref = scipyFit("single", epoch);
    PeriodogramSession session(PeriodogramScene{});
    ASSERT_TRUE(session.prepare(loadFixtureSeries("P")));
    ASSERT_TRUE(session.makeRequest());
    // At the fitted frequency the linear part of the fit is scipy's.
    const gpu::HarmonicFit fit = session.fold(ref["frequency0"].first);
    ASSERT_EQ(fit.harmonics.size(), 1u);
    EXPECT_NEAR(fit.offset, ref["offset"].first, 1e-3 * ref["offset"].second);
    EXPECT_NEAR(std::hypot(fit.harmonics[0].first, fit.harmonics[0].second),
                ref["amplitude0"].first, 1e-3 * ref["amplitude0"].second);
}

TEST(PeriodogramSession, PrewhiteningFindsScipysSinusoids)
{
    double epoch = 0.0;
    auto ref = scipyFit("all", epoch);
    PeriodogramScene scene;
    scene.gridMode = GridMode::Linear;
    scene.fmin = 0.05;
    scene.fmax = 2.0;
    scene.count = 40000;
    PeriodogramSession session(scene);
    ASSERT_TRUE(session.prepare(loadFixtureSeries("P")));
    ASSERT_TRUE(session.makeRequest());
    auto context = cpuContext(2);
    for (int round = 0; round < 3; ++round) {
        ASSERT_TRUE(session.computePower(*context));
        const ReportedPeaks top = session.peaks(1);
        ASSERT_EQ(top.peaks.size(), 1u);
        ASSERT_TRUE(session.prewhiten(top.peaks[0].frequency));
    }
    ASSERT_TRUE(session.refit());
    const auto& found = session.scene().prewhitened;
    ASSERT_EQ(found.size(), 3u);
    EXPECT_DOUBLE_EQ(session.scene().prewhitenEpoch, epoch);
    for (std::size_t k = 0; k < 3; ++k) {
        const std::string n = std::to_string(k);
        const auto [f, fError] = ref["frequency" + n];
        const auto [a, aError] = ref["amplitude" + n];
        EXPECT_NEAR(found[k].frequency, f, 1e-3 * fError) << k;
        EXPECT_NEAR(found[k].amplitude, a, 1e-3 * aError) << k;
        EXPECT_NEAR(found[k].frequencyError, fError, 1e-4 * fError) << k;
    }
    // The session's series is now the residuals: the sinusoids are gone from it.
    ASSERT_TRUE(session.computePower(*context));
    EXPECT_LT(session.peaks(1).peaks[0].power, 0.2);
}

// A statistic no periodogram has: 1 / (1 + (f - 0.25)^2), highest at f = 0.25.
class TestSpectrum final : public gpu::Spectrum
{
public:
    TestSpectrum(std::vector<double> power, const gpu::FrequencyGrid& grid)
        : m_power(std::move(power))
    {
        m_grid = grid;
        m_peaks = gpu::topPeaks(m_power, grid, gpu::kSpectrumMaxPeaks);
        m_method = "test statistic";
    }
    gpu::Status read(std::span<double> power) const override
    {
        std::copy(m_power.begin(), m_power.end(), power.begin());
        return gpu::Status::success();
    }
    gpu::Status decimate(const gpu::SpectrumAxis& axis, std::span<float> vertices) const override
    {
        gpu::decimateSpectrum(m_power, m_grid, axis, vertices);
        return gpu::Status::success();
    }

private:
    std::vector<double> m_power;
};

class TestMethod final : public PeriodogramMethod
{
public:
    std::string key() const override { return "test"; }
    std::string name() const override { return "test statistic"; }
    PeriodogramMethodTraits traits(const PeriodogramScene&,
                                   const gpu::PeriodogramOptions&) const override
    {
        PeriodogramMethodTraits t;
        t.statistic = "closeness";
        return t;
    }
    gpu::Status computeSpectrum(gpu::Context& context, const gpu::TimeSeries& series,
                                const PeriodogramScene& scene,
                                const gpu::PeriodogramOptions& options,
                                std::shared_ptr<const gpu::Spectrum>& spectrum,
                                std::vector<MethodColumn>& columns) const override
    {
        std::vector<double> power(std::size_t(options.grid.count));
        if (const gpu::Status s =
                computePower(context, series, scene, options, power, nullptr, columns);
            !s)
            return s;
        spectrum = std::make_shared<TestSpectrum>(std::move(power), options.grid);
        return gpu::Status::success();
    }
    gpu::Status computePower(gpu::Context&, const gpu::TimeSeries&, const PeriodogramScene&,
                             const gpu::PeriodogramOptions& options, std::span<double> power,
                             double*, std::vector<MethodColumn>&) const override
    {
        for (long long k = 0; k < options.grid.count; ++k) {
            const double d = options.grid.frequency(k) - 0.25;
            power[std::size_t(k)] = 1.0 / (1.0 + d * d);
        }
        return gpu::Status::success();
    }
};

TEST(PeriodogramSession, MethodRegisteredElsewhereRunsEndToEnd)
{
    ASSERT_TRUE(registerPeriodogramMethod(std::make_shared<TestMethod>()));
    EXPECT_FALSE(registerPeriodogramMethod(std::make_shared<TestMethod>())); // its name is taken
    const PeriodogramMethod* method = findPeriodogramMethod("test");
    ASSERT_NE(method, nullptr);
    PeriodogramScene scene;
    // A scene still names Lomb-Scargle by default.
    EXPECT_EQ(periodogramMethod(scene).name(), "Lomb-Scargle");
    scene.gridMode = GridMode::Linear;
    scene.fmin = 0.05;
    scene.fmax = 0.45;
    scene.count = 401;
    PeriodogramSession session(scene, method);
    EXPECT_EQ(session.method().name(), "test statistic");
    ASSERT_TRUE(session.prepare(loadFixtureSeries("A")));
    ASSERT_TRUE(session.makeRequest());
    auto context = cpuContext(2);
    ASSERT_TRUE(session.computeSpectrum(*context));
    ASSERT_NE(session.spectrum(), nullptr);
    const ReportedPeaks peaks = session.peaks(5);
    ASSERT_EQ(peaks.peaks.size(), 1u); // one maximum
    EXPECT_NEAR(peaks.peaks[0].frequency, 0.25, 1e-12);
    EXPECT_DOUBLE_EQ(peaks.peaks[0].power, 1.0);
    EXPECT_FALSE(peaks.falseAlarm[0].has_value()); // its traits have none
    EXPECT_EQ(session.traits().statistic, "closeness");
    EXPECT_TRUE(session.fold(0.25).harmonics.empty()); // and no fold model
}

TEST(PeriodogramSession, LombScargleTraitsFollowItsTerms)
{
    gpu::PeriodogramOptions o;
    const PeriodogramMethodTraits one = periodogramTraits(o);
    EXPECT_EQ(one.statistic, "power");
    EXPECT_TRUE(one.higherIsBetter);
    EXPECT_TRUE(one.falseAlarm);
    EXPECT_TRUE(one.batchable);
    EXPECT_TRUE(one.matrixProducts);
    EXPECT_EQ(one.foldHarmonics, 1);
    ASSERT_EQ(one.parameters.size(), 1u);
    EXPECT_EQ(one.parameters[0].sceneKey, "nterms");
    o.nterms = 3;
    const PeriodogramMethodTraits three = periodogramTraits(o);
    EXPECT_FALSE(three.falseAlarm);
    EXPECT_FALSE(three.batchable);
    EXPECT_FALSE(three.matrixProducts);
    EXPECT_EQ(three.foldHarmonics, 3);
    EXPECT_EQ(three.parameters[0].value, 3);
}

} // namespace
} // namespace warpscope::scene

namespace warpscope::scene::test {
namespace {

gpu::TimeSeries transitSeries()
{
    gpu::TimeSeries s;
    for (const auto& row :
         gpu::test::readCsv(gpu::test::fixtureDir() + "/period-methods/transit.csv")) {
        s.t.push_back(std::stod(row.at(0)));
        s.y.push_back(std::stod(row.at(1)));
        s.dy.push_back(std::stod(row.at(2)));
    }
    return s;
}

// The transit fixture's planet (P = 3.5725 d, 0.5 %, 2.5 h, first mid-transit 1.3 d: the
// generator's values) found through the session as the window and the command line run it,
// with the box's figures at the peak.
TEST(PeriodogramSession, BoxLeastSquaresFindsTheTransitAndReportsItsBox)
{
    PeriodogramScene scene;
    scene.search = "bls";
    scene.blsDurations = "0.05,0.1,0.15";
    scene.gridMode = GridMode::Linear;
    scene.fmin = 1.0 / 6.0;
    scene.fmax = 1.0 / 2.0;
    scene.count = 3000;
    ASSERT_TRUE(validate(scene));
    PeriodogramSession session(scene);
    EXPECT_EQ(session.method().key(), "bls");
    EXPECT_EQ(session.traits().statistic, "log-likelihood");
    EXPECT_TRUE(session.traits().foldBox);
    ASSERT_TRUE(session.prepare(transitSeries()));
    ASSERT_TRUE(session.makeRequest());
    auto context = gpu::test::cpuContext(2);
    ASSERT_TRUE(session.computeSpectrum(*context));
    const ReportedPeaks peaks = session.peaks(3);
    ASSERT_FALSE(peaks.peaks.empty());
    const double period = 1.0 / peaks.peaks[0].frequency;
    EXPECT_NEAR(period, 3.5725, 0.003);
    EXPECT_FALSE(peaks.falseAlarm[0].has_value());
    ASSERT_TRUE(peaks.detail(0, "depth"));
    EXPECT_NEAR(*peaks.detail(0, "depth"), 0.005, 0.0005);
    EXPECT_EQ(*peaks.detail(0, "duration"), 0.1);
    EXPECT_NEAR(std::remainder(*peaks.detail(0, "transit_time") - 1.3, period), 0.0, 0.01);
    EXPECT_GT(*peaks.detail(0, "depth_snr"), 20.0);
    EXPECT_FALSE(peaks.detail(0, "no such figure"));
}

// astropy's autoperiod, written out here: periods from twice the longest automatic duration
// (half a day) to half the baseline, a step in frequency of the shortest (three 10-minute
// cadences) over the baseline squared.
TEST(PeriodogramSession, BoxLeastSquaresAutomaticGridIsAstropysAutoperiod)
{
    PeriodogramScene scene;
    scene.search = "bls";
    PeriodogramSession session(scene);
    const gpu::TimeSeries series = transitSeries();
    ASSERT_TRUE(session.prepare(series));
    ASSERT_TRUE(session.makeRequest());
    const double baseline = series.t.back() - series.t.front();
    const double df = 3 * 10.0 / 1440.0 / (baseline * baseline);
    const double fmin = 2.0 / baseline, fmax = 1.0 / (2 * 0.5);
    const gpu::FrequencyGrid& grid = session.request().options.grid;
    EXPECT_EQ(grid.count, 1 + (long long)std::llround((fmax - fmin) / df));
    EXPECT_NEAR(grid.fmax(), fmax, 1e-12);
    EXPECT_NEAR(grid.df, df, 1e-12 * df);
    EXPECT_FALSE(grid.logarithmic);
}

TEST(PeriodogramSession, BadMethodsAndTheirParametersAreRefused)
{
    PeriodogramScene scene;
    scene.search = "fourier";
    gpu::Status s = validate(scene);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("ls, bls, pdm, ce"), std::string::npos) << s.message();
    scene.search = "bls";
    for (const char* durations : {"", "0.1,,0.2", "-1", "0.1,x", "nan"}) {
        scene.blsDurations = durations;
        EXPECT_FALSE(validate(scene)) << durations;
    }
    scene.blsDurations = "auto";
    scene.blsObjective = "power";
    EXPECT_FALSE(validate(scene));
    scene.blsObjective = "snr";
    EXPECT_TRUE(validate(scene));
}

} // namespace
} // namespace warpscope::scene::test

namespace warpscope::scene::test {
namespace {

// The spotted star of tests/fixtures/generate_period_methods.py (P = 4.217 d, two harmonics,
// 30-minute cadence) on a coarse grid, whose best sample is a few hundredths of a day off:
// the refined peak is the continuous maximum, within its stated uncertainty of the
// generator's period, and the uncertainty is the data's, far below the grid's step.
TEST(PeriodogramSession, LombScarglePeaksAreRefinedToTheDatasPrecision)
{
    gpu::TimeSeries spotted;
    for (const auto& row :
         gpu::test::readCsv(gpu::test::fixtureDir() + "/period-methods/spotted.csv")) {
        spotted.t.push_back(std::stod(row.at(0)));
        spotted.y.push_back(std::stod(row.at(1)));
        spotted.dy.push_back(std::stod(row.at(2)));
    }
    PeriodogramScene scene;
    scene.gridMode = GridMode::Linear;
    scene.fmin = 0.05;
    scene.fmax = 1.0;
    scene.count = 200;
    PeriodogramSession session(scene);
    ASSERT_TRUE(session.prepare(spotted));
    ASSERT_TRUE(session.makeRequest());
    auto context = gpu::test::cpuContext(2);
    ASSERT_TRUE(session.computeSpectrum(*context));
    const ReportedPeaks peaks = session.peaks(3);
    ASSERT_FALSE(peaks.peaks.empty());
    ASSERT_EQ(peaks.refined.size(), peaks.peaks.size());
    ASSERT_TRUE(peaks.refined[0]);
    const double gridPeriod = 1.0 / peaks.peaks[0].frequency;
    const RefinedPeak& r = *peaks.refined[0];
    const double period = 1.0 / r.frequency, error = r.error / (r.frequency * r.frequency);
    EXPECT_GT(std::abs(gridPeriod - 4.217), 0.01) << "the grid sample is off";
    EXPECT_LT(std::abs(period - 4.217), 3.0 * error) << period << " +- " << error;
    const double periodStep = (scene.fmax - scene.fmin) / double(scene.count - 1) * 4.217 * 4.217;
    EXPECT_LT(error, 0.1 * periodStep);
    EXPECT_GT(error, 0.0);
    EXPECT_EQ(r.how, "least-squares sinusoid");
}

} // namespace
} // namespace warpscope::scene::test

namespace warpscope::scene::test {
namespace {

// The eclipsing binary of tests/fixtures/generate_period_methods.py (P = 0.8123 d, unequal
// eclipses): Lomb-Scargle's highest peak is half the period, as astropy's; phase dispersion
// and conditional entropy, chosen by the scene's search, find the period itself.
TEST(PeriodogramSession, PhaseMethodsFindTheEclipsingBinarysPeriod)
{
    gpu::TimeSeries eclipsing;
    for (const auto& row :
         gpu::test::readCsv(gpu::test::fixtureDir() + "/period-methods/eclipsing.csv")) {
        eclipsing.t.push_back(std::stod(row.at(0)));
        eclipsing.y.push_back(std::stod(row.at(1)));
        eclipsing.dy.push_back(std::stod(row.at(2)));
    }
    auto context = gpu::test::cpuContext(2);
    for (const char* search : {"ls", "pdm", "ce"}) {
        SCOPED_TRACE(search);
        PeriodogramScene scene;
        scene.search = search;
        scene.gridMode = GridMode::Linear;
        scene.fmin = 0.2;
        scene.fmax = 3.0;
        scene.count = 2801;
        PeriodogramSession session(scene);
        ASSERT_TRUE(session.prepare(eclipsing));
        ASSERT_TRUE(session.makeRequest());
        ASSERT_TRUE(session.computeSpectrum(*context));
        const ReportedPeaks peaks = session.peaks(1);
        ASSERT_EQ(peaks.peaks.size(), 1u);
        const double expected = std::string(search) == "ls" ? 0.8123 / 2 : 0.8123;
        EXPECT_NEAR(1.0 / peaks.peaks[0].frequency, expected, 0.002);
        EXPECT_TRUE(session.traits().higherIsBetter);
    }
}

} // namespace
} // namespace warpscope::scene::test

namespace warpscope::scene::test {
namespace {

// Scenes and options check the period search against kPeriodSearches, so that reading a scene
// needs no computation: the list is the registry's built-in methods, in its order.
TEST(PeriodogramSession, TheScenesSearchesAreTheRegistrysBuiltInMethods)
{
    const std::vector<std::string> keys = periodogramMethodKeys();
    ASSERT_GE(keys.size(), kPeriodSearches.size());
    for (std::size_t i = 0; i < kPeriodSearches.size(); ++i)
        EXPECT_EQ(keys[i], kPeriodSearches[i]);
}

} // namespace
} // namespace warpscope::scene::test
