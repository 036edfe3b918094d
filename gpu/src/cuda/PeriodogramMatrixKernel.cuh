#pragma once

#include "cuda/PeriodogramKernel.cuh"

namespace warpscope::gpu {

// The periodogram on a uniform grid as matrix products on FP64 tensor cores (compute
// capability 8.0 and up), with exact sums. Frequencies go in blocks of K; with
// w = w_b + k dw inside a block, angle addition turns each sum over samples, for example
// sum wy e^{i w t}, into the product of a (blocks x 2N) matrix of wy e^{i w_b t} and a
// (2N x 2K) matrix of e^{i k dw t}; sum w e^{2 i w t} uses a second such matrix. Both are made
// in shared memory as they are consumed, so no large matrix touches device memory.
bool periodogramMatrixSupported(int ccMajor);
// Where Auto picks the matrix products: GPUs with full-rate FP64 tensor cores.
bool periodogramMatrixPreferred(int ccMajor, int ccMinor);

// Writes args.count powers to power on stream; args must be float64. Returns the launch
// error, if any.
cudaError_t launchPeriodogramMatrix(const PeriodogramArgs<double>& args, double* power,
                                    cudaStream_t stream);

// The kernel, for its resources.
const void* periodogramMatrixKernelSymbol(bool fitMean);

} // namespace warpscope::gpu
