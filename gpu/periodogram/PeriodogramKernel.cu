#include "periodogram/CyclePhase.cuh"
#include "periodogram/LombScargle.h"
#include "periodogram/PeriodogramKernel.cuh"

namespace warpscope::gpu {
namespace {

constexpr int kMaxThreads = 512;
constexpr int kTile = 256;    // samples staged in shared memory at a time
constexpr int kPerThread = 8; // consecutive frequencies a thread evaluates

// With gridStride, blocks step through the grid until every frequency is done; the step is
// the same for a whole block, so every thread meets every barrier.
template <typename T, bool LogGrid>
__global__ void __launch_bounds__(kMaxThreads)
    periodogramKernel(PeriodogramArgs<T> a, bool gridStride, double* power)
{
    __shared__ double tS[kTile];
    __shared__ T wS[kTile], wyS[kTile], cosS[kTile], sinS[kTile];
    const long long perBlock = (long long)blockDim.x * kPerThread;
    const long long step = gridStride ? (long long)gridDim.x * perBlock : a.count;
    for (long long base = blockIdx.x * perBlock; base < a.count; base += step) {
        const long long first = base + (long long)threadIdx.x * kPerThread;
        double f[LogGrid ? kPerThread : 1];
#pragma unroll
        for (int j = 0; j < (LogGrid ? kPerThread : 1); ++j)
            f[j] = LogGrid ? a.fmin * exp(a.df * double(first + j)) : a.fmin + a.df * double(first);
        math::LsSums<T> sums[kPerThread];
        for (int start = 0; start < a.n; start += kTile) {
            const int tile = min(kTile, a.n - start);
            __syncthreads();
            for (int i = threadIdx.x; i < tile; i += blockDim.x) {
                tS[i] = a.t[start + i];
                wS[i] = a.w[start + i];
                wyS[i] = a.wy[start + i];
                cosS[i] = a.stepCos[start + i];
                sinS[i] = a.stepSin[start + i];
            }
            __syncthreads();
            for (int i = 0; i < tile; ++i) {
                if constexpr (LogGrid) {
                    // No common step between neighbours: every phase exactly.
#pragma unroll
                    for (int j = 0; j < kPerThread; ++j) {
                        const double cycles = f[j] * tS[i];
                        T s, c;
                        sinCosCycles<T>(T(cycles - rint(cycles)), s, c);
                        math::lsAccumulate(sums[j], wS[i], wyS[i], c, s);
                    }
                    continue;
                }
                // The phase in cycles, reduced in double before any rounding to T.
                const double cycles = f[0] * tS[i];
                T s, c;
                sinCosCycles<T>(T(cycles - rint(cycles)), s, c);
                const T w = wS[i], wy = wyS[i], stepC = cosS[i], stepS = sinS[i];
#pragma unroll
                for (int j = 0; j < kPerThread; ++j) {
                    math::lsAccumulate(sums[j], w, wy, c, s);
                    const T next = c * stepC - s * stepS;
                    s = s * stepC + c * stepS;
                    c = next;
                }
            }
        }
#pragma unroll
        for (int j = 0; j < kPerThread; ++j)
            if (first + j < a.count)
                power[first + j] =
                    math::lsPower(sums[j], a.yy, a.psdScale, a.normalization, a.fitMean);
    }
}

} // namespace

template <typename T>
cudaError_t launchPeriodogram(const PeriodogramArgs<T>& args, const PeriodogramShape& shape,
                              double* power, cudaStream_t stream)
{
    if (shape.blockThreads < 1 || shape.blockThreads > kMaxThreads)
        return cudaErrorInvalidConfiguration;
    const long long perBlock = (long long)shape.blockThreads * kPerThread;
    const long long cover = (args.count + perBlock - 1) / perBlock;
    const long long blocks = shape.gridBlocks > 0 ? shape.gridBlocks : cover;
    if (blocks > 0x7fffffffLL)
        return cudaErrorInvalidConfiguration;
    if (args.logGrid)
        periodogramKernel<T, true><<<unsigned(blocks), unsigned(shape.blockThreads), 0, stream>>>(
            args, shape.gridStride, power);
    else
        periodogramKernel<T, false><<<unsigned(blocks), unsigned(shape.blockThreads), 0, stream>>>(
            args, shape.gridStride, power);
    return cudaGetLastError();
}

const void* periodogramKernelSymbol(bool float64, bool logGrid)
{
    if (float64)
        return logGrid ? reinterpret_cast<const void*>(periodogramKernel<double, true>)
                       : reinterpret_cast<const void*>(periodogramKernel<double, false>);
    return logGrid ? reinterpret_cast<const void*>(periodogramKernel<float, true>)
                   : reinterpret_cast<const void*>(periodogramKernel<float, false>);
}

template cudaError_t launchPeriodogram(const PeriodogramArgs<float>&, const PeriodogramShape&,
                                       double*, cudaStream_t);
template cudaError_t launchPeriodogram(const PeriodogramArgs<double>&, const PeriodogramShape&,
                                       double*, cudaStream_t);

} // namespace warpscope::gpu
