#pragma once

#include "warpscope/gpu/Spectrum.h"

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

// What the device's search keeps of one slot's powers: how many were not finite, and its
// highest local maxima (peaks of them), best first.
struct BatchPeakSummary
{
    long long nonFinite;
    int peaks;
    long long index[kSpectrumMaxPeaks];
    double power[kSpectrumMaxPeaks];
};

// Searches slots [firstSlot, firstSlot + slots) of power (slot s's count powers at
// power + s * count) for their maxPeaks (1 to kSpectrumMaxPeaks) highest local maxima, as
// topPeaks() defines and orders them, into out[s]: a block per slot. Returns the launch
// error, if any.
cudaError_t launchBatchPeaks(const double* power, long long count, long long firstSlot,
                             long long slots, int maxPeaks, BatchPeakSummary* out,
                             cudaStream_t stream);

} // namespace warpscope::gpu
