#pragma once

#include <cstddef>
#include <cuda_runtime.h>

// The streams lab's three kernels for one array of float32 values on the device.
namespace warpscope::gpu {

inline constexpr int kLabThreads = 256;

// Loads the three kernels now. With lazy module loading a kernel's first launch loads it,
// and loading waits for the device to go idle, which would stall the first run's pipeline.
cudaError_t loadStreamsLabKernels();

// data must be 16-byte aligned.
// Each block writes the sum of its grid-stride share of data to partials[blockIdx.x],
// accumulated in double.
cudaError_t launchPartialSums(const float* data, std::size_t length, double* partials, int blocks,
                              cudaStream_t stream);
// One block adds the partial sums into *sum.
cudaError_t launchFinalSum(const double* partials, int blocks, double* sum, cudaStream_t stream);
// data[i] /= *sum.
cudaError_t launchDivide(float* data, std::size_t length, const double* sum, int blocks,
                         cudaStream_t stream);

} // namespace warpscope::gpu
