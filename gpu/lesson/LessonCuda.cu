#include "distance/CudaFieldState.h"
#include "lesson/LessonKernel.cuh"
#include "lesson/LessonShared.h"
#include "runtime/CudaContext.h"

#include <algorithm>
#include <vector>

namespace warpscope::gpu {
namespace {

// What the teaching kernel keeps on a CUDA context between runs: its device buffers and its
// own timing events.
class CudaLessonState : public SliceState
{
public:
    // Makes room for params' field and owner record.
    Status prepare(const DistanceParams& params, cudaStream_t stream)
    {
        if (!start)
            WS_CUDA_TRY(start.create());
        if (!stop)
            WS_CUDA_TRY(stop.create());
        if (Status s = field.grow(layoutFor(params).elementCount() * sizeof(float), stream); !s)
            return s;
        return owners.grow(2 * std::size_t(params.nx) * params.ny * sizeof(std::uint32_t), stream);
    }

    CudaBuffer field{"the field", false};
    CudaBuffer owners{"the thread owners", false};
    CudaEvent start, stop;
};

cudaError_t launch(const DistanceParams& params, const LessonLaunch& lesson, float* field,
                   std::uint32_t* owners, cudaStream_t stream)
{
    return params.precision == Precision::Float64
               ? launchLessonKernel(makePlan<double>(params), lesson, field, owners, stream)
               : launchLessonKernel(makePlan<float>(params), lesson, field, owners, stream);
}

} // namespace

Status runLessonCuda(Context& context, const DistanceParams& params, const LessonLaunch& lesson,
                     std::span<float> field, std::span<std::uint32_t> owners, double& kernelMs)
{
    CudaBacking& cuda = cudaBacking(context);
    if (Status s = cuda.activate(); !s)
        return s;
    CudaLessonState& state = context.state<CudaLessonState>();
    const cudaStream_t stream = cuda.stream();
    if (Status s = state.prepare(params, stream); !s)
        return s;
    const std::size_t fieldBytes = layoutFor(params).elementCount() * sizeof(float);
    const std::size_t ownerBytes = 2 * std::size_t(params.nx) * params.ny * sizeof(std::uint32_t);
    auto* deviceField = state.field.as<float>();
    auto* deviceOwners = state.owners.as<std::uint32_t>();
    // The host's field values stand where no thread writes, so copy them in first.
    WS_CUDA_TRY(
        cudaMemcpyAsync(deviceField, field.data(), fieldBytes, cudaMemcpyHostToDevice, stream));
    WS_CUDA_TRY(cudaMemsetAsync(deviceOwners, 0xff, ownerBytes, stream));
    WS_CUDA_TRY(cudaEventRecord(state.start, stream));
    if (Status s = cudaStatus(launch(params, lesson, deviceField, deviceOwners, stream),
                              "Launching the teaching kernel");
        !s)
        return s;
    WS_CUDA_TRY(cudaEventRecord(state.stop, stream));
    WS_CUDA_TRY(
        cudaMemcpyAsync(field.data(), deviceField, fieldBytes, cudaMemcpyDeviceToHost, stream));
    WS_CUDA_TRY(
        cudaMemcpyAsync(owners.data(), deviceOwners, ownerBytes, cudaMemcpyDeviceToHost, stream));
    WS_CUDA_TRY(cudaStreamSynchronize(stream));
    float ms = 0.0f;
    WS_CUDA_TRY(cudaEventElapsedTime(&ms, state.start, state.stop));
    kernelMs = ms;
    return Status::success();
}

Status launchLessonCuda(Context& context, const DistanceParams& params, const LessonLaunch& lesson,
                        float* field, std::uint32_t* owners)
{
    CudaBacking& cuda = cudaBacking(context);
    if (Status s = cuda.activate(); !s)
        return s;
    CudaFieldState& state = context.state<CudaFieldState>();
    if (Status s = state.prepare(); !s)
        return s;
    const cudaStream_t stream = cuda.stream();
    const FieldLayout layout = layoutFor(params);
    const std::size_t fieldBytes = layout.elementCount() * sizeof(float);
    const std::size_t ownerBytes = 2 * std::size_t(params.nx) * params.ny * sizeof(std::uint32_t);
    // Nodes no thread reaches stay NaN (all bits set) and kUncovered.
    WS_CUDA_TRY(cudaMemsetAsync(field, 0xff, fieldBytes, stream));
    WS_CUDA_TRY(cudaMemsetAsync(owners, 0xff, ownerBytes, stream));
    WS_CUDA_TRY(cudaEventRecord(state.start, stream));
    {
        const std::string detail = "grid " + std::to_string(lesson.launch.grid.x) + " x " +
                                   std::to_string(lesson.launch.grid.y) + ", block " +
                                   std::to_string(lesson.launch.block.x) + " x " +
                                   std::to_string(lesson.launch.block.y);
        const SpanScope span(cuda.recorder(), stream, cuda.streamLane(), SpanKind::Kernel,
                             "teaching kernel", 0, detail);
        if (Status s = cudaStatus(launch(params, lesson, field, owners, stream),
                                  "Launching the teaching kernel");
            !s)
            return s;
    }
    WS_CUDA_TRY(cudaEventRecord(state.stop, stream));
    if (Status s = cudaStatus(launchLessonStats(field, params.nx, params.ny, layout.pitch,
                                                layout.statsOffset(), state.lessonKeys,
                                                state.statsState, stream),
                              "Launching the teaching kernel's min/max");
        !s)
        return s;
    state.markQueued();
    return Status::success();
}

Status timeLessonCuda(Context& context, const DistanceParams& params, const LessonLaunch& lesson,
                      int repetitions, double& medianMs)
{
    CudaBacking& cuda = cudaBacking(context);
    if (Status s = cuda.activate(); !s)
        return s;
    CudaLessonState& state = context.state<CudaLessonState>();
    const cudaStream_t stream = cuda.stream();
    if (Status s = state.prepare(params, stream); !s)
        return s;
    auto* field = state.field.as<float>();
    auto* owners = state.owners.as<std::uint32_t>();
    const auto launchOnce = [&] {
        return cudaStatus(launch(params, lesson, field, owners, stream),
                          "Launching the teaching kernel");
    };
    return medianEventTime(stream, state.start, state.stop, repetitions, launchOnce, medianMs);
}

KernelOccupancy lessonOccupancyCuda(Context& context, Precision precision, long long blockThreads)
{
    return kernelOccupancy(cudaBacking(context),
                           lessonKernelSymbol(precision == Precision::Float64), blockThreads);
}

} // namespace warpscope::gpu
