#include "periodogram/PeriodogramBatchShared.h"

namespace warpscope::gpu {

// Builds without nvcc open no CUDA context, so this is never reached.
Status computePeriodogramBatchCuda(Context&, BatchRequest&, double&)
{
    return Status::failure("This build has no CUDA backend");
}

} // namespace warpscope::gpu
