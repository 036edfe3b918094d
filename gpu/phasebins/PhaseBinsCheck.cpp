// The checks of a phase-dispersion or conditional-entropy request: what the series, the grid
// and the bins must be for every value to be defined and finite.
#include "warpscope/gpu/ConditionalEntropy.h"
#include "warpscope/gpu/PhaseDispersion.h"

#include <algorithm>
#include <cmath>

namespace warpscope::gpu {
namespace {

bool finite(double v)
{
    return std::isfinite(v);
}

void checkRange(const char* what, int value, int lo, int hi, std::vector<std::string>& problems)
{
    if (value < lo || value > hi)
        problems.push_back(std::string(what) + " must be between " + std::to_string(lo) + " and " +
                           std::to_string(hi) + ", not " + std::to_string(value));
}

// What both methods need of the series: at least minPoints points (`why` says why), finite
// times and values, times that differ, values that vary, and phases that double can form at
// every frequency of the grid. dy is not read.
void checkSeries(const TimeSeries& series, const FrequencyGrid& grid, const std::string& method,
                 std::size_t minPoints, const std::string& why, std::vector<std::string>& problems)
{
    const std::size_t n = series.t.size();
    if (series.y.size() != n) {
        problems.push_back("The columns t and y differ in length (" + std::to_string(n) + " and " +
                           std::to_string(series.y.size()) + ")");
        return;
    }
    if (n < minPoints) {
        problems.push_back(method + " needs at least " + std::to_string(minPoints) + " points" +
                           why + "; there are " + std::to_string(n));
        if (n == 0)
            return;
    }
    if (!std::all_of(series.t.begin(), series.t.end(), finite) ||
        !std::all_of(series.y.begin(), series.y.end(), finite)) {
        problems.push_back("The data hold NaN or infinite values");
        return;
    }
    const auto [tlo, thi] = std::minmax_element(series.t.begin(), series.t.end());
    if (n >= 2 && !(*thi > *tlo))
        problems.push_back("All " + std::to_string(n) +
                           " times are equal: folding needs samples at different times");
    // The fold multiplies t - t[0] by the frequency: neither may leave double's range.
    const double reach = std::max(*thi - series.t.front(), series.t.front() - *tlo);
    if (!finite(reach))
        problems.push_back("The times span more than double can hold");
    else if (grid.count >= 1 && finite(grid.fmax()) && !finite(reach * grid.fmax()))
        problems.push_back("The times span so long that their phases at the highest frequency "
                           "are beyond double's range");
    const auto [ylo, yhi] = std::minmax_element(series.y.begin(), series.y.end());
    if (n >= 2 && !(*yhi > *ylo))
        problems.push_back("y does not vary (every value is equal): there is nothing to fold");
    else if (!finite(*yhi - *ylo))
        problems.push_back("y spans more than double can hold: give it in other units");
}

void checkGrid(const FrequencyGrid& grid, std::vector<std::string>& problems)
{
    for (const PeriodogramProblem& p :
         validateFrequencyRange(grid.fmin, grid.fmax(), grid.count, grid.logarithmic))
        problems.push_back(p.message);
}

} // namespace

std::vector<std::string> validatePhaseDispersion(const TimeSeries& series,
                                                 const FrequencyGrid& grid,
                                                 const PhaseDispersionOptions& options)
{
    std::vector<std::string> problems;
    checkRange("The number of phase bins", options.bins, kPhaseDispersionMinBins,
               kPhaseDispersionMaxBins, problems);
    checkRange("The number of covers", options.covers, kPhaseDispersionMinCovers,
               kPhaseDispersionMaxCovers, problems);
    const int bins = std::clamp(options.bins, kPhaseDispersionMinBins, kPhaseDispersionMaxBins);
    checkSeries(series, grid, "Phase dispersion with " + std::to_string(bins) + " bins", bins + 1,
                " (more than bins, so that a bin holds two at every frequency)", problems);
    checkGrid(grid, problems);
    return problems;
}

std::vector<std::string> validateConditionalEntropy(const TimeSeries& series,
                                                    const FrequencyGrid& grid,
                                                    const ConditionalEntropyOptions& options)
{
    std::vector<std::string> problems;
    checkRange("The number of phase bins", options.phaseBins, kConditionalEntropyMinBins,
               kConditionalEntropyMaxBins, problems);
    checkRange("The number of magnitude bins", options.magnitudeBins, kConditionalEntropyMinBins,
               kConditionalEntropyMaxBins, problems);
    checkSeries(series, grid, "Conditional entropy", 2, " (its minimum and maximum scale y)",
                problems);
    checkGrid(grid, problems);
    return problems;
}

} // namespace warpscope::gpu
