#pragma once

#include "periodogram/SpectrumColumns.h"
#include "warpscope/gpu/Spectrum.h"

#include <climits>

// The device's peak search, shared by the search over one periodogram (SpectrumKernels.cu)
// and the batch's search over each object's row (PeriodogramBatchKernel.cu): each thread keeps
// its best local maxima (math::spectrumIsPeak) in registers, and the block takes the best of
// their heads, one at a time, in math::spectrumPeakBefore's order, as topPeaks() does on the
// host.
namespace warpscope::gpu {

inline constexpr int kPeakListLength = kSpectrumMaxPeaks;
inline constexpr unsigned kPeakWarpMask = 0xffffffffu;

// A thread's best peaks so far, best first, in registers (every index is a constant).
struct PeakList
{
    double power[kPeakListLength];
    long long index[kPeakListLength];

    __device__ void clear()
    {
#pragma unroll
        for (int j = 0; j < kPeakListLength; ++j) {
            power[j] = -HUGE_VAL;
            index[j] = LLONG_MAX;
        }
    }
    __device__ void insert(double p, long long k)
    {
        if (!math::spectrumPeakBefore(p, k, power[kPeakListLength - 1], index[kPeakListLength - 1]))
            return;
        power[kPeakListLength - 1] = p;
        index[kPeakListLength - 1] = k;
#pragma unroll
        for (int j = kPeakListLength - 1; j > 0; --j)
            if (math::spectrumPeakBefore(power[j], index[j], power[j - 1], index[j - 1])) {
                const double tp = power[j];
                const long long tk = index[j];
                power[j] = power[j - 1];
                index[j] = index[j - 1];
                power[j - 1] = tp;
                index[j - 1] = tk;
            }
    }
    __device__ void popFront()
    {
#pragma unroll
        for (int j = 0; j + 1 < kPeakListLength; ++j) {
            power[j] = power[j + 1];
            index[j] = index[j + 1];
        }
        power[kPeakListLength - 1] = -HUGE_VAL;
        index[kPeakListLength - 1] = LLONG_MAX;
    }
};

// The block's best head among the threads' lists, known to every thread.
template <int Threads> __device__ void blockBest(const PeakList& list, double& p, long long& k)
{
    __shared__ double powers[Threads / 32];
    __shared__ long long indices[Threads / 32];
    p = list.power[0];
    k = list.index[0];
    for (int offset = 16; offset > 0; offset >>= 1) {
        const double op = __shfl_down_sync(kPeakWarpMask, p, offset);
        const long long ok = __shfl_down_sync(kPeakWarpMask, k, offset);
        if (math::spectrumPeakBefore(op, ok, p, k)) {
            p = op;
            k = ok;
        }
    }
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    __syncthreads(); // the previous round has read the shared slots
    if (lane == 0) {
        powers[warp] = p;
        indices[warp] = k;
    }
    __syncthreads();
    p = powers[0];
    k = indices[0];
    for (int w = 1; w < Threads / 32; ++w)
        if (math::spectrumPeakBefore(powers[w], indices[w], p, k)) {
            p = powers[w];
            k = indices[w];
        }
}

// Whether peak (p, k) is at or before the threshold (thresholdPower, thresholdIndex) in peak
// order: one that a search by threshold keeps.
inline __device__ bool atOrBefore(double p, long long k, double thresholdPower,
                                  long long thresholdIndex)
{
    return !math::spectrumPeakBefore(thresholdPower, thresholdIndex, p, k);
}

// Sorts the first size shared pairs best first (bitonic; size a power of two), the block's
// threads taking the compare-exchanges of each step between them.
inline __device__ void sortPeaks(double* power, long long* index, int size)
{
    for (int width = 2; width <= size; width <<= 1)
        for (int stride = width >> 1; stride > 0; stride >>= 1) {
            __syncthreads();
            for (int t = threadIdx.x; t < size / 2; t += blockDim.x) {
                const int a = 2 * t - (t & (stride - 1)), b = a + stride;
                const bool bestFirst = (a & width) == 0;
                if (math::spectrumPeakBefore(power[b], index[b], power[a], index[a]) == bestFirst) {
                    const double tp = power[a];
                    const long long tk = index[a];
                    power[a] = power[b];
                    index[a] = index[b];
                    power[b] = tp;
                    index[b] = tk;
                }
            }
        }
    __syncthreads();
}

// Calls visit(p, i) for each power of [begin, end) that falls to this thread of Threads
// (every Threads-th), loading kLoads of them before visiting any: the loads are in flight
// together instead of one after another.
template <int Threads, typename Visit>
__device__ void forEachPower(const double* __restrict__ power, long long begin, long long end,
                             Visit&& visit)
{
    constexpr int kLoads = 8;
    for (long long first = begin + threadIdx.x; first < end; first += (long long)kLoads * Threads) {
        double p[kLoads];
#pragma unroll
        for (int u = 0; u < kLoads; ++u) {
            const long long i = first + (long long)u * Threads;
            p[u] = i < end ? power[i] : 0.0;
        }
#pragma unroll
        for (int u = 0; u < kLoads; ++u) {
            const long long i = first + (long long)u * Threads;
            if (i < end)
                visit(p[u], i);
        }
    }
}

} // namespace warpscope::gpu
