#pragma once

// Marks functions compiled for both the host and the device. Outside nvcc it is plain
// inline, so the CPU backend includes the same math without CUDA.
#if defined(__CUDACC__)
#define WS_HD __host__ __device__ __forceinline__
#else
#define WS_HD inline
#endif
