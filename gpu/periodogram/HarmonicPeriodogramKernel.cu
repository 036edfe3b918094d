#include "periodogram/HarmonicLombScargle.h"
#include "periodogram/HarmonicPeriodogramKernel.cuh"

namespace warpscope::gpu {
namespace {

constexpr int kMaxThreads = 512; // the one-term kernel's limit, so one launch rule serves both
constexpr int kTile = 256;
constexpr int kPerThread = 8; // kFrequenciesPerThread: the launch covers what the panel says

template <typename T> __device__ void sinCosCycles(T cycles, T& s, T& c);
template <> __device__ void sinCosCycles<double>(double cycles, double& s, double& c)
{
    sincospi(2.0 * cycles, &s, &c);
}
template <> __device__ void sinCosCycles<float>(float cycles, float& s, float& c)
{
    sincospif(2.0f * cycles, &s, &c);
}

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

template <int K, typename T>
void launchTerms(const HarmonicPeriodogramArgs& args, bool gridStride, unsigned blocks,
                 unsigned threads, double* power, cudaStream_t stream)
{
    harmonicPeriodogramKernel<K, T><<<blocks, threads, 0, stream>>>(args, gridStride, power);
}

template <typename T>
cudaError_t launchPrecision(const HarmonicPeriodogramArgs& args, int nterms, bool gridStride,
                            unsigned blocks, unsigned threads, double* power, cudaStream_t stream)
{
    switch (nterms) {
    case 1:
        launchTerms<1, T>(args, gridStride, blocks, threads, power, stream);
        break;
    case 2:
        launchTerms<2, T>(args, gridStride, blocks, threads, power, stream);
        break;
    case 3:
        launchTerms<3, T>(args, gridStride, blocks, threads, power, stream);
        break;
    case 4:
        launchTerms<4, T>(args, gridStride, blocks, threads, power, stream);
        break;
    case 5:
        launchTerms<5, T>(args, gridStride, blocks, threads, power, stream);
        break;
    case 6:
        launchTerms<6, T>(args, gridStride, blocks, threads, power, stream);
        break;
    default:
        return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

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
    return float64 ? launchPrecision<double>(args, nterms, shape.gridStride, unsigned(blocks),
                                             unsigned(shape.blockThreads), power, stream)
                   : launchPrecision<float>(args, nterms, shape.gridStride, unsigned(blocks),
                                            unsigned(shape.blockThreads), power, stream);
}

} // namespace warpscope::gpu
