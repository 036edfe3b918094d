#pragma once

#include <cuda_runtime.h>

namespace warpscope::gpu {

// A prepared series in device memory (see PeriodogramPlan) and the grid to evaluate.
template <typename T> struct PeriodogramArgs
{
    const double* t; // t - t0, in double for exact start phases
    const T* w;
    const T* wy;
    const T* stepCos;
    const T* stepSin;
    int n;
    double fmin, df;
    long long count;
    double yy, psdScale;
    int normalization;
    bool fitMean;
};

// Writes args.count powers (double) to power on stream. Exact sums: each thread takes a few
// consecutive frequencies, starts each sample's phase exactly and rotates it from one
// frequency to the next. Returns the launch error, if any.
template <typename T>
cudaError_t launchPeriodogram(const PeriodogramArgs<T>& args, double* power, cudaStream_t stream);

} // namespace warpscope::gpu
