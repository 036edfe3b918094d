#pragma once

#include "warpscope/gpu/Detrend.h"
#include "warpscope/gpu/DistanceParams.h"
#include "warpscope/gpu/FrequencyFit.h"
#include "warpscope/gpu/Periodogram.h"
#include "warpscope/gpu/Spectrum.h"
#include "warpscope/gpu/Status.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace warpscope::scene {

enum class GridMode
{
    Automatic, // astropy's autofrequency
    Linear,    // fmin to fmax, evenly spaced
    Logarithmic
};

// The unit of the manual grid and of the frequency axis.
enum class FrequencyUnit
{
    Ordinary, // cycles per unit time
    Angular   // radians per unit time
};

enum class FrequencyAxis
{
    Frequency,
    Period
};

// What the synthetic series' and the controls' fields accept; the workspace's fields take
// their ranges from here, so that a scene that passes validate() shows as it was saved.
inline constexpr int kMinPoints = 3, kMaxPoints = 10'000'000;
inline constexpr double kMinBaseline = 0.01, kMaxBaseline = 1e9;
inline constexpr double kMaxNoise = 1e6, kMaxAmplitude = 1e6;
inline constexpr double kMinPeriod = 1e-6, kMaxPeriod = 1e9;
inline constexpr int kMaxSeed = 1'000'000;
inline constexpr double kMinSamplesPerPeak = 0.1, kMaxSamplesPerPeak = 1000.0;
inline constexpr double kMinNyquistFactor = 0.01, kMaxNyquistFactor = 1000.0;
// Prewhitening fits every listed frequency at once when asked to: a list longer than this
// would be a fit no light curve supports.
inline constexpr std::size_t kMaxPrewhitened = 100;

// The period searches a scene may name: the registry's built-in methods' keys, in its order
// (scene/src/methods/PeriodogramMethods.cpp; a test holds the two equal). The scene and its
// options check against this list, so that reading a scene file needs no computation.
inline constexpr std::array<const char*, 4> kPeriodSearches{"ls", "bls", "pdm", "ce"};
inline constexpr std::array<const char*, 2> kBlsObjectives{"likelihood", "snr"};

// Box least squares' durations as a scene holds them ("0.05,0.1", each above 0, 1 to
// gpu::kMaxBlsDurations of them), or none with why ("auto" is the caller's to handle).
std::optional<std::vector<double>> parseBlsDurations(const std::string& text, std::string& problem);

// The periodogram workspace's controls: the synthetic series, the frequency grid, the options
// of the computation, its launch, and how the result is shown.
struct PeriodogramScene
{
    // The synthetic series (the main sinusoid; the second, at period 2.9, is always added).
    int points = gpu::SyntheticOptions{}.points;
    double baseline = gpu::SyntheticOptions{}.baseline;
    double noise = gpu::SyntheticOptions{}.noise;
    double period = 7.3;
    double amplitude = 1.0;
    int seed = 1;
    // The frequency grid; fmin and fmax are in unit.
    GridMode gridMode = GridMode::Automatic;
    double samplesPerPeak = 5.0;
    double nyquistFactor = 5.0;
    double fmin = 0.001;
    double fmax = 2.0;
    long long count = 100'000;
    FrequencyUnit unit = FrequencyUnit::Ordinary;
    FrequencyAxis xAxis = FrequencyAxis::Frequency;
    bool logX = false;
    // The computation.
    gpu::Normalization normalization = gpu::Normalization::Standard;
    bool fitMean = true;
    bool center = true;
    bool useErrors = true; // weights from dy
    gpu::Precision precision = gpu::Precision::Float64;
    gpu::PeriodogramMethod method = gpu::PeriodogramMethod::Auto;
    int nterms = 1; // harmonics in the model (gpu::PeriodogramOptions::nterms)
    // The period search: a registered method's key (methods/PeriodogramMethod.h): "ls"
    // Lomb-Scargle, "bls" box least squares, "pdm" phase dispersion, "ce" conditional entropy.
    std::string search = "ls";
    // Box least squares: the transit durations in the data's unit of time, comma-separated,
    // or "auto" (gpu::automaticBlsDurations), and the objective, "likelihood" or "snr".
    std::string blsDurations = "auto";
    std::string blsObjective = "likelihood";
    // Phase dispersion's bins and covers; conditional entropy's phase and magnitude bins.
    int pdmBins = 10, pdmCovers = 2;
    int ceBins = 10, ceMagnitudeBins = 5;
    int peaks = 10;
    // The direct kernel's launch (gpu::PeriodogramLaunch).
    long long blockThreads = gpu::PeriodogramLaunch{}.blockThreads;
    long long gridBlocks = gpu::PeriodogramLaunch{}.gridBlocks; // 0: enough to cover
    bool gridStride = gpu::PeriodogramLaunch{}.gridStride;
    // What is taken out of the data before its periodogram: the points in masked time
    // ranges, then a trend (the periodogram is of the residuals). Times in the data's unit.
    gpu::DetrendOptions detrend;
    std::vector<gpu::TimeRange> masks;
    // Prewhitening: the sinusoids fitted so far, taken out of the detrended data before the
    // periodogram, in the order they were found; phases at prewhitenEpoch.
    std::vector<gpu::FittedSinusoid> prewhitened;
    double prewhitenEpoch = 0.0;

    gpu::PeriodogramLaunch launch() const { return {blockThreads, gridBlocks, gridStride}; }
    bool operator==(const PeriodogramScene&) const = default;
};

// The ranges above, gpu::validateFrequencyRange on the manual grid (in ordinary frequency,
// whatever the grid mode, so that switching to it later works), and
// gpu::validatePeriodogramLaunch against the limits every CUDA GPU shares, and
// gpu::validateDetrend and gpu::validateMasks, the number of terms, and the prewhitened
// sinusoids (finite, frequency above 0, amplitude and errors not negative, phase in [0, 1),
// at most kMaxPrewhitened); every problem in one message.
gpu::Status validate(const PeriodogramScene& periodogram);

} // namespace warpscope::scene
