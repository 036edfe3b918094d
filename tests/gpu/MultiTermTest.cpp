// The multi-term periodogram against astropy's LombScargle(nterms=K) (method "chi2"), on the
// CPU and on a GPU, and the prewhitening fit against scipy's curve_fit; both fixtures come
// from tests/fixtures/generate_multiterm.py.
#include "TestSupport.h"
#include "warpscope/gpu/FrequencyFit.h"
#include "warpscope/gpu/Periodogram.h"

#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <tuple>

namespace warpscope::gpu::test {
namespace {

struct TermsCase
{
    bool logGrid = false;
    int nterms = 1;
    Normalization normalization = Normalization::Standard;
    bool fitMean = true, center = true;
    std::vector<double> power;
};

std::vector<TermsCase> loadTermsCases()
{
    std::map<std::tuple<std::string, int, std::string, bool, bool>, TermsCase> cases;
    for (const auto& row : readCsv(fixtureDir() + "/periodogram/power_nterms_H.csv")) {
        const auto key =
            std::make_tuple(row[0], std::stoi(row[1]), row[2], row[3] == "1", row[4] == "1");
        TermsCase& c = cases[key];
        c.logGrid = row[0] == "log";
        c.nterms = std::stoi(row[1]);
        c.normalization = *parseNormalization(row[2]);
        c.fitMean = row[3] == "1";
        c.center = row[4] == "1";
        c.power.push_back(std::stod(row[6]));
    }
    std::vector<TermsCase> out;
    for (auto& [key, c] : cases)
        out.push_back(c);
    return out;
}

// The grids of the fixture's header: fmin=0.01 df=0.0023 count=300; log 0.02 to 3.0, 200.
PeriodogramOptions termsOptions(const TermsCase& c, Precision precision)
{
    PeriodogramOptions o;
    o.grid = c.logGrid ? frequencyGrid(0.02, 3.0, 200, true) : FrequencyGrid{0.01, 0.0023, 300};
    o.nterms = c.nterms;
    o.normalization = c.normalization;
    o.fitMean = c.fitMean;
    o.centerData = c.center;
    o.precision = precision;
    return o;
}

// Largest error relative to the case's highest power: the power of K terms near its floor
// is the difference of nearly equal sums, so a relative error there says nothing.
double relativeToPeak(const std::vector<double>& p, const std::vector<double>& ref)
{
    double peak = 0.0, worst = 0.0;
    for (double r : ref)
        peak = std::max(peak, std::abs(r));
    for (std::size_t k = 0; k < ref.size(); ++k) {
        const double e = std::abs(p[k] - ref[k]) / peak;
        worst = std::isnan(e) ? INFINITY : std::max(worst, e);
    }
    return worst;
}

void expectMatchesAstropyTerms(Context& context, Precision precision, double tolerance)
{
    const TimeSeries series = loadFixtureSeries("H");
    const std::vector<TermsCase> cases = loadTermsCases();
    ASSERT_EQ(cases.size(), 6u * 4u * 3u + 1u);
    for (const TermsCase& c : cases) {
        const PeriodogramOptions o = termsOptions(c, precision);
        std::vector<double> power(c.power.size(), -1.0);
        ASSERT_TRUE(computePeriodogram(context, series, o, power))
            << c.nterms << " terms, " << normalizationName(c.normalization);
        EXPECT_LT(relativeToPeak(power, c.power), tolerance)
            << context.name() << ": " << c.nterms << " terms, "
            << normalizationName(c.normalization) << ", fit_mean " << c.fitMean << ", center "
            << c.center << (c.logGrid ? ", log grid" : "");
    }
}

TEST(MultiTermPeriodogram, CpuMatchesAstropy)
{
    auto context = cpuContext(2);
    expectMatchesAstropyTerms(*context, Precision::Float64, 1e-9);
    // One term in float32 is the float32 periodogram; more terms sum in double on the CPU.
    expectMatchesAstropyTerms(*context, Precision::Float32, 2e-5);
}

TEST(MultiTermPeriodogram, ThreeHarmonicsFindTheFundamental)
{
    // The fixture's light curve has overtones; one term puts power at 2f and 3f too, while
    // three terms put the highest peak at the fundamental.
    auto context = cpuContext(2);
    const TimeSeries series = loadFixtureSeries("H");
    PeriodogramOptions o;
    o.grid = frequencyGrid(0.05, 1.5, 20000, false);
    o.nterms = 3;
    std::vector<double> power(std::size_t(o.grid.count));
    ASSERT_TRUE(computePeriodogram(*context, series, o, power));
    const auto peaks = topPeaks(power, o.grid, 1);
    ASSERT_EQ(peaks.size(), 1u);
    EXPECT_NEAR(1.0 / peaks[0].frequency, 2.37, 0.01);
}

TEST(MultiTermPeriodogram, BadTermCountsAreExplained)
{
    auto context = cpuContext(1);
    const TimeSeries series = loadFixtureSeries("H");
    PeriodogramOptions o;
    o.grid = FrequencyGrid{0.01, 0.01, 10};
    std::vector<double> power(10);
    for (int bad : {0, 7, -3}) {
        o.nterms = bad;
        const Status s = computePeriodogram(*context, series, o, power);
        EXPECT_FALSE(s);
        EXPECT_NE(s.message().find("1 to 6 terms"), std::string::npos) << s.message();
    }
    // Six terms and a mean are 13 parameters: 13 points fit them exactly.
    TimeSeries few = series;
    few.t.resize(13);
    few.y.resize(13);
    few.dy.resize(13);
    o.nterms = 6;
    const Status s = computePeriodogram(*context, few, o, power);
    EXPECT_FALSE(s);
    EXPECT_NE(s.message().find("13 parameters"), std::string::npos) << s.message();
    few = series;
    few.t.resize(14);
    few.y.resize(14);
    few.dy.resize(14);
    EXPECT_TRUE(computePeriodogram(*context, few, o, power));
}

TEST(MultiTermPeriodogram, CpuPoisonsNothingItCovers)
{
    auto context = cpuContext(2);
    const TimeSeries series = loadFixtureSeries("H");
    PeriodogramOptions o;
    o.grid = FrequencyGrid{0.01, 0.001, 5000};
    o.nterms = 4;
    std::vector<double> power(std::size_t(o.grid.count), std::numeric_limits<double>::quiet_NaN());
    ASSERT_TRUE(computePeriodogram(*context, series, o, power));
    for (double p : power)
        ASSERT_TRUE(std::isfinite(p) && p >= 0.0 && p <= 1.0 + 1e-12) << p;
}

// The fold's model is the multi-term periodogram's fit: at any frequency, the share of the
// weighted variance it explains is astropy's standard power there.
TEST(MultiTermPeriodogram, HarmonicFitExplainsAstropysPower)
{
    const TimeSeries series = loadFixtureSeries("H");
    const FrequencyGrid grid{0.01, 0.0023, 300};
    double wsum = 0.0, wy = 0.0;
    for (std::size_t i = 0; i < series.t.size(); ++i) {
        wsum += 1.0 / (series.dy[i] * series.dy[i]);
        wy += series.y[i] / (series.dy[i] * series.dy[i]);
    }
    const double mean = wy / wsum;
    int checked = 0;
    for (const TermsCase& c : loadTermsCases()) {
        if (c.logGrid || c.normalization != Normalization::Standard || !c.fitMean)
            continue;
        for (long long k : {7LL, 125LL, 181LL, 299LL}) {
            const double f = grid.frequency(k);
            const HarmonicFit fit = fitHarmonics(series, f, c.nterms, true);
            ASSERT_EQ(fit.harmonics.size(), std::size_t(c.nterms));
            double chi2 = 0.0, chi2Ref = 0.0;
            for (std::size_t i = 0; i < series.t.size(); ++i) {
                const double w = 1.0 / (series.dy[i] * series.dy[i]);
                const double r = series.y[i] - fit.at(f, series.t[i]);
                chi2 += w * r * r;
                chi2Ref += w * (series.y[i] - mean) * (series.y[i] - mean);
            }
            EXPECT_NEAR(1.0 - chi2 / chi2Ref, c.power[std::size_t(k)], 1e-9)
                << c.nterms << " terms at f = " << f;
            ++checked;
        }
    }
    EXPECT_EQ(checked, 6 * 4);
    // All times equal: nothing to fit, and no NaN.
    TimeSeries flat = series;
    for (double& t : flat.t)
        t = 3.0;
    const HarmonicFit none = fitHarmonics(flat, 0.4, 2, true);
    EXPECT_TRUE(none.harmonics.empty());
    EXPECT_TRUE(std::isfinite(none.at(0.4, 3.0)));
}

class CudaMultiTermTest : public CudaContextTest
{};

TEST_F(CudaMultiTermTest, MatchesAstropy)
{
    expectMatchesAstropyTerms(*m_cuda, Precision::Float64, 1e-9);
    expectMatchesAstropyTerms(*m_cuda, Precision::Float32, 2e-5);
}

TEST_F(CudaMultiTermTest, MatchesTheCpuOnLargeGridsWithEveryLaunch)
{
    auto cpu = cpuContext(2);
    const TimeSeries series = loadFixtureSeries("H");
    for (int nterms : {2, 6}) {
        for (const PeriodogramLaunch& launch :
             {PeriodogramLaunch{128, 0, false}, PeriodogramLaunch{64, 7, true},
              PeriodogramLaunch{512, 0, false}}) {
            PeriodogramOptions o;
            o.grid = FrequencyGrid{0.003, 0.0001, 100003};
            o.nterms = nterms;
            o.launch = launch;
            std::vector<double> onCpu(std::size_t(o.grid.count)), onGpu(onCpu.size(), -1.0);
            ASSERT_TRUE(computePeriodogram(*cpu, series, o, onCpu));
            ASSERT_TRUE(computePeriodogram(*m_cuda, series, o, onGpu));
            for (double p : onGpu)
                ASSERT_TRUE(std::isfinite(p) && p >= 0.0 && p <= 1.0) << p;
            // Below one cycle over the data (1 / baseline), six terms are close to singular
            // (condition numbers up to 1e17 here, by numpy): the powers there are rounding,
            // zeroed past 1e9 and otherwise the devices' own. Peaks are never reported there.
            const long long from = std::max(
                0LL, (long long)std::ceil((1.0 / timeBaseline(series) - o.grid.fmin) / o.grid.df));
            onCpu.erase(onCpu.begin(), onCpu.begin() + from);
            onGpu.erase(onGpu.begin(), onGpu.begin() + from);
            EXPECT_LT(relativeToPeak(onGpu, onCpu), 1e-10)
                << nterms << " terms, block " << launch.blockThreads;
        }
    }
}

TEST_F(CudaMultiTermTest, MatrixMethodIsRefusedWithTheReason)
{
    const TimeSeries series = loadFixtureSeries("H");
    PeriodogramOptions o;
    o.grid = FrequencyGrid{0.01, 0.01, 100};
    o.nterms = 2;
    o.method = PeriodogramMethod::Matrix;
    std::vector<double> power(100);
    const Status s = computePeriodogram(*m_cuda, series, o, power);
    EXPECT_FALSE(s);
    EXPECT_NE(s.message().find("direct kernel"), std::string::npos) << s.message();
}

struct ScipyFit
{
    double offset = 0.0, offsetError = 0.0;
    std::vector<FittedSinusoid> terms;
};

ScipyFit loadScipyFit(const std::string& which, double& epoch)
{
    std::string comments;
    ScipyFit fit;
    for (const auto& row : readCsv(fixtureDir() + "/periodogram/fit_P.csv", &comments)) {
        if (row[0] != which)
            continue;
        const double value = std::stod(row[2]), error = std::stod(row[3]);
        if (row[1] == "offset") {
            fit.offset = value;
            fit.offsetError = error;
            continue;
        }
        const std::size_t k = std::size_t(row[1].back() - '0');
        fit.terms.resize(std::max(fit.terms.size(), k + 1));
        FittedSinusoid& s = fit.terms[k];
        if (row[1].starts_with("frequency"))
            std::tie(s.frequency, s.frequencyError) = std::tie(value, error);
        else if (row[1].starts_with("amplitude"))
            std::tie(s.amplitude, s.amplitudeError) = std::tie(value, error);
        else
            std::tie(s.phase, s.phaseError) = std::tie(value, error);
    }
    epoch = std::stod(comments.substr(comments.find("epoch=") + 6));
    return fit;
}

// Values to 1e-4 of their error bar: a step of e sigma changes chi-square by about e^2, and
// below e = 1e-5 that is under double's rounding of a chi-square near 2000, so neither fit can
// tell such points apart (here they differ by up to 1e-5 sigma, and this fit's chi-square is
// the lower). Errors to 1e-5 relative: both come from the same linearisation at that minimum.
void expectMatchesScipy(const FrequencyFit& fit, const ScipyFit& ref)
{
    EXPECT_NEAR(fit.offset, ref.offset, 1e-4 * ref.offsetError);
    EXPECT_NEAR(fit.offsetError, ref.offsetError, 1e-5 * ref.offsetError);
    ASSERT_EQ(fit.terms.size(), ref.terms.size());
    for (std::size_t k = 0; k < ref.terms.size(); ++k) {
        const FittedSinusoid &a = fit.terms[k], &b = ref.terms[k];
        EXPECT_NEAR(a.frequency, b.frequency, 1e-4 * b.frequencyError) << k;
        EXPECT_NEAR(a.amplitude, b.amplitude, 1e-4 * b.amplitudeError) << k;
        EXPECT_NEAR(a.phase, b.phase, 1e-4 * b.phaseError) << k;
        EXPECT_NEAR(a.frequencyError, b.frequencyError, 1e-5 * b.frequencyError) << k;
        EXPECT_NEAR(a.amplitudeError, b.amplitudeError, 1e-5 * b.amplitudeError) << k;
        EXPECT_NEAR(a.phaseError, b.phaseError, 1e-5 * b.phaseError) << k;
    }
}

TEST(FrequencyFit, OneSinusoidMatchesScipy)
{
    const TimeSeries series = loadFixtureSeries("P");
    double epoch = 0.0;
    const ScipyFit ref = loadScipyFit("single", epoch);
    FrequencyFit fit;
    ASSERT_TRUE(fitFrequencies(series, {0.7305}, fit));
    EXPECT_DOUBLE_EQ(fit.epoch, epoch);
    expectMatchesScipy(fit, ref);
}

TEST(FrequencyFit, ThreeSinusoidsAtOnceMatchScipy)
{
    const TimeSeries series = loadFixtureSeries("P");
    double epoch = 0.0;
    const ScipyFit ref = loadScipyFit("all", epoch);
    FrequencyFit fit;
    ASSERT_TRUE(fitFrequencies(series, {0.7305, 1.1725, 0.2212}, fit));
    expectMatchesScipy(fit, ref);
}

TEST(FrequencyFit, PrewhiteningFindsEachSinusoidInTurn)
{
    // The periodogram of the residuals after each fitted sinusoid has the next one highest.
    auto context = cpuContext(2);
    TimeSeries residuals = loadFixtureSeries("P");
    const double epoch = fitEpoch(residuals);
    PeriodogramOptions o;
    o.grid = frequencyGrid(0.05, 2.0, 40000, false);
    std::vector<FittedSinusoid> found;
    for (double expected : {0.731, 1.173, 0.2217}) {
        std::vector<double> power(std::size_t(o.grid.count));
        ASSERT_TRUE(computePeriodogram(*context, residuals, o, power));
        const auto peaks = topPeaks(power, o.grid, 1);
        ASSERT_EQ(peaks.size(), 1u);
        EXPECT_NEAR(peaks[0].frequency, expected, 0.002);
        FrequencyFit fit;
        ASSERT_TRUE(fitFrequencies(residuals, {peaks[0].frequency}, fit));
        EXPECT_EQ(fit.epoch, epoch); // the residuals keep the times, so the epoch stays
        found.push_back(fit.terms[0]);
        residuals = subtractSinusoids(residuals, fit.terms, fit.epoch);
    }
    // What is left is the noise: its weighted rms is close to the typical dy (0.1 to 0.3).
    FrequencyFit all;
    ASSERT_TRUE(fitFrequencies(loadFixtureSeries("P"),
                               {found[0].frequency, found[1].frequency, found[2].frequency}, all));
    EXPECT_LT(all.residualRms, 0.3);
    EXPECT_GT(all.residualRms, 0.1);
}

TEST(FrequencyFit, HostileRequestsAreExplained)
{
    const TimeSeries series = loadFixtureSeries("P");
    FrequencyFit fit;
    const auto message = [&](const TimeSeries& s, const std::vector<double>& f) {
        const Status status = fitFrequencies(s, f, fit);
        EXPECT_FALSE(status);
        return status.message();
    };
    EXPECT_NE(message(series, {}).find("No frequency"), std::string::npos);
    EXPECT_NE(message(series, {0.0}).find("above 0"), std::string::npos);
    EXPECT_NE(message(series, {std::nan("")}).find("above 0"), std::string::npos);
    EXPECT_NE(message(series, {0.731, 0.7311}).find("closer than"), std::string::npos);
    TimeSeries few = series;
    few.t.resize(4);
    few.y.resize(4);
    few.dy.resize(4);
    EXPECT_NE(message(few, {0.731}).find("more points than parameters"), std::string::npos);
    TimeSeries bad = series;
    bad.y[17] = std::nan("");
    EXPECT_NE(message(bad, {0.731}).find("row 18"), std::string::npos);
    bad = series;
    bad.dy[3] = 0.0;
    EXPECT_NE(message(bad, {0.731}).find("row 4"), std::string::npos);
    TimeSeries flat = series;
    for (double& t : flat.t)
        t = 5.0;
    EXPECT_NE(message(flat, {0.731}).find("no span"), std::string::npos);
}

TEST(FrequencyFit, NoiselessDataAreFitExactly)
{
    TimeSeries s;
    for (int i = 0; i < 200; ++i) {
        const double t = 1000.0 + i * 0.37 + 0.1 * std::sin(i);
        s.t.push_back(t);
        s.y.push_back(3.0 + 2.0 * std::sin(2.0 * M_PI * (0.41 * (t - 1036.9) + 0.2)));
    }
    FrequencyFit fit;
    ASSERT_TRUE(fitFrequencies(s, {0.4101}, fit));
    // The epoch is the middle of the span, so the phase moves with it.
    const double phase = 0.2 + 0.41 * (fit.epoch - 1036.9);
    EXPECT_NEAR(fit.terms[0].frequency, 0.41, 1e-10);
    EXPECT_NEAR(fit.terms[0].amplitude, 2.0, 1e-9);
    EXPECT_NEAR(fit.offset, 3.0, 1e-9);
    EXPECT_NEAR(std::remainder(fit.terms[0].phase - phase, 1.0), 0.0, 1e-9);
    EXPECT_LT(fit.residualRms, 1e-9);
    for (std::size_t i = 0; i < s.t.size(); ++i)
        EXPECT_NEAR(fit.at(s.t[i]), s.y[i], 1e-8);
}

} // namespace
} // namespace warpscope::gpu::test
