// The periodogram batch against the periodogram of one series at a time: on the CPU the same
// powers (the same chunks of the same code), on CUDA within the precision's tolerance of the
// CPU's, and bad objects failing in their own rows.
#include "warpscope/gpu/PeriodogramBatch.h"

#include "TestSupport.h"
#include "periodogram/PeriodogramBatchShared.h"

#include <algorithm>
#include <atomic>
#include <numbers>
#include <random>

namespace warpscope::gpu::test {
namespace {

// A noisy sinusoid at n random times over 200 days, with dy unless withoutErrors.
TimeSeries randomSeries(std::size_t n, std::uint64_t seed, bool withErrors = true)
{
    std::mt19937_64 random(seed);
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    std::normal_distribution<double> normal(0.0, 1.0);
    const double period = 0.3 + 20.0 * uniform(random);
    TimeSeries s;
    for (std::size_t i = 0; i < n; ++i) {
        const double t = 58000.0 + 200.0 * uniform(random);
        const double dy = 0.05 + 0.2 * uniform(random);
        s.t.push_back(t);
        s.y.push_back(12.0 + std::sin(2.0 * std::numbers::pi * t / period) + dy * normal(random));
        if (withErrors)
            s.dy.push_back(dy);
    }
    return s;
}

// Objects of 3 to 5000 points, large and small mixed, some without dy.
std::vector<TimeSeries> mixedObjects()
{
    std::vector<TimeSeries> objects;
    const std::size_t sizes[] = {300, 3, 5000, 17, 256, 257, 1000, 4, 511, 2048, 100, 5};
    std::uint64_t seed = 11;
    for (const std::size_t n : sizes) {
        ++seed;
        objects.push_back(randomSeries(n, seed, seed % 3 != 0));
    }
    return objects;
}

PeriodogramOptions batchOptions(Precision precision, bool logarithmic = false,
                                Normalization normalization = Normalization::Standard)
{
    PeriodogramOptions options;
    options.grid = frequencyGrid(0.01, 8.0, 3001, logarithmic);
    options.precision = precision;
    options.normalization = normalization;
    options.method = PeriodogramMethod::Direct;
    return options;
}

// Each object on its own with computePeriodogram: its powers, or its failure.
struct Single
{
    Status status;
    std::vector<double> power;
    std::size_t points = 0;
};

std::vector<Single> oneByOne(Context& context, const std::vector<TimeSeries>& objects,
                             const PeriodogramOptions& options)
{
    std::vector<Single> out;
    for (const TimeSeries& s : objects) {
        Single one;
        one.points = s.t.size();
        one.power.assign(std::size_t(options.grid.count), 0.0);
        one.status = computePeriodogram(context, s, options, one.power);
        out.push_back(std::move(one));
    }
    return out;
}

struct Batch
{
    Status status;
    std::vector<Status> perObject;
    std::vector<double> power;
};

Batch batch(Context& context, const std::vector<TimeSeries>& objects,
            const PeriodogramOptions& options)
{
    Batch b;
    // Poisoned with a finite value the batch must overwrite, row by row.
    b.power.assign(objects.size() * std::size_t(options.grid.count), -7.0);
    b.status = computePeriodogramBatch(context, objects, options, b.power, &b.perObject);
    return b;
}

std::span<const double> row(const Batch& b, std::size_t i, const PeriodogramOptions& options)
{
    const std::size_t count = std::size_t(options.grid.count);
    return std::span<const double>(b.power).subspan(i * count, count);
}

// The batch's powers against each object's own, within tolerance x the object's highest
// power (0: equal bit for bit); failures must match too.
void expectSameAsOneByOne(const Batch& b, const std::vector<Single>& singles,
                          const PeriodogramOptions& options, double tolerance)
{
    ASSERT_TRUE(b.status) << b.status.message();
    ASSERT_EQ(b.perObject.size(), singles.size());
    for (std::size_t i = 0; i < singles.size(); ++i) {
        SCOPED_TRACE("object " + std::to_string(i));
        const auto got = row(b, i, options);
        ASSERT_EQ(bool(b.perObject[i]), bool(singles[i].status)) << b.perObject[i].message();
        if (!singles[i].status) {
            EXPECT_EQ(b.perObject[i].message(), singles[i].status.message());
            EXPECT_TRUE(std::all_of(got.begin(), got.end(), [](double p) { return std::isnan(p); }))
                << "a failed object's row must be NaN";
            continue;
        }
        const double peak = *std::max_element(singles[i].power.begin(), singles[i].power.end());
        ASSERT_GT(peak, 0.0);
        if (tolerance > 0.0 && singles[i].points < 6) {
            // 3 to 5 points against the 3 parameters of a floating-mean sinusoid: the normal
            // equations are nearly singular at many frequencies, so two correct sums differ by
            // rounding amplified without bound. Both must still be finite and in range.
            for (const double p : got)
                EXPECT_TRUE(std::isfinite(p) && p >= 0.0 &&
                            (options.normalization != Normalization::Standard || p <= 1.0))
                    << p;
            continue;
        }
        long long differing = 0;
        double worst = 0.0;
        for (std::size_t k = 0; k < got.size(); ++k) {
            ASSERT_TRUE(std::isfinite(got[k])) << "power " << k << " not written";
            const double error = std::abs(got[k] - singles[i].power[k]);
            worst = std::max(worst, error / peak);
            differing += error > tolerance * peak;
        }
        EXPECT_EQ(differing, 0) << "worst error " << worst << " of the peak";
    }
}

TEST(PeriodogramBatch, CpuEqualsEachObjectOnItsOwnInFloat64)
{
    auto context = cpuContext(2);
    const auto objects = mixedObjects();
    const auto options = batchOptions(Precision::Float64);
    expectSameAsOneByOne(batch(*context, objects, options), oneByOne(*context, objects, options),
                         options, 0.0);
}

TEST(PeriodogramBatch, CpuEqualsEachObjectOnItsOwnInFloat32)
{
    auto context = cpuContext(3);
    const auto objects = mixedObjects();
    const auto options = batchOptions(Precision::Float32);
    expectSameAsOneByOne(batch(*context, objects, options), oneByOne(*context, objects, options),
                         options, 0.0);
}

TEST(PeriodogramBatch, CpuEqualsEachObjectOnALogarithmicGridWithPsdAndNoFloatingMean)
{
    auto context = cpuContext(2);
    const auto objects = mixedObjects();
    auto options = batchOptions(Precision::Float64, true, Normalization::Psd);
    options.fitMean = false;
    expectSameAsOneByOne(batch(*context, objects, options), oneByOne(*context, objects, options),
                         options, 0.0);
}

// Bad objects among good ones: each fails in its own row, with the message the periodogram
// of that object alone gives, and the others are computed.
std::vector<TimeSeries> hostileObjects()
{
    std::vector<TimeSeries> objects;
    objects.push_back(randomSeries(200, 1));
    objects.push_back(TimeSeries{}); // empty
    objects.push_back(randomSeries(50, 2));
    TimeSeries nan = randomSeries(80, 3);
    nan.y[17] = std::numeric_limits<double>::quiet_NaN();
    objects.push_back(nan);
    objects.push_back(randomSeries(1, 4)); // one point
    TimeSeries flat = randomSeries(60, 5);
    std::fill(flat.y.begin(), flat.y.end(), 3.25); // zero variance
    objects.push_back(flat);
    TimeSeries badDy = randomSeries(40, 6);
    badDy.dy[3] = 0.0;
    objects.push_back(badDy);
    TimeSeries sameTime = randomSeries(10, 7);
    std::fill(sameTime.t.begin(), sameTime.t.end(), 5.0);
    objects.push_back(sameTime);
    TimeSeries ragged = randomSeries(30, 8);
    ragged.y.pop_back();
    objects.push_back(ragged);
    objects.push_back(randomSeries(700, 9));
    return objects;
}

TEST(PeriodogramBatch, HostileObjectsFailInTheirOwnRowsAndTheOthersGoOn)
{
    auto context = cpuContext(2);
    const auto objects = hostileObjects();
    const auto options = batchOptions(Precision::Float64);
    const Batch b = batch(*context, objects, options);
    expectSameAsOneByOne(b, oneByOne(*context, objects, options), options, 0.0);
    const std::vector<bool> ok = {true,  false, true,  false, false,
                                  false, false, false, false, true};
    for (std::size_t i = 0; i < objects.size(); ++i) {
        EXPECT_EQ(bool(b.perObject[i]), ok[i]) << "object " << i;
        if (!ok[i])
            EXPECT_FALSE(b.perObject[i].message().empty());
    }
}

TEST(PeriodogramBatch, RefusesWhatConcernsEveryObjectWithAClearMessage)
{
    auto context = cpuContext(2);
    const auto objects = mixedObjects();
    auto options = batchOptions(Precision::Float64);
    options.nterms = 2;
    Batch b = batch(*context, objects, options);
    ASSERT_FALSE(b.status);
    EXPECT_NE(b.status.message().find("one-term"), std::string::npos) << b.status.message();

    options = batchOptions(Precision::Float64);
    options.method = PeriodogramMethod::Matrix;
    b = batch(*context, objects, options);
    ASSERT_FALSE(b.status);
    EXPECT_NE(b.status.message().find("matrix"), std::string::npos) << b.status.message();

    options = batchOptions(Precision::Float64);
    options.launch.gridBlocks = 1; // 128 x 8 of 3001 frequencies
    b = batch(*context, objects, options);
    ASSERT_FALSE(b.status);
    EXPECT_NE(b.status.message().find("covers only 1024"), std::string::npos) << b.status.message();

    options = batchOptions(Precision::Float64);
    std::vector<double> tooSmall(objects.size() * std::size_t(options.grid.count) - 1);
    const Status s = computePeriodogramBatch(*context, objects, options, tooSmall, nullptr);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("output holds"), std::string::npos) << s.message();

    std::atomic<bool> cancel{true};
    options.cancel = &cancel;
    b = batch(*context, objects, options);
    ASSERT_FALSE(b.status);
    EXPECT_NE(b.status.message().find("cancelled"), std::string::npos) << b.status.message();
}

TEST(PeriodogramBatch, AnEmptyBatchSucceedsWithNothingToWrite)
{
    auto context = cpuContext(2);
    const auto options = batchOptions(Precision::Float64);
    std::vector<Status> perObject(3);
    EXPECT_TRUE(computePeriodogramBatch(*context, {}, options, {}, &perObject));
    EXPECT_TRUE(perObject.empty());
}

// The highest k local maxima of power by brute force, written from the definition the app
// documents (a point above its left neighbour and not below its right one, the ends
// counting as higher than nothing; NaN never a peak), highest first, ties to the lower
// index: every point is compared with every other, without topPeaks' code.
std::vector<std::pair<long long, double>> bruteForcePeaks(std::span<const double> power, int k)
{
    const long long n = (long long)power.size();
    std::vector<long long> maxima;
    for (long long i = 0; i < n; ++i) {
        const double p = power[std::size_t(i)];
        if (!std::isfinite(p))
            continue;
        const bool left = i == 0 || p > power[std::size_t(i - 1)];
        const bool right = i == n - 1 || p >= power[std::size_t(i + 1)];
        if (left && right)
            maxima.push_back(i);
    }
    std::vector<std::pair<long long, double>> best;
    for (int j = 0; j < k; ++j) {
        long long pick = -1;
        for (const long long i : maxima) {
            bool taken = false;
            for (const auto& b : best)
                taken |= b.first == i;
            if (taken)
                continue;
            const double p = power[std::size_t(i)];
            if (pick < 0 || p > power[std::size_t(pick)])
                pick = i; // maxima are in increasing index: equal powers keep the lower
        }
        if (pick < 0)
            break;
        best.emplace_back(pick, power[std::size_t(pick)]);
    }
    return best;
}

void expectPeaks(const std::vector<Peak>& got,
                 const std::vector<std::pair<long long, double>>& want, const FrequencyGrid& grid,
                 bool withFrequency)
{
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t j = 0; j < want.size(); ++j) {
        EXPECT_EQ(got[j].index, want[j].first) << "peak " << j;
        EXPECT_EQ(got[j].power, want[j].second) << "peak " << j;
        if (withFrequency)
            EXPECT_EQ(got[j].frequency, grid.frequency(want[j].first)) << "peak " << j;
    }
}

// Peaks alone on the CPU: each object's peaks are the brute-force search's over its own
// powers (computePeriodogram), and a failed object has none and says why as the batch of
// powers does.
TEST(PeriodogramBatch, CpuPeaksAreTheBruteForceSearchsOnEachObjectsPowers)
{
    auto context = cpuContext(2);
    std::vector<TimeSeries> objects = mixedObjects();
    for (TimeSeries& s : hostileObjects())
        objects.push_back(std::move(s));
    for (const Precision precision : {Precision::Float64, Precision::Float32}) {
        const auto options = batchOptions(precision);
        const auto singles = oneByOne(*context, objects, options);
        for (const int k : {1, 3, kSpectrumMaxPeaks}) {
            std::vector<std::vector<Peak>> peaks;
            std::vector<Status> perObject;
            ASSERT_TRUE(
                computePeriodogramBatchPeaks(*context, objects, options, k, peaks, &perObject));
            ASSERT_EQ(peaks.size(), objects.size());
            for (std::size_t i = 0; i < objects.size(); ++i) {
                SCOPED_TRACE("object " + std::to_string(i) + ", k " + std::to_string(k));
                ASSERT_EQ(bool(perObject[i]), bool(singles[i].status));
                if (!singles[i].status) {
                    EXPECT_EQ(perObject[i].message(), singles[i].status.message());
                    EXPECT_TRUE(peaks[i].empty());
                    continue;
                }
                expectPeaks(peaks[i], bruteForcePeaks(singles[i].power, k), options.grid, true);
            }
        }
    }
    std::vector<std::vector<Peak>> peaks;
    const Status tooMany = computePeriodogramBatchPeaks(
        *context, objects, batchOptions(Precision::Float64), kSpectrumMaxPeaks + 1, peaks, nullptr);
    ASSERT_FALSE(tooMany);
    EXPECT_NE(tooMany.message().find("1 to 20 peaks"), std::string::npos) << tooMany.message();
}

// Rows a periodogram seldom gives: plateaus, equal peaks far apart, NaN, peaks at both ends,
// a constant row, a row of one value, and more peaks than any list holds.
std::vector<std::vector<double>> awkwardRows(long long count)
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<std::vector<double>> rows;
    std::vector<double> plateau(std::size_t(count), 0.0);
    for (long long i = 0; i < count; ++i)
        plateau[std::size_t(i)] = double((i / 7) % 5); // steps up to 4, plateaus of 7
    rows.push_back(plateau);
    std::vector<double> ties(std::size_t(count), 1.0);
    for (long long i = 3; i < count; i += 97)
        ties[std::size_t(i)] = 5.0; // equal isolated peaks: the lower indices first
    rows.push_back(ties);
    std::vector<double> gaps = ties;
    for (long long i = 0; i < count; i += 13)
        gaps[std::size_t(i)] = nan;
    rows.push_back(gaps);
    std::vector<double> ends(std::size_t(count), 0.5);
    ends.front() = 9.0;
    ends.back() = 9.0;
    rows.push_back(ends);
    rows.push_back(std::vector<double>(std::size_t(count), 2.0)); // a plateau: one peak, at 0
    rows.push_back(std::vector<double>(std::size_t(count), nan));
    std::mt19937_64 random(3);
    std::uniform_int_distribution<int> level(0, 40); // many repeated values
    std::vector<double> noise(static_cast<std::size_t>(count));
    for (double& v : noise)
        v = double(level(random)) / 8.0;
    rows.push_back(noise);
    return rows;
}

// On CUDA, the device's search of the batch against the host's (topPeaks) and the brute
// force on the same powers: the awkward rows, then real periodograms, peaks alone against
// the powers the batch copies back.
class PeriodogramBatchPeaksCuda : public CudaContextTest
{};

TEST_F(PeriodogramBatchPeaksCuda, DeviceSearchEqualsTheHostsOnAwkwardRows)
{
    for (const long long count : {1LL, 2LL, 5LL, 257LL, 3001LL, 100000LL}) {
        const auto rows = awkwardRows(count);
        std::vector<double> power;
        for (const auto& r : rows)
            power.insert(power.end(), r.begin(), r.end());
        for (const int k : {1, 7, kSpectrumMaxPeaks}) {
            SCOPED_TRACE("count " + std::to_string(count) + ", k " + std::to_string(k));
            std::vector<std::vector<Peak>> peaks;
            std::vector<long long> nonFinite;
            ASSERT_TRUE(findBatchPeaksCuda(*m_cuda, power, count, k, peaks, nonFinite));
            ASSERT_EQ(peaks.size(), rows.size());
            const FrequencyGrid grid = frequencyGrid(0.01, 8.0, count > 1 ? count : 2, false);
            for (std::size_t r = 0; r < rows.size(); ++r) {
                SCOPED_TRACE("row " + std::to_string(r));
                const auto expected = bruteForcePeaks(rows[r], k);
                expectPeaks(peaks[r], expected, grid, false);
                const auto host = topPeaks(rows[r], grid, k);
                ASSERT_EQ(host.size(), expected.size());
                for (std::size_t j = 0; j < host.size(); ++j)
                    EXPECT_EQ(host[j].index, peaks[r][j].index);
                EXPECT_EQ(nonFinite[r], std::count_if(rows[r].begin(), rows[r].end(),
                                                      [](double p) { return std::isnan(p); }));
            }
        }
    }
}

// Equal peaks a power-of-two stride apart, in rows long enough for more than a thousand of
// them: a search that shares a row among threads by such a stride finds them all in one
// thread's share, and must still rank them all.
TEST_F(PeriodogramBatchPeaksCuda, DeviceSearchRanksThousandsOfPeaksInOneStride)
{
    const long long count = 1LL << 19;
    std::vector<double> power;
    for (const long long stride : {256LL, 512LL, 1024LL}) {
        std::vector<double> row(std::size_t(count), 1.0);
        for (long long i = stride; i < count; i += stride)
            row[std::size_t(i)] = i % (4 * stride) == 0 ? 3.0 : 2.0;
        power.insert(power.end(), row.begin(), row.end());
    }
    const FrequencyGrid grid = frequencyGrid(0.01, 8.0, count, false);
    for (const int k : {1, kSpectrumMaxPeaks}) {
        SCOPED_TRACE("k " + std::to_string(k));
        std::vector<std::vector<Peak>> peaks;
        std::vector<long long> nonFinite;
        ASSERT_TRUE(findBatchPeaksCuda(*m_cuda, power, count, k, peaks, nonFinite));
        ASSERT_EQ(peaks.size(), 3u);
        for (std::size_t r = 0; r < 3; ++r) {
            SCOPED_TRACE("row " + std::to_string(r));
            const std::span<const double> row(power.data() + r * std::size_t(count),
                                              std::size_t(count));
            expectPeaks(peaks[r], bruteForcePeaks(row, k), grid, false);
            EXPECT_EQ(nonFinite[r], 0);
        }
    }
}

// Noise with 3, 4, 5 and 30 high peaks in one thread's strided share of the row: the search
// keeps four of a thread's peaks in its one pass over a row, and must read the row again when
// a thread may hold more of the best ones than that.
TEST_F(PeriodogramBatchPeaksCuda, DeviceSearchFindsTheBestPeaksCrowdedInOneThreadsShare)
{
    const long long count = 1LL << 16;
    std::mt19937_64 rng(17);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<double> power;
    const std::vector<int> crowds{3, 4, 5, 30};
    for (const int crowd : crowds) {
        std::vector<double> row(static_cast<std::size_t>(count));
        for (double& p : row)
            p = u(rng) * u(rng);
        for (int j = 0; j < crowd; ++j)
            row[std::size_t(5 + 256 * (7 + 13 * j))] = 2.0 + 0.01 * j;
        power.insert(power.end(), row.begin(), row.end());
    }
    const FrequencyGrid grid = frequencyGrid(0.01, 8.0, count, false);
    for (const int k : {1, 4, kSpectrumMaxPeaks}) {
        SCOPED_TRACE("k " + std::to_string(k));
        std::vector<std::vector<Peak>> peaks;
        std::vector<long long> nonFinite;
        ASSERT_TRUE(findBatchPeaksCuda(*m_cuda, power, count, k, peaks, nonFinite));
        ASSERT_EQ(peaks.size(), crowds.size());
        for (std::size_t r = 0; r < crowds.size(); ++r) {
            SCOPED_TRACE("crowd " + std::to_string(crowds[r]));
            const std::span<const double> row(power.data() + r * std::size_t(count),
                                              std::size_t(count));
            expectPeaks(peaks[r], bruteForcePeaks(row, k), grid, false);
            EXPECT_EQ(nonFinite[r], 0);
        }
    }
}

TEST_F(PeriodogramBatchPeaksCuda, PeaksAloneEqualTheHostSearchOfTheBatchsPowers)
{
    std::vector<TimeSeries> objects = mixedObjects();
    for (TimeSeries& s : hostileObjects())
        objects.push_back(std::move(s));
    for (const bool logarithmic : {false, true})
        for (const Precision precision : {Precision::Float64, Precision::Float32}) {
            SCOPED_TRACE(std::string(logarithmic ? "log" : "linear") +
                         (precision == Precision::Float64 ? " float64" : " float32"));
            auto options = batchOptions(precision, logarithmic);
            options.grid = frequencyGrid(0.01, 8.0, 100000, logarithmic);
            const Batch b = batch(*m_cuda, objects, options);
            ASSERT_TRUE(b.status) << b.status.message();
            std::vector<std::vector<Peak>> peaks;
            std::vector<Status> perObject;
            double ms = 0.0;
            ASSERT_TRUE(computePeriodogramBatchPeaks(*m_cuda, objects, options, kSpectrumMaxPeaks,
                                                     peaks, &perObject, &ms));
            EXPECT_GT(ms, 0.0);
            for (std::size_t i = 0; i < objects.size(); ++i) {
                SCOPED_TRACE("object " + std::to_string(i));
                ASSERT_EQ(bool(perObject[i]), bool(b.perObject[i]));
                if (!b.perObject[i]) {
                    EXPECT_EQ(perObject[i].message(), b.perObject[i].message());
                    EXPECT_TRUE(peaks[i].empty());
                    continue;
                }
                const auto powers = row(b, i, options);
                expectPeaks(peaks[i], bruteForcePeaks(powers, kSpectrumMaxPeaks), options.grid,
                            true);
                const auto host = topPeaks(powers, options.grid, kSpectrumMaxPeaks);
                ASSERT_EQ(host.size(), peaks[i].size());
                for (std::size_t j = 0; j < host.size(); ++j) {
                    EXPECT_EQ(host[j].index, peaks[i][j].index);
                    EXPECT_EQ(host[j].power, peaks[i][j].power);
                }
            }
        }
}

// On CUDA, against each object on the CPU: the batch runs the direct kernel, whose sums
// differ from the CPU's by rounding only.
class PeriodogramBatchCuda : public CudaContextTest
{
protected:
    void compare(const std::vector<TimeSeries>& objects, const PeriodogramOptions& options,
                 double tolerance)
    {
        auto cpu = cpuContext(2);
        expectSameAsOneByOne(batch(*m_cuda, objects, options), oneByOne(*cpu, objects, options),
                             options, tolerance);
    }
};

TEST_F(PeriodogramBatchCuda, EqualsTheCpuInFloat64)
{
    compare(mixedObjects(), batchOptions(Precision::Float64), 1e-9);
}

TEST_F(PeriodogramBatchCuda, EqualsTheCpuInFloat32)
{
    compare(mixedObjects(), batchOptions(Precision::Float32), 1e-4);
}

TEST_F(PeriodogramBatchCuda, EqualsTheCpuOnALogarithmicGrid)
{
    compare(mixedObjects(), batchOptions(Precision::Float64, true, Normalization::Log), 1e-9);
    compare(mixedObjects(), batchOptions(Precision::Float32, true), 1e-4);
}

TEST_F(PeriodogramBatchCuda, HostileObjectsFailInTheirOwnRows)
{
    compare(hostileObjects(), batchOptions(Precision::Float64), 1e-9);
}

// The matrix products batched: each object's powers are those of its own matrix call on the
// same device, bit for bit (the same CTA code from the same place in the grid), in both
// precisions, hostile objects failing as they do alone; and with the peaks found on the
// device, the host search's of those powers.
TEST_F(PeriodogramBatchCuda, MatrixProductsEqualEachObjectsOwnBitForBit)
{
    DeviceInfo info = m_cuda->info();
    if (info.ccMajor < 8)
        GTEST_SKIP() << "no tensor cores for the matrix products";
    std::vector<TimeSeries> objects = mixedObjects();
    for (TimeSeries& s : hostileObjects())
        objects.push_back(std::move(s));
    for (const Precision precision : {Precision::Float64, Precision::Float32}) {
        SCOPED_TRACE(precision == Precision::Float64 ? "float64" : "float32");
        auto options = batchOptions(precision);
        options.method = PeriodogramMethod::Matrix;
        options.grid = frequencyGrid(0.01, 8.0, 70000, false); // 35 CTAs of 2048, the last short
        const Batch b = batch(*m_cuda, objects, options);
        expectSameAsOneByOne(b, oneByOne(*m_cuda, objects, options), options, 0.0);
        std::vector<std::vector<Peak>> peaks;
        std::vector<Status> perObject;
        ASSERT_TRUE(computePeriodogramBatchPeaks(*m_cuda, objects, options, kSpectrumMaxPeaks,
                                                 peaks, &perObject));
        for (std::size_t i = 0; i < objects.size(); ++i) {
            ASSERT_EQ(bool(perObject[i]), bool(b.perObject[i])) << "object " << i;
            if (b.perObject[i])
                expectPeaks(peaks[i], bruteForcePeaks(row(b, i, options), kSpectrumMaxPeaks),
                            options.grid, true);
        }
    }
    auto options = batchOptions(Precision::Float64, true);
    options.method = PeriodogramMethod::Matrix;
    const Batch logarithmic = batch(*m_cuda, objects, options);
    ASSERT_FALSE(logarithmic.status);
    EXPECT_NE(logarithmic.status.message().find("evenly spaced"), std::string::npos)
        << logarithmic.status.message();
}

// Many ZTF-like objects (100 to 500 points) in several batches on one context, which reuses
// its buffers from call to call, and a launch of 256 threads a block.
TEST_F(PeriodogramBatchCuda, ManySmallObjectsInSuccessiveBatches)
{
    std::mt19937_64 random(5);
    std::uniform_int_distribution<int> points(100, 500);
    auto options = batchOptions(Precision::Float64);
    options.grid = frequencyGrid(0.01, 10.0, 20000, false);
    options.launch.blockThreads = 256;
    for (const std::size_t size : {300u, 40u, 1u}) {
        std::vector<TimeSeries> objects;
        for (std::size_t i = 0; i < size; ++i)
            objects.push_back(randomSeries(std::size_t(points(random)), 1000 + i));
        compare(objects, options, 1e-9);
    }
}

} // namespace
} // namespace warpscope::gpu::test
