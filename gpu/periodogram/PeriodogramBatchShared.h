#pragma once

#include "periodogram/PeriodogramPlan.h"
#include "warpscope/gpu/PeriodogramBatch.h"

#include <cstddef>
#include <vector>

// The batch's implementations on each kind of device, reached through
// computePeriodogramBatch once every object is validated.
namespace warpscope::gpu {

// The objects to compute (valid ones, indices into series), their rows of power, and each
// object's verdict: an implementation fails an object, with its status, whose powers come
// out NaN or infinite. When peaks is set the powers are not wanted (power is empty): the
// implementation keeps each object's maxPeaks highest local maxima in (*peaks)[i] instead.
struct BatchRequest
{
    std::span<const TimeSeries> series;
    std::vector<PeriodogramMoments> moments; // each object's, from its check
    std::vector<std::size_t> valid;
    const PeriodogramOptions* options = nullptr;
    std::span<double> power;
    std::vector<Status>* status = nullptr;
    std::vector<std::vector<Peak>>* peaks = nullptr;
    int maxPeaks = 0;
};

Status computePeriodogramBatchCpu(Context& context, BatchRequest& request, double& computeMs);
Status computePeriodogramBatchCuda(Context& context, BatchRequest& request, double& kernelMs);

// Counts a computed row's non-finite powers and, where there are any, marks the object
// failed (checkPowers' message) and its row NaN.
void checkBatchRow(BatchRequest& request, std::size_t object);
// The same for an object whose powers were searched where they lie (on the device): nonFinite
// of them were not finite; where any was, the object fails and its peaks are dropped.
void checkBatchPeaks(BatchRequest& request, std::size_t object, long long nonFinite);

// The device's search of the batch's kernels, on rows of powers given in host memory:
// peaks[r] gets row r's maxPeaks highest local maxima and nonFinite[r] its count of
// non-finite powers. For tests, which give it the plateaus, ties and NaN a periodogram
// seldom has.
Status findBatchPeaksCuda(Context& context, std::span<const double> power, long long count,
                          int maxPeaks, std::vector<std::vector<Peak>>& peaks,
                          std::vector<long long>& nonFinite);

} // namespace warpscope::gpu
