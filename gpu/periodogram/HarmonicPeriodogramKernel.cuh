#pragma once

#include "periodogram/PeriodogramKernel.cuh"

#include <cuda_runtime.h>

namespace warpscope::gpu {

// A prepared series in device memory, all in double (PeriodogramPlan<double>'s t, w, wy),
// and the grid, for the multi-term periodogram.
struct HarmonicPeriodogramArgs
{
    const double* t;
    const double* w;
    const double* wy;
    int n;
    double fmin, df;
    long long count;
    bool logGrid;
    double yy, psdScale;
    int normalization;
    bool fitMean;
};

// Writes args.count powers of the nterms-term model (1 to 6) on stream, the trigonometry in
// float64 or float32, with the launch shape of the one-term direct kernel (each thread takes
// kFrequenciesPerThread consecutive frequencies). Returns the launch error, if any.
cudaError_t launchHarmonicPeriodogram(const HarmonicPeriodogramArgs& args, int nterms, bool float64,
                                      const PeriodogramShape& shape, double* power,
                                      cudaStream_t stream);

} // namespace warpscope::gpu
