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

// One block per slot: each thread keeps the best local maxima of its strided share of the row
// (PeakList), then the block takes the best heads one at a time, as the search of one
// periodogram merges its blocks' lists.
__global__ void __launch_bounds__(kSearchThreads)
    batchPeaksKernel(const double* __restrict__ power, long long count, long long firstSlot,
                     int maxPeaks, BatchPeakSummary* __restrict__ out)
{
    const long long slot = firstSlot + (long long)blockIdx.x;
    const double* row = power + slot * count;
    PeakList list;
    list.clear();
    long long nonFinite = 0;
    for (long long i = threadIdx.x; i < count; i += kSearchThreads) {
        const double p = row[i];
        if (!math::isFiniteValue(p))
            ++nonFinite;
        else if (math::spectrumIsPeak(row, i, count))
            list.insert(p, i);
    }
    __shared__ unsigned long long blockNonFinite;
    if (threadIdx.x == 0)
        blockNonFinite = 0;
    __syncthreads();
    if (nonFinite > 0)
        atomicAdd(&blockNonFinite, (unsigned long long)nonFinite);
    BatchPeakSummary& summary = out[slot];
    int found = 0;
    for (int j = 0; j < maxPeaks; ++j) {
        double p;
        long long k;
        blockBest<kSearchThreads>(list, p, k); // its barriers also finish the count above
        if (list.index[0] == k && k != LLONG_MAX)
            list.popFront();
        if (k != LLONG_MAX)
            found = j + 1;
        if (threadIdx.x == 0) {
            summary.power[j] = p;
            summary.index[j] = k;
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        summary.nonFinite = (long long)blockNonFinite;
        summary.peaks = found;
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
