// The distance field's entry points: each request is validated here, once, then run by the
// implementation for the context's device.
#include "distance/DistanceShared.h"

#include <string>

namespace warpscope::gpu {

Status checkDistanceOutput(const DistanceParams& params, std::size_t outputSize)
{
    if (const auto errors = validate(params); !errors.empty())
        return Status::failure(errors.front().message);
    const std::size_t needed = layoutFor(params).elementCount();
    if (outputSize < needed)
        return Status::failure("The output holds " + std::to_string(outputSize) +
                               " values; the field needs " + std::to_string(needed));
    return Status::success();
}

Status checkDistanceCapacity(Context& context, const DistanceParams& params, bool staged)
{
    if (const auto errors = validate(params); !errors.empty())
        return Status::failure(errors.front().message);
    return context.isCuda() ? checkDistanceCapacityCuda(context, params, staged)
                            : checkDistanceCapacityCpu(params);
}

Status computeDistance(Context& context, const DistanceParams& params, std::span<float> out)
{
    if (Status s = checkDistanceOutput(params, out.size()); !s)
        return s;
    return context.isCuda() ? computeDistanceCuda(context, params, out)
                            : computeDistanceCpu(context, params, out.data());
}

Status computeDistance(Context& context, const DistanceParams& params, std::span<double> out)
{
    if (Status s = checkDistanceOutput(params, out.size()); !s)
        return s;
    return context.isCuda() ? computeDistanceCuda(context, params, out)
                            : computeDistanceCpu(context, params, out.data());
}

Status launchDistance(Context& context, const DistanceParams& params, BufferView<float> out)
{
    if (Status s = checkDistanceOutput(params, out.size); !s)
        return s;
    if (out.space == MemorySpace::Device) {
        if (!context.isCuda())
            return Status::failure("The CPU cannot write into device memory");
        return launchDistanceCuda(context, params, out.data);
    }
    // Host memory: the CPU computes into it directly; a GPU computes and copies it back.
    return context.isCuda() ? computeDistanceCuda(context, params, {out.data, out.size})
                            : computeDistanceCpu(context, params, out.data);
}

std::optional<FieldResult> fieldResult(Context& context)
{
    return context.isCuda() ? fieldResultCuda(context) : context.state<CpuFieldResult>().last;
}

Status timeDistanceKernel(Context& context, const DistanceParams& params, int repetitions,
                          double& medianMs)
{
    if (const auto errors = validate(params); !errors.empty())
        return Status::failure(errors.front().message);
    return context.isCuda() ? timeDistanceKernelCuda(context, params, repetitions, medianMs)
                            : timeDistanceKernelCpu(context, params, repetitions, medianMs);
}

} // namespace warpscope::gpu
