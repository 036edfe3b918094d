#include "periodogram/PeriodogramBatchKernel.cuh"
#include "periodogram/PeriodogramBlock.cuh"

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

} // namespace

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
