#include "BackendInternal.h"
#include "GlUpload.h"
#include "cuda/DistanceKernel.cuh"
#include "lesson/LessonKernel.cuh"
#include "lesson/LessonShared.h"
#include "periodogram/CudaSpectrum.h"
#include "periodogram/PeriodogramPlan.h"
#include "periodogram/SpectrumKernels.cuh"
#include "periodogram/SpectrumSupport.h"
#include "runtime/CudaContext.h"

#define GL_GLEXT_PROTOTYPES
#include <GL/gl.h>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <cuda_gl_interop.h>
#include <new>
#include <vector>

namespace warpscope::gpu {
namespace {

std::size_t scratchBytesFor(const DistanceParams& params)
{
    return params.precision == Precision::Float64 ? distanceScratchBytes(makePlan<double>(params))
                                                  : distanceScratchBytes(makePlan<float>(params));
}

class CudaBackend final : public Backend
{
public:
    CudaBackend(int device, DisplayPath path) : m_device(device), m_path(path) {}
    ~CudaBackend() override;

    Status initialize();

    BackendKind kind() const override { return BackendKind::Cuda; }
    DisplayPath displayPath() const override { return m_path; }
    std::string deviceName() const override { return m_info.name; }
    DeviceInfo deviceInfo() const override { return m_info; }
    std::optional<DeviceMemory> deviceMemory() const override { return m_context->memory(); }
    Status checkCapacity(const DistanceParams& params) const override;
    Status computeDistance(const DistanceParams& params, std::span<float> out) override
    {
        return computeToHost(params, out);
    }
    Status computeDistance(const DistanceParams& params, std::span<double> out) override
    {
        return computeToHost(params, out);
    }
    Status fillDistance(const DistanceParams& params, const GlBuffer& target) override;
    void forgetGlBuffer(unsigned int bufferId) override;
    std::optional<double> lastKernelMs() override;
    std::optional<FieldStats> lastStats() override;
    Status runLesson(const DistanceParams& params, const LessonLaunch& lesson,
                     std::span<float> field, std::span<std::uint32_t> owners) override
    {
        return gpu::runLesson(*m_context, params, lesson, field, owners);
    }
    Status timeKernel(const DistanceParams& params, int repetitions, double& medianMs) override;
    Status computePeriodogram(const TimeSeries& series, const PeriodogramOptions& options,
                              std::span<double> power) override;
    Status computeSpectrum(const TimeSeries& series, const PeriodogramOptions& options,
                           std::shared_ptr<const Spectrum>& spectrum) override;
    Status fillSpectrum(const Spectrum& spectrum, const SpectrumAxis& axis,
                        const GlVertexBuffer& target) override;
    KernelOccupancy lessonOccupancy(Precision precision, long long blockThreads) override
    {
        return gpu::lessonOccupancy(*m_context, precision, blockThreads);
    }
    KernelOccupancy periodogramOccupancy(Precision precision, long long blockThreads) override
    {
        return gpu::periodogramOccupancy(*m_context, precision, blockThreads);
    }
    Status fillLesson(const DistanceParams& params, const LessonLaunch& lesson,
                      const GlBuffer& field, const GlOwnerBuffer& owners) override;
    Status timeLesson(const DistanceParams& params, const LessonLaunch& lesson, int repetitions,
                      double& medianMs) override
    {
        return gpu::timeLesson(*m_context, params, lesson, repetitions, medianMs);
    }
    void setTimeline(std::shared_ptr<Timeline> timeline, const std::string& role) override;
    Status collectTimeline() override { return m_context->collectTimeline(); }
    Status runStreamsLab(const StreamsLabConfig& config, StreamsLabResult& result) override
    {
        return gpu::runStreamsLab(*m_context, config, result);
    }

private:
    struct Registration
    {
        unsigned int buffer = 0;
        std::size_t bytes = 0;
        cudaGraphicsResource_t resource = nullptr;
    };

    template <typename Out> Status computeToHost(const DistanceParams& params, std::span<Out> out);
    // Launches the kernels in the compute precision, writing Out values.
    template <typename Out> Status launch(const DistanceParams& params, Out* out);
    // Queues the copy of the last field's stats to pinned memory, for lastStats().
    Status queueStatsReadback();
    // Runs the kernel between the timing events and queues the stats read-back.
    template <typename Out> Status runTimed(const DistanceParams& params, Out* out);
    // Memory that only grows, reused from frame to frame.
    struct GrowBuffer
    {
        const char* what;
        bool pinned;
        void* pointer = nullptr;
        std::size_t bytes = 0;
    };
    Status grow(GrowBuffer& buffer, std::size_t bytes);
    Status registration(unsigned int buffer, std::size_t bytes, cudaGraphicsResource_t& resource);
    // Median time of launch() between the timing events, after one warm-up call.
    template <typename Launch>
    Status medianEventTime(Launch&& launch, int repetitions, double& medianMs);
    // Runs op, which queues work on stream, as one span of the timeline.
    template <typename Op>
    Status recorded(cudaStream_t stream, int lane, SpanKind kind, std::string name,
                    std::uint64_t bytes, Op&& op);
    // Maps a GL buffer of `bytes` on the backend's stream, runs write(pointer) and unmaps it,
    // even after a failure, each step a span.
    template <typename Write>
    Status writeThroughInterop(unsigned int buffer, std::size_t bytes, Write&& write);
    CudaBacking& cuda() { return cudaBacking(*m_context); }
    CudaSpanRecorder& recorder() { return cuda().recorder(); }

    // The device's stream, recorder and host threads; declared first, so released last.
    std::unique_ptr<Context> m_context;
    int m_device;
    DisplayPath m_path;
    DeviceInfo m_info;
    cudaStream_t m_stream = nullptr;
    cudaEvent_t m_start = nullptr;
    cudaEvent_t m_stop = nullptr;
    bool m_timingPending = false;
    std::optional<double> m_lastMs;

    // The stats of the last field, copied back asynchronously for the colour bar labels.
    double* m_pinnedStats = nullptr; // DistanceStatsState::finalMin, finalMax
    bool m_statsPending = false;
    std::optional<FieldStats> m_lastStats;

    DistanceStatsState* m_statsState = nullptr; // kept by the kernel between launches
    unsigned int* m_lessonKeys = nullptr;       // the teaching kernel's min/max scratch
    GrowBuffer m_scratch{"the kernel's tables", false};
    GrowBuffer m_field{"the field", false}; // host results and the host-copy display path
    GrowBuffer m_pinned{"the field's copy", true};
    std::vector<Registration> m_registrations;
};

Status CudaBackend::initialize()
{
    if (Status s = Context::open({DeviceKind::Cuda, m_device}, m_context); !s)
        return s;
    m_info = m_context->info();
    m_stream = cuda().stream();
    WS_CUDA_TRY(cudaEventCreate(&m_start));
    WS_CUDA_TRY(cudaEventCreate(&m_stop));
    WS_CUDA_TRY(cudaMallocHost(reinterpret_cast<void**>(&m_pinnedStats), 2 * sizeof(double)));
    WS_CUDA_TRY(cudaMalloc(reinterpret_cast<void**>(&m_statsState), sizeof(DistanceStatsState)));
    WS_CUDA_TRY(cudaMemset(m_statsState, 0, sizeof(DistanceStatsState)));
    WS_CUDA_TRY(cudaMalloc(reinterpret_cast<void**>(&m_lessonKeys), 2 * sizeof(unsigned int)));
    return Status::success();
}

// GL resources must be released with the context current; the owner calls forgetGlBuffer
// for each buffer before destroying the backend, so only CUDA objects remain here.
CudaBackend::~CudaBackend()
{
    cudaSetDevice(m_device);
    for (const Registration& r : m_registrations)
        cudaGraphicsUnregisterResource(r.resource);
    if (m_stream)
        cudaStreamSynchronize(m_stream);
    cudaFree(m_field.pointer);
    cudaFree(m_statsState);
    cudaFree(m_lessonKeys);
    cudaFree(m_scratch.pointer);
    cudaFreeHost(m_pinned.pointer);
    cudaFreeHost(m_pinnedStats);
    if (m_start)
        cudaEventDestroy(m_start);
    if (m_stop)
        cudaEventDestroy(m_stop);
}

Status CudaBackend::checkCapacity(const DistanceParams& params) const
{
    const FieldLayout layout = layoutFor(params);
    const std::size_t valueBytes = params.precision == Precision::Float64 ? 8 : 4;
    // Interop needs only the GL buffer (float32); the host paths add a device buffer.
    std::size_t needed = layout.elementCount() * sizeof(float) + scratchBytesFor(params);
    if (m_path == DisplayPath::HostCopy)
        needed += layout.elementCount() * valueBytes;
    std::size_t freeBytes = 0, totalBytes = 0;
    if (cudaMemGetInfo(&freeBytes, &totalBytes) != cudaSuccess)
        freeBytes = std::size_t(m_info.totalMemory);
    // Memory already held by this backend is reused.
    freeBytes += m_field.bytes + m_scratch.bytes;
    if (needed > freeBytes)
        return Status::failure("The mesh needs " + std::to_string(needed >> 20) +
                               " MiB of GPU memory; " + std::to_string(freeBytes >> 20) +
                               " MiB are free on " + m_info.name);
    return Status::success();
}

Status CudaBackend::grow(GrowBuffer& buffer, std::size_t bytes)
{
    if (bytes <= buffer.bytes)
        return Status::success();
    WS_CUDA_TRY(cudaStreamSynchronize(m_stream)); // the old memory may still be in use
    WS_CUDA_TRY(buffer.pinned ? cudaFreeHost(buffer.pointer) : cudaFree(buffer.pointer));
    buffer.pointer = nullptr;
    buffer.bytes = 0;
    const cudaError_t e =
        buffer.pinned ? cudaMallocHost(&buffer.pointer, bytes) : cudaMalloc(&buffer.pointer, bytes);
    if (e != cudaSuccess) {
        cudaGetLastError(); // an allocation failure is not sticky; clear it
        return Status::failure("Could not allocate " + std::to_string((bytes + 1023) >> 10) +
                               " KiB of " + (buffer.pinned ? "pinned host" : "GPU") +
                               " memory for " + buffer.what + ": " + cudaGetErrorString(e));
    }
    buffer.bytes = bytes;
    return Status::success();
}

// The caller has grown m_scratch for params, outside any timed region.
template <typename Out> Status CudaBackend::launch(const DistanceParams& params, Out* out)
{
    const cudaError_t error = params.precision == Precision::Float64
                                  ? launchDistance(makePlan<double>(params), out, m_statsState,
                                                   m_scratch.pointer, m_stream)
                                  : launchDistance(makePlan<float>(params), out, m_statsState,
                                                   m_scratch.pointer, m_stream);
    return cudaStatus(error, "Launching the distance kernel");
}

template <typename Out> Status CudaBackend::runTimed(const DistanceParams& params, Out* out)
{
    // Allocations happen before the start event, so they are not timed.
    if (Status s = grow(m_scratch, scratchBytesFor(params)); !s)
        return s;
    WS_CUDA_TRY(cudaEventRecord(m_start, m_stream));
    const std::string launchText =
        recorder().recording()
            ? distanceLaunchText(layoutFor(params).pitch, params.ny, int(params.references.size()))
            : std::string();
    {
        const SpanScope span(recorder(), m_stream, cuda().streamLane(), SpanKind::Kernel,
                             "distance field", 0, launchText);
        if (Status s = launch(params, out); !s)
            return s;
    }
    WS_CUDA_TRY(cudaEventRecord(m_stop, m_stream));
    m_timingPending = true;
    return Status::success();
}

template <typename Op>
Status CudaBackend::recorded(cudaStream_t stream, int lane, SpanKind kind, std::string name,
                             std::uint64_t bytes, Op&& op)
{
    const SpanScope span(recorder(), stream, lane, kind, std::move(name), bytes);
    return op();
}

Status CudaBackend::queueStatsReadback()
{
    // From the kernel's state, never from a mapped GL buffer (see DistanceKernel.cuh).
    const Status status = recorded(
        m_stream, cuda().streamLane(), SpanKind::CopyDeviceToHost, "field min/max",
        2 * sizeof(double), [&] {
            return cudaStatus(cudaMemcpyAsync(m_pinnedStats, &m_statsState->finalMin,
                                              2 * sizeof(double), cudaMemcpyDeviceToHost, m_stream),
                              "Copying the field's min and max");
        });
    m_statsPending = status.ok();
    return status;
}

template <typename Out>
Status CudaBackend::computeToHost(const DistanceParams& params, std::span<Out> out)
{
    if (Status s = checkHostOutput(params, out.size()); !s)
        return s;
    const FieldLayout layout = layoutFor(params);
    const std::size_t bytes = layout.elementCount() * sizeof(Out);
    WS_CUDA_TRY(cudaSetDevice(m_device));
    if (Status s = grow(m_field, bytes); !s)
        return s;
    Out* device = static_cast<Out*>(m_field.pointer);
    if (Status s = runTimed(params, device); !s)
        return s;
    if (Status s = queueStatsReadback(); !s)
        return s;
    if (Status s = recorded(m_stream, cuda().streamLane(), SpanKind::CopyDeviceToHost,
                            "field to host", bytes,
                            [&] {
                                return cudaStatus(cudaMemcpyAsync(out.data(), device, bytes,
                                                                  cudaMemcpyDeviceToHost, m_stream),
                                                  "Copying the field to the host");
                            });
        !s)
        return s;
    WS_CUDA_TRY(cudaStreamSynchronize(m_stream));
    return Status::success();
}

Status CudaBackend::registration(unsigned int buffer, std::size_t bytes,
                                 cudaGraphicsResource_t& resource)
{
    auto it = std::find_if(m_registrations.begin(), m_registrations.end(),
                           [&](const Registration& r) { return r.buffer == buffer; });
    if (it != m_registrations.end() && it->bytes == bytes) {
        resource = it->resource;
        return Status::success();
    }
    if (it != m_registrations.end()) { // same buffer id, new storage: register again
        WS_CUDA_TRY(cudaGraphicsUnregisterResource(it->resource));
        m_registrations.erase(it);
    }
    WS_CUDA_TRY(
        cudaGraphicsGLRegisterBuffer(&resource, buffer, cudaGraphicsRegisterFlagsWriteDiscard));
    m_registrations.push_back({buffer, bytes, resource});
    return Status::success();
}

Status CudaBackend::fillDistance(const DistanceParams& params, const GlBuffer& target)
{
    if (target.layout != layoutFor(params))
        return Status::failure("The OpenGL buffer was made for another mesh size");
    if (const auto errors = validate(params); !errors.empty())
        return Status::failure(errors.front().message);
    WS_CUDA_TRY(cudaSetDevice(m_device));
    const std::size_t count = target.layout.elementCount();

    if (m_path == DisplayPath::HostCopy) {
        if (Status s = grow(m_field, count * sizeof(float)); !s)
            return s;
        if (Status s = grow(m_pinned, count * sizeof(float)); !s)
            return s;
        if (Status s = runTimed(params, static_cast<float*>(m_field.pointer)); !s)
            return s;
        if (Status s = queueStatsReadback(); !s)
            return s;
        if (Status s =
                recorded(m_stream, cuda().streamLane(), SpanKind::CopyDeviceToHost, "field to host",
                         count * sizeof(float),
                         [&] {
                             return cudaStatus(cudaMemcpyAsync(m_pinned.pointer, m_field.pointer,
                                                               count * sizeof(float),
                                                               cudaMemcpyDeviceToHost, m_stream),
                                               "Copying the field to the host");
                         });
            !s)
            return s;
        WS_CUDA_TRY(cudaStreamSynchronize(m_stream));
        const ScopedHostSpan span(recorder().timeline(), cuda().hostLane(), "glBufferSubData");
        return uploadToGlBuffer(target.id, static_cast<const float*>(m_pinned.pointer), count);
    }

    if (Status s = writeThroughInterop(
            target.id, count * sizeof(float),
            [&](void* pointer) { return runTimed(params, static_cast<float*>(pointer)); });
        !s)
        return s;
    return queueStatsReadback();
}

template <typename Write>
Status CudaBackend::writeThroughInterop(unsigned int buffer, std::size_t bytes, Write&& write)
{
    cudaGraphicsResource_t resource = nullptr;
    if (Status s = registration(buffer, bytes, resource); !s)
        return s;
    {
        const ScopedHostSpan span(recorder().timeline(), cuda().hostLane(),
                                  "cudaGraphicsMapResources");
        if (Status s =
                recorded(m_stream, cuda().streamLane(), SpanKind::Interop, "map GL buffer", 0,
                         [&] {
                             return cudaStatus(cudaGraphicsMapResources(1, &resource, m_stream),
                                               "cudaGraphicsMapResources");
                         });
            !s)
            return s;
    }
    // The pointer can change between maps, so it is fetched after every map.
    void* pointer = nullptr;
    std::size_t mappedBytes = 0;
    Status status =
        cudaStatus(cudaGraphicsResourceGetMappedPointer(&pointer, &mappedBytes, resource),
                   "cudaGraphicsResourceGetMappedPointer");
    if (status && mappedBytes < bytes)
        status = Status::failure("The mapped OpenGL buffer is smaller than its contents");
    if (status)
        status = write(pointer);
    // Unmap even after a failure, so GL can use the buffer again.
    Status unmapped;
    {
        const ScopedHostSpan span(recorder().timeline(), cuda().hostLane(),
                                  "cudaGraphicsUnmapResources");
        unmapped =
            recorded(m_stream, cuda().streamLane(), SpanKind::Interop, "unmap GL buffer", 0, [&] {
                return cudaStatus(cudaGraphicsUnmapResources(1, &resource, m_stream),
                                  "cudaGraphicsUnmapResources");
            });
    }
    return status ? unmapped : status;
}

Status CudaBackend::fillSpectrum(const Spectrum& spectrum, const SpectrumAxis& axis,
                                 const GlVertexBuffer& target)
{
    if (Status s = checkDecimation(axis, target.floats); !s)
        return s;
    const auto* resident = dynamic_cast<const CudaSpectrum*>(&spectrum);
    if (m_path != DisplayPath::Interop || !resident || resident->device() != m_device) {
        const ScopedHostSpan span(recorder().timeline(), cuda().hostLane(),
                                  "periodogram line upload");
        return uploadSpectrum(spectrum, axis, target);
    }
    WS_CUDA_TRY(cudaSetDevice(m_device));
    const std::size_t bytes = target.floats * sizeof(float);
    return writeThroughInterop(target.id, bytes, [&](void* pointer) {
        return recorded(
            m_stream, cuda().streamLane(), SpanKind::Kernel, "periodogram line", 0, [&] {
                const Status launched = cudaStatus(
                    launchSpectrumColumns(resident->power(), spectrumMapping(spectrum.grid(), axis),
                                          static_cast<float*>(pointer), m_stream),
                    "Launching the periodogram line kernel");
                return launched ? resident->markUse(m_stream) : launched;
            });
    });
}

void CudaBackend::forgetGlBuffer(unsigned int bufferId)
{
    auto it = std::find_if(m_registrations.begin(), m_registrations.end(),
                           [&](const Registration& r) { return r.buffer == bufferId; });
    if (it == m_registrations.end())
        return;
    cudaSetDevice(m_device);
    cudaStreamSynchronize(m_stream);
    cudaGraphicsUnregisterResource(it->resource);
    m_registrations.erase(it);
}

std::optional<double> CudaBackend::lastKernelMs()
{
    if (m_timingPending && cudaEventQuery(m_stop) == cudaSuccess) {
        float ms = 0.0f;
        if (cudaEventElapsedTime(&ms, m_start, m_stop) == cudaSuccess)
            m_lastMs = ms;
        m_timingPending = false;
    }
    return m_lastMs;
}

std::optional<FieldStats> CudaBackend::lastStats()
{
    if (m_statsPending && cudaStreamQuery(m_stream) == cudaSuccess) {
        m_lastStats = FieldStats{m_pinnedStats[0], m_pinnedStats[1]};
        m_statsPending = false;
    }
    return m_statsPending ? std::nullopt : m_lastStats;
}

Status CudaBackend::timeKernel(const DistanceParams& params, int repetitions, double& medianMs)
{
    if (const auto errors = validate(params); !errors.empty())
        return Status::failure(errors.front().message);
    const std::size_t count = layoutFor(params).elementCount();
    WS_CUDA_TRY(cudaSetDevice(m_device));
    if (Status s = grow(m_field, count * sizeof(float)); !s)
        return s;
    if (Status s = grow(m_scratch, scratchBytesFor(params)); !s)
        return s;
    float* out = static_cast<float*>(m_field.pointer);
    return medianEventTime([&] { return launch(params, out); }, repetitions, medianMs);
}

template <typename Launch>
Status CudaBackend::medianEventTime(Launch&& launch, int repetitions, double& medianMs)
{
    if (Status s = launch(); !s) // warm-up
        return s;
    std::vector<double> times;
    for (int k = 0; k < std::max(1, repetitions); ++k) {
        WS_CUDA_TRY(cudaEventRecord(m_start, m_stream));
        if (Status s = launch(); !s)
            return s;
        WS_CUDA_TRY(cudaEventRecord(m_stop, m_stream));
        WS_CUDA_TRY(cudaEventSynchronize(m_stop));
        float ms = 0.0f;
        WS_CUDA_TRY(cudaEventElapsedTime(&ms, m_start, m_stop));
        times.push_back(ms);
    }
    std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
    medianMs = times[times.size() / 2];
    return Status::success();
}

Status CudaBackend::computePeriodogram(const TimeSeries& series, const PeriodogramOptions& options,
                                       std::span<double> power)
{
    return gpu::computePeriodogram(*m_context, series, options, power);
}

Status CudaBackend::computeSpectrum(const TimeSeries& series, const PeriodogramOptions& options,
                                    std::shared_ptr<const Spectrum>& spectrum)
{
    return gpu::computeSpectrum(*m_context, series, options, spectrum);
}

Status CudaBackend::fillLesson(const DistanceParams& params, const LessonLaunch& lesson,
                               const GlBuffer& field, const GlOwnerBuffer& owners)
{
    const FieldLayout layout = layoutFor(params);
    const std::size_t nodes = std::size_t(params.nx) * std::size_t(params.ny);
    if (field.layout != layout || owners.nodes != nodes)
        return Status::failure("The OpenGL buffers were made for another mesh size");
    if (Status s = checkLesson(params, lesson, m_info, layout.elementCount(), 2 * nodes); !s)
        return s;
    WS_CUDA_TRY(cudaSetDevice(m_device));
    const std::size_t fieldBytes = layout.elementCount() * sizeof(float);
    const std::size_t ownerBytes = 2 * nodes * sizeof(std::uint32_t);
    cudaGraphicsResource_t resources[2] = {};
    if (Status s = registration(field.id, fieldBytes, resources[0]); !s)
        return s;
    if (Status s = registration(owners.id, ownerBytes, resources[1]); !s)
        return s;
    if (Status s = recorded(m_stream, cuda().streamLane(), SpanKind::Interop, "map GL buffers", 0,
                            [&] {
                                return cudaStatus(cudaGraphicsMapResources(2, resources, m_stream),
                                                  "cudaGraphicsMapResources");
                            });
        !s)
        return s;
    void* pointers[2] = {};
    std::size_t sizes[2] = {};
    Status status;
    for (int k = 0; k < 2 && status; ++k)
        status =
            cudaStatus(cudaGraphicsResourceGetMappedPointer(&pointers[k], &sizes[k], resources[k]),
                       "cudaGraphicsResourceGetMappedPointer");
    if (status && (sizes[0] < fieldBytes || sizes[1] < ownerBytes))
        status = Status::failure("A mapped OpenGL buffer is smaller than the lesson's record");
    auto* deviceField = static_cast<float*>(pointers[0]);
    auto* deviceOwners = static_cast<std::uint32_t*>(pointers[1]);
    // Nodes no thread reaches stay NaN (all bits set) and kUncovered.
    if (status)
        status = cudaStatus(cudaMemsetAsync(deviceField, 0xff, fieldBytes, m_stream),
                            "Clearing the field");
    if (status)
        status = cudaStatus(cudaMemsetAsync(deviceOwners, 0xff, ownerBytes, m_stream),
                            "Clearing the owner record");
    if (status)
        status = cudaStatus(cudaEventRecord(m_start, m_stream), "Starting the kernel's timer");
    if (status) {
        const std::string detail = "grid " + std::to_string(lesson.launch.grid.x) + " x " +
                                   std::to_string(lesson.launch.grid.y) + ", block " +
                                   std::to_string(lesson.launch.block.x) + " x " +
                                   std::to_string(lesson.launch.block.y);
        const SpanScope span(recorder(), m_stream, cuda().streamLane(), SpanKind::Kernel,
                             "teaching kernel", 0, detail);
        status = cudaStatus(params.precision == Precision::Float64
                                ? launchLesson(makePlan<double>(params), lesson, deviceField,
                                               deviceOwners, m_stream)
                                : launchLesson(makePlan<float>(params), lesson, deviceField,
                                               deviceOwners, m_stream),
                            "Launching the teaching kernel");
    }
    if (status)
        status = cudaStatus(cudaEventRecord(m_stop, m_stream), "Stopping the kernel's timer");
    m_timingPending = status.ok();
    if (status)
        status = cudaStatus(launchLessonStats(deviceField, params.nx, params.ny, layout.pitch,
                                              layout.statsOffset(), m_lessonKeys, m_statsState,
                                              m_stream),
                            "Launching the teaching kernel's min/max");
    // Unmap even after a failure, so GL can use the buffers again.
    const Status unmapped =
        recorded(m_stream, cuda().streamLane(), SpanKind::Interop, "unmap GL buffers", 0, [&] {
            return cudaStatus(cudaGraphicsUnmapResources(2, resources, m_stream),
                              "cudaGraphicsUnmapResources");
        });
    if (!status)
        return status;
    if (!unmapped)
        return unmapped;
    return queueStatsReadback();
}

void CudaBackend::setTimeline(std::shared_ptr<Timeline> timeline, const std::string& role)
{
    m_context->setTimeline(std::move(timeline), role);
}

} // namespace

bool cudaCompiledIn()
{
    return true;
}

CudaProbe probeCuda(bool glContextCurrent, int wantedDevice)
{
    CudaProbe probe;
    int count = 0;
    if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess || count == 0) {
        cudaGetLastError();
        // Without a driver or a device the runtime's own wording only confuses.
        const bool plain =
            e == cudaSuccess || e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver;
        probe.reason = plain ? std::string("no CUDA device")
                             : std::string("no usable CUDA device (") + cudaGetErrorString(e) + ")";
        return probe;
    }
    if (wantedDevice >= count) {
        probe.reason = "there is no CUDA device " + std::to_string(wantedDevice) + " (this " +
                       "machine has " + std::to_string(count) + ")";
        return probe;
    }
    probe.available = true;
    probe.device = std::max(0, wantedDevice);
    if (glContextCurrent) {
        unsigned int glDevices = 0;
        int devices[8] = {};
        const cudaError_t e = cudaGLGetDevices(&glDevices, devices, 8, cudaGLDeviceListAll);
        if (e != cudaSuccess)
            cudaGetLastError();
        const bool any = e == cudaSuccess && glDevices > 0;
        if (any && wantedDevice < 0)
            probe.device = devices[0];
        probe.glOnDevice = any && std::find(devices, devices + std::min(glDevices, 8u),
                                            probe.device) != devices + std::min(glDevices, 8u);
        if (!probe.glOnDevice)
            probe.reason =
                wantedDevice < 0
                    ? std::string("OpenGL runs on a different GPU than CUDA")
                    : "OpenGL does not run on CUDA device " + std::to_string(probe.device);
    }
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, probe.device) == cudaSuccess)
        probe.deviceName = prop.name;
    return probe;
}

std::unique_ptr<Backend> makeCudaBackend(int device, DisplayPath path, std::string& error)
{
    auto backend = std::make_unique<CudaBackend>(device, path);
    if (Status s = backend->initialize(); !s) {
        error = s.message();
        return nullptr;
    }
    return backend;
}

} // namespace warpscope::gpu
