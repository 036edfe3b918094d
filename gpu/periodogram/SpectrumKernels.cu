#include "periodogram/SpectrumKernels.cuh"
#include "periodogram/SpectrumPeaks.cuh"

#include <algorithm>
#include <climits>

namespace warpscope::gpu {
namespace {

constexpr int kColumnThreads = 128;
constexpr int kSearchThreads = 256;
constexpr int kSearchBlocks = 512;
constexpr int kMergeThreads = 256; // registers enough for each thread's list
constexpr int kPeaks = kPeakListLength;
constexpr unsigned kFullMask = 0xffffffffu;

// One block's minimum and maximum, reduced into thread 0's values.
template <int Threads> __device__ void blockMinMax(double& low, double& high)
{
    __shared__ double lows[Threads / 32], highs[Threads / 32];
    for (int offset = 16; offset > 0; offset >>= 1) {
        low = fmin(low, __shfl_down_sync(kFullMask, low, offset));
        high = fmax(high, __shfl_down_sync(kFullMask, high, offset));
    }
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) {
        lows[warp] = low;
        highs[warp] = high;
    }
    __syncthreads();
    if (threadIdx.x == 0)
        for (int w = 1; w < Threads / 32; ++w) {
            low = fmin(low, lows[w]);
            high = fmax(high, highs[w]);
        }
}

// The block's minimum, maximum and count of non-finite values, in thread 0's.
template <int Threads> __device__ void blockRange(double& low, double& high, long long& nonFinite)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        nonFinite += __shfl_down_sync(kFullMask, nonFinite, offset);
    __shared__ long long counts[Threads / 32];
    if (threadIdx.x % 32 == 0)
        counts[threadIdx.x / 32] = nonFinite;
    blockMinMax<Threads>(low, high); // its barrier also publishes the counts
    if (threadIdx.x == 0)
        for (int w = 1; w < Threads / 32; ++w)
            nonFinite += counts[w];
}

__global__ void __launch_bounds__(kColumnThreads)
    spectrumColumnsKernel(const double* __restrict__ power, math::SpectrumMapping m,
                          float* __restrict__ vertices)
{
    const int c = blockIdx.x;
    long long lo = 0, hi = 0;
    math::spectrumColumnRange(m, c, lo, hi);
    float* v = vertices + std::size_t(c) * kSpectrumFloatsPerColumn;
    if (hi <= lo) {
        if (threadIdx.x == 0) {
            const long long k = math::spectrumNearestIndex(m, c);
            v[0] = v[2] = float(math::spectrumColumnOf(m, k));
            v[1] = v[3] = float(power[k]);
        }
        return;
    }
    double low = HUGE_VAL, high = -HUGE_VAL;
    for (long long k = lo + threadIdx.x; k < hi; k += kColumnThreads) {
        const double p = power[k];
        if (math::isFiniteValue(p)) {
            low = fmin(low, p);
            high = fmax(high, p);
        }
    }
    blockMinMax<kColumnThreads>(low, high);
    if (threadIdx.x == 0) {
        const bool any = low <= high;
        v[0] = v[2] = float(c) + 0.5f;
        v[1] = any ? float(low) : __int_as_float(0x7fc00000);
        v[3] = any ? float(high) : __int_as_float(0x7fc00000);
    }
}

struct BlockSummary
{
    double min[kSearchBlocks], max[kSearchBlocks];
    long long nonFinite[kSearchBlocks];
    double power[kSearchBlocks * kPeaks];
    long long index[kSearchBlocks * kPeaks];
};

__global__ void __launch_bounds__(kSearchThreads)
    spectrumSearchKernel(const double* __restrict__ power, long long count, BlockSummary* out)
{
    const long long chunk = (count + gridDim.x - 1) / gridDim.x;
    const long long begin = min(count, chunk * blockIdx.x);
    const long long end = min(count, begin + chunk);
    PeakList list;
    list.clear();
    double low = HUGE_VAL, high = -HUGE_VAL;
    long long nonFinite = 0;
    for (long long i = begin + threadIdx.x; i < end; i += kSearchThreads) {
        const double p = power[i];
        if (!math::isFiniteValue(p)) {
            ++nonFinite;
            continue;
        }
        low = fmin(low, p);
        high = fmax(high, p);
        if (math::spectrumIsPeak(power, i, count))
            list.insert(p, i);
    }
    for (int j = 0; j < kPeaks; ++j) {
        double p;
        long long k;
        blockBest<kSearchThreads>(list, p, k);
        if (list.index[0] == k && k != LLONG_MAX)
            list.popFront();
        if (threadIdx.x == 0) {
            out->power[blockIdx.x * kPeaks + j] = p;
            out->index[blockIdx.x * kPeaks + j] = k;
        }
    }
    blockRange<kSearchThreads>(low, high, nonFinite);
    if (threadIdx.x == 0) {
        out->min[blockIdx.x] = low;
        out->max[blockIdx.x] = high;
        out->nonFinite[blockIdx.x] = nonFinite;
    }
}

__global__ void __launch_bounds__(kMergeThreads)
    spectrumMergeKernel(const BlockSummary* __restrict__ blocks, int blockCount,
                        SpectrumSummary* out)
{
    PeakList list;
    list.clear();
    for (int i = threadIdx.x; i < blockCount * kPeaks; i += kMergeThreads)
        list.insert(blocks->power[i], blocks->index[i]);
    double low = HUGE_VAL, high = -HUGE_VAL;
    long long nonFinite = 0;
    for (int b = threadIdx.x; b < blockCount; b += kMergeThreads) {
        low = fmin(low, blocks->min[b]);
        high = fmax(high, blocks->max[b]);
        nonFinite += blocks->nonFinite[b];
    }
    int found = 0;
    for (int j = 0; j < kPeaks; ++j) {
        double p;
        long long k;
        blockBest<kMergeThreads>(list, p, k);
        if (list.index[0] == k && k != LLONG_MAX)
            list.popFront();
        if (k != LLONG_MAX)
            found = j + 1;
        if (threadIdx.x == 0) {
            out->power[j] = p;
            out->index[j] = k;
        }
    }
    blockRange<kMergeThreads>(low, high, nonFinite);
    if (threadIdx.x == 0) {
        const bool any = low <= high;
        out->min = any ? low : 0.0;
        out->max = any ? high : 0.0;
        out->nonFinite = nonFinite;
        out->peaks = found;
    }
}

} // namespace

cudaError_t launchSpectrumColumns(const double* power, const math::SpectrumMapping& m,
                                  float* vertices, cudaStream_t stream)
{
    spectrumColumnsKernel<<<m.columns, kColumnThreads, 0, stream>>>(power, m, vertices);
    return cudaGetLastError();
}

std::size_t spectrumSummaryScratchBytes()
{
    return sizeof(BlockSummary);
}

cudaError_t launchSpectrumSummary(const double* power, long long count, void* scratch,
                                  SpectrumSummary* out, cudaStream_t stream)
{
    // Enough blocks to fill the device, few enough that one block merges their lists.
    const long long wanted = (count + 4LL * kSearchThreads - 1) / (4LL * kSearchThreads);
    const int blocks = int(std::max(1LL, std::min<long long>(kSearchBlocks, wanted)));
    auto* summary = static_cast<BlockSummary*>(scratch);
    spectrumSearchKernel<<<blocks, kSearchThreads, 0, stream>>>(power, count, summary);
    if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess)
        return e;
    spectrumMergeKernel<<<1, kMergeThreads, 0, stream>>>(summary, blocks, out);
    return cudaGetLastError();
}

} // namespace warpscope::gpu
