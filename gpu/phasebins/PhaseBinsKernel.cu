#include "phasebins/PhaseBinsImpl.h"
#include "phasebins/PhaseBinsKernel.cuh"
#include "runtime/WarpReduce.cuh"

#include <algorithm>

namespace warpscope::gpu {
namespace {

constexpr int kThreads = 128;
// Shared memory for a block's bins: at most this much, so that several blocks share an SM.
// A request whose bins need more fills them in passes over the points (a few covers, or a
// few phase bins, at a time).
constexpr int kSharedBytes = 24 << 10;
// Blocks a launch has at most; each loops over the frequencies a grid of blocks at a time.
constexpr long long kMaxBlocks = 1LL << 16;

// The block's sum of v, in thread 0. Every thread takes part; partial holds a value a warp.
__device__ double blockSum(double v, double* partial)
{
    v = warpSum(v);
    const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
    if (lane == 0)
        partial[warp] = v;
    __syncthreads();
    v = int(threadIdx.x) < kThreads / 32 ? partial[threadIdx.x] : 0.0;
    if (warp == 0)
        v = warpSum(v);
    __syncthreads(); // partial may be written again
    return v;
}

// Adds this thread's points to cover `cover`'s bins. Each thread takes a contiguous run of
// the points, which in a time-ordered series often stay in one bin for several points: they
// are summed here and added to the shared bins at once, when the bin changes. The atomics
// are then fewer, and the warp's lanes, far apart in time, seldom meet in one bin (lanes on
// consecutive points would, and wait on each other).
__device__ void addCoverRun(const DispersionArgs& a, double f, int cover, int* counts, double* sums,
                            double* squares)
{
    const int per = (a.n + kThreads - 1) / kThreads;
    const int begin = int(threadIdx.x) * per, end = min(a.n, begin + per);
    int bin = -1, n = 0;
    double sum = 0.0, sumSquares = 0.0;
    for (int i = begin; i <= end; ++i) {
        const int b = i < end ? phasebins::coverBin(phasebins::foldedPhase(a.dt[i], f), cover,
                                                    a.bins, a.covers)
                              : -1; // past the run: the last bin goes in
        if (b != bin && n > 0) {
            atomicAdd(&counts[bin], n);
            atomicAdd(&sums[bin], sum);
            atomicAdd(&squares[bin], sumSquares);
            n = 0;
            sum = sumSquares = 0.0;
        }
        if (i < end) {
            bin = b;
            ++n;
            sum += a.y[i];
            sumSquares += a.y[i] * a.y[i];
        }
    }
}

// coversPerPass covers' bins at a time: their points' counts, sums and sums of squares.
__global__ void __launch_bounds__(kThreads)
    phaseDispersionKernel(DispersionArgs a, int coversPerPass, double* theta)
{
    extern __shared__ double shared[];
    __shared__ double partial[kThreads / 32];
    const int capacity = coversPerPass * a.bins;
    double* sums = shared;
    double* squares = sums + capacity;
    int* counts = reinterpret_cast<int*>(squares + capacity);
    for (long long k = blockIdx.x; k < a.count; k += gridDim.x) {
        const double f = phasebins::gridFrequency(a.fmin, a.df, k, a.logGrid);
        phasebins::DispersionSums total;
        for (int first = 0; first < a.covers; first += coversPerPass) {
            const int group = min(coversPerPass, a.covers - first);
            const int used = group * a.bins;
            for (int b = threadIdx.x; b < used; b += kThreads) {
                sums[b] = 0.0;
                squares[b] = 0.0;
                counts[b] = 0;
            }
            __syncthreads();
            for (int c = 0; c < group; ++c)
                addCoverRun(a, f, first + c, counts + c * a.bins, sums + c * a.bins,
                            squares + c * a.bins);
            __syncthreads();
            for (int b = threadIdx.x; b < used; b += kThreads)
                phasebins::addDispersionBin(total, counts[b], sums[b], squares[b]);
            __syncthreads(); // the next pass clears the bins
        }
        total.squares = blockSum(total.squares, partial);
        total.points = blockSum(total.points, partial);
        total.bins = blockSum(total.bins, partial);
        if (threadIdx.x == 0)
            theta[k] = phasebins::dispersionTheta(total, a.sigma2);
    }
}

// phaseBinsPerPass phase bins' cells at a time, then their phase bins' counts.
__global__ void __launch_bounds__(kThreads)
    conditionalEntropyKernel(EntropyArgs a, int phaseBinsPerPass, double* entropy)
{
    extern __shared__ int cells[];
    __shared__ double partial[kThreads / 32];
    int* phaseCounts = cells + phaseBinsPerPass * a.magnitudeBins;
    for (long long k = blockIdx.x; k < a.count; k += gridDim.x) {
        const double f = phasebins::gridFrequency(a.fmin, a.df, k, a.logGrid);
        double sum = 0.0;
        for (int first = 0; first < a.phaseBins; first += phaseBinsPerPass) {
            const int group = min(phaseBinsPerPass, a.phaseBins - first);
            const int used = group * a.magnitudeBins;
            for (int c = threadIdx.x; c < used; c += kThreads)
                cells[c] = 0;
            for (int p = threadIdx.x; p < group; p += kThreads)
                phaseCounts[p] = 0;
            __syncthreads();
            for (int i = threadIdx.x; i < a.n; i += kThreads) {
                const int p =
                    phasebins::unitBin(phasebins::foldedPhase(a.dt[i], f), a.phaseBins) - first;
                if (p >= 0 && p < group) {
                    atomicAdd(&cells[p * a.magnitudeBins + a.magnitudeBin[i]], 1);
                    atomicAdd(&phaseCounts[p], 1);
                }
            }
            __syncthreads();
            for (int c = threadIdx.x; c < used; c += kThreads)
                sum +=
                    phasebins::entropyCell(cells[c], phaseCounts[c / a.magnitudeBins], a.inverseN);
            __syncthreads(); // the next pass clears the cells
        }
        sum = blockSum(sum, partial);
        if (threadIdx.x == 0)
            entropy[k] = sum;
    }
}

unsigned blocksFor(long long count)
{
    return unsigned(std::min(count, kMaxBlocks));
}

} // namespace

cudaError_t launchPhaseDispersion(const DispersionArgs& args, double* out, cudaStream_t stream)
{
    constexpr int binBytes = 2 * sizeof(double) + sizeof(int);
    // bins <= 1000 (validated): one cover's bins always fit.
    const int perPass = std::clamp(kSharedBytes / (args.bins * binBytes), 1, args.covers);
    const std::size_t bytes = std::size_t(perPass) * args.bins * binBytes;
    phaseDispersionKernel<<<blocksFor(args.count), kThreads, bytes, stream>>>(args, perPass, out);
    return cudaGetLastError();
}

cudaError_t launchConditionalEntropy(const EntropyArgs& args, double* out, cudaStream_t stream)
{
    // A phase bin's cells and its count; magnitudeBins <= 1000 (validated): several fit.
    const int phaseBinBytes = (args.magnitudeBins + 1) * int(sizeof(int));
    const int perPass = std::clamp(kSharedBytes / phaseBinBytes, 1, args.phaseBins);
    const std::size_t bytes = std::size_t(perPass) * phaseBinBytes;
    conditionalEntropyKernel<<<blocksFor(args.count), kThreads, bytes, stream>>>(args, perPass,
                                                                                 out);
    return cudaGetLastError();
}

} // namespace warpscope::gpu
