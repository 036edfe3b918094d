#pragma once

#include "warpscope/gpu/Periodogram.h"
#include "warpscope/gpu/Spectrum.h"

#include <span>
#include <vector>

namespace warpscope::gpu {

// Many series on one shared grid in one call: a survey's objects are each far too small
// (a few hundred points) to keep a GPU busy alone. On CUDA, one launch per size bucket covers
// every object, whose prepared samples lie end to end, sorted by their number; on the CPU,
// the (object, chunk of frequencies) pairs spread over the thread pool. Each object's powers
// are those computePeriodogram gives it: bit for bit on the CPU, and on CUDA those of the
// direct kernel (Direct) or of the tensor-core matrix products (Matrix, and Auto where
// computePeriodogram's Auto takes them), every CTA of every object in one launch a bucket
// (evenly spaced grids, compute capability 8.0 and up; Matrix is refused on the CPU).
//
// power holds series.size() rows of options.grid.count powers, row i for series[i]. Each
// object is validated on its own (validatePeriodogram): perObject (resized to series.size())
// says why an object failed, whose row is then left NaN, while the others go on. The call
// itself fails, saying why, on what concerns every object: nterms > 1 (the caller computes
// those one by one), a launch that leaves frequencies out, an output of the wrong size,
// device errors, memory, and cancellation. kernelMs receives the computation's own time.
Status computePeriodogramBatch(Context& context, std::span<const TimeSeries> series,
                               const PeriodogramOptions& options, std::span<double> power,
                               std::vector<Status>* perObject, double* kernelMs = nullptr);

// The same computation when only each object's peaks are wanted (a survey's results): peaks
// (resized to series.size()) gets, for each object, its maxPeaks (1 to kSpectrumMaxPeaks)
// highest local maxima as topPeaks finds them in its powers (the same definition, order and
// ties), empty for an object that failed, whose perObject status says why. On CUDA the
// search runs on the device, one block per object after its bucket's launch, and only the
// peaks and a count of non-finite powers cross to the host: a survey of 10^5 objects of 10^5
// frequencies copies megabytes, not the 80 GB of its powers. On the CPU each row is searched
// by topPeaks. Fails, saying why, as computePeriodogramBatch does, and for maxPeaks out of
// range.
Status computePeriodogramBatchPeaks(Context& context, std::span<const TimeSeries> series,
                                    const PeriodogramOptions& options, int maxPeaks,
                                    std::vector<std::vector<Peak>>& peaks,
                                    std::vector<Status>* perObject, double* kernelMs = nullptr);

} // namespace warpscope::gpu
