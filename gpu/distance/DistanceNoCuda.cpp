#include "distance/DistanceShared.h"

namespace warpscope::gpu {

// Builds without nvcc open no CUDA context, so these are never reached.
namespace {
Status noCuda()
{
    return Status::failure("This build has no CUDA backend");
}
} // namespace

Status checkDistanceCapacityCuda(Context&, const DistanceParams&, bool)
{
    return noCuda();
}

Status computeDistanceCuda(Context&, const DistanceParams&, std::span<float>)
{
    return noCuda();
}

Status computeDistanceCuda(Context&, const DistanceParams&, std::span<double>)
{
    return noCuda();
}

Status launchDistanceCuda(Context&, const DistanceParams&, float*)
{
    return noCuda();
}

std::optional<FieldResult> fieldResultCuda(Context&)
{
    return std::nullopt;
}

void setFieldResultCuda(Context&, const FieldResult&) {}

Status timeDistanceKernelCuda(Context&, const DistanceParams&, int, double&)
{
    return noCuda();
}

} // namespace warpscope::gpu
