#pragma once

#include "cuda/PeriodogramKernel.cuh"

namespace warpscope::gpu {

// The periodogram on a uniform grid as matrix products on tensor cores (compute capability
// 8.0 and up), with exact sums. Frequencies go in blocks of K; with w = w_b + k dw inside a
// block, angle addition turns each sum over samples, for example sum wy e^{i w t}, into the
// product of a (blocks x 2N) matrix of wy e^{i w_b t} and a (2N x 2K) matrix of e^{i k dw t};
// sum w e^{2 i w t} uses a second such matrix. Both are made in shared memory as they are
// consumed, so no large matrix touches device memory. float64 multiplies on FP64 tensor
// cores; float32 as three TF32 products (high and low parts), which keeps float32 accuracy.
bool periodogramMatrixSupported(int ccMajor);
// Where Auto picks the matrix products: GPUs whose tensor cores run the precision at full rate.
bool periodogramMatrixPreferred(int ccMajor, int ccMinor, bool float64);

// Writes args.count powers to power on stream. Returns the launch error, if any.
cudaError_t launchPeriodogramMatrix(const PeriodogramArgs<double>& args, double* power,
                                    cudaStream_t stream);
cudaError_t launchPeriodogramMatrix(const PeriodogramArgs<float>& args, double* power,
                                    cudaStream_t stream);

} // namespace warpscope::gpu
