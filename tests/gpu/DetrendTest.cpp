#include "warpscope/gpu/Detrend.h"

#include "TestSupport.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <numbers>
#include <tuple>

namespace warpscope::gpu::test {
namespace {

TimeSeries detrendSeries(const std::string& name)
{
    TimeSeries s;
    for (const auto& row : readCsv(fixtureDir() + "/periodogram/detrend_series_" + name + ".csv")) {
        s.t.push_back(std::stod(row[0]));
        s.y.push_back(std::stod(row[1]));
        s.dy.push_back(std::stod(row[2]));
    }
    return s;
}

// numpy's trends from detrend.csv, by (series, method, parameter, weighted).
using Key = std::tuple<std::string, std::string, std::string, bool>;
std::map<Key, std::vector<double>> numpyTrends()
{
    std::map<Key, std::vector<double>> trends;
    for (const auto& row : readCsv(fixtureDir() + "/periodogram/detrend.csv"))
        trends[{row[0], row[1], row[2], row[3] == "1"}].push_back(std::stod(row[5]));
    return trends;
}

double largestMagnitude(const std::vector<double>& v)
{
    double m = 0.0;
    for (const double x : v)
        m = std::max(m, std::abs(x));
    return m;
}

// D lies near MJD 58000, E near JD 2450000: both must match numpy's centred fit to 1e-9 of the
// largest |y| (two stable least-squares solutions of a well-conditioned system agree to a few
// units in the last place times the condition number, about 1e4 at degree 5 on [-1, 1]).
TEST(Detrend, PolynomialMatchesNumpyPolyfitAtMjdAndJdTimes)
{
    const auto trends = numpyTrends();
    int compared = 0;
    for (const std::string name : {"D", "E"}) {
        const TimeSeries series = detrendSeries(name);
        const double scale = largestMagnitude(series.y);
        for (int degree = 0; degree <= kMaxDetrendDegree; ++degree) {
            for (const bool weighted : {true, false}) {
                TimeSeries input = series;
                if (!weighted)
                    input.dy.clear();
                std::vector<double> trend;
                TimeSeries residuals;
                const Status s =
                    detrend(input, {DetrendMethod::Polynomial, degree, 1.0}, trend, residuals);
                ASSERT_TRUE(s) << s.message();
                const auto& expected =
                    trends.at({name, "polynomial", std::to_string(degree), weighted});
                ASSERT_EQ(trend.size(), expected.size());
                for (std::size_t i = 0; i < trend.size(); ++i) {
                    EXPECT_NEAR(trend[i], expected[i], 1e-9 * scale)
                        << name << " degree " << degree << " weighted " << weighted << " i " << i;
                    EXPECT_DOUBLE_EQ(residuals.y[i], input.y[i] - trend[i]);
                }
                EXPECT_EQ(residuals.t, input.t);
                EXPECT_EQ(residuals.dy, input.dy);
                ++compared;
            }
        }
    }
    EXPECT_EQ(compared, 24);
}

// The median of the same points is the same number: exact, but for the halving of an even
// count's two middle values (a few ulp).
TEST(Detrend, RunningMedianMatchesNumpy)
{
    const auto trends = numpyTrends();
    int compared = 0;
    for (const auto& [key, expected] : trends) {
        const auto& [name, method, parameter, weighted] = key;
        if (method != "median")
            continue;
        const TimeSeries series = detrendSeries(name);
        std::vector<double> trend;
        TimeSeries residuals;
        const Status s = detrend(series, {DetrendMethod::RunningMedian, 1, std::stod(parameter)},
                                 trend, residuals);
        ASSERT_TRUE(s) << s.message();
        ASSERT_EQ(trend.size(), expected.size());
        for (std::size_t i = 0; i < trend.size(); ++i)
            EXPECT_NEAR(trend[i], expected[i], 1e-14 * std::abs(expected[i]) + 1e-300)
                << name << " window " << parameter << " i " << i;
        ++compared;
    }
    EXPECT_EQ(compared, 6);
}

TEST(Detrend, RunningMedianCountsEdgesAndEqualTimesAndFollowsUnsortedInput)
{
    // Unsorted, with two points at t = 2: the trend comes back in the input's order.
    const TimeSeries series{
        {3.0, 0.0, 2.0, 1.0, 2.0, 5.0}, {30.0, 0.0, 20.0, 10.0, 21.0, 50.0}, {}};
    std::vector<double> trend;
    TimeSeries residuals;
    ASSERT_TRUE(detrend(series, {DetrendMethod::RunningMedian, 1, 2.0}, trend, residuals));
    // Window +-1, edges included: t=3 sees 2, 2, 3 -> {20, 21, 30}; t=0 sees 0, 1 -> mean of
    // 0 and 10; t=2 sees 1, 2, 2, 3 -> mean of 20 and 21; t=1 sees 0, 1, 2, 2; t=5 alone.
    const std::vector<double> expected{21.0, 5.0, 20.5, 15.0, 20.5, 50.0};
    EXPECT_EQ(trend, expected);
    EXPECT_EQ(residuals.y[5], 0.0);
}

TEST(Detrend, PolynomialIsExactOnAPolynomialAndFollowsWeights)
{
    TimeSeries series;
    for (int i = 0; i < 50; ++i) {
        const double t = 2.45e6 + 0.37 * i;
        const double u = t - 2.45e6;
        series.t.push_back(t);
        series.y.push_back(1.0 - 0.5 * u + 0.02 * u * u);
    }
    std::vector<double> trend;
    TimeSeries residuals;
    ASSERT_TRUE(detrend(series, {DetrendMethod::Polynomial, 2, 1.0}, trend, residuals));
    for (std::size_t i = 0; i < trend.size(); ++i)
        EXPECT_NEAR(residuals.y[i], 0.0, 1e-11) << i;
    // One point a million times more certain than the rest pins a constant to itself.
    TimeSeries weighted{{0.0, 1.0, 2.0}, {1.0, 5.0, 1.0}, {1.0, 1e-6, 1.0}};
    ASSERT_TRUE(detrend(weighted, {DetrendMethod::Polynomial, 0, 1.0}, trend, residuals));
    EXPECT_NEAR(trend[0], 5.0, 1e-9);
    // Values near double's limit are scaled, not overflowed.
    TimeSeries huge{{0.0, 1.0, 2.0, 3.0}, {1e307, -1e307, 1e307, -1e307}, {}};
    ASSERT_TRUE(detrend(huge, {DetrendMethod::Polynomial, 1, 1.0}, trend, residuals));
    for (const double r : residuals.y)
        EXPECT_TRUE(std::isfinite(r));
}

TEST(Detrend, BadInputSaysWhyAndNeverGivesNaN)
{
    const TimeSeries series{{0.0, 1.0, 2.0}, {1.0, 2.0, 3.0}, {}};
    std::vector<double> trend;
    TimeSeries residuals;
    const auto message = [&](const TimeSeries& s, DetrendOptions o) {
        const Status status = detrend(s, o, trend, residuals);
        EXPECT_FALSE(status);
        return status.message();
    };
    for (const double window : {0.0, -1.0, double(NAN), double(INFINITY)})
        EXPECT_NE(message(series, {DetrendMethod::RunningMedian, 1, window}).find("window"),
                  std::string::npos);
    for (const int degree : {-1, 6, 9})
        EXPECT_NE(
            message(series, {DetrendMethod::Polynomial, degree, 1.0}).find("degree must be 0 to 5"),
            std::string::npos);
    EXPECT_NE(
        message(series, {DetrendMethod::Polynomial, 3, 1.0}).find("at least 4 distinct times"),
        std::string::npos);
    const TimeSeries repeated{{1.0, 1.0, 1.0, 2.0}, {1.0, 2.0, 3.0, 4.0}, {}};
    EXPECT_NE(message(repeated, {DetrendMethod::Polynomial, 2, 1.0}).find("there are 2"),
              std::string::npos);
    const TimeSeries withNan{{0.0, 1.0, 2.0}, {1.0, NAN, 3.0}, {}};
    EXPECT_NE(message(withNan, {DetrendMethod::Polynomial, 1, 1.0}).find("Point 2"),
              std::string::npos);
    EXPECT_NE(message(TimeSeries{}, {DetrendMethod::RunningMedian, 1, 1.0}).find("no points"),
              std::string::npos);
    // A residual beyond double's range is refused rather than shown as infinity.
    const TimeSeries overflow{{0.0, 1.0, 2.0}, {1.7e308, 1.7e308, -1.7e308}, {}};
    EXPECT_NE(message(overflow, {DetrendMethod::Polynomial, 0, 1.0}).find("beyond the range"),
              std::string::npos);
}

TEST(Masks, LeaveOutThePointsInsideAndCountThem)
{
    const TimeSeries series{{0.0, 1.0, 2.0, 3.0, 4.0, 5.0}, {0, 1, 2, 3, 4, 5}, {1, 1, 1, 2, 2, 2}};
    std::size_t masked = 0;
    // Overlapping and nested ranges, edges included, in no particular order.
    const TimeSeries kept =
        applyMasks(series, {{3.5, 4.0}, {1.0, 2.0}, {0.5, 1.5}, {1.2, 1.3}}, &masked);
    EXPECT_EQ(masked, 3u);
    EXPECT_EQ(kept.t, (std::vector<double>{0.0, 3.0, 5.0}));
    EXPECT_EQ(kept.y, (std::vector<double>{0.0, 3.0, 5.0}));
    EXPECT_EQ(kept.dy, (std::vector<double>{1.0, 2.0, 2.0}));
    EXPECT_EQ(applyMasks(series, {}, &masked).t.size(), 6u);
    EXPECT_EQ(masked, 0u);
    // A later range that starts inside an earlier, longer one is still covered.
    EXPECT_EQ(applyMasks(series, {{0.0, 5.0}, {1.0, 1.0}}, &masked).t.size(), 0u);
    EXPECT_EQ(masked, 6u);
}

TEST(Masks, RefuseReversedNonFiniteAndTooManyRanges)
{
    EXPECT_TRUE(validateMasks({{1.0, 2.0}, {3.0, 3.0}}));
    const Status reversed = validateMasks({{1.0, 2.0}, {5.0, 4.0}});
    EXPECT_NE(reversed.message().find("Masked range 2 is reversed"), std::string::npos)
        << reversed.message();
    EXPECT_FALSE(validateMasks({{NAN, 2.0}}));
    EXPECT_FALSE(validateMasks({{0.0, INFINITY}}));
    const Status many = validateMasks(std::vector<TimeRange>(kMaxMasks + 1, {0.0, 1.0}));
    EXPECT_NE(many.message().find("at most 10000"), std::string::npos) << many.message();
}

} // namespace
} // namespace warpscope::gpu::test
