#include "periodogram/KernelAttribute.cuh"
#include "periodogram/SpectrumKernels.cuh"
#include "periodogram/SpectrumPeaks.cuh"
#include "runtime/WarpReduce.cuh"

#include <algorithm>
#include <climits>

namespace warpscope::gpu {
namespace {

constexpr int kColumnThreads = 128;
constexpr int kSearchThreads = 256;
constexpr int kSearchBlocks = 512;
constexpr int kMergeThreads = 256; // registers enough for each thread's list
constexpr int kPeaks = kPeakListLength;

// One block's minimum and maximum, reduced into thread 0's values.
template <int Threads> __device__ void blockMinMax(double& low, double& high)
{
    __shared__ double lows[Threads / 32], highs[Threads / 32];
    low = warpReduce(low, [](double a, double b) { return fmin(a, b); });
    high = warpReduce(high, [](double a, double b) { return fmax(a, b); });
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
    nonFinite = warpSum(nonFinite);
    __shared__ long long counts[Threads / 32];
    if (threadIdx.x % 32 == 0)
        counts[threadIdx.x / 32] = nonFinite;
    blockMinMax<Threads>(low, high); // its barrier also publishes the counts
    if (threadIdx.x == 0)
        for (int w = 1; w < Threads / 32; ++w)
            nonFinite += counts[w];
}

// Adds p to a thread's range if it is finite; whether it is.
__device__ bool addToRange(double p, double& low, double& high)
{
    if (!math::isFiniteValue(p))
        return false;
    low = fmin(low, p);
    high = fmax(high, p);
    return true;
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
        if (!addToRange(p, low, high)) {
            ++nonFinite;
            continue;
        }
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

// The fast search: each block of a scan leaves its range and its best peak, the gather takes
// a threshold from those bests and gathers only the peaks at or above it, and its last block
// sorts them; when there are more than kCandidates (many equal peaks), the exact per-block
// lists (spectrumSearchKernel and spectrumMergeKernel) run instead.
constexpr int kCandidates = 2048; // peaks at or above the threshold that the sort holds

struct BlockScan
{
    double min[kSearchBlocks], max[kSearchBlocks];
    double bestPower[kSearchBlocks];
    long long bestIndex[kSearchBlocks];
};

// What the gather counts: its candidates, the powers that are not finite (read from memory,
// so a power that a kernel failed to write shows as its poison), and the ticket by which its
// last block finds that it is last. All return to 0 when the gather completes (its last block
// resets the counts, atomicInc wraps the ticket), so they are zeroed once, when the scratch
// is made (prepareSpectrumSearch).
struct GatherCounts
{
    unsigned long long candidates;
    unsigned long long nonFinite;
    unsigned ticket;
};

struct Candidates
{
    double power[kCandidates];
    long long index[kCandidates];
};

struct SearchScratch
{
    GatherCounts counts;
    BlockScan scan;
    Candidates candidates;
    BlockSummary lists; // the exact search's, when the candidates overflow
};

// Programmatic dependent launch (compute capability 9.0 on): the gather, launched with
// programmatic stream serialization, may start while the scan runs, and loads its first
// powers (written before the scan began) before it waits for the scan's results. Elsewhere
// both are no-ops and the gather starts after the scan, as any launch would.
__device__ void allowDependentLaunch()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;");
#endif
}

__device__ void waitForPrerequisites()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Each block's range and best peak.
__global__ void __launch_bounds__(kSearchThreads)
    spectrumScanKernel(const double* __restrict__ power, long long count, BlockScan* scan)
{
    allowDependentLaunch();
    long long begin = 0, end = 0;
    blockChunk(count, begin, end);
    double low = HUGE_VAL, high = -HUGE_VAL;
    PeakListOf<1> best;
    best.clear();
    forEachPower<kSearchThreads>(power, begin, end, [&](double p, long long i) {
        if (addToRange(p, low, high) &&
            math::spectrumPeakBefore(p, i, best.power[0], best.index[0]) &&
            math::spectrumIsPeak(power, i, count)) {
            best.power[0] = p;
            best.index[0] = i;
        }
    });
    double p;
    long long k;
    blockBest<kSearchThreads>(best, p, k);
    blockMinMax<kSearchThreads>(low, high);
    if (threadIdx.x == 0) {
        scan->min[blockIdx.x] = low;
        scan->max[blockIdx.x] = high;
        scan->bestPower[blockIdx.x] = p;
        scan->bestIndex[blockIdx.x] = k;
    }
}

// The threshold: the scan's best peaks fall into 32 groups (block b into group b % 32), and
// the k-th best of the groups' bests is the threshold. k distinct peaks lie at or above it (the
// scan's chunks do not overlap), so no peak below it is among the best k of all. With fewer
// than k, it bounds nothing: (-inf, LLONG_MAX), and every peak is a candidate. Every thread
// loads its share of the bests at once, and the first warp ranks the groups' bests.
__device__ void blockThreshold(const BlockScan* scan, int blockCount, double& thresholdPower,
                               long long& thresholdIndex)
{
    static_assert(kSearchThreads % 32 == 0 && kSearchBlocks % kSearchThreads == 0);
    constexpr int loads = kSearchBlocks / kSearchThreads, warps = kSearchThreads / 32;
    long long bk[loads];
    double bp[loads];
#pragma unroll
    for (int u = 0; u < loads; ++u) {
        const int b = threadIdx.x + u * kSearchThreads;
        bk[u] = b < blockCount ? __ldcg(&scan->bestIndex[b]) : LLONG_MAX;
        bp[u] = b < blockCount ? __ldcg(&scan->bestPower[b]) : -HUGE_VAL;
    }
    double p = -HUGE_VAL;
    long long k = LLONG_MAX;
#pragma unroll
    for (int u = 0; u < loads; ++u)
        if (bk[u] != LLONG_MAX && math::spectrumPeakBefore(bp[u], bk[u], p, k)) {
            p = bp[u];
            k = bk[u];
        }
    __shared__ double powers[warps][32];
    __shared__ long long indices[warps][32];
    __shared__ double chosenPower;
    __shared__ long long chosenIndex;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    powers[warp][lane] = p;
    indices[warp][lane] = k;
    __syncthreads();
    if (warp == 0) {
        for (int w = 1; w < warps; ++w)
            if (math::spectrumPeakBefore(powers[w][lane], indices[w][lane], p, k)) {
                p = powers[w][lane];
                k = indices[w][lane];
            }
        int rank = 0; // groups whose best comes first
        for (int other = 0; other < 32; ++other) {
            const double op = __shfl_sync(kFullWarpMask, p, other);
            const long long ok = __shfl_sync(kFullWarpMask, k, other);
            rank += math::spectrumPeakBefore(op, ok, p, k);
        }
        const unsigned at = __ballot_sync(kFullWarpMask, k != LLONG_MAX && rank == kPeaks - 1);
        const int from = at ? __ffs(int(at)) - 1 : 0;
        const double fp = __shfl_sync(kFullWarpMask, p, from);
        const long long fk = __shfl_sync(kFullWarpMask, k, from);
        if (lane == 0) {
            chosenPower = at ? fp : -HUGE_VAL;
            chosenIndex = at ? fk : LLONG_MAX;
        }
    }
    __syncthreads();
    thresholdPower = chosenPower;
    thresholdIndex = chosenIndex;
}

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

// The summary from the gathered candidates, sorted, and the scan's ranges; peaks -1 when
// there are more candidates than the sort holds. Leaves the counts at 0 for the next search.
__device__ void finishSearch(const BlockScan* scan, int blockCount, GatherCounts* counts,
                             const Candidates* candidates, SpectrumSummary* out)
{
    __shared__ unsigned long long gathered, nonFinite;
    if (threadIdx.x == 0) {
        gathered = __ldcg(&counts->candidates);
        nonFinite = __ldcg(&counts->nonFinite);
        counts->candidates = 0;
        counts->nonFinite = 0;
    }
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
    for (int b = threadIdx.x; b < blockCount; b += kSearchThreads) {
        low = fmin(low, __ldcg(&scan->min[b]));
        high = fmax(high, __ldcg(&scan->max[b]));
    }
    blockMinMax<kSearchThreads>(low, high);
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
        out->nonFinite = (long long)nonFinite;
        out->peaks = found;
    }
}

// Gathers the peaks at or above the threshold from the scan of as many blocks, and counts the
// powers that are not finite; the last block to finish sorts the peaks and writes the summary.
__global__ void __launch_bounds__(kSearchThreads)
    spectrumCollectKernel(const double* __restrict__ power, long long count,
                          const BlockScan* __restrict__ scan, GatherCounts* counts,
                          Candidates* candidates, SpectrumSummary* out)
{
    long long begin = 0, end = 0;
    blockChunk(count, begin, end);
    // The first powers load while the block works out the threshold.
    PowerBatch<kSearchThreads> batch;
    batch.load(power, begin + threadIdx.x, end);
    waitForPrerequisites(); // the scan's results, below
    double tp;
    long long tk;
    blockThreshold(scan, int(gridDim.x), tp, tk);
    unsigned long long nonFinite = 0;
    forEachPower<kSearchThreads>(
        power, begin, end,
        [&](double p, long long i) {
            nonFinite += !math::isFiniteValue(p);
            if (!(p >= tp) || !atOrBefore(p, i, tp, tk) || !math::spectrumIsPeak(power, i, count))
                return;
            const unsigned long long slot = atomicAdd(&counts->candidates, 1ULL);
            if (slot < kCandidates) {
                candidates->power[slot] = p;
                candidates->index[slot] = i;
            }
        },
        &batch);
    nonFinite = warpSum(nonFinite);
    if (threadIdx.x % 32 == 0 && nonFinite)
        atomicAdd(&counts->nonFinite, nonFinite);
    if (lastBlock(&counts->ticket))
        finishSearch(scan, int(gridDim.x), counts, candidates, out);
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
    return cudaMemsetAsync(&static_cast<SearchScratch*>(scratch)->counts, 0, sizeof(GatherCounts),
                           stream);
}

cudaError_t searchSpectrum(const double* power, long long count, void* scratch,
                           SpectrumSummary* out, int ccMajor, cudaStream_t stream)
{
    // Enough blocks to fill the device, few enough that each gathering block ranks their best
    // peaks at once.
    const long long wanted = (count + 4LL * kSearchThreads - 1) / (4LL * kSearchThreads);
    const int blocks = int(std::max(1LL, std::min<long long>(kSearchBlocks, wanted)));
    auto* s = static_cast<SearchScratch*>(scratch);
    for (const cudaError_t e :
         {keepSharedCarveout<spectrumScanKernel>(), keepSharedCarveout<spectrumCollectKernel>()})
        if (e != cudaSuccess)
            return e;
    spectrumScanKernel<<<blocks, kSearchThreads, 0, stream>>>(power, count, &s->scan);
    if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess)
        return e;
    // Asked for only where the device has it (compute capability 9.0 on).
    cudaLaunchAttribute overlap{};
    overlap.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    overlap.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t gather{};
    gather.gridDim = dim3(unsigned(blocks));
    gather.blockDim = dim3(kSearchThreads);
    gather.stream = stream;
    gather.attrs = &overlap;
    gather.numAttrs = ccMajor >= 9 ? 1 : 0;
    if (const cudaError_t e = cudaLaunchKernelEx(&gather, spectrumCollectKernel, power, count,
                                                 static_cast<const BlockScan*>(&s->scan),
                                                 &s->counts, &s->candidates, out);
        e != cudaSuccess)
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
