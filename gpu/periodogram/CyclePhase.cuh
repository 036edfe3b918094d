#pragma once

// The sine and cosine of a phase given in cycles (2 pi cycles radians), in the precision of
// the kernel that calls it: sincospi reduces the argument exactly, which a product with 2 pi
// would not.
namespace warpscope::gpu {

template <typename T> __device__ void sinCosCycles(T cycles, T& s, T& c);

template <> __device__ inline void sinCosCycles<double>(double cycles, double& s, double& c)
{
    sincospi(2.0 * cycles, &s, &c);
}

template <> __device__ inline void sinCosCycles<float>(float cycles, float& s, float& c)
{
    sincospif(2.0f * cycles, &s, &c);
}

} // namespace warpscope::gpu
