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
    // gpu::kMaxFrequencies; empty otherwise.
    std::string capNote;
};

// Makes the request for series (its dy already dropped when the scene does not use them):
// the options, and the grid, automatic grids following the series. Fails with the reasons
// the series and the options cannot be computed (too few points, zero variance, ...).
gpu::Status makePeriodogramRequest(const PeriodogramScene& scene, const gpu::TimeSeries& series,
                                   PeriodogramRequest& request);

} // namespace warpscope::scene
