#pragma once

#include "warpscope/gpu/Periodogram.h"
#include "warpscope/gpu/PeriodogramSampling.h"
#include "warpscope/gpu/Status.h"
#include "warpscope/scene/PeriodogramScene.h"

#include <optional>
#include <string>

namespace warpscope::scene {

// The computation a periodogram scene asks for on one series, as the window, the command
// line and the batch program all make it.
struct PeriodogramRequest
{
    gpu::PeriodogramOptions options;
    // Regular sampling found in the times, and whether the automatic grid stopped at its
    // Nyquist frequency.
    std::optional<gpu::RegularSampling> sampling;
    bool stoppedAtNyquist = false;
    // Why the automatic grid ends below where it would, when it was capped at
    // gpu::kMaxFrequencies (cap: what it would have been); empty otherwise.
    std::string capNote;
    gpu::AutoGridCap cap;
    // Why the request cannot be computed, each naming its input (empty when it can).
    std::vector<gpu::PeriodogramProblem> problems;
};

// A loaded series made ready for its periodogram as a scene asks: dy dropped when the weights
// are off, the masked points left out, the trend taken out, then the prewhitened sinusoids.
struct PreparedSeries
{
    gpu::TimeSeries series;    // what the periodogram is of
    gpu::TimeSeries detrended; // before the prewhitened sinusoids came out: what a fit of all of
                               // them together starts from
    gpu::TimeSeries unmasked;  // the points kept, before detrending (the light curve's times)
    std::vector<double> trend; // at the times of unmasked (empty without detrending)
    std::size_t masked = 0;    // points left out by the masks
};

// Fails, saying why, when every point is masked or the trend cannot be fitted.
gpu::Status prepareSeries(const PeriodogramScene& scene, const gpu::TimeSeries& loaded,
                          PreparedSeries& prepared);

// Makes the request for series (its dy already dropped when the scene does not use them):
// the options, and the grid, automatic grids following the series. Fails with the reasons
// the series and the options cannot be computed (too few points, zero variance, ...).
gpu::Status makePeriodogramRequest(const PeriodogramScene& scene, const gpu::TimeSeries& series,
                                   PeriodogramRequest& request);

} // namespace warpscope::scene
