#pragma once

#include "periodogram/PeriodogramKernel.cuh"

namespace warpscope::gpu {

// The periodogram on a uniform grid as matrix products on tensor cores (compute capability
// 8.0 and up), with exact sums. Frequencies go in blocks of K, placed in pairs w_c +- d_j
// about the block's centre w_c. Angle addition turns each sum over samples, for example
// sum wy cos((w_c +- d_j) t) = sum wy cos(w_c t) cos(d_j t) -+ sum wy sin(w_c t) sin(d_j t),
// into the product of a (2 blocks x N) matrix of wy cos w_c t and wy sin w_c t with an
// (N x K) matrix of cos d_j t and sin d_j t, whose four products serve both frequencies of a
// pair: half the work of the (blocks x 2N) by (2N x 2K) complex form. sum w e^{2 i w t} uses
// a second right matrix. Both are made in shared memory as they are consumed, so no large
// matrix touches device memory. float64 multiplies on FP64 tensor
// cores; float32 as three FP16 products (high and low halves), which keeps float32 accuracy.
bool periodogramMatrixSupported(int ccMajor);
// Where Auto picks the matrix products: float64 where FP64 tensor cores run at full rate (8.0,
// 9.x, 10.x); float32 wherever there are FP16 tensor cores (8.0 and newer).
bool periodogramMatrixPreferred(int ccMajor, int ccMinor, bool float64);

// float32's PeriodogramArgs::scale for these weights and weighted values (host arrays).
float periodogramMatrixScale(const float* w, const float* wy, int n);

// Writes args.count powers to power on stream. Returns the launch error, if any.
cudaError_t launchPeriodogramMatrix(const PeriodogramArgs<double>& args, double* power,
                                    cudaStream_t stream);
cudaError_t launchPeriodogramMatrix(const PeriodogramArgs<float>& args, double* power,
                                    cudaStream_t stream);

} // namespace warpscope::gpu
