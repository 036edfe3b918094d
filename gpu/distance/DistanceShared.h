#pragma once

#include "warpscope/gpu/Distance.h"

#include <optional>

// The distance field's implementations on each kind of device, reached through the public
// functions (Distance.h) once the request is validated, and what they share with the
// teaching kernel, which fills the same field.
namespace warpscope::gpu {

// Validates params and that an output of outputSize values can hold their field.
Status checkDistanceOutput(const DistanceParams& params, std::size_t outputSize);

// The last field's figures on a CPU context: known as soon as the call returns.
struct CpuFieldResult : SliceState
{
    std::optional<FieldResult> last;
};

Status checkDistanceCapacityCpu(const DistanceParams& params);
Status computeDistanceCpu(Context& context, const DistanceParams& params, float* out);
Status computeDistanceCpu(Context& context, const DistanceParams& params, double* out);
Status timeDistanceKernelCpu(Context& context, const DistanceParams& params, int repetitions,
                             double& medianMs);

Status checkDistanceCapacityCuda(Context& context, const DistanceParams& params, bool staged);
Status computeDistanceCuda(Context& context, const DistanceParams& params, std::span<float> out);
Status computeDistanceCuda(Context& context, const DistanceParams& params, std::span<double> out);
// out is device memory of the context's device.
Status launchDistanceCuda(Context& context, const DistanceParams& params, float* out);
std::optional<FieldResult> fieldResultCuda(Context& context);
// Keeps figures found on the host as the context's last field's.
void setFieldResultCuda(Context& context, const FieldResult& result);
Status timeDistanceKernelCuda(Context& context, const DistanceParams& params, int repetitions,
                              double& medianMs);

} // namespace warpscope::gpu
