// The device's peak search on powers made to order, against the host's topPeaks: noise (the
// fast search, through a threshold), thousands of equal peaks (more candidates than the fast
// search sorts, so the exact per-block lists run), one peak, none, and tiny spectra. Built
// where the toolkit is; skips without a device.
#include "periodogram/SpectrumKernels.cuh"
#include "warpscope/gpu/Device.h"
#include "warpscope/gpu/Periodogram.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <limits>
#include <random>
#include <vector>

namespace warpscope::gpu::test {
namespace {

// The device's summary of power, from a fresh device copy, into pinned memory as the app's
// call has it; with the scratch given (kept between searches, as the app keeps it) or fresh.
SpectrumSummary deviceSummary(const std::vector<double>& power, void* keptScratch)
{
    SpectrumSummary summary{};
    double* devicePower = nullptr;
    void* scratch = keptScratch;
    SpectrumSummary* out = nullptr;
    const std::size_t bytes = power.size() * sizeof(double);
    EXPECT_EQ(cudaMalloc(&devicePower, std::max<std::size_t>(bytes, 8)), cudaSuccess);
    if (!keptScratch) {
        EXPECT_EQ(cudaMalloc(&scratch, spectrumSummaryScratchBytes()), cudaSuccess);
        EXPECT_EQ(prepareSpectrumSearch(scratch, nullptr), cudaSuccess);
    }
    EXPECT_EQ(cudaMallocHost(&out, sizeof(SpectrumSummary)), cudaSuccess);
    // Poison: a field the search does not write stays visibly wrong.
    std::memset(static_cast<void*>(out), 0x7f, sizeof(SpectrumSummary));
    EXPECT_EQ(cudaMemcpy(devicePower, power.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
    // The device's own launch, as the app's call makes it (the overlapping one from 9.0 on).
    int device = 0, ccMajor = 0;
    EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
    EXPECT_EQ(cudaDeviceGetAttribute(&ccMajor, cudaDevAttrComputeCapabilityMajor, device),
              cudaSuccess);
    EXPECT_EQ(searchSpectrum(devicePower, (long long)power.size(), scratch, out, ccMajor, nullptr),
              cudaSuccess);
    summary = *out;
    cudaFree(devicePower);
    if (!keptScratch)
        cudaFree(scratch);
    cudaFreeHost(out);
    return summary;
}

void expectMatchesHost(const std::vector<double>& power, void* keptScratch = nullptr)
{
    const SpectrumSummary s = deviceSummary(power, keptScratch);
    const FrequencyGrid grid{1.0, 1.0, (long long)power.size()};
    const std::vector<Peak> expected = topPeaks(power, grid, kSpectrumMaxPeaks);
    ASSERT_EQ(s.peaks, int(expected.size()));
    for (std::size_t j = 0; j < expected.size(); ++j) {
        EXPECT_EQ(s.index[j], expected[j].index) << j;
        EXPECT_EQ(s.power[j], expected[j].power) << j;
    }
    long long nonFinite = 0;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const double p : power) {
        if (!std::isfinite(p)) {
            ++nonFinite;
            continue;
        }
        lo = std::min(lo, p);
        hi = std::max(hi, p);
    }
    EXPECT_EQ(s.nonFinite, nonFinite);
    EXPECT_EQ(s.min, lo <= hi ? lo : 0.0);
    EXPECT_EQ(s.max, lo <= hi ? hi : 0.0);
}

class SpectrumSearch : public ::testing::Test
{
protected:
    void SetUp() override
    {
        if (cudaDeviceNames().empty())
            GTEST_SKIP() << "no CUDA device";
    }
};

TEST_F(SpectrumSearch, NoiseWithGapsMatchesTheHost)
{
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<double> power((1 << 20) + 17);
    for (double& p : power)
        p = u(rng);
    for (std::size_t i = 0; i < power.size(); i += 9973)
        power[i] = std::numeric_limits<double>::quiet_NaN();
    power[12345] = std::numeric_limits<double>::infinity();
    expectMatchesHost(power);
    // Ties of power between blocks: the lower index comes first.
    power[700001] = power[300001] = power[900001] = 2.0;
    expectMatchesHost(power);
}

TEST_F(SpectrumSearch, ThousandsOfEqualPeaksTakeTheExactSearch)
{
    std::vector<double> power(1 << 20);
    for (std::size_t i = 0; i < power.size(); ++i)
        power[i] = i % 3 == 1 ? 1.0 : 0.5;
    expectMatchesHost(power);
}

TEST_F(SpectrumSearch, OnePeakNoPeakAndTinySpectra)
{
    std::vector<double> rising(1 << 18);
    for (std::size_t i = 0; i < rising.size(); ++i)
        rising[i] = double(i);
    expectMatchesHost(rising); // one peak, at the end
    expectMatchesHost(std::vector<double>(1 << 16, std::numeric_limits<double>::quiet_NaN()));
    for (std::size_t n : {1u, 2u, 3u, 5u, 41u})
        expectMatchesHost(std::vector<double>(n, 0.25));
    expectMatchesHost({0.1, 0.3, 0.2, 0.5, 0.4});
}

// The last block of each kernel is found by a ticket that must return to zero after every
// search, whatever its number of blocks: one scratch serves searches of 512, 1, 3 and 512
// blocks in turn, and the fallback between them.
TEST_F(SpectrumSearch, OneScratchServesSearchesOfEverySize)
{
    void* scratch = nullptr;
    ASSERT_EQ(cudaMalloc(&scratch, spectrumSummaryScratchBytes()), cudaSuccess);
    ASSERT_EQ(prepareSpectrumSearch(scratch, nullptr), cudaSuccess);
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    auto noise = [&](std::size_t n) {
        std::vector<double> power(n);
        for (double& p : power)
            p = u(rng);
        return power;
    };
    std::vector<double> equalPeaks(1 << 18);
    for (std::size_t i = 0; i < equalPeaks.size(); ++i)
        equalPeaks[i] = i % 3 == 1 ? 1.0 : 0.5;
    for (int round = 0; round < 2; ++round) {
        expectMatchesHost(noise(1 << 20), scratch);
        expectMatchesHost(noise(7), scratch);
        expectMatchesHost(noise(3000), scratch);
        expectMatchesHost(equalPeaks, scratch);
        expectMatchesHost(noise((1 << 20) + 5), scratch);
    }
    cudaFree(scratch);
}

} // namespace
} // namespace warpscope::gpu::test
