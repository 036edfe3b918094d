#pragma once

// What the box least squares' entry point hands its CPU and CUDA implementations.
#include "warpscope/gpu/BoxLeastSquares.h"

#include <span>
#include <vector>

namespace warpscope::gpu {

// A validated request made ready, as astropy prepares it: times from the first one, y less
// its median, the weights and the weighted y, their totals.
struct BlsPlan
{
    std::vector<double> t, w, wy;
    double tRef = 0.0;
    double wTotal = 0.0, wyTotal = 0.0;
    std::span<const double> periods;
    std::vector<double> durations;
    int oversample = 10;
    bool likelihood = true;
    long long maxSums = 0; // the most sums any period and duration needs (math::blsSums)
    const std::atomic<bool>* cancel = nullptr;
};

// Each fills result (already sized) and ms, the computation's own time.
Status computeBoxLeastSquaresCpu(Context& context, const BlsPlan& plan, BlsResult& result,
                                 double& ms);
Status computeBoxLeastSquaresCuda(Context& context, const BlsPlan& plan, BlsResult& result,
                                  double& ms);

} // namespace warpscope::gpu
