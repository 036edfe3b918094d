#pragma once

#include "periodogram/SpectrumColumns.h"
#include "warpscope/gpu/Spectrum.h"

#include <cstddef>
#include <cuda_runtime.h>

namespace warpscope::gpu {

// What the device's search over a periodogram copies back: its peaks, highest first, and
// its range.
struct SpectrumSummary
{
    double min, max;
    long long nonFinite;
    int peaks;
    long long index[kSpectrumMaxPeaks];
    double power[kSpectrumMaxPeaks];
};

// Writes the line's vertices (gpu/Spectrum.h) for mapping m into vertices, one block per
// column. Returns the launch error, if any.
cudaError_t launchSpectrumColumns(const double* power, const math::SpectrumMapping& m,
                                  float* vertices, cudaStream_t stream);

// Device scratch the search needs, prepared once by prepareSpectrumSearch before its first
// search (queued on stream).
std::size_t spectrumSummaryScratchBytes();
cudaError_t prepareSpectrumSearch(void* scratch, cudaStream_t stream);

// Finds the peaks (math::spectrumIsPeak, in math::spectrumPeakBefore order) and the range of
// count powers into *out, which the kernels write and the host reads: pinned host memory.
// The blocks' best peaks give a threshold and only the peaks above it are sorted, in two
// kernels whose last blocks do the ranking and the sort; when there are too many (thousands
// of equal peaks), each block's own best and a merge of them run instead. Waits for stream.
// ccMajor: the device's compute capability, whose 9.0 and newer start the second kernel while
// the first runs. Returns the first CUDA error, if any.
cudaError_t searchSpectrum(const double* power, long long count, void* scratch,
                           SpectrumSummary* out, int ccMajor, cudaStream_t stream);

} // namespace warpscope::gpu
