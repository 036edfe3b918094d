#pragma once

#include "warpscope/gpu/Periodogram.h"

#include <vector>

namespace warpscope::ui {

// The frequencies a periodogram opens on, so that a 2-minute cadence's grid to 360 cycles a
// day does not squeeze the power of a 4-day star against the left edge.
struct FrequencyRange
{
    double lo = 0.0, hi = 0.0;
    bool operator==(const FrequencyRange&) const = default;
};

// Peaks at least this share of the highest's power, at most kOpeningPeaks of them, are the
// ones the range holds: harmonics and aliases of note, not the noise.
inline constexpr double kOpeningPowerShare = 0.1;
inline constexpr std::size_t kOpeningPeaks = 5;
// Each side's margin beyond the outermost of them, in peak widths at least, so a lone peak is
// seen with its side lobes.
inline constexpr double kOpeningMarginWidths = 3.0;

// The range that holds the highest peaks (peaks: highest first, as a spectrum lists them) on a
// grid from fmin to fmax, whose peaks are peakWidth wide (1 / the time baseline): their spread
// with a quarter of it, and at least kOpeningMarginWidths peak widths, on each side. A range
// that would start within its own width of fmin starts at fmin, and then runs half as far
// again beyond the highest frequency, so a low-frequency peak is seen against the grid's
// start. The whole grid when there is no peak of positive power, the width is not positive, or
// the range would show half the grid or more (zooming would gain little).
FrequencyRange openingRange(const std::vector<gpu::Peak>& peaks, double fmin, double fmax,
                            double peakWidth);

} // namespace warpscope::ui
