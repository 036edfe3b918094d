#pragma once

#include "warpscope/gpu/Context.h"
#include "warpscope/gpu/Status.h"
#include "warpscope/gpu/TimeSeries.h"

#include <atomic>
#include <span>
#include <string>
#include <vector>

// Box least squares (Kovacs, Zucker & Mazeh 2002), as astropy's BoxLeastSquares defines it:
// a periodic box of a given duration, the flux inside it y_in and outside y_out (each the
// inverse-variance weighted mean), fitted at every transit time of a grid of duration /
// oversample for every trial period and duration; per period the best model by the
// objective. The sums are exact (astropy's method="slow": every point is in the box or out
// of it), not binned at a coarser resolution.
namespace warpscope::gpu {

enum class BlsObjective
{
    Likelihood, // the log-likelihood gained over a constant: 0.5 * depth^2 * sum(w in)
    Snr         // the depth's signal-to-noise ratio: depth / depth_err
};

const char* blsObjectiveName(BlsObjective objective);

inline constexpr int kMaxBlsDurations = 64;
inline constexpr int kMaxBlsOversample = 1000;
// Half-duration bins a period may need (2 * oversample * period / duration): the box's edges
// fall on them, so their count bounds the memory and the work of one period.
inline constexpr long long kMaxBlsBins = 1LL << 24;

struct BlsOptions
{
    // Transit durations in the unit of t, each above 0 and below the shortest trial period.
    std::vector<double> durations;
    BlsObjective objective = BlsObjective::Likelihood;
    // Transit times tried per duration: a grid of duration / oversample.
    int oversample = 10;
    // Weights 1 / dy^2 when the series has dy, else 1 (astropy's ivar).
    bool useErrors = true;
    // When set and it turns true, the computation stops and fails with "cancelled".
    const std::atomic<bool>* cancel = nullptr;
};

// Per trial period, the best model's figures (astropy's BoxLeastSquaresResults): power is the
// objective's value; transitTime a mid-transit time in the unit of t, in [t_min, t_min +
// period); depth_err = sqrt(1 / sum(w in) + 1 / sum(w out)); depthSnr = depth / depth_err;
// logLikelihood = 0.5 * depth^2 * sum(w in). Only boxes that hold points and are deeper than
// the rest count; a period without one has power 0, depth 0 and the first duration.
struct BlsResult
{
    std::vector<double> power, depth, depthErr, duration, transitTime, depthSnr, logLikelihood;

    void resize(std::size_t n);
    std::size_t size() const { return power.size(); }
};

// What is wrong with a request, one message each: too few points or non-finite values,
// periods and durations (finite, above 0, the longest duration shorter than the shortest
// period, at most kMaxBlsDurations), oversample 1 to kMaxBlsOversample, and periods needing
// more than kMaxBlsBins bins. Empty when it can be computed.
std::vector<std::string> validateBoxLeastSquares(const TimeSeries& series,
                                                 std::span<const double> periods,
                                                 const BlsOptions& options);

// The periodogram at every trial period, into result (resized to periods.size()), on
// context's device; kernelMs, when given, the computation's own time.
Status computeBoxLeastSquares(Context& context, const TimeSeries& series,
                              std::span<const double> periods, const BlsOptions& options,
                              BlsResult& result, double* kernelMs = nullptr);

// Durations for a series when none are given: ten, logarithmically spaced from three
// cadences (the median step between times, so a box holds points) to a tenth of the baseline
// capped at half a day, or none for fewer than two distinct times.
std::vector<double> automaticBlsDurations(const TimeSeries& series);

// The vetting statistics of one transit model (astropy's compute_stats): the depth and its
// error for the model, for odd and even transits alone (a period twice as long), at half the
// period and at the opposite phase; the harmonic model's amplitude and its log-likelihood
// less the box model's (above 0: a sinusoid explains the data better, as for an eclipsing
// binary at twice its period or a spotted star); each transit's mid time, number of points
// and log-likelihood, for the transits within the data's span.
struct BlsDepth
{
    double value = 0.0;
    double error = 0.0; // infinite where no point is in the box
};

struct BlsStats
{
    BlsDepth depth, depthOdd, depthEven, depthHalf, depthPhased;
    double harmonicAmplitude = 0.0;
    double harmonicDeltaLogLikelihood = 0.0;
    std::vector<double> transitTimes;
    std::vector<long long> perTransitCount;
    std::vector<double> perTransitLogLikelihood;
};

Status computeBlsStats(const TimeSeries& series, double period, double duration, double transitTime,
                       bool useErrors, BlsStats& stats);

} // namespace warpscope::gpu
