#pragma once

#include <atomic>
#include <cuda_runtime.h>

namespace warpscope::gpu {

// Sets Attribute of Kernel to value on the current device, asking the driver once per device
// (below 64): its call costs the host microseconds that every small periodogram would
// otherwise pay before its launch.
template <auto Kernel, cudaFuncAttribute Attribute> cudaError_t setKernelAttribute(int value)
{
    static std::atomic<unsigned long long> set{0}; // a bit per device
    int device = 0;
    if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess)
        return e;
    const unsigned long long bit = device < 64 ? 1ULL << device : 0;
    if (set.load(std::memory_order_acquire) & bit)
        return cudaSuccess;
    const cudaError_t e = cudaFuncSetAttribute(Kernel, Attribute, value);
    if (e == cudaSuccess)
        set.fetch_or(bit, std::memory_order_release);
    return e;
}

// The L1/shared split of the periodogram's kernels: all of it shared, as the matrix products
// need. A kernel run between them with another split makes the SMs change it, twice.
template <auto Kernel> cudaError_t keepSharedCarveout()
{
    return setKernelAttribute<Kernel, cudaFuncAttributePreferredSharedMemoryCarveout>(
        cudaSharedmemCarveoutMaxShared);
}

} // namespace warpscope::gpu
