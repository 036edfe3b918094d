#include "periodogram/CyclePhase.cuh"
#include "periodogram/HarmonicLombScargle.h"
#include "periodogram/HarmonicPeriodogramKernel.cuh"

namespace warpscope::gpu {
namespace {

constexpr int kMaxThreads = 512; // the one-term kernel's limit, so one launch rule serves both
constexpr int kTile = 256;
constexpr int kPerThread = 8; // kFrequenciesPerThread: the launch covers what the panel says

// One thread evaluates kPerThread consecutive frequencies, one after another (the K-term sums
// of one frequency already fill the registers), each over every sample, staged in shared
// memory a tile at a time. Every phase starts exactly, reduced in cycles in double; the
// harmonics rotate from it in T, and the sums are double.
template <int K, typename T>
__global__ void __launch_bounds__(kMaxThreads)
    harmonicPeriodogramKernel(HarmonicPeriodogramArgs a, bool gridStride, double* power)
{
    __shared__ double tS[kTile], wS[kTile], wyS[kTile];
    const long long perBlock = (long long)blockDim.x * kPerThread;
    const long long step = gridStride ? (long long)gridDim.x * perBlock : a.count;
    for (long long base = blockIdx.x * perBlock; base < a.count; base += step) {
        const long long first = base + (long long)threadIdx.x * kPerThread;
        for (int j = 0; j < kPerThread; ++j) {
            const long long k = first + j;
            const double f = a.logGrid ? a.fmin * exp(a.df * double(k)) : a.fmin + a.df * double(k);
            math::HarmonicSums<K> sums;
            for (int start = 0; start < a.n; start += kTile) {
                const int tile = min(kTile, a.n - start);
                __syncthreads();
                for (int i = threadIdx.x; i < tile; i += blockDim.x) {
                    tS[i] = a.t[start + i];
                    wS[i] = a.w[start + i];
                    wyS[i] = a.wy[start + i];
                }
                __syncthreads();
                if (k >= a.count)
                    continue; // stays for the barriers
                for (int i = 0; i < tile; ++i) {
                    const double cycles = f * tS[i];
                    T s, c;
                    sinCosCycles<T>(T(cycles - rint(cycles)), s, c);
                    math::harmonicAccumulate<K, T>(sums, wS[i], wyS[i], c, s);
                }
            }
            if (k < a.count)
                power[k] =
                    math::harmonicPower<K>(sums, a.yy, a.psdScale, a.normalization, a.fitMean);
        }
    }
}

using HarmonicKernel = void (*)(HarmonicPeriodogramArgs, bool, double*);

// The kernel of each number of terms, 1 to kMaxHarmonicTerms, in one precision.
template <typename T>
constexpr HarmonicKernel kKernels[math::kMaxHarmonicTerms] = {
    harmonicPeriodogramKernel<1, T>, harmonicPeriodogramKernel<2, T>,
    harmonicPeriodogramKernel<3, T>, harmonicPeriodogramKernel<4, T>,
    harmonicPeriodogramKernel<5, T>, harmonicPeriodogramKernel<6, T>};

} // namespace

cudaError_t launchHarmonicPeriodogram(const HarmonicPeriodogramArgs& args, int nterms, bool float64,
                                      const PeriodogramShape& shape, double* power,
                                      cudaStream_t stream)
{
    if (shape.blockThreads < 1 || shape.blockThreads > kMaxThreads)
        return cudaErrorInvalidConfiguration;
    const long long perBlock = (long long)shape.blockThreads * kPerThread;
    const long long cover = (args.count + perBlock - 1) / perBlock;
    const long long blocks = shape.gridBlocks > 0 ? shape.gridBlocks : cover;
    if (blocks > 0x7fffffffLL || blocks < 1)
        return cudaErrorInvalidConfiguration;
    if (nterms < 1 || nterms > math::kMaxHarmonicTerms)
        return cudaErrorInvalidValue;
    const HarmonicKernel kernel =
        float64 ? kKernels<double>[nterms - 1] : kKernels<float>[nterms - 1];
    kernel<<<unsigned(blocks), unsigned(shape.blockThreads), 0, stream>>>(args, shape.gridStride,
                                                                          power);
    return cudaGetLastError();
}

} // namespace warpscope::gpu
