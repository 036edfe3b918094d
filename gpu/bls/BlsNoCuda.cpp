#include "bls/BlsShared.h"

namespace warpscope::gpu {

// Builds without nvcc open no CUDA context, so this is never reached.
Status computeBoxLeastSquaresCuda(Context&, const BlsPlan&, BlsResult&, double&)
{
    return Status::failure("This build has no CUDA backend");
}

} // namespace warpscope::gpu
