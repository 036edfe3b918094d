#pragma once

// Marks functions compiled for both the host and the device. Outside nvcc it is plain
// inline, so the CPU backend includes the same math without CUDA.
// WS_UNROLL unrolls a loop of constant trip count on the device, so that arrays indexed by
// its counter stay in registers; host compilers pick for themselves.
#if defined(__CUDACC__)
#define WS_HD __host__ __device__ __forceinline__
#else
#define WS_HD inline
#endif
#if defined(__CUDA_ARCH__)
#define WS_UNROLL _Pragma("unroll")
#else
#define WS_UNROLL
#endif

namespace warpscope::gpu::math {

// True for a finite value, on the host and the device alike (NaN and inf give NaN here).
WS_HD bool isFiniteValue(double v)
{
    return v - v == 0.0;
}

} // namespace warpscope::gpu::math
