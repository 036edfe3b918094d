// Box least squares against astropy's BoxLeastSquares (method="slow", exact), on the CPU and
// on CUDA: tests/fixtures/period-methods/, made by tests/fixtures/generate_period_methods.py.
#include "warpscope/gpu/BoxLeastSquares.h"

#include "TestSupport.h"

#include <map>

namespace warpscope::gpu::test {
namespace {

std::string methodsDir()
{
    return fixtureDir() + "/period-methods/";
}

TimeSeries loadMethodSeries(const std::string& name)
{
    TimeSeries s;
    for (const auto& row : readCsv(methodsDir() + name + ".csv")) {
        s.t.push_back(std::stod(row.at(0)));
        s.y.push_back(std::stod(row.at(1)));
        s.dy.push_back(std::stod(row.at(2)));
    }
    return s;
}

// The fixture's trial periods, durations and astropy's figures, one row per period.
struct BlsFixture
{
    std::vector<double> periods, durations;
    std::vector<std::vector<double>> rows; // period, power, depth, depth_err, duration,
                                           // transit_time, depth_snr, log_likelihood
};

BlsFixture loadBls(const std::string& objective)
{
    BlsFixture f;
    std::string comments;
    for (const auto& row : readCsv(methodsDir() + "bls_" + objective + ".csv", &comments)) {
        std::vector<double> values;
        for (const auto& field : row)
            values.push_back(std::stod(field));
        f.periods.push_back(values.at(0));
        f.rows.push_back(values);
    }
    std::istringstream in(comments.substr(comments.find("# durations") + 11));
    for (double d; in >> d;)
        f.durations.push_back(d);
    return f;
}

void expectRelative(double actual, double expected, double tolerance, const std::string& what)
{
    EXPECT_LE(std::abs(actual - expected), tolerance * std::abs(expected)) << what;
}

// Every figure of every period within 1e-6 relative of astropy's (durations exactly); the
// transit time is compared modulo the period, where 0 and the period are the same box.
void expectMatchesAstropy(Context& context, const std::string& objective)
{
    const TimeSeries series = loadMethodSeries("transit");
    const BlsFixture f = loadBls(objective);
    ASSERT_EQ(f.durations.size(), 3u);
    ASSERT_EQ(f.rows.size(), 400u);
    BlsOptions options;
    options.durations = f.durations;
    options.objective = objective == "snr" ? BlsObjective::Snr : BlsObjective::Likelihood;
    BlsResult r;
    ASSERT_TRUE(computeBoxLeastSquares(context, series, f.periods, options, r));
    ASSERT_EQ(r.size(), f.rows.size());
    for (std::size_t k = 0; k < f.rows.size(); ++k) {
        const auto& e = f.rows[k];
        const std::string at = objective + " period " + std::to_string(e[0]);
        expectRelative(r.power[k], e[1], 1e-6, at + " power");
        expectRelative(r.depth[k], e[2], 1e-6, at + " depth");
        expectRelative(r.depthErr[k], e[3], 1e-6, at + " depth_err");
        EXPECT_EQ(r.duration[k], e[4]) << at << " duration";
        const double dt = std::remainder(r.transitTime[k] - e[5], e[0]);
        EXPECT_LE(std::abs(dt), 1e-9 * e[0])
            << at << " transit_time " << r.transitTime[k] << " vs " << e[5];
        expectRelative(r.depthSnr[k], e[6], 1e-6, at + " depth_snr");
        expectRelative(r.logLikelihood[k], e[7], 1e-6, at + " log_likelihood");
    }
}

TEST(BoxLeastSquares, LikelihoodMatchesAstropyOnTheCpu)
{
    expectMatchesAstropy(*cpuContext(), "likelihood");
}

TEST(BoxLeastSquares, SnrMatchesAstropyOnTheCpu)
{
    expectMatchesAstropy(*cpuContext(), "snr");
}

// The transit fixture's planet: P = 3.5725 d, 2.5 h, first mid-transit at 1.3 d (the
// generator's values, not astropy's output).
TEST(BoxLeastSquares, FindsThePlantedTransit)
{
    const TimeSeries series = loadMethodSeries("transit");
    std::vector<double> periods;
    for (int k = 0; k < 4000; ++k)
        periods.push_back(2.0 + 3.0 * k / 3999.0);
    BlsOptions options;
    options.durations = {0.05, 0.08, 0.1, 0.12, 0.15};
    BlsResult r;
    ASSERT_TRUE(computeBoxLeastSquares(*cpuContext(), series, periods, options, r));
    const auto best = std::max_element(r.power.begin(), r.power.end()) - r.power.begin();
    EXPECT_NEAR(periods[best], 3.5725, 0.002);
    EXPECT_NEAR(r.depth[best], 0.005, 0.0005);
    EXPECT_NEAR(r.duration[best], 0.1, 0.021);
    EXPECT_NEAR(std::remainder(r.transitTime[best] - 1.3, periods[best]), 0.0, 0.01);
}

TEST(BoxLeastSquares, StatsMatchAstropy)
{
    const TimeSeries series = loadMethodSeries("transit");
    std::string comments;
    std::map<std::string, double> e;
    for (const auto& row : readCsv(methodsDir() + "bls_stats.csv", &comments))
        e[row.at(0)] = std::stod(row.at(1));
    auto value = [&](const std::string& key) {
        const auto at = comments.find(key + "=");
        return std::stod(comments.substr(at + key.size() + 1));
    };
    BlsStats s;
    ASSERT_TRUE(computeBlsStats(series, value("period"), value("duration"), value("transit_time"),
                                true, s));
    const std::pair<const char*, const BlsDepth*> depths[] = {{"depth", &s.depth},
                                                              {"depth_odd", &s.depthOdd},
                                                              {"depth_even", &s.depthEven},
                                                              {"depth_half", &s.depthHalf},
                                                              {"depth_phased", &s.depthPhased}};
    for (const auto& [key, d] : depths) {
        expectRelative(d->value, e.at(key), 1e-9, key);
        expectRelative(d->error, e.at(std::string(key) + "_err"), 1e-9, std::string(key) + "_err");
    }
    expectRelative(s.harmonicAmplitude, e.at("harmonic_amplitude"), 1e-6, "harmonic_amplitude");
    expectRelative(s.harmonicDeltaLogLikelihood, e.at("harmonic_delta_log_likelihood"), 1e-6,
                   "harmonic_delta_log_likelihood");
    std::size_t transits = 0;
    while (e.count("transit_time_" + std::to_string(transits)))
        ++transits;
    ASSERT_EQ(s.transitTimes.size(), transits);
    for (std::size_t i = 0; i < transits; ++i) {
        const std::string n = std::to_string(i);
        expectRelative(s.transitTimes[i], e.at("transit_time_" + n), 1e-12, "transit_time_" + n);
        EXPECT_EQ(double(s.perTransitCount[i]), e.at("count_" + n)) << "count_" << n;
        EXPECT_NEAR(s.perTransitLogLikelihood[i], e.at("log_likelihood_" + n),
                    1e-6 * std::abs(e.at("log_likelihood_" + n)) + 1e-9)
            << "log_likelihood_" << n;
    }
}

TEST(BoxLeastSquares, HostileRequestsAreExplained)
{
    const TimeSeries series = loadMethodSeries("transit");
    auto context = cpuContext();
    BlsResult r;
    auto fails = [&](const TimeSeries& s, std::vector<double> periods, BlsOptions o,
                     const std::string& says) {
        const Status status = computeBoxLeastSquares(*context, s, periods, o, r);
        EXPECT_FALSE(status);
        EXPECT_NE(status.message().find(says), std::string::npos) << status.message();
    };
    BlsOptions ok;
    ok.durations = {0.1};
    fails(series, {}, ok, "at least one trial period");
    fails(series, {0.05}, ok, "shorter than the shortest trial period");
    fails(series, {std::nan("")}, ok, "periods must be above 0");
    BlsOptions noDurations;
    fails(series, {3.0}, noDurations, "durations");
    BlsOptions negative = ok;
    negative.durations = {-0.1};
    fails(series, {3.0}, negative, "durations must be above 0");
    BlsOptions oversample = ok;
    oversample.oversample = 0;
    fails(series, {3.0}, oversample, "oversampling");
    BlsOptions tiny = ok;
    tiny.durations = {1e-9};
    fails(series, {1e3}, tiny, "phase bins");
    TimeSeries bad = series;
    bad.y[5] = std::numeric_limits<double>::infinity();
    fails(bad, {3.0}, ok, "not a finite number");
    TimeSeries two{{0.0, 1.0}, {1.0, 2.0}, {}};
    fails(two, {3.0}, ok, "at least 3 points");
    // A flat series has no box lower than the rest: power 0 everywhere, never NaN.
    TimeSeries flat = series;
    std::fill(flat.y.begin(), flat.y.end(), 1.0);
    ASSERT_TRUE(computeBoxLeastSquares(*context, flat, std::vector<double>{2.0, 3.0}, ok, r));
    EXPECT_EQ(r.power[0], 0.0);
    EXPECT_EQ(r.depth[1], 0.0);
}

TEST(BoxLeastSquares, AutomaticDurationsFollowTheCadence)
{
    const TimeSeries series = loadMethodSeries("transit"); // 10-minute cadence, 27 days
    const std::vector<double> d = automaticBlsDurations(series);
    ASSERT_EQ(d.size(), 10u);
    EXPECT_NEAR(d.front(), 3 * 10.0 / 1440.0, 1e-9);
    EXPECT_NEAR(d.back(), 0.5, 1e-9);
    EXPECT_TRUE(std::is_sorted(d.begin(), d.end()));
    EXPECT_TRUE(automaticBlsDurations(TimeSeries{{1.0, 1.0}, {0.0, 0.0}, {}}).empty());
}

class CudaBoxLeastSquaresTest : public CudaContextTest
{};

TEST_F(CudaBoxLeastSquaresTest, LikelihoodMatchesAstropy)
{
    expectMatchesAstropy(*m_cuda, "likelihood");
}

TEST_F(CudaBoxLeastSquaresTest, SnrMatchesAstropy)
{
    expectMatchesAstropy(*m_cuda, "snr");
}

// Periods whose bins exceed shared memory take the global-memory path: the same figures as
// the CPU's.
TEST_F(CudaBoxLeastSquaresTest, LongPeriodsMatchTheCpu)
{
    const TimeSeries series = loadMethodSeries("transit");
    const std::vector<double> periods{2.0, 13.0, 26.0};
    BlsOptions options;
    options.durations = {0.01, 0.1};
    options.oversample = 50;
    BlsResult cpu, cuda;
    ASSERT_TRUE(computeBoxLeastSquares(*cpuContext(), series, periods, options, cpu));
    ASSERT_TRUE(computeBoxLeastSquares(*m_cuda, series, periods, options, cuda));
    for (std::size_t k = 0; k < periods.size(); ++k) {
        expectRelative(cuda.power[k], cpu.power[k], 1e-9, "power");
        EXPECT_EQ(cuda.duration[k], cpu.duration[k]);
        EXPECT_EQ(cuda.transitTime[k], cpu.transitTime[k]);
    }
}

} // namespace
} // namespace warpscope::gpu::test
