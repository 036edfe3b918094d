#include "OpeningRange.h"

#include <algorithm>
#include <cmath>

namespace warpscope::ui {

FrequencyRange openingRange(const std::vector<gpu::Peak>& peaks, double fmin, double fmax,
                            double peakWidth)
{
    const FrequencyRange whole{fmin, fmax};
    if (peaks.empty() || !(fmax > fmin) || !(peakWidth > 0.0) || !std::isfinite(peakWidth))
        return whole;
    const double top = peaks.front().power;
    if (!(top > 0.0) || !std::isfinite(top))
        return whole;
    double a = fmax, b = fmin;
    for (std::size_t i = 0; i < std::min(peaks.size(), kOpeningPeaks); ++i)
        if (peaks[i].power >= kOpeningPowerShare * top) {
            a = std::min(a, peaks[i].frequency);
            b = std::max(b, peaks[i].frequency);
        }
    const double margin = std::max(0.25 * (b - a), kOpeningMarginWidths * peakWidth);
    FrequencyRange r{a - margin, b + margin};
    if (r.lo - fmin <= r.hi - r.lo) {
        r.lo = fmin;
        r.hi = std::max(r.hi, b + 0.5 * (b - fmin));
    }
    r.lo = std::max(r.lo, fmin);
    r.hi = std::min(r.hi, fmax);
    if (!(r.hi > r.lo) || r.hi - r.lo >= 0.5 * (fmax - fmin))
        return whole;
    return r;
}

} // namespace warpscope::ui
