#pragma once

#include "warpscope/gpu/ConditionalEntropy.h"
#include "warpscope/gpu/PhaseDispersion.h"

#include <vector>

// A validated series prepared for the CPU's loops and the CUDA kernels: what does not depend
// on the trial frequency is computed here, once.
namespace warpscope::gpu {

struct DispersionPlan
{
    std::vector<double> dt; // t - t[0]
    // y less its mean, scaled by a power of two so that the largest |y| lies in [1, 2): theta
    // does not depend on y's scale, and the squares of y near double's limits neither
    // overflow nor underflow.
    std::vector<double> y;
    double sigma2 = 0.0; // their sample variance
    FrequencyGrid grid;
    int bins = 0, covers = 0;
};

struct EntropyPlan
{
    std::vector<double> dt;        // t - t[0]
    std::vector<int> magnitudeBin; // each point's magnitude bin, which no frequency changes
    double inverseN = 0.0;         // 1 / N
    FrequencyGrid grid;
    int phaseBins = 0, magnitudeBins = 0;
};

DispersionPlan makeDispersionPlan(const TimeSeries& series, const FrequencyGrid& grid,
                                  const PhaseDispersionOptions& options);
EntropyPlan makeEntropyPlan(const TimeSeries& series, const FrequencyGrid& grid,
                            const ConditionalEntropyOptions& options);

} // namespace warpscope::gpu
