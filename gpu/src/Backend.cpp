#include "warpscope/gpu/Backend.h"

#include "BackendInternal.h"
#include "GlUpload.h"
#include "cpu/CpuBackend.h"

namespace warpscope::gpu {

BackendSelection createBackend(BackendKind requested, const BackendOptions& options)
{
    if (requested == BackendKind::Cpu)
        return {std::make_unique<CpuBackend>(), "CPU: chosen with --backend cpu"};

    const CudaProbe probe = probeCuda(options.glContextCurrent, options.device);
    const bool interop = options.glContextCurrent && probe.glOnDevice && !options.forceHostCopy;
    // A device chosen by index is used even when OpenGL is elsewhere (through host copies).
    if (requested == BackendKind::Auto &&
        (!probe.available || (options.glContextCurrent && !interop && options.device < 0)))
        return {std::make_unique<CpuBackend>(),
                "CPU: " +
                    (options.forceHostCopy ? std::string("interop was turned off") : probe.reason)};
    if (!probe.available)
        return {nullptr, "The CUDA backend was requested, but " + probe.reason};

    std::string error;
    const DisplayPath path = interop ? DisplayPath::Interop : DisplayPath::HostCopy;
    auto backend = makeCudaBackend(probe.device, path, error);
    if (!backend)
        return {nullptr, "The CUDA backend could not start: " + error};
    std::string reason = "CUDA on " + probe.deviceName;
    if (interop)
        reason += " (interop)";
    else if (options.glContextCurrent)
        reason += options.forceHostCopy ? " (host copy: interop was turned off)"
                                        : " (host copy: " + probe.reason + ")";
    return {std::move(backend), reason};
}

Status checkHostOutput(const DistanceParams& params, std::size_t outputSize)
{
    if (const auto errors = validate(params); !errors.empty())
        return Status::failure(errors.front().message);
    const std::size_t needed = layoutFor(params).elementCount();
    if (outputSize < needed)
        return Status::failure("The output holds " + std::to_string(outputSize) +
                               " values; the field needs " + std::to_string(needed));
    return Status::success();
}

Status uploadField(const GlBuffer& target, std::span<const float> values)
{
    if (values.size() < target.layout.elementCount())
        return Status::failure("The field holds fewer values than its OpenGL buffer needs");
    return uploadToGlBuffer(target.id, values.data(), target.layout.elementCount());
}

} // namespace warpscope::gpu
