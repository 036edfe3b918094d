#pragma once

#include <cstddef>
#include <cuda_runtime.h>

namespace warpscope::gpu {

// A prepared series in device memory (see PeriodogramPlan) and the grid to evaluate.
template <typename T> struct PeriodogramArgs
{
    const double* t; // t - t0, in double for exact start phases
    const T* w;
    const T* wy;
    // Rotations by df t from one frequency to the next (evenly spaced grids only).
    const T* stepCos;
    const T* stepSin;
    int n;
    double fmin, df; // as FrequencyGrid holds them
    long long count;
    bool logGrid;
    double yy, psdScale;
    int normalization;
    bool fitMean;
    // Matrix products: w and wy times this power of two, which brings the largest of them to
    // between 2^13 and 2^14: float32's FP16 halves then stay clear of FP16's subnormals and
    // below its largest value (65504).
    T scale;
};

// Writes args.count powers (double) to power on stream. Exact sums: each thread takes a few
// consecutive frequencies and starts each sample's phase exactly; on an evenly spaced grid it
// rotates the phase from one frequency to the next, on a logarithmic one it starts every
// phase exactly. Returns the launch error, if any.
// The launch: threads per block (at most the kernel's 512), blocks (0: enough to cover every
// frequency), and whether blocks loop over the grid until every frequency is done.
struct PeriodogramShape
{
    int blockThreads = 128;
    long long gridBlocks = 0;
    bool gridStride = false;
};

template <typename T>
cudaError_t launchPeriodogram(const PeriodogramArgs<T>& args, const PeriodogramShape& shape,
                              double* power, cudaStream_t stream);

// Writes each sample's rotation from one frequency to the next, cos and sin of 2 pi df t[i]
// reduced in cycles (as PeriodogramPlan's host steps), for the n samples of t (double) on
// stream: n sine-cosine pairs that would cost the host tens of microseconds a call.
template <typename T>
cudaError_t launchPeriodogramSteps(const double* t, long long n, double df, T* stepCos, T* stepSin,
                                   cudaStream_t stream);

// What a small call needs before its sums, in one launch on stream: copies bytes (a multiple
// of 8) from staged, pinned host memory the kernel reads in place, to series on the device;
// writes the n rotation steps (as launchPeriodogramSteps, from the double times that start
// the staged bytes); and sets the count powers (16-byte aligned, as device allocations are) to
// NaN, so that any the sums leave out shows. Three operations of a few microseconds each, most of
// it latency, become one.
template <typename T>
cudaError_t launchPeriodogramPrepare(const void* staged, void* series, std::size_t bytes,
                                     long long n, double df, T* stepCos, T* stepSin, double* power,
                                     long long count, cudaStream_t stream);

// The kernel in one precision and grid spacing, for the occupancy API.
const void* periodogramKernelSymbol(bool float64, bool logGrid);

} // namespace warpscope::gpu
