#pragma once

#include "warpscope/gpu/Context.h"
#include "warpscope/gpu/Periodogram.h"
#include "warpscope/gpu/Status.h"
#include "warpscope/gpu/TimeSeries.h"

#include <atomic>
#include <span>
#include <string>
#include <vector>

namespace warpscope::gpu {

// Phase dispersion minimisation (Stellingwerf 1978, ApJ 224, 953, section II). At each trial
// frequency f the series folds at phase = frac((t - t[0]) f), t[0] the series' first time as
// given (not the earliest). Each of `covers` covers cuts the cycle into `bins` bins of width
// 1 / bins, cover c's shifted by c / (bins covers) of a cycle. Over the bins j of every cover
// that hold n_j >= 2 points (M of them), s^2 = sum_j (n_j - 1) s_j^2 / (sum_j n_j - M), with s_j^2
// the bin's sample variance; theta = s^2 / sigma^2, sigma^2 the series' sample variance
// (N - 1). theta is near 1 for noise and least at the true period.
//
// Unweighted, as the definition is: dy is ignored.
inline constexpr int kPhaseDispersionMinBins = 2;
inline constexpr int kPhaseDispersionMaxBins = 1000;
inline constexpr int kPhaseDispersionMinCovers = 1;
inline constexpr int kPhaseDispersionMaxCovers = 100;

struct PhaseDispersionOptions
{
    int bins = 10;  // per cover: kPhaseDispersionMinBins to kPhaseDispersionMaxBins
    int covers = 2; // kPhaseDispersionMinCovers to kPhaseDispersionMaxCovers
};

// What is wrong with the request, one message per problem; empty when valid. The series needs
// finite t and y, times that differ, y that varies, and more points than bins (so that some
// bin of every cover holds two points at any frequency); the grid, what validateFrequencyRange
// accepts (1 to kMaxFrequencies positive frequencies).
std::vector<std::string> validatePhaseDispersion(const TimeSeries& series,
                                                 const FrequencyGrid& grid,
                                                 const PhaseDispersionOptions& options);

// theta for every frequency of grid, into theta (at least grid.count values) on context's
// device, returning when they are there. kernelMs, when given, receives the computation's own
// time (CUDA events around the kernel; the CPU's clock). cancel, when set, stops the CPU's
// work between chunks of frequencies (a GPU's launch is short and runs to its end). Fails,
// saying why, on an invalid request, on cancellation, and if a value comes out NaN or infinite.
Status computePhaseDispersion(Context& context, const TimeSeries& series, const FrequencyGrid& grid,
                              const PhaseDispersionOptions& options, std::span<double> theta,
                              double* kernelMs = nullptr,
                              const std::atomic<bool>* cancel = nullptr);

} // namespace warpscope::gpu
