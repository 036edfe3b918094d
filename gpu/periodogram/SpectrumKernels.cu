#include "periodogram/KernelAttribute.cuh"
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
constexpr int kCandidates = 2048;  // peaks at or above the threshold the fast search sorts
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

// The block's share of count values: consecutive, so that a peak's neighbours are mostly
// its block's.
__device__ void blockChunk(long long count, long long& begin, long long& end)
{
    const long long chunk = (count + gridDim.x - 1) / gridDim.x;
    begin = min(count, chunk * blockIdx.x);
    end = min(count, begin + chunk);
}

// Adds p to a thread's range, or to its count of values that are not finite; whether p is
// finite.
__device__ bool addToRange(double p, double& low, double& high, long long& nonFinite)
{
    if (!math::isFiniteValue(p)) {
        ++nonFinite;
        return false;
    }
    low = fmin(low, p);
    high = fmax(high, p);
    return true;
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
    long long begin = 0, end = 0;
    blockChunk(count, begin, end);
    PeakList list;
    list.clear();
    double low = HUGE_VAL, high = -HUGE_VAL;
    long long nonFinite = 0;
    for (long long i = begin + threadIdx.x; i < end; i += kSearchThreads) {
        const double p = power[i];
        if (!addToRange(p, low, high, nonFinite))
            continue;
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

// The fast search. The k-th best of the blocks' best peaks is a threshold: the k blocks at
// or above it hold k distinct peaks at or above it, so no peak below it is among the best k
// of all. Only the peaks at or above it are gathered and sorted; when there are more than
// kCandidates (many equal peaks), the exact per-block lists (spectrumSearchKernel and
// spectrumMergeKernel) run instead.
struct BlockScan
{
    double min[kSearchBlocks], max[kSearchBlocks];
    long long nonFinite[kSearchBlocks];
    double bestPower[kSearchBlocks];
    long long bestIndex[kSearchBlocks];
};

struct Candidates
{
    unsigned long long count;
    double thresholdPower;
    long long thresholdIndex;
    double power[kCandidates];
    long long index[kCandidates];
};

// The tickets by which the last block of the scan and of the gather finds that it is last.
// Each returns to 0 when its kernel completes (atomicInc wraps), so they are zeroed once, when
// the scratch is made (prepareSpectrumSearch).
struct SearchTickets
{
    unsigned scan;
    unsigned collect;
};

struct SearchScratch
{
    SearchTickets tickets;
    BlockScan scan;
    Candidates candidates;
    BlockSummary lists; // the exact search's, when the candidates overflow
};

// Whether this block is the last of the grid to reach here, every earlier block's writes
// then visible to it. Each thread's writes are fenced before the block takes its ticket.
__device__ bool lastBlock(unsigned* ticket)
{
    __shared__ bool last;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0)
        last = atomicInc(ticket, gridDim.x - 1) == gridDim.x - 1;
    __syncthreads();
    return last;
}

// The k-th best of the blocks' best peaks, from a sort of them in shared memory.
__device__ void rankThreshold(const BlockScan* scan, int blockCount, Candidates* candidates)
{
    __shared__ double power[kSearchBlocks];
    __shared__ long long index[kSearchBlocks];
    int size = 32;
    while (size < blockCount)
        size <<= 1;
    for (int i = threadIdx.x; i < size; i += kSearchThreads) {
        const long long k = i < blockCount ? __ldcg(&scan->bestIndex[i]) : LLONG_MAX;
        power[i] = k != LLONG_MAX ? __ldcg(&scan->bestPower[i]) : -HUGE_VAL;
        index[i] = k;
    }
    sortPeaks(power, index, size);
    if (threadIdx.x == 0) {
        // Fewer than k blocks with a peak bound nothing: every peak is a candidate.
        const bool bound = index[kPeaks - 1] != LLONG_MAX;
        candidates->count = 0;
        candidates->thresholdPower = bound ? power[kPeaks - 1] : -HUGE_VAL;
        candidates->thresholdIndex = bound ? index[kPeaks - 1] : LLONG_MAX;
    }
}

// Each block's range and best peak; the last block to finish then sets the threshold, so
// that the gather needs no kernel in between.
__global__ void __launch_bounds__(kSearchThreads)
    spectrumScanKernel(const double* __restrict__ power, long long count, BlockScan* scan,
                       Candidates* candidates, unsigned* ticket)
{
    long long begin = 0, end = 0;
    blockChunk(count, begin, end);
    double low = HUGE_VAL, high = -HUGE_VAL;
    long long nonFinite = 0;
    PeakList best; // its head only
    best.power[0] = -HUGE_VAL;
    best.index[0] = LLONG_MAX;
    forEachPower<kSearchThreads>(power, begin, end, [&](double p, long long i) {
        if (addToRange(p, low, high, nonFinite) &&
            math::spectrumPeakBefore(p, i, best.power[0], best.index[0]) &&
            math::spectrumIsPeak(power, i, count)) {
            best.power[0] = p;
            best.index[0] = i;
        }
    });
    double p;
    long long k;
    blockBest<kSearchThreads>(best, p, k);
    blockRange<kSearchThreads>(low, high, nonFinite);
    if (threadIdx.x == 0) {
        scan->min[blockIdx.x] = low;
        scan->max[blockIdx.x] = high;
        scan->nonFinite[blockIdx.x] = nonFinite;
        scan->bestPower[blockIdx.x] = p;
        scan->bestIndex[blockIdx.x] = k;
    }
    if (lastBlock(ticket))
        rankThreshold(scan, int(gridDim.x), candidates);
}

// The summary from the gathered candidates, sorted, and the blocks' ranges; peaks -1 when
// there are more candidates than the sort holds.
__device__ void finishSearch(const BlockScan* scan, int blockCount, const Candidates* candidates,
                             SpectrumSummary* out)
{
    __shared__ unsigned long long gathered;
    if (threadIdx.x == 0)
        gathered = __ldcg(&candidates->count);
    __syncthreads();
    const unsigned long long count = gathered;
    if (count > kCandidates) {
        if (threadIdx.x == 0)
            out->peaks = -1; // for the exact search
        return;
    }
    __shared__ double power[kCandidates];
    __shared__ long long index[kCandidates];
    // Usually a few dozen: the sort covers the next power of two, at least the k kept.
    int size = 32;
    while (size < int(count))
        size <<= 1;
    for (int i = threadIdx.x; i < size; i += kSearchThreads) {
        power[i] = i < int(count) ? __ldcg(&candidates->power[i]) : -HUGE_VAL;
        index[i] = i < int(count) ? __ldcg(&candidates->index[i]) : LLONG_MAX;
    }
    sortPeaks(power, index, size);
    double low = HUGE_VAL, high = -HUGE_VAL;
    long long nonFinite = 0;
    for (int b = threadIdx.x; b < blockCount; b += kSearchThreads) {
        low = fmin(low, scan->min[b]);
        high = fmax(high, scan->max[b]);
        nonFinite += scan->nonFinite[b];
    }
    blockRange<kSearchThreads>(low, high, nonFinite);
    if (threadIdx.x < kPeaks) {
        out->power[threadIdx.x] = power[threadIdx.x];
        out->index[threadIdx.x] = index[threadIdx.x];
    }
    if (threadIdx.x == 0) {
        int found = 0;
        while (found < kPeaks && index[found] != LLONG_MAX)
            ++found;
        const bool any = low <= high;
        out->min = any ? low : 0.0;
        out->max = any ? high : 0.0;
        out->nonFinite = nonFinite;
        out->peaks = found;
    }
}

// Gathers the peaks at or above the threshold; the last block to finish sorts them and
// writes the summary.
__global__ void __launch_bounds__(kSearchThreads)
    spectrumCollectKernel(const double* __restrict__ power, long long count,
                          const BlockScan* __restrict__ scan, Candidates* candidates,
                          unsigned* ticket, SpectrumSummary* out)
{
    long long begin = 0, end = 0;
    blockChunk(count, begin, end);
    const double thresholdPower = candidates->thresholdPower;
    const long long thresholdIndex = candidates->thresholdIndex;
    forEachPower<kSearchThreads>(power, begin, end, [&](double p, long long i) {
        if (!(p >= thresholdPower) || !atOrBefore(p, i, thresholdPower, thresholdIndex) ||
            !math::spectrumIsPeak(power, i, count))
            return;
        const unsigned long long slot = atomicAdd(&candidates->count, 1ULL);
        if (slot < kCandidates) {
            candidates->power[slot] = p;
            candidates->index[slot] = i;
        }
    });
    if (lastBlock(ticket))
        finishSearch(scan, int(gridDim.x), candidates, out);
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
    return sizeof(SearchScratch);
}

cudaError_t prepareSpectrumSearch(void* scratch, cudaStream_t stream)
{
    return cudaMemsetAsync(&static_cast<SearchScratch*>(scratch)->tickets, 0, sizeof(SearchTickets),
                           stream);
}

cudaError_t searchSpectrum(const double* power, long long count, void* scratch,
                           SpectrumSummary* out, cudaStream_t stream)
{
    // Enough blocks to fill the device, few enough that one block ranks their best peaks.
    const long long wanted = (count + 4LL * kSearchThreads - 1) / (4LL * kSearchThreads);
    const int blocks = int(std::max(1LL, std::min<long long>(kSearchBlocks, wanted)));
    auto* s = static_cast<SearchScratch*>(scratch);
    for (const cudaError_t e :
         {keepSharedCarveout<spectrumScanKernel>(), keepSharedCarveout<spectrumCollectKernel>()})
        if (e != cudaSuccess)
            return e;
    spectrumScanKernel<<<blocks, kSearchThreads, 0, stream>>>(power, count, &s->scan,
                                                              &s->candidates, &s->tickets.scan);
    spectrumCollectKernel<<<blocks, kSearchThreads, 0, stream>>>(
        power, count, &s->scan, &s->candidates, &s->tickets.collect, out);
    if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess)
        return e;
    if (const cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess)
        return e;
    if (out->peaks >= 0)
        return cudaSuccess;
    // Rare: more peaks at the threshold than the fast search sorts (thousands of equal ones).
    spectrumSearchKernel<<<blocks, kSearchThreads, 0, stream>>>(power, count, &s->lists);
    spectrumMergeKernel<<<1, kMergeThreads, 0, stream>>>(&s->lists, blocks, out);
    if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess)
        return e;
    return cudaStreamSynchronize(stream);
}

} // namespace warpscope::gpu
