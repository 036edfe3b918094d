#include "distance/CudaFieldState.h"

#include <algorithm>
#include <memory>
#include <vector>

namespace warpscope::gpu {
namespace {

std::size_t scratchBytesFor(const DistanceParams& params)
{
    return params.precision == Precision::Float64 ? distanceScratchBytes(makePlan<double>(params))
                                                  : distanceScratchBytes(makePlan<float>(params));
}

// The caller has grown the scratch for params.
template <typename Out>
Status launch(CudaFieldState& state, const DistanceParams& params, Out* out, cudaStream_t stream)
{
    const cudaError_t error =
        params.precision == Precision::Float64
            ? launchDistanceKernel(makePlan<double>(params), out, state.statsState,
                                   state.scratch.get(), stream)
            : launchDistanceKernel(makePlan<float>(params), out, state.statsState,
                                   state.scratch.get(), stream);
    return cudaStatus(error, "Launching the distance kernel");
}

// The kernel between the timing events, as one span of the timeline; its figures reach the
// host by themselves (DistanceKernel.cuh).
template <typename Out> Status runTimed(Context& context, const DistanceParams& params, Out* out)
{
    CudaBacking& cuda = cudaBacking(context);
    CudaFieldState& state = context.state<CudaFieldState>();
    const cudaStream_t stream = cuda.stream();
    if (Status s = state.prepare(); !s)
        return s;
    if (Status s = state.prepareScratch(params, stream); !s)
        return s;
    WS_CUDA_TRY(cudaEventRecord(state.start, stream));
    const std::string launchText =
        cuda.recorder().recording()
            ? distanceLaunchText(layoutFor(params).pitch, params.ny, int(params.references.size()))
            : std::string();
    {
        const SpanScope span(cuda.recorder(), stream, cuda.streamLane(), SpanKind::Kernel,
                             "distance field", 0, launchText);
        if (Status s = launch(state, params, out, stream); !s)
            return s;
    }
    WS_CUDA_TRY(cudaEventRecord(state.stop, stream));
    state.markQueued();
    return Status::success();
}

template <typename Out>
Status computeToHost(Context& context, const DistanceParams& params, std::span<Out> out)
{
    CudaBacking& cuda = cudaBacking(context);
    if (Status s = cuda.activate(); !s)
        return s;
    CudaFieldState& state = context.state<CudaFieldState>();
    const std::size_t bytes = layoutFor(params).elementCount() * sizeof(Out);
    if (Status s = state.field.grow(bytes, cuda.stream()); !s)
        return s;
    Out* device = state.field.as<Out>();
    if (Status s = runTimed(context, params, device); !s)
        return s;
    state.poll(cuda); // no GL buffer is mapped here: the figures' copy goes now
    if (Status s = cuda.recorded(
            cuda.stream(), cuda.streamLane(), SpanKind::CopyDeviceToHost, "field to host", bytes,
            [&] {
                return cudaStatus(cudaMemcpyAsync(out.data(), device, bytes, cudaMemcpyDeviceToHost,
                                                  cuda.stream()),
                                  "Copying the field to the host");
            });
        !s)
        return s;
    WS_CUDA_TRY(cudaStreamSynchronize(cuda.stream()));
    return Status::success();
}

} // namespace

CudaFieldState::~CudaFieldState()
{
    cudaFree(statsState);
    cudaFree(lessonKeys);
    cudaFreeHost(m_pinnedStats);
}

Status CudaFieldState::prepare()
{
    if (m_arrived)
        return Status::success();
    WS_CUDA_TRY(start.create());
    WS_CUDA_TRY(stop.create());
    WS_CUDA_TRY(cudaMallocHost(reinterpret_cast<void**>(&m_pinnedStats), 2 * sizeof(double)));
    WS_CUDA_TRY(cudaMalloc(reinterpret_cast<void**>(&statsState), sizeof(DistanceStatsState)));
    WS_CUDA_TRY(cudaMemset(statsState, 0, sizeof(DistanceStatsState)));
    WS_CUDA_TRY(cudaMalloc(reinterpret_cast<void**>(&lessonKeys), 2 * sizeof(unsigned int)));
    // Made last: it marks the state as prepared.
    WS_CUDA_TRY(m_arrived.create(cudaEventDisableTiming));
    return Status::success();
}

Status CudaFieldState::prepareScratch(const DistanceParams& params, cudaStream_t stream)
{
    return scratch.grow(scratchBytesFor(params), stream);
}

std::optional<FieldResult> CudaFieldState::poll(CudaBacking& cuda)
{
    if (m_pending && !m_copyQueued) {
        // From the kernel's state, behind the field's work (see DistanceKernel.cuh).
        const cudaStream_t stream = cuda.stream();
        const Status copied = cuda.recorded(
            stream, cuda.streamLane(), SpanKind::CopyDeviceToHost, "field min/max",
            2 * sizeof(double), [&] {
                return cudaStatus(cudaMemcpyAsync(m_pinnedStats, &statsState->finalMin,
                                                  2 * sizeof(double), cudaMemcpyDeviceToHost,
                                                  stream),
                                  "Copying the field's min and max");
            });
        if (!copied || cudaEventRecord(m_arrived, stream) != cudaSuccess) {
            cudaGetLastError();
            m_pending = false; // no figures for this field; the next one tries again
            return m_last;
        }
        m_copyQueued = true;
    }
    if (m_pending && cudaEventQuery(m_arrived) == cudaSuccess) {
        float ms = 0.0f;
        cudaEventElapsedTime(&ms, start, stop);
        m_last = FieldResult{ms, {m_pinnedStats[0], m_pinnedStats[1]}};
        m_pending = false;
    }
    return m_pending ? std::nullopt : m_last;
}

Status checkDistanceCapacityCuda(Context& context, const DistanceParams& params, bool staged)
{
    CudaBacking& cuda = cudaBacking(context);
    if (Status s = cuda.activate(); !s)
        return s;
    const FieldLayout layout = layoutFor(params);
    // The display's buffer (float32) and the kernel's tables; staged results add a buffer.
    std::size_t needed = layout.elementCount() * sizeof(float) + scratchBytesFor(params);
    if (staged)
        needed += layout.elementCount() * sizeof(float);
    std::size_t freeBytes = 0, totalBytes = 0;
    if (cudaMemGetInfo(&freeBytes, &totalBytes) != cudaSuccess) {
        cudaGetLastError();
        freeBytes = std::size_t(cuda.info().totalMemory);
    }
    // Memory already held for the field is reused.
    const CudaFieldState& state = context.state<CudaFieldState>();
    freeBytes += state.field.bytes() + state.scratch.bytes();
    if (needed > freeBytes)
        return Status::failure("The mesh needs " + std::to_string(needed >> 20) +
                               " MiB of GPU memory; " + std::to_string(freeBytes >> 20) +
                               " MiB are free on " + cuda.name());
    return Status::success();
}

Status computeDistanceCuda(Context& context, const DistanceParams& params, std::span<float> out)
{
    return computeToHost(context, params, out);
}

Status computeDistanceCuda(Context& context, const DistanceParams& params, std::span<double> out)
{
    return computeToHost(context, params, out);
}

Status launchDistanceCuda(Context& context, const DistanceParams& params, float* out)
{
    if (Status s = cudaBacking(context).activate(); !s)
        return s;
    return runTimed(context, params, out);
}

std::optional<FieldResult> fieldResultCuda(Context& context)
{
    return context.state<CudaFieldState>().poll(cudaBacking(context));
}

void setFieldResultCuda(Context& context, const FieldResult& result)
{
    context.state<CudaFieldState>().setResult(result);
}

Status timeDistanceKernelCuda(Context& context, const DistanceParams& params, int repetitions,
                              double& medianMs)
{
    CudaBacking& cuda = cudaBacking(context);
    if (Status s = cuda.activate(); !s)
        return s;
    CudaFieldState& state = context.state<CudaFieldState>();
    const cudaStream_t stream = cuda.stream();
    if (Status s = state.prepare(); !s)
        return s;
    if (Status s = state.field.grow(layoutFor(params).elementCount() * sizeof(float), stream); !s)
        return s;
    if (Status s = state.prepareScratch(params, stream); !s)
        return s;
    float* out = state.field.as<float>();
    return medianEventTime(
        stream, state.start, state.stop, repetitions,
        [&] { return launch(state, params, out, stream); }, medianMs);
}

} // namespace warpscope::gpu
