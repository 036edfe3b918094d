#pragma once

#include "warpscope/gpu/Context.h"
#include "warpscope/gpu/DistanceParams.h"
#include "warpscope/gpu/LaunchConfig.h"
#include "warpscope/gpu/TimeSeries.h"

#include <atomic>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace warpscope::gpu {

// The periodogram's scale, with astropy's definitions (LombScargle.power):
//   standard: p / YY, in [0, 1]      model: p / (YY - p)
//   log: -ln(1 - p / YY)             psd: p * sum(dy^-2) / 2 (dy = 1 when none is given)
// where p is the weighted sum of squares the sinusoid fit explains and YY the weighted
// variance of y.
enum class Normalization
{
    Standard,
    Model,
    Log,
    Psd
};

const char* normalizationName(Normalization normalization);
std::optional<Normalization> parseNormalization(const std::string& text);

// Ordinary frequencies (cycles per unit of t, not radians), k < count: evenly spaced,
// f_k = fmin + k df, or logarithmically, f_k = fmin e^{k df} (df then the step of ln f).
struct FrequencyGrid
{
    double fmin = 0.0;
    double df = 0.0;
    long long count = 0;
    bool logarithmic = false;

    double fmax() const { return frequency(count - 1); }
    double frequency(long long k) const
    {
        return logarithmic ? fmin * std::exp(df * double(k)) : fmin + df * double(k);
    }
    bool operator==(const FrequencyGrid&) const = default;
};

// count frequencies from fmin to fmax, evenly or logarithmically spaced (one frequency: fmin).
FrequencyGrid frequencyGrid(double fmin, double fmax, long long count, bool logarithmic);

// How the periodogram kernel is launched (the Launch group of the workspace). Each thread
// evaluates kFrequenciesPerThread consecutive frequencies, so a grid too small for the grid
// leaves frequencies unevaluated (NaN) unless the kernel loops a grid at a time.
inline constexpr int kFrequenciesPerThread = 8;
inline constexpr long long kPeriodogramMaxBlock = 512; // the kernel's launch bounds

struct PeriodogramLaunch
{
    long long blockThreads = 128;
    long long gridBlocks = 0; // 0: enough blocks to cover every frequency
    bool gridStride = false;
};

// Checks a periodogram launch against a device's limits and the kernel's own (at most
// kPeriodogramMaxBlock threads, in x). Empty when valid.
std::vector<LaunchError> validatePeriodogramLaunch(const PeriodogramLaunch& launch,
                                                   const DeviceInfo& device);

// How many frequencies a launch evaluates: all of them with grid-stride or an automatic
// grid, else at most blocks x threads x kFrequenciesPerThread.
long long coveredFrequencies(const PeriodogramLaunch& launch, long long count);

// How the CUDA backend evaluates the sums; both are exact. Direct: the kernel the Launch
// settings shape. Matrix: the sums as matrix products on tensor cores (compute capability 8.0
// and up): FP64 in float64, three FP16 products (high and low halves) in float32. Auto: Matrix
// for float64 where FP64 tensor cores run at full rate, for float32 wherever there are tensor
// cores, else Direct. The CPU backend always
// uses its rotation tables and simulates the direct kernel's launch.
enum class PeriodogramMethod
{
    Auto,
    Direct,
    Matrix
};

const char* periodogramMethodName(PeriodogramMethod method);

struct PeriodogramOptions
{
    FrequencyGrid grid;
    Normalization normalization = Normalization::Standard;
    bool fitMean = true;    // generalised Lomb-Scargle: the model has its own offset
    bool centerData = true; // subtract the weighted mean of y first
    Precision precision = Precision::Float64;
    PeriodogramLaunch launch;
    PeriodogramMethod method = PeriodogramMethod::Auto;
    // Harmonics in the model (astropy's nterms): 1 is the classic sinusoid; 2 to
    // kMaxPeriodogramTerms add its overtones, for non-sinusoidal light curves (eclipses,
    // pulsations). More than one term runs on the direct kernel only.
    int nterms = 1;
    // When set and it turns true, the computation stops at the next chunk of frequencies and
    // fails with "cancelled" (a newer request has made this one stale).
    const std::atomic<bool>* cancel = nullptr;
};

inline constexpr long long kMaxFrequencies = 1LL << 26;
inline constexpr int kMaxPeriodogramTerms = 6;

// The model's free parameters: 2 per term, and the offset when the mean floats.
inline int periodogramParameters(const PeriodogramOptions& options)
{
    return 2 * options.nterms + (options.fitMean ? 1 : 0);
}

// What autoFrequencyGrid left out to stay within kMaxFrequencies: the number of frequencies
// and the highest one astropy's rule asked for (wanted 0: nothing was left out).
struct AutoGridCap
{
    double wanted = 0.0;
    double wantedFmax = 0.0;
};

// astropy's autofrequency: df = 1 / (baseline * samplesPerPeak); by default fmin = df / 2
// and fmax = nyquistFactor * N / (2 * baseline), the average Nyquist frequency scaled. The
// grid grows as samplesPerPeak x nyquistFactor x N / 2, so a long series can ask for more
// than kMaxFrequencies: the grid then keeps df (the resolution that separates peaks) and
// stops at kMaxFrequencies, below the fmax asked for, and cap (when given) says so.
// count is 0 when the series has no time span.
FrequencyGrid autoFrequencyGrid(const TimeSeries& series, double samplesPerPeak = 5.0,
                                double nyquistFactor = 5.0,
                                std::optional<double> minimumFrequency = std::nullopt,
                                std::optional<double> maximumFrequency = std::nullopt,
                                AutoGridCap* cap = nullptr);

// What is wrong with a series or a grid, one message per problem, each naming the input it
// is about, so a panel can mark it.
enum class PeriodogramInput
{
    Data,
    Fmin,
    Fmax,
    Count
};

struct PeriodogramProblem
{
    PeriodogramInput input;
    std::string message;
};

// Checks the series and the grid. The grid's frequencies must be finite, above 0 and far
// enough apart that double tells every one from the next (each is at least
// kMinRelativeStep of the frequency above the one before): a finer grid would repeat
// frequencies. float32 needs nothing more, since frequencies and phases in cycles are
// always formed in double, and only the reduced phase is rounded to float32. The values
// are scaled before they are summed, so any finite y and dy work, except psd powers
// beyond double's range, which are refused.
std::vector<PeriodogramProblem> validatePeriodogram(const TimeSeries& series,
                                                    const PeriodogramOptions& options);

// Computes the Lomb-Scargle periodogram of series at every frequency of options.grid into
// power (grid.count values) on context's device, with exact sums (no approximation) in
// options.precision, and returns when the powers are there. kernelMs, when given, receives the
// computation's own time (CUDA events around the kernel; the CPU's clock). Fails, saying why,
// on an invalid request, on cancellation, and when a power comes out NaN or infinite.
Status computePeriodogram(Context& context, const TimeSeries& series,
                          const PeriodogramOptions& options, std::span<double> power,
                          double* kernelMs = nullptr);

// The direct kernel's occupancy on context's device at a block size, on an evenly spaced
// grid (on the CPU, the sm_90 build's on the simulated device).
KernelOccupancy periodogramOccupancy(Context& context, Precision precision, long long blockThreads);

// 2^-50: four units in the last place of a double, so that the rounding of fmin + k df (or
// fmin e^{k df}) never makes neighbours equal.
inline constexpr double kMinRelativeStep = 0x1.0p-50;

// Checks a grid given by its ends, as a person types it (the panel, --frequencies): finite
// numbers, 0 < fmin < fmax (fmin alone for one frequency), 1 to kMaxFrequencies frequencies,
// and a step double can represent. Empty when valid.
std::vector<PeriodogramProblem> validateFrequencyRange(double fmin, double fmax, long long count,
                                                       bool logarithmic);

// The probability that noise alone gives a highest peak of at least z anywhere up to fmax:
// Baluev (2008) eq. 6, the alias-free approximation, as astropy's
// false_alarm_probability(method="baluev") computes it. It holds for the one-term model
// only (astropy refuses the others too): a caller with nterms > 1 shows none. None for fewer than
// kFalseAlarmMinPoints points: the approximation needs N - 3 > 0 (the points less the
// model's three terms), and with N = 3 the sinusoid fits any data exactly.
inline constexpr std::size_t kFalseAlarmMinPoints = 4;
std::optional<double> falseAlarmProbability(double z, double fmax, const TimeSeries& series,
                                            Normalization normalization);

// What the false-alarm probability takes from the series: its points and the weighted spread
// of its times, an O(N) pass. Found once, it serves every power of the series (each peak of an
// object, each step of falseAlarmLevel's bisection) with the same result as the call above.
struct FalseAlarmSeries
{
    std::size_t points = 0;
    double timeSpread = 0.0;
};
FalseAlarmSeries falseAlarmSeries(const TimeSeries& series);
std::optional<double> falseAlarmProbability(double z, double fmax, const FalseAlarmSeries& series,
                                            Normalization normalization);

// The power whose false-alarm probability (as above) is probability, 0 < probability < 1:
// astropy's false_alarm_level(method="baluev"), found by bisection on the probability, which
// falls as the power grows. None where the probability is not defined (see above) or the
// power cannot reach it.
std::optional<double> falseAlarmLevel(double probability, double fmax, const TimeSeries& series,
                                      Normalization normalization);

// The spectral window: the periodogram of the sampling alone, which shows the aliases the
// times make (a peak of the window at w puts a copy of every signal f at f +- w). As astropy
// computes it: y = 1 at every time (dy kept, so the weights are the data's),
// LombScargle(t, 1, dy, fit_mean=False, center_data=False) in the standard normalisation,
// whose power is 1 where every sample has the same phase.
TimeSeries windowSeries(const TimeSeries& series);
PeriodogramOptions windowOptions(const PeriodogramOptions& options);

// A synthetic series, the periodogram's default scene: a sum of sinusoids plus Gaussian
// noise, sampled at random times with gaps. The same options and seed give the same series.
struct Sinusoid
{
    double period = 7.3;
    double amplitude = 1.0;
    double phase = 0.0; // radians
};

struct SyntheticOptions
{
    int points = 400;
    double baseline = 200.0;
    std::vector<Sinusoid> sinusoids{{7.3, 1.0, 0.0}, {2.9, 0.5, 1.0}};
    double mean = 10.0;
    double noise = 0.6;        // standard deviation; also each point's dy when withErrors
    int gaps = 3;              // intervals without samples
    double gapFraction = 0.25; // of the baseline, over all gaps
    bool withErrors = true;
    std::uint64_t seed = 1;
};

TimeSeries syntheticSeries(const SyntheticOptions& options);

// The highest local maxima of a periodogram, highest first (at most k).
struct Peak
{
    long long index = 0;
    double frequency = 0.0;
    double power = 0.0;
};

std::vector<Peak> topPeaks(std::span<const double> power, const FrequencyGrid& grid, int k);

// max t - min t (0 for fewer than two times).
double timeBaseline(const TimeSeries& series);

// The peaks worth reporting, in their order, at most k: a local maximum at the grid's first
// or last frequency may be the slope of a peak outside the grid, and a period longer than the
// baseline has not been seen to repeat, so neither is a peak.
std::vector<Peak> reportablePeaks(const std::vector<Peak>& peaks, const FrequencyGrid& grid,
                                  double baseline, int k);

} // namespace warpscope::gpu
