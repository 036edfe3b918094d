#pragma once

#include "warpscope/gpu/Periodogram.h"
#include "warpscope/gpu/TimeSeriesIO.h"

#include <optional>
#include <string>
#include <vector>

namespace warpscope::gpu {

// Times on a regular lattice t_0 + k dt. Their periodogram repeats every 1 / dt and mirrors
// about the true Nyquist frequency 1 / (2 dt): a peak at f has exact twins at 1 / dt - f,
// 1 / dt + f..., so nothing above the Nyquist frequency is new information.
struct RegularSampling
{
    double step = 0.0;         // dt
    double nyquist = 0.0;      // 1 / (2 dt)
    long long intervals = 0;   // between consecutive distinct times
    long long singleSteps = 0; // of them, one step long (the others are gaps of whole steps)
};

// At least this many distinct times, so that random times never pass by chance (each time
// beyond the first three lands within the tolerance with probability 2 x 1 %).
inline constexpr std::size_t kRegularSamplingMinTimes = 8;
// How far, in steps, a time may lie from the lattice (rounding of times written with few
// digits, clocks that drift by a fraction of a step).
inline constexpr double kRegularSamplingTolerance = 0.01;
// Times written with few decimals may lie half their last decimal off the lattice, and the
// first time too: one decimal between them, up to this many steps (a 2-minute cadence written
// with 4 decimals: 0.072).
inline constexpr double kRegularSamplingMaxRounding = 0.1;

// The rule: sort the distinct times (times within the tolerance of each other count once);
// take dt from the intervals no longer than 1.5 times the shortest (their mean, then the
// whole span divided by its whole number of such steps, so rounding does not accumulate);
// the sampling is regular when every time lies within kRegularSamplingTolerance steps of
// t_0 + k dt, or within the times' last printed decimal where that is more (at most
// kRegularSamplingMaxRounding steps). Gaps of any whole number of steps are allowed: the aliasing
// stays exact. None for fewer than kRegularSamplingMinTimes distinct times, or any time off the
// lattice.
std::optional<RegularSampling> regularSampling(const std::vector<double>& t);

// astropy's automatic grid (autoFrequencyGrid), stopped at the true Nyquist frequency when
// the times are regular: above it the periodogram only mirrors what lies below, so its
// highest peak there would be an alias. The grid's last frequency is the last of its steps at
// or below the Nyquist frequency. A manual grid may still go beyond it.
struct AutomaticGrid
{
    FrequencyGrid grid;
    AutoGridCap cap; // what the kMaxFrequencies limit left out, as autoFrequencyGrid says
    std::optional<RegularSampling> sampling;
    bool stopsAtNyquist = false; // the grid stops at sampling->nyquist, below astropy's fmax
    double wantedFmax = 0.0;     // astropy's fmax, where it stops
};

AutomaticGrid automaticGrid(const TimeSeries& series, double samplesPerPeak, double nyquistFactor);

// A frequency where a peak at f reappears, and why.
struct Alias
{
    double frequency = 0.0;
    std::string label; // "f + 1/d", "1/dt - f", ...
};

// The aliases of a peak at frequency f (cycles per unit of t), each above zero, sorted by
// frequency, none repeated: with times in days, the daily (f +- 1 c/d) and yearly
// (f +- 1 / 365.25 c/d) aliases that observing at night and by season make; in years, the
// yearly ones (f +- 1 c/yr); and for regular sampling, the lattice's 1 / dt - f and
// 1 / dt + f (and f - 1 / dt above it).
std::vector<Alias> aliasFrequencies(double f, TimeUnit unit,
                                    const std::optional<RegularSampling>& sampling);

} // namespace warpscope::gpu
