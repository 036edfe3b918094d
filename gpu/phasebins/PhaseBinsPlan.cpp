#include "phasebins/PhaseBinsPlan.h"

#include "phasebins/PhaseBinsImpl.h"

#include <algorithm>
#include <cmath>

namespace warpscope::gpu {
namespace {

std::vector<double> timesAfterFirst(const TimeSeries& series)
{
    std::vector<double> dt(series.t.size());
    std::transform(series.t.begin(), series.t.end(), dt.begin(),
                   [t0 = series.t.front()](double t) { return t - t0; });
    return dt;
}

} // namespace

DispersionPlan makeDispersionPlan(const TimeSeries& series, const FrequencyGrid& grid,
                                  const PhaseDispersionOptions& options)
{
    DispersionPlan plan;
    const std::size_t n = series.y.size();
    plan.dt = timesAfterFirst(series);
    // The mean in long double, whose range holds the sum of any doubles.
    long double sum = 0.0L;
    for (const double y : series.y)
        sum += y;
    const long double mean = sum / (long double)(n);
    long double largest = 0.0L;
    for (const double y : series.y)
        largest = std::max(largest, std::fabs((long double)(y)-mean));
    // Validation refused y that does not vary, so some value differs from the mean.
    const int exponent = std::ilogb(largest);
    plan.y.resize(n);
    long double squares = 0.0L;
    for (std::size_t i = 0; i < n; ++i) {
        plan.y[i] = double(std::scalbn((long double)(series.y[i]) - mean, -exponent));
        squares += (long double)(plan.y[i]) * plan.y[i];
    }
    plan.sigma2 = double(squares / (long double)(n - 1));
    plan.grid = grid;
    plan.bins = options.bins;
    plan.covers = options.covers;
    return plan;
}

EntropyPlan makeEntropyPlan(const TimeSeries& series, const FrequencyGrid& grid,
                            const ConditionalEntropyOptions& options)
{
    EntropyPlan plan;
    const std::size_t n = series.y.size();
    plan.dt = timesAfterFirst(series);
    const auto [lo, hi] = std::minmax_element(series.y.begin(), series.y.end());
    const double ymin = *lo, range = *hi - *lo;
    plan.magnitudeBin.resize(n);
    for (std::size_t i = 0; i < n; ++i)
        plan.magnitudeBin[i] =
            phasebins::unitBin((series.y[i] - ymin) / range, options.magnitudeBins);
    plan.inverseN = 1.0 / double(n);
    plan.grid = grid;
    plan.phaseBins = options.phaseBins;
    plan.magnitudeBins = options.magnitudeBins;
    return plan;
}

} // namespace warpscope::gpu
