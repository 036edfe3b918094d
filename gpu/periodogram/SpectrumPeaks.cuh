#pragma once

#include "periodogram/SpectrumColumns.h"
#include "runtime/WarpReduce.cuh"
#include "warpscope/gpu/Spectrum.h"

#include <climits>

// The device's peak search, shared by the search over one periodogram (SpectrumKernels.cu)
// and the batch's search over each object's row (PeriodogramBatchKernel.cu): each thread keeps
// its best local maxima (math::spectrumIsPeak) in registers, and the block takes the best of
// their heads, one at a time, in math::spectrumPeakBefore's order, as topPeaks() does on the
// host.
namespace warpscope::gpu {

inline constexpr int kPeakListLength = kSpectrumMaxPeaks;

// A thread's best Length peaks so far, best first, in registers (every index is a constant).
template <int Length> struct PeakListOf
{
    double power[Length];
    long long index[Length];

    __device__ void clear()
    {
#pragma unroll
        for (int j = 0; j < Length; ++j) {
            power[j] = -HUGE_VAL;
            index[j] = LLONG_MAX;
        }
    }
    __device__ void insert(double p, long long k)
    {
        if (!math::spectrumPeakBefore(p, k, power[Length - 1], index[Length - 1]))
            return;
        power[Length - 1] = p;
        index[Length - 1] = k;
#pragma unroll
        for (int j = Length - 1; j > 0; --j)
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
        for (int j = 0; j + 1 < Length; ++j) {
            power[j] = power[j + 1];
            index[j] = index[j + 1];
        }
        power[Length - 1] = -HUGE_VAL;
        index[Length - 1] = LLONG_MAX;
    }
};
using PeakList = PeakListOf<kPeakListLength>;

// The block's best head among the threads' lists, known to every thread.
template <int Threads, int Length>
__device__ void blockBest(const PeakListOf<Length>& list, double& p, long long& k)
{
    __shared__ double powers[Threads / 32];
    __shared__ long long indices[Threads / 32];
    p = list.power[0];
    k = list.index[0];
    warpBest(p, k, [](double op, long long ok, double bp, long long bk) {
        return math::spectrumPeakBefore(op, ok, bp, bk);
    });
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

// A thread's next kPowerLoads powers of [begin, end) (every Threads-th from first), loaded
// before any is visited: the loads are in flight together instead of one after another.
inline constexpr int kPowerLoads = 8;
template <int Threads> struct PowerBatch
{
    long long first;
    double p[kPowerLoads];

    __device__ void load(const double* __restrict__ power, long long from, long long end)
    {
        first = from;
#pragma unroll
        for (int u = 0; u < kPowerLoads; ++u) {
            const long long i = first + (long long)u * Threads;
            p[u] = i < end ? power[i] : 0.0;
        }
    }
    template <typename Visit> __device__ void visit(long long end, Visit&& visitor) const
    {
#pragma unroll
        for (int u = 0; u < kPowerLoads; ++u) {
            const long long i = first + (long long)u * Threads;
            if (i < end)
                visitor(p[u], i);
        }
    }
    __device__ long long next() const
    {
        return first + (long long)kPowerLoads * Threads;
    }
};

// Calls visit(p, i) for each power of [begin, end) that falls to this thread of Threads
// (every Threads-th), a PowerBatch at a time; batch, when given, is the first, already loaded.
template <int Threads, typename Visit>
__device__ void forEachPower(const double* __restrict__ power, long long begin, long long end,
                             Visit&& visit, const PowerBatch<Threads>* batch = nullptr)
{
    PowerBatch<Threads> b;
    if (batch)
        b = *batch;
    else
        b.load(power, begin + threadIdx.x, end);
    while (b.first < end) {
        b.visit(end, visit);
        b.load(power, b.next(), end);
    }
}

} // namespace warpscope::gpu
