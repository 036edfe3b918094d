#include "phasebins/PhaseBinsShared.h"

namespace warpscope::gpu {

// Builds without nvcc open no CUDA context, so these are never reached.
Status phaseDispersionCuda(Context&, const DispersionPlan&, std::span<double>, double&)
{
    return Status::failure("This build has no CUDA backend");
}

Status conditionalEntropyCuda(Context&, const EntropyPlan&, std::span<double>, double&)
{
    return Status::failure("This build has no CUDA backend");
}

} // namespace warpscope::gpu
