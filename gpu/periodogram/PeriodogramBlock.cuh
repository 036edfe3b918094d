#pragma once

#include "periodogram/CyclePhase.cuh"
#include "periodogram/LombScargle.h"
#include "periodogram/PeriodogramKernel.cuh"

// The direct kernel's work for one block, shared by the kernel of one series
// (PeriodogramKernel.cu) and the kernel of a batch of series (PeriodogramBatchKernel.cu).
namespace warpscope::gpu {

inline constexpr int kPeriodogramTile = 256;    // samples staged in shared memory at a time
inline constexpr int kPeriodogramPerThread = 8; // consecutive frequencies a thread evaluates

// The block's frequencies from base, then base + step, ... below a.count: each thread takes
// kPeriodogramPerThread consecutive ones and starts each sample's phase exactly; on an evenly
// spaced grid it rotates the phase from one frequency to the next, on a logarithmic one it
// starts every phase exactly. step is the same for a whole block, so every thread meets every
// barrier.
template <typename T, bool LogGrid>
__device__ __forceinline__ void periodogramBlock(const PeriodogramArgs<T>& a, long long base,
                                                 long long step, double* power)
{
    constexpr int kTile = kPeriodogramTile;
    constexpr int kPerThread = kPeriodogramPerThread;
    __shared__ double tS[kTile];
    __shared__ T wS[kTile], wyS[kTile], cosS[kTile], sinS[kTile];
    for (; base < a.count; base += step) {
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

} // namespace warpscope::gpu
