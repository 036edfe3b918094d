#pragma once

#include <vector>

namespace warpscope::gpu {

// An unevenly sampled time series: times t, values y and optional uncertainties dy (empty:
// every point weighs the same). Times need not be sorted.
struct TimeSeries
{
    std::vector<double> t;
    std::vector<double> y;
    std::vector<double> dy;
};

} // namespace warpscope::gpu
