#include "periodogram/PeriodogramBatchShared.h"

namespace warpscope::gpu {

// Builds without nvcc open no CUDA context, so this is never reached.
Status computePeriodogramBatchCuda(Context&, BatchRequest&, double&)
{
    return Status::failure("This build has no CUDA backend");
}

Status findBatchPeaksCuda(Context&, std::span<const double>, long long, int,
                          std::vector<std::vector<Peak>>&, std::vector<long long>&)
{
    return Status::failure("This build has no CUDA backend");
}

} // namespace warpscope::gpu
