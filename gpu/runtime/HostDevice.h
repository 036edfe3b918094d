#pragma once

// Marks functions compiled for both the host and the device. Outside nvcc it is plain
// inline, so the CPU backend includes the same math without CUDA.
#if defined(__CUDACC__)
#define WS_HD __host__ __device__ __forceinline__
#else
#define WS_HD inline
#endif

namespace warpscope::gpu::math {

// True for a finite value, on the host and the device alike (NaN and inf give NaN here).
WS_HD bool isFiniteValue(double v)
{
    return v - v == 0.0;
}

} // namespace warpscope::gpu::math
