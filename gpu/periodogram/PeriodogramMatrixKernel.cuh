#pragma once

#include "periodogram/PeriodogramBatchKernel.cuh"
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

// The CTAs that cover count frequencies, and how many of them one SM holds at once (0 when
// the occupancy query fails).
long long periodogramMatrixCtas(long long count);
long long periodogramMatrixCtaFrequencies();
int periodogramMatrixCtasPerSm(bool float64, bool fitMean);

// Writes the powers of CTAs firstCta .. firstCta + ctaCount (-1: to the end) to power (all
// args.count of them by default) on stream. Every CTA computes from its absolute place in the
// grid, so a grid launched in pieces gives the same bits as in one launch: the pieces let
// copies of finished powers overlap the rest. Returns the launch error, if any.
cudaError_t launchPeriodogramMatrix(const PeriodogramArgs<double>& args, double* power,
                                    cudaStream_t stream, long long firstCta = 0,
                                    long long ctaCount = -1);
cudaError_t launchPeriodogramMatrix(const PeriodogramArgs<float>& args, double* power,
                                    cudaStream_t stream, long long firstCta = 0,
                                    long long ctaCount = -1);

// The same products for slots [firstSlot, firstSlot + slots) of a batch (an evenly spaced
// grid): every CTA of every slot in one launch, slot s's float32 scale in scale[s] (1 for
// float64), its powers to power + s * args.count. Each slot's powers are those
// launchPeriodogramMatrix gives its series alone, bit for bit (the same CTA code). Returns the
// launch error, if any.
cudaError_t launchPeriodogramMatrixBatch(const PeriodogramBatchArgs<double>& args,
                                         const double* scale, long long firstSlot, long long slots,
                                         double* power, cudaStream_t stream);
cudaError_t launchPeriodogramMatrixBatch(const PeriodogramBatchArgs<float>& args,
                                         const float* scale, long long firstSlot, long long slots,
                                         double* power, cudaStream_t stream);

} // namespace warpscope::gpu
