#include "runtime/WarpReduce.cuh"
#include "streamslab/StreamsLabKernels.cuh"

namespace warpscope::gpu {
namespace {

__device__ double blockSum(double value)
{
    __shared__ double warpSums[kLabThreads / 32];
    value = warpSum(value);
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0)
        warpSums[warp] = value;
    __syncthreads();
    value = threadIdx.x < kLabThreads / 32 ? warpSums[threadIdx.x] : 0.0;
    if (warp == 0)
        value = warpSum(value);
    return value; // valid in thread 0
}

// data is 16-byte aligned: the body moves 16 bytes per load, the tail (length % 4) one value
// at a time.
__global__ void __launch_bounds__(kLabThreads)
    partialSumsKernel(const float* __restrict__ data, std::size_t length, double* partials)
{
    const std::size_t quads = length / 4;
    const auto* data4 = reinterpret_cast<const float4*>(data);
    const std::size_t first = std::size_t(blockIdx.x) * kLabThreads + threadIdx.x;
    const std::size_t stride = std::size_t(gridDim.x) * kLabThreads;
    double sum = 0.0;
    for (std::size_t i = first; i < quads; i += stride) {
        const float4 v = data4[i];
        sum += double(v.x) + double(v.y) + double(v.z) + double(v.w);
    }
    for (std::size_t i = 4 * quads + first; i < length; i += stride)
        sum += data[i];
    sum = blockSum(sum);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = sum;
}

__global__ void __launch_bounds__(kLabThreads)
    finalSumKernel(const double* __restrict__ partials, int count, double* sum)
{
    double value = 0.0;
    for (int i = threadIdx.x; i < count; i += kLabThreads)
        value += partials[i];
    value = blockSum(value);
    if (threadIdx.x == 0)
        *sum = value;
}

__global__ void __launch_bounds__(kLabThreads)
    divideKernel(float* __restrict__ data, std::size_t length, const double* __restrict__ sum)
{
    const float divisor = float(*sum);
    const std::size_t quads = length / 4;
    auto* data4 = reinterpret_cast<float4*>(data);
    const std::size_t first = std::size_t(blockIdx.x) * kLabThreads + threadIdx.x;
    const std::size_t stride = std::size_t(gridDim.x) * kLabThreads;
    for (std::size_t i = first; i < quads; i += stride) {
        float4 v = data4[i];
        v.x /= divisor;
        v.y /= divisor;
        v.z /= divisor;
        v.w /= divisor;
        data4[i] = v;
    }
    for (std::size_t i = 4 * quads + first; i < length; i += stride)
        data[i] /= divisor;
}

} // namespace

cudaError_t loadStreamsLabKernels()
{
    cudaFuncAttributes attributes{};
    for (const void* kernel : {reinterpret_cast<const void*>(partialSumsKernel),
                               reinterpret_cast<const void*>(finalSumKernel),
                               reinterpret_cast<const void*>(divideKernel)})
        if (const cudaError_t e = cudaFuncGetAttributes(&attributes, kernel); e != cudaSuccess)
            return e;
    return cudaSuccess;
}

cudaError_t launchPartialSums(const float* data, std::size_t length, double* partials, int blocks,
                              cudaStream_t stream)
{
    partialSumsKernel<<<blocks, kLabThreads, 0, stream>>>(data, length, partials);
    return cudaGetLastError();
}

cudaError_t launchFinalSum(const double* partials, int blocks, double* sum, cudaStream_t stream)
{
    finalSumKernel<<<1, kLabThreads, 0, stream>>>(partials, blocks, sum);
    return cudaGetLastError();
}

cudaError_t launchDivide(float* data, std::size_t length, const double* sum, int blocks,
                         cudaStream_t stream)
{
    divideKernel<<<blocks, kLabThreads, 0, stream>>>(data, length, sum);
    return cudaGetLastError();
}

} // namespace warpscope::gpu
