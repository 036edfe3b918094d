#include "cuda/PeriodogramKernel.cuh"
#include "math/LombScargle.h"

namespace warpscope::gpu {
namespace {

constexpr int kThreads = 128;
constexpr int kTile = 256;    // samples staged in shared memory at a time
constexpr int kPerThread = 8; // consecutive frequencies a thread evaluates

template <typename T> __device__ void sinCosCycles(T cycles, T& s, T& c);
template <> __device__ void sinCosCycles<double>(double cycles, double& s, double& c)
{
    sincospi(2.0 * cycles, &s, &c);
}
template <> __device__ void sinCosCycles<float>(float cycles, float& s, float& c)
{
    sincospif(2.0f * cycles, &s, &c);
}

template <typename T>
__global__ void __launch_bounds__(kThreads) periodogramKernel(PeriodogramArgs<T> a, double* power)
{
    __shared__ double tS[kTile];
    __shared__ T wS[kTile], wyS[kTile], cosS[kTile], sinS[kTile];
    const long long first = (long long)(blockIdx.x * kThreads + threadIdx.x) * kPerThread;
    const double f0 = a.fmin + a.df * double(first);
    math::LsSums<T> sums[kPerThread];
    for (int base = 0; base < a.n; base += kTile) {
        const int tile = min(kTile, a.n - base);
        __syncthreads();
        for (int i = threadIdx.x; i < tile; i += kThreads) {
            tS[i] = a.t[base + i];
            wS[i] = a.w[base + i];
            wyS[i] = a.wy[base + i];
            cosS[i] = a.stepCos[base + i];
            sinS[i] = a.stepSin[base + i];
        }
        __syncthreads();
        for (int i = 0; i < tile; ++i) {
            // The phase in cycles, reduced in double before any rounding to T.
            const double cycles = f0 * tS[i];
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
            power[first + j] = math::lsPower(sums[j], a.yy, a.psdScale, a.normalization, a.fitMean);
}

} // namespace

template <typename T>
cudaError_t launchPeriodogram(const PeriodogramArgs<T>& args, double* power, cudaStream_t stream)
{
    const long long threads = (args.count + kPerThread - 1) / kPerThread;
    const long long blocks = (threads + kThreads - 1) / kThreads;
    if (blocks > 0x7fffffffLL)
        return cudaErrorInvalidConfiguration;
    periodogramKernel<T><<<unsigned(blocks), kThreads, 0, stream>>>(args, power);
    return cudaGetLastError();
}

template cudaError_t launchPeriodogram(const PeriodogramArgs<float>&, double*, cudaStream_t);
template cudaError_t launchPeriodogram(const PeriodogramArgs<double>&, double*, cudaStream_t);

} // namespace warpscope::gpu
