#pragma once

#include "warpscope/gpu/PeriodogramBatch.h"

#include <cstddef>
#include <vector>

// The batch's implementations on each kind of device, reached through
// computePeriodogramBatch once every object is validated.
namespace warpscope::gpu {

// The objects to compute (valid ones, indices into series), their rows of power, and each
// object's verdict: an implementation sets ok[i] false, with its status, for a row whose
// powers come out NaN or infinite.
struct BatchRequest
{
    std::span<const TimeSeries> series;
    std::vector<std::size_t> valid;
    const PeriodogramOptions* options = nullptr;
    std::span<double> power;
    std::vector<Status>* status = nullptr;
};

Status computePeriodogramBatchCpu(Context& context, BatchRequest& request, double& computeMs);
Status computePeriodogramBatchCuda(Context& context, BatchRequest& request, double& kernelMs);

// Counts a computed row's non-finite powers and, where there are any, marks the object
// failed (checkPowers' message) and its row NaN.
void checkBatchRow(BatchRequest& request, std::size_t object);

} // namespace warpscope::gpu
