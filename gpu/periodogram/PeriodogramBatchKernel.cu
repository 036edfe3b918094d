#include "periodogram/PeriodogramBatchKernel.cuh"
#include "periodogram/PeriodogramBlock.cuh"
#include "periodogram/SpectrumPeaks.cuh"

namespace warpscope::gpu {
namespace {

constexpr int kMaxThreads = 512;

// Each block evaluates one chunk of one slot's frequencies with the direct kernel's block
// (periodogramBlock), on that slot's samples.
template <typename T, bool LogGrid>
__global__ void __launch_bounds__(kMaxThreads)
    periodogramBatchKernel(PeriodogramBatchArgs<T> b, long long firstSlot, long long chunks,
                           double* power)
{
    const long long slot = firstSlot + (long long)blockIdx.x / chunks;
    const long long chunk = (long long)blockIdx.x % chunks;
    const long long first = b.offsets[slot];
    PeriodogramArgs<T> a{};
    a.t = b.t + first;
    a.w = b.w + first;
    a.wy = b.wy + first;
    a.stepCos = b.stepCos + first;
    a.stepSin = b.stepSin + first;
    a.n = int(b.offsets[slot + 1] - first);
    a.fmin = b.fmin;
    a.df = b.df;
    a.count = b.count;
    a.logGrid = LogGrid;
    a.yy = b.yy[slot];
    a.psdScale = b.psdScale[slot];
    a.normalization = b.normalization;
    a.fitMean = b.fitMean;
    const long long perBlock = (long long)blockDim.x * kPeriodogramPerThread;
    periodogramBlock<T, LogGrid>(a, chunk * perBlock, b.count, power + slot * b.count);
}

constexpr int kSearchThreads = 256;
// Peaks at or above a row's threshold that the fast search sorts (usually a few dozen).
constexpr int kCandidates = 1024;

// The exact search of one row: each thread keeps the best local maxima of its strided share
// (PeakList), then the block takes the best heads one at a time, as the search of one
// periodogram merges its blocks' lists. For rows of thousands of equal peaks.
__device__ void exactRowPeaks(const double* __restrict__ row, long long count, int maxPeaks,
                              BatchPeakSummary& summary)
{
    PeakList list;
    list.clear();
    for (long long i = threadIdx.x; i < count; i += kSearchThreads) {
        const double p = row[i];
        if (math::isFiniteValue(p) && math::spectrumIsPeak(row, i, count))
            list.insert(p, i);
    }
    int found = 0;
    for (int j = 0; j < maxPeaks; ++j) {
        double p;
        long long k;
        blockBest<kSearchThreads>(list, p, k);
        if (list.index[0] == k && k != LLONG_MAX)
            list.popFront();
        if (k != LLONG_MAX)
            found = j + 1;
        if (threadIdx.x == 0) {
            summary.power[j] = p;
            summary.index[j] = k;
        }
    }
    if (threadIdx.x == 0)
        summary.peaks = found;
}

// Peaks each thread keeps from its share of a row in the first pass over it.
constexpr int kThreadPeaks = 4;

// One block per slot, as the search of one periodogram by threshold (SpectrumKernels.cu):
// each thread keeps the best kThreadPeaks local maxima of its strided share of the row; the
// maxPeaks-th best of the threads' best is a threshold, since the threads at or above it hold
// that many distinct peaks at or above it, so no peak below it is among the best maxPeaks.
// The kept peaks at or above it are gathered and sorted. A thread whose kept peaks are all at
// or above the threshold may have more: then a second pass over the row gathers every peak at
// or above it, and with more than kCandidates of them (thousands of equal peaks) the exact
// search runs instead. The row is read once for most rows: the search's share of a survey's
// GPU time is in its reads.
__global__ void __launch_bounds__(kSearchThreads)
    batchPeaksKernel(const double* __restrict__ power, long long count, long long firstSlot,
                     int maxPeaks, BatchPeakSummary* __restrict__ out)
{
    const long long slot = firstSlot + (long long)blockIdx.x;
    const double* row = power + slot * count;
    __shared__ double candidatePower[kCandidates];
    __shared__ long long candidateIndex[kCandidates];
    __shared__ unsigned gathered;
    __shared__ bool overflowed;
    __shared__ unsigned long long blockNonFinite;
    static_assert(kSearchThreads * kThreadPeaks <= kCandidates, "every kept peak fits");
    if (threadIdx.x == 0) {
        gathered = 0;
        overflowed = false;
        blockNonFinite = 0;
    }
    PeakListOf<kThreadPeaks> kept;
    kept.clear();
    long long nonFinite = 0;
    forEachPower<kSearchThreads>(row, 0, count, [&](double p, long long i) {
        if (!math::isFiniteValue(p))
            ++nonFinite;
        else if (math::spectrumPeakBefore(p, i, kept.power[kThreadPeaks - 1],
                                          kept.index[kThreadPeaks - 1]) &&
                 math::spectrumIsPeak(row, i, count))
            kept.insert(p, i);
    });
    candidatePower[threadIdx.x] = kept.power[0];
    candidateIndex[threadIdx.x] = kept.index[0];
    __syncthreads(); // the counters above are zeroed
    if (nonFinite > 0)
        atomicAdd(&blockNonFinite, (unsigned long long)nonFinite);
    sortPeaks(candidatePower, candidateIndex, kSearchThreads);
    // Fewer than maxPeaks threads with a peak bound nothing: every peak is a candidate.
    const bool bound = candidateIndex[maxPeaks - 1] != LLONG_MAX;
    const double thresholdPower = bound ? candidatePower[maxPeaks - 1] : -HUGE_VAL;
    const long long thresholdIndex = bound ? candidateIndex[maxPeaks - 1] : LLONG_MAX;
    __syncthreads(); // every thread has the threshold before the slots are reused
    const auto keep = [&](double p, long long i) {
        const unsigned at = atomicAdd(&gathered, 1u);
        if (at < kCandidates) {
            candidatePower[at] = p;
            candidateIndex[at] = i;
        }
    };
    const auto atOrAbove = [&](double p, long long i) {
        return i != LLONG_MAX && p >= thresholdPower &&
               atOrBefore(p, i, thresholdPower, thresholdIndex);
    };
    if (atOrAbove(kept.power[kThreadPeaks - 1], kept.index[kThreadPeaks - 1]))
        overflowed = true;
#pragma unroll
    for (int j = 0; j < kThreadPeaks; ++j)
        if (atOrAbove(kept.power[j], kept.index[j]))
            keep(kept.power[j], kept.index[j]);
    __syncthreads();
    if (overflowed) {
        if (threadIdx.x == 0)
            gathered = 0;
        __syncthreads(); // the count restarts before any peak is gathered again
        forEachPower<kSearchThreads>(row, 0, count, [&](double p, long long i) {
            if (math::isFiniteValue(p) && atOrAbove(p, i) && math::spectrumIsPeak(row, i, count))
                keep(p, i);
        });
    }
    __syncthreads();
    const unsigned found = gathered;
    BatchPeakSummary& summary = out[slot];
    if (threadIdx.x == 0)
        summary.nonFinite = (long long)blockNonFinite;
    if (found > kCandidates) {
        exactRowPeaks(row, count, maxPeaks, summary);
        return;
    }
    // The sort covers the next power of two above the candidates, at least the maxPeaks kept.
    int size = 32;
    while (size < int(found))
        size <<= 1;
    for (int i = int(found) + threadIdx.x; i < size; i += kSearchThreads) {
        candidatePower[i] = -HUGE_VAL;
        candidateIndex[i] = LLONG_MAX;
    }
    sortPeaks(candidatePower, candidateIndex, size);
    if (threadIdx.x < maxPeaks) {
        summary.power[threadIdx.x] = candidatePower[threadIdx.x];
        summary.index[threadIdx.x] = candidateIndex[threadIdx.x];
    }
    if (threadIdx.x == 0) {
        int peaks = 0;
        while (peaks < maxPeaks && candidateIndex[peaks] != LLONG_MAX)
            ++peaks;
        summary.peaks = peaks;
    }
}

} // namespace

cudaError_t launchBatchPeaks(const double* power, long long count, long long firstSlot,
                             long long slots, int maxPeaks, BatchPeakSummary* out,
                             cudaStream_t stream)
{
    if (maxPeaks < 1 || maxPeaks > kSpectrumMaxPeaks || slots < 1 || count < 1)
        return cudaErrorInvalidValue;
    // Within the grid's 2^31 - 1 blocks, a launch at a time.
    constexpr long long kMostBlocks = 0x7fffffffLL;
    for (long long done = 0; done < slots; done += kMostBlocks) {
        const long long now = slots - done < kMostBlocks ? slots - done : kMostBlocks;
        batchPeaksKernel<<<unsigned(now), kSearchThreads, 0, stream>>>(
            power, count, firstSlot + done, maxPeaks, out);
        if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

template <typename T>
cudaError_t launchPeriodogramBatch(const PeriodogramBatchArgs<T>& args, long long firstSlot,
                                   long long slots, int blockThreads, double* power,
                                   cudaStream_t stream)
{
    if (blockThreads < 1 || blockThreads > kMaxThreads || slots < 1)
        return cudaErrorInvalidConfiguration;
    const long long perBlock = (long long)blockThreads * kPeriodogramPerThread;
    const long long chunks = (args.count + perBlock - 1) / perBlock;
    // Within the grid's 2^31 - 1 blocks, a launch at a time.
    const long long slotsPerLaunch = 0x7fffffffLL / chunks;
    for (long long done = 0; done < slots; done += slotsPerLaunch) {
        const long long now = slots - done < slotsPerLaunch ? slots - done : slotsPerLaunch;
        const unsigned blocks = unsigned(now * chunks);
        if (args.logGrid)
            periodogramBatchKernel<T, true><<<blocks, unsigned(blockThreads), 0, stream>>>(
                args, firstSlot + done, chunks, power);
        else
            periodogramBatchKernel<T, false><<<blocks, unsigned(blockThreads), 0, stream>>>(
                args, firstSlot + done, chunks, power);
        if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

template cudaError_t launchPeriodogramBatch(const PeriodogramBatchArgs<float>&, long long,
                                            long long, int, double*, cudaStream_t);
template cudaError_t launchPeriodogramBatch(const PeriodogramBatchArgs<double>&, long long,
                                            long long, int, double*, cudaStream_t);

} // namespace warpscope::gpu
