#pragma once

#include <cuda_runtime.h>

namespace warpscope::gpu {

// A batch of prepared series (see PeriodogramPlan) end to end in device memory, in slot
// order (the objects sorted by their number of samples), and the grid they share. Slot s
// holds samples [offsets[s], offsets[s + 1]) and its powers go to power + s * count.
template <typename T> struct PeriodogramBatchArgs
{
    const double* t; // t - t0 of each series, in double for exact start phases
    const T* w;
    const T* wy;
    const T* stepCos; // rotations by df t (evenly spaced grids only)
    const T* stepSin;
    const long long* offsets;
    const double* yy;
    const double* psdScale;
    double fmin, df; // as FrequencyGrid holds them
    long long count;
    bool logGrid;
    int normalization;
    bool fitMean;
};

// Launches the direct kernel over slots [firstSlot, firstSlot + slots): a block per (slot,
// chunk of blockThreads x 8 frequencies), a slot's chunks side by side. Returns the launch
// error, if any.
template <typename T>
cudaError_t launchPeriodogramBatch(const PeriodogramBatchArgs<T>& args, long long firstSlot,
                                   long long slots, int blockThreads, double* power,
                                   cudaStream_t stream);

} // namespace warpscope::gpu
