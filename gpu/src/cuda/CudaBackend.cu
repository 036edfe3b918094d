#include "BackendInternal.h"
#include "GlUpload.h"
#include "PeriodogramPlan.h"
#include "SpectrumSupport.h"
#include "StreamsLabSupport.h"
#include "cuda/CudaCheck.h"
#include "cuda/CudaSpanRecorder.h"
#include "cuda/CudaSpectrum.h"
#include "cuda/DistanceKernel.cuh"
#include "cuda/LessonKernel.cuh"
#include "cuda/PeriodogramKernel.cuh"
#include "cuda/PeriodogramMatrixKernel.cuh"
#include "cuda/SpectrumKernels.cuh"
#include "cuda/StreamsLabKernels.cuh"

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
    std::optional<DeviceMemory> deviceMemory() const override;
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
                     std::span<float> field, std::span<std::uint32_t> owners) override;
    Status timeKernel(const DistanceParams& params, int repetitions, double& medianMs) override;
    Status computePeriodogram(const TimeSeries& series, const PeriodogramOptions& options,
                              std::span<double> power) override;
    Status computeSpectrum(const TimeSeries& series, const PeriodogramOptions& options,
                           std::shared_ptr<const Spectrum>& spectrum) override;
    Status fillSpectrum(const Spectrum& spectrum, const SpectrumAxis& axis,
                        const GlVertexBuffer& target) override;
    KernelOccupancy lessonOccupancy(Precision precision, long long blockThreads) override
    {
        return kernelOccupancy(lessonKernelSymbol(precision == Precision::Float64), blockThreads);
    }
    KernelOccupancy periodogramOccupancy(Precision precision, long long blockThreads) override
    {
        return kernelOccupancy(periodogramKernelSymbol(precision == Precision::Float64, false),
                               blockThreads);
    }
    Status fillLesson(const DistanceParams& params, const LessonLaunch& lesson,
                      const GlBuffer& field, const GlOwnerBuffer& owners) override;
    Status timeLesson(const DistanceParams& params, const LessonLaunch& lesson, int repetitions,
                      double& medianMs) override;
    void setTimeline(std::shared_ptr<Timeline> timeline, const std::string& role) override;
    Status collectTimeline() override { return m_recorder.collect(); }
    Status runStreamsLab(const StreamsLabConfig& config, StreamsLabResult& result) override;

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
    KernelOccupancy kernelOccupancy(const void* kernel, long long blockThreads);
    // Median time of launch() between the timing events, after one warm-up call.
    template <typename Launch>
    Status medianEventTime(Launch&& launch, int repetitions, double& medianMs);
    // Runs op, which queues work on stream, as one span of the timeline.
    template <typename Op>
    Status recorded(cudaStream_t stream, int lane, SpanKind kind, std::string name,
                    std::uint64_t bytes, Op&& op);
    // Computes a checked request (checkPeriodogram) into devicePower (device memory; null:
    // the backend's own buffer) on the backend's stream, without waiting, once the method is
    // settled and the powers are known to fit beside the series.
    Status queuePeriodogram(const TimeSeries& series, const PeriodogramOptions& options,
                            double* devicePower, std::size_t heldBytes);
    template <typename T>
    Status runPeriodogram(const TimeSeries& series, const PeriodogramOptions& options,
                          PeriodogramMethod method, double* devicePower, std::size_t heldBytes);
    // The method that runs for options (never Auto), or why the requested one cannot.
    Status resolveMethod(const PeriodogramOptions& options, PeriodogramMethod& method) const;
    // The frequencies the last periodogram's launch left out on purpose (NaN).
    long long unevaluated(const PeriodogramOptions& options) const;
    // Maps a GL buffer of `bytes` on the backend's stream, runs write(pointer) and unmaps it,
    // even after a failure, each step a span.
    template <typename Write>
    Status writeThroughInterop(unsigned int buffer, std::size_t bytes, Write&& write);
    // Allocates and fills the streams lab's host arrays, unless the last run's still fit.
    Status prepareLabHost(const StreamsLabConfig& config);
    void releaseLabHost();
    ThreadPool& hostPool();

    int m_device;
    DisplayPath m_path;
    PeriodogramMethod m_lastMethod = PeriodogramMethod::Direct; // of the last periodogram
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
    GrowBuffer m_owners{"the thread owners", false};
    GrowBuffer m_series{"the time series", false};
    GrowBuffer m_power{"the periodogram", false};
    std::vector<Registration> m_registrations;

    CudaSpanRecorder m_recorder;
    int m_streamLane = -1;
    int m_hostLane = -1;

    // The streams lab: its streams, device arrays and host arrays, kept between runs.
    std::vector<cudaStream_t> m_labStreams;
    std::vector<int> m_labLanes;
    int m_labHostLane = -1;
    GrowBuffer m_labDevice{"the streams lab's arrays", false};
    GrowBuffer m_labSums{"the streams lab's sums", false};
    StreamsLabConfig m_labConfig;
    std::vector<float*> m_labInputs, m_labOutputs;
    float* m_labPinned = nullptr;
    std::vector<std::vector<float>> m_labPageable;
    std::unique_ptr<ThreadPool> m_hostPool; // fills and checks the lab's host arrays
};

// Events that are destroyed with their owner, for code that can return early.
struct ScopedEvents
{
    std::vector<cudaEvent_t> events;
    ~ScopedEvents()
    {
        for (cudaEvent_t e : events)
            cudaEventDestroy(e);
    }
    Status create(std::size_t count)
    {
        while (events.size() < count) {
            cudaEvent_t e = nullptr;
            WS_CUDA_TRY(cudaEventCreate(&e));
            events.push_back(e);
        }
        return Status::success();
    }
};

Status CudaBackend::initialize()
{
    WS_CUDA_TRY(cudaSetDevice(m_device));
    cudaDeviceProp prop{};
    WS_CUDA_TRY(cudaGetDeviceProperties(&prop, m_device));
    m_info.name = prop.name;
    m_info.ordinal = m_device;
    m_info.ccMajor = prop.major;
    m_info.ccMinor = prop.minor;
    m_info.smCount = prop.multiProcessorCount;
    m_info.warpSize = prop.warpSize;
    m_info.maxThreadsPerBlock = prop.maxThreadsPerBlock;
    m_info.maxBlock = {prop.maxThreadsDim[0], prop.maxThreadsDim[1], prop.maxThreadsDim[2]};
    m_info.maxGrid = {prop.maxGridSize[0], prop.maxGridSize[1], prop.maxGridSize[2]};
    m_info.sharedPerBlock = static_cast<long long>(prop.sharedMemPerBlock);
    m_info.sharedPerBlockOptin = static_cast<long long>(prop.sharedMemPerBlockOptin);
    m_info.regsPerBlock = prop.regsPerBlock;
    m_info.maxThreadsPerSm = prop.maxThreadsPerMultiProcessor;
    m_info.regsPerSm = prop.regsPerMultiprocessor;
    m_info.maxBlocksPerSm = prop.maxBlocksPerMultiProcessor;
    m_info.sharedPerSm = static_cast<long long>(prop.sharedMemPerMultiprocessor);
    m_info.reservedSharedPerBlock = static_cast<long long>(prop.reservedSharedMemPerBlock);
    m_info.totalMemory = static_cast<long long>(prop.totalGlobalMem);
    m_info.l2Bytes = prop.l2CacheSize;
    WS_CUDA_TRY(cudaDeviceGetAttribute(&m_info.clockKHz, cudaDevAttrClockRate, m_device));
    WS_CUDA_TRY(
        cudaDeviceGetAttribute(&m_info.memoryClockKHz, cudaDevAttrMemoryClockRate, m_device));
    WS_CUDA_TRY(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking));
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
    for (cudaStream_t stream : m_labStreams) {
        cudaStreamSynchronize(stream);
        cudaStreamDestroy(stream);
    }
    releaseLabHost();
    cudaFree(m_series.pointer);
    cudaFree(m_power.pointer);
    cudaFree(m_labDevice.pointer);
    cudaFree(m_labSums.pointer);
    cudaFree(m_field.pointer);
    cudaFree(m_statsState);
    cudaFree(m_lessonKeys);
    cudaFree(m_scratch.pointer);
    cudaFree(m_owners.pointer);
    cudaFreeHost(m_pinned.pointer);
    cudaFreeHost(m_pinnedStats);
    if (m_start)
        cudaEventDestroy(m_start);
    if (m_stop)
        cudaEventDestroy(m_stop);
    if (m_stream)
        cudaStreamDestroy(m_stream);
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

std::optional<DeviceMemory> CudaBackend::deviceMemory() const
{
    std::size_t freeBytes = 0, totalBytes = 0;
    if (cudaSetDevice(m_device) != cudaSuccess ||
        cudaMemGetInfo(&freeBytes, &totalBytes) != cudaSuccess) {
        cudaGetLastError();
        return std::nullopt;
    }
    return DeviceMemory{totalBytes - freeBytes, totalBytes};
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
        m_recorder.recording()
            ? distanceLaunchText(layoutFor(params).pitch, params.ny, int(params.references.size()))
            : std::string();
    const int token =
        m_recorder.begin(m_stream, m_streamLane, SpanKind::Kernel, "distance field", 0, launchText);
    if (Status s = launch(params, out); !s)
        return s;
    m_recorder.end(token, m_stream);
    WS_CUDA_TRY(cudaEventRecord(m_stop, m_stream));
    m_timingPending = true;
    return Status::success();
}

template <typename Op>
Status CudaBackend::recorded(cudaStream_t stream, int lane, SpanKind kind, std::string name,
                             std::uint64_t bytes, Op&& op)
{
    const int token = m_recorder.begin(stream, lane, kind, std::move(name), bytes);
    Status status = op();
    m_recorder.end(token, stream);
    return status;
}

Status CudaBackend::queueStatsReadback()
{
    // From the kernel's state, never from a mapped GL buffer (see DistanceKernel.cuh).
    const Status status = recorded(
        m_stream, m_streamLane, SpanKind::CopyDeviceToHost, "field min/max", 2 * sizeof(double),
        [&] {
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
    if (Status s =
            recorded(m_stream, m_streamLane, SpanKind::CopyDeviceToHost, "field to host", bytes,
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
                recorded(m_stream, m_streamLane, SpanKind::CopyDeviceToHost, "field to host",
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
        const ScopedHostSpan span(m_recorder.timeline(), m_hostLane, "glBufferSubData");
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
        const ScopedHostSpan span(m_recorder.timeline(), m_hostLane, "cudaGraphicsMapResources");
        if (Status s =
                recorded(m_stream, m_streamLane, SpanKind::Interop, "map GL buffer", 0,
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
        const ScopedHostSpan span(m_recorder.timeline(), m_hostLane, "cudaGraphicsUnmapResources");
        unmapped = recorded(m_stream, m_streamLane, SpanKind::Interop, "unmap GL buffer", 0, [&] {
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
        const ScopedHostSpan span(m_recorder.timeline(), m_hostLane, "periodogram line upload");
        return uploadSpectrum(spectrum, axis, target);
    }
    WS_CUDA_TRY(cudaSetDevice(m_device));
    const std::size_t bytes = target.floats * sizeof(float);
    return writeThroughInterop(target.id, bytes, [&](void* pointer) {
        return recorded(m_stream, m_streamLane, SpanKind::Kernel, "periodogram line", 0, [&] {
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

Status CudaBackend::runLesson(const DistanceParams& params, const LessonLaunch& lesson,
                              std::span<float> field, std::span<std::uint32_t> owners)
{
    if (Status s = checkLesson(params, lesson, m_info, field.size(), owners.size()); !s)
        return s;
    const std::size_t fieldBytes = layoutFor(params).elementCount() * sizeof(float);
    const std::size_t ownerBytes = 2 * std::size_t(params.nx) * params.ny * sizeof(std::uint32_t);
    WS_CUDA_TRY(cudaSetDevice(m_device));
    if (Status s = grow(m_field, fieldBytes); !s)
        return s;
    if (Status s = grow(m_owners, ownerBytes); !s)
        return s;
    auto* deviceField = static_cast<float*>(m_field.pointer);
    auto* deviceOwners = static_cast<std::uint32_t*>(m_owners.pointer);
    // The host's field values stand where no thread writes, so copy them in first.
    WS_CUDA_TRY(
        cudaMemcpyAsync(deviceField, field.data(), fieldBytes, cudaMemcpyHostToDevice, m_stream));
    WS_CUDA_TRY(cudaMemsetAsync(deviceOwners, 0xff, ownerBytes, m_stream));
    WS_CUDA_TRY(cudaEventRecord(m_start, m_stream));
    const cudaError_t launched =
        params.precision == Precision::Float64
            ? launchLesson(makePlan<double>(params), lesson, deviceField, deviceOwners, m_stream)
            : launchLesson(makePlan<float>(params), lesson, deviceField, deviceOwners, m_stream);
    if (Status s = cudaStatus(launched, "Launching the teaching kernel"); !s)
        return s;
    WS_CUDA_TRY(cudaEventRecord(m_stop, m_stream));
    m_timingPending = true;
    WS_CUDA_TRY(
        cudaMemcpyAsync(field.data(), deviceField, fieldBytes, cudaMemcpyDeviceToHost, m_stream));
    WS_CUDA_TRY(
        cudaMemcpyAsync(owners.data(), deviceOwners, ownerBytes, cudaMemcpyDeviceToHost, m_stream));
    WS_CUDA_TRY(cudaStreamSynchronize(m_stream));
    return Status::success();
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

template <typename T>
Status CudaBackend::runPeriodogram(const TimeSeries& series, const PeriodogramOptions& options,
                                   PeriodogramMethod method, double* devicePower,
                                   std::size_t heldBytes)
{
    const PeriodogramPlan<T> plan = makePeriodogramPlan<T>(series, options);
    const std::size_t n = plan.t.size();
    const std::size_t count = std::size_t(options.grid.count);
    // One upload: t in double, then w, wy and the rotation steps in T.
    const std::size_t seriesBytes = n * sizeof(double) + 4 * n * sizeof(T);
    const std::size_t powerBytes = count * sizeof(double);
    std::size_t freeBytes = 0, totalBytes = 0;
    WS_CUDA_TRY(cudaMemGetInfo(&freeBytes, &totalBytes));
    freeBytes += m_series.bytes + heldBytes;
    if (seriesBytes + powerBytes > freeBytes)
        return Status::failure("The periodogram needs " +
                               std::to_string((seriesBytes + powerBytes) >> 20) +
                               " MiB of GPU memory; " + std::to_string(freeBytes >> 20) +
                               " MiB are free on " + m_info.name + ". Use fewer frequencies.");
    if (Status s = grow(m_series, seriesBytes); !s)
        return s;
    if (!devicePower) {
        if (Status s = grow(m_power, powerBytes); !s)
            return s;
        devicePower = static_cast<double*>(m_power.pointer);
    }
    std::vector<unsigned char> staging(seriesBytes);
    unsigned char* at = staging.data();
    auto put = [&at](const void* data, std::size_t bytes) {
        std::memcpy(at, data, bytes);
        at += bytes;
    };
    put(plan.tDouble.data(), n * sizeof(double));
    put(plan.w.data(), n * sizeof(T));
    put(plan.wy.data(), n * sizeof(T));
    put(plan.stepCos.data(), n * sizeof(T));
    put(plan.stepSin.data(), n * sizeof(T));
    auto* device = static_cast<unsigned char*>(m_series.pointer);
    if (Status s =
            recorded(m_stream, m_streamLane, SpanKind::CopyHostToDevice, "series in", seriesBytes,
                     [&] {
                         return cudaStatus(cudaMemcpyAsync(device, staging.data(), seriesBytes,
                                                           cudaMemcpyHostToDevice, m_stream),
                                           "Copying the series to the GPU");
                     });
        !s)
        return s;
    PeriodogramArgs<T> args{};
    args.t = reinterpret_cast<const double*>(device);
    const T* arrays = reinterpret_cast<const T*>(device + n * sizeof(double));
    args.w = arrays;
    args.wy = arrays + n;
    args.stepCos = arrays + 2 * n;
    args.stepSin = arrays + 3 * n;
    args.n = int(n);
    args.fmin = options.grid.fmin;
    args.df = options.grid.df;
    args.count = options.grid.count;
    args.logGrid = options.grid.logarithmic;
    args.yy = plan.yy;
    args.psdScale = plan.psdScale;
    args.normalization = plan.normalization;
    args.fitMean = plan.fitMean;
    args.scale = T(1);
    if constexpr (sizeof(T) == 4)
        if (method == PeriodogramMethod::Matrix)
            args.scale = periodogramMatrixScale(plan.w.data(), plan.wy.data(), int(n));
    WS_CUDA_TRY(cudaEventRecord(m_start, m_stream));
    const bool matrix = method == PeriodogramMethod::Matrix;
    const int token = m_recorder.begin(m_stream, m_streamLane, SpanKind::Kernel,
                                       matrix ? "periodogram (tensor cores)" : "periodogram", 0,
                                       std::to_string(n) + " samples x " + std::to_string(count) +
                                           " frequencies");
    // Poison: frequencies a small grid leaves out stay NaN, and so would any not written.
    WS_CUDA_TRY(cudaMemsetAsync(devicePower, 0xff, powerBytes, m_stream));
    cudaError_t launched = cudaSuccess;
    if (matrix) {
        launched = launchPeriodogramMatrix(args, devicePower, m_stream);
    } else {
        const PeriodogramShape shape{int(options.launch.blockThreads), options.launch.gridBlocks,
                                     options.launch.gridStride};
        launched = launchPeriodogram(args, shape, devicePower, m_stream);
    }
    if (Status s = cudaStatus(launched, "Launching the periodogram kernel"); !s)
        return s;
    m_recorder.end(token, m_stream);
    WS_CUDA_TRY(cudaEventRecord(m_stop, m_stream));
    m_timingPending = true;
    return Status::success();
}

Status CudaBackend::resolveMethod(const PeriodogramOptions& options,
                                  PeriodogramMethod& method) const
{
    const bool tensor = periodogramMatrixSupported(m_info.ccMajor);
    const bool float64 = options.precision == Precision::Float64;
    switch (options.method) {
    case PeriodogramMethod::Matrix:
        if (options.grid.logarithmic)
            return Status::failure("The matrix products need evenly spaced frequencies; a "
                                   "logarithmic grid runs on the direct kernel (Method: Auto "
                                   "or Direct)");
        if (!tensor)
            return Status::failure("The matrix products need tensor cores with FP64 and FP16 "
                                   "(compute capability 8.0 or newer); " +
                                   m_info.name + " has " + std::to_string(m_info.ccMajor) + "." +
                                   std::to_string(m_info.ccMinor));
        method = PeriodogramMethod::Matrix;
        break;
    case PeriodogramMethod::Direct:
        method = PeriodogramMethod::Direct;
        break;
    default:
        method = !options.grid.logarithmic &&
                         periodogramMatrixPreferred(m_info.ccMajor, m_info.ccMinor, float64)
                     ? PeriodogramMethod::Matrix
                     : PeriodogramMethod::Direct;
    }
    return Status::success();
}

Status CudaBackend::queuePeriodogram(const TimeSeries& series, const PeriodogramOptions& options,
                                     double* devicePower, std::size_t heldBytes)
{
    if (options.cancel && options.cancel->load())
        return Status::failure("The periodogram was cancelled");
    WS_CUDA_TRY(cudaSetDevice(m_device));
    PeriodogramMethod method = PeriodogramMethod::Direct;
    if (Status s = resolveMethod(options, method); !s)
        return s;
    m_lastMethod = method;
    try {
        return options.precision == Precision::Float64
                   ? runPeriodogram<double>(series, options, method, devicePower, heldBytes)
                   : runPeriodogram<float>(series, options, method, devicePower, heldBytes);
    } catch (const std::bad_alloc&) {
        return Status::failure("Out of host memory for the periodogram");
    }
}

Status CudaBackend::computePeriodogram(const TimeSeries& series, const PeriodogramOptions& options,
                                       std::span<double> power)
{
    if (Status s = checkPeriodogram(series, options, power.size(), m_info); !s)
        return s;
    if (Status s = queuePeriodogram(series, options, nullptr, m_power.bytes); !s)
        return s;
    const std::size_t bytes = std::size_t(options.grid.count) * sizeof(double);
    if (Status s =
            recorded(m_stream, m_streamLane, SpanKind::CopyDeviceToHost, "power out", bytes,
                     [&] {
                         return cudaStatus(cudaMemcpyAsync(power.data(), m_power.pointer, bytes,
                                                           cudaMemcpyDeviceToHost, m_stream),
                                           "Copying the periodogram to the host");
                     });
        !s)
        return s;
    WS_CUDA_TRY(cudaStreamSynchronize(m_stream));
    const long long nonFinite = std::count_if(power.begin(), power.begin() + options.grid.count,
                                              [](double p) { return !std::isfinite(p); });
    return checkPowers(nonFinite, unevaluated(options), options);
}

long long CudaBackend::unevaluated(const PeriodogramOptions& options) const
{
    // The matrix products evaluate every frequency; the direct kernel, what its launch covers.
    return m_lastMethod == PeriodogramMethod::Matrix
               ? 0
               : options.grid.count - coveredFrequencies(options.launch, options.grid.count);
}

Status CudaBackend::computeSpectrum(const TimeSeries& series, const PeriodogramOptions& options,
                                    std::shared_ptr<const Spectrum>& spectrum)
{
    if (Status s = checkPeriodogram(series, options, std::size_t(options.grid.count), m_info); !s)
        return s;
    std::shared_ptr<CudaSpectrum> result;
    if (Status s = CudaSpectrum::create(m_device, options.grid, result); !s)
        return s;
    if (Status s = queuePeriodogram(series, options, result->power(), 0); !s)
        return s;
    const int token = m_recorder.begin(m_stream, m_streamLane, SpanKind::Kernel, "peak search", 0,
                                       "top " + std::to_string(kSpectrumMaxPeaks) + " peaks");
    const Status searched = result->summarize(m_stream);
    m_recorder.end(token, m_stream);
    if (!searched)
        return searched;
    float ms = 0.0f;
    WS_CUDA_TRY(cudaEventElapsedTime(&ms, m_start, m_stop));
    m_timingPending = false;
    m_lastMs = ms;
    if (Status s = checkPowers(result->nonFinite(), unevaluated(options), options); !s)
        return s;
    result->setComputeMs(ms);
    result->setMethod(periodogramMethodName(m_lastMethod));
    spectrum = std::move(result);
    return Status::success();
}

// A kernel's resources from the driver, the calculator's occupancy, the occupancy API's,
// and the block size the API suggests.
Backend::KernelOccupancy CudaBackend::kernelOccupancy(const void* kernel, long long blockThreads)
{
    KernelOccupancy o;
    cudaSetDevice(m_device);
    cudaFuncAttributes attributes{};
    if (cudaFuncGetAttributes(&attributes, kernel) == cudaSuccess) {
        o.resources.registersPerThread = attributes.numRegs;
        o.resources.staticSharedBytes = static_cast<long long>(attributes.sharedSizeBytes);
        o.resources.maxThreadsPerBlock = attributes.maxThreadsPerBlock;
    }
    cudaGetLastError();
    o.theoretical = theoreticalOccupancy(m_info, o.resources, blockThreads);
    int blocks = 0;
    if (blockThreads >= 1 && blockThreads <= o.resources.maxThreadsPerBlock &&
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, int(blockThreads), 0) ==
            cudaSuccess) {
        Occupancy api;
        api.activeBlocksPerSm = blocks;
        const long long warps = (blockThreads + m_info.warpSize - 1) / m_info.warpSize;
        api.fraction = double(blocks * warps) / double(m_info.maxThreadsPerSm / m_info.warpSize);
        api.limitedBy = o.theoretical.limitedBy;
        o.api = api;
    }
    cudaGetLastError();
    int minGrid = 0, suggested = 0;
    o.suggestedBlock =
        cudaOccupancyMaxPotentialBlockSize(&minGrid, &suggested, kernel, 0, 0) == cudaSuccess
            ? suggested
            : suggestedBlockThreads(m_info, o.resources);
    cudaGetLastError();
    return o;
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
    if (Status s = recorded(m_stream, m_streamLane, SpanKind::Interop, "map GL buffers", 0,
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
    if (status) {
        WS_CUDA_TRY(cudaEventRecord(m_start, m_stream));
        const std::string detail = "grid " + std::to_string(lesson.launch.grid.x) + " x " +
                                   std::to_string(lesson.launch.grid.y) + ", block " +
                                   std::to_string(lesson.launch.block.x) + " x " +
                                   std::to_string(lesson.launch.block.y);
        const int token = m_recorder.begin(m_stream, m_streamLane, SpanKind::Kernel,
                                           "teaching kernel", 0, detail);
        status = cudaStatus(params.precision == Precision::Float64
                                ? launchLesson(makePlan<double>(params), lesson, deviceField,
                                               deviceOwners, m_stream)
                                : launchLesson(makePlan<float>(params), lesson, deviceField,
                                               deviceOwners, m_stream),
                            "Launching the teaching kernel");
        m_recorder.end(token, m_stream);
        WS_CUDA_TRY(cudaEventRecord(m_stop, m_stream));
        m_timingPending = true;
    }
    if (status)
        status = cudaStatus(launchLessonStats(deviceField, params.nx, params.ny, layout.pitch,
                                              layout.statsOffset(), m_lessonKeys, m_statsState,
                                              m_stream),
                            "Launching the teaching kernel's min/max");
    // Unmap even after a failure, so GL can use the buffers again.
    const Status unmapped =
        recorded(m_stream, m_streamLane, SpanKind::Interop, "unmap GL buffers", 0, [&] {
            return cudaStatus(cudaGraphicsUnmapResources(2, resources, m_stream),
                              "cudaGraphicsUnmapResources");
        });
    if (!status)
        return status;
    if (!unmapped)
        return unmapped;
    return queueStatsReadback();
}

Status CudaBackend::timeLesson(const DistanceParams& params, const LessonLaunch& lesson,
                               int repetitions, double& medianMs)
{
    const std::size_t fieldCount = layoutFor(params).elementCount();
    if (Status s = checkLesson(params, lesson, m_info, fieldCount,
                               2 * std::size_t(params.nx) * std::size_t(params.ny));
        !s)
        return s;
    WS_CUDA_TRY(cudaSetDevice(m_device));
    if (Status s = grow(m_field, fieldCount * sizeof(float)); !s)
        return s;
    if (Status s = grow(m_owners, 2 * std::size_t(params.nx) * params.ny * sizeof(std::uint32_t));
        !s)
        return s;
    auto* field = static_cast<float*>(m_field.pointer);
    auto* owners = static_cast<std::uint32_t*>(m_owners.pointer);
    auto launch = [&] {
        return params.precision == Precision::Float64
                   ? launchLesson(makePlan<double>(params), lesson, field, owners, m_stream)
                   : launchLesson(makePlan<float>(params), lesson, field, owners, m_stream);
    };
    return medianEventTime([&] { return cudaStatus(launch(), "Launching the teaching kernel"); },
                           repetitions, medianMs);
}

void CudaBackend::setTimeline(std::shared_ptr<Timeline> timeline, const std::string& role)
{
    cudaSetDevice(m_device);
    if (timeline) {
        m_streamLane = timeline->lane("CUDA stream: " + role);
        m_hostLane = timeline->lane("Host: " + role + " thread");
        m_labHostLane = timeline->lane("Host: lab thread");
        m_labLanes.clear();
        for (std::size_t k = 0; k < m_labStreams.size(); ++k)
            m_labLanes.push_back(timeline->lane("CUDA stream " + std::to_string(k + 1) + ": lab"));
    }
    m_recorder.setTimeline(std::move(timeline));
}

ThreadPool& CudaBackend::hostPool()
{
    if (!m_hostPool)
        m_hostPool = std::make_unique<ThreadPool>();
    return *m_hostPool;
}

void CudaBackend::releaseLabHost()
{
    cudaFreeHost(m_labPinned);
    m_labPinned = nullptr;
    m_labPageable.clear();
    m_labInputs.clear();
    m_labOutputs.clear();
}

Status CudaBackend::prepareLabHost(const StreamsLabConfig& config)
{
    const auto arrays = std::size_t(config.arrays);
    const auto length = std::size_t(config.length);
    if (m_labInputs.size() == arrays && m_labConfig.length == config.length &&
        m_labConfig.pinned == config.pinned && m_labConfig.seed == config.seed)
        return Status::success();
    releaseLabHost();
    if (config.pinned) {
        const std::size_t bytes = 2 * arrays * length * sizeof(float);
        if (const cudaError_t e = cudaMallocHost(reinterpret_cast<void**>(&m_labPinned), bytes);
            e != cudaSuccess) {
            cudaGetLastError();
            m_labPinned = nullptr;
            return Status::failure("Could not pin " + std::to_string(bytes >> 20) +
                                   " MiB of host memory (" + cudaGetErrorString(e) +
                                   "). Use pageable memory, or fewer or shorter arrays.");
        }
        for (std::size_t a = 0; a < arrays; ++a) {
            m_labInputs.push_back(m_labPinned + a * length);
            m_labOutputs.push_back(m_labPinned + (arrays + a) * length);
        }
    } else {
        try {
            m_labPageable.assign(2 * arrays, std::vector<float>(length));
        } catch (const std::bad_alloc&) {
            releaseLabHost();
            return Status::failure("Out of host memory for the streams lab's arrays");
        }
        for (std::size_t a = 0; a < arrays; ++a) {
            m_labInputs.push_back(m_labPageable[a].data());
            m_labOutputs.push_back(m_labPageable[arrays + a].data());
        }
    }
    fillStreamsLabInputs(hostPool(), config, m_labInputs);
    m_labConfig = config;
    return Status::success();
}

Status CudaBackend::runStreamsLab(const StreamsLabConfig& config, StreamsLabResult& result)
{
    if (const auto problems = validateStreamsLab(config); !problems.empty())
        return Status::failure(problems.front());
    if (Status s = checkStreamsLabHostMemory(config); !s)
        return s;
    WS_CUDA_TRY(cudaSetDevice(m_device));
    const auto arrays = std::size_t(config.arrays);
    const auto length = std::size_t(config.length);
    const std::size_t arrayBytes = length * sizeof(float);
    // Arrays start 16 bytes apart at least, for the kernels' 16-byte loads.
    const std::size_t pitch = (length + 3) / 4 * 4;
    // Four blocks per SM keep enough loads in flight; short arrays need fewer.
    const int blocks = int(std::clamp<std::size_t>((length / 4 + kLabThreads - 1) / kLabThreads, 1,
                                                   std::size_t(4 * m_info.smCount)));
    const std::size_t sumsPerArray = std::size_t(blocks) + 1; // partial sums, then the sum
    const std::size_t deviceBytes = arrays * pitch * sizeof(float);
    const std::size_t sumsBytes = arrays * sumsPerArray * sizeof(double);

    std::size_t freeBytes = 0, totalBytes = 0;
    WS_CUDA_TRY(cudaMemGetInfo(&freeBytes, &totalBytes));
    freeBytes += m_labDevice.bytes + m_labSums.bytes;
    if (deviceBytes + sumsBytes > freeBytes)
        return Status::failure(
            "The streams lab needs " + std::to_string((deviceBytes + sumsBytes) >> 20) +
            " MiB of GPU memory; " + std::to_string(freeBytes >> 20) + " MiB are free on " +
            m_info.name + ". Use fewer or shorter arrays.");
    if (Status s = grow(m_labDevice, deviceBytes); !s)
        return s;
    if (Status s = grow(m_labSums, sumsBytes); !s)
        return s;
    if (Status s = prepareLabHost(config); !s)
        return s;

    WS_CUDA_TRY(loadStreamsLabKernels());
    const std::size_t streamCount = config.multiStream ? arrays : 1;
    // Copies in order go through one more stream of their own, back to back.
    const bool copyStream = config.multiStream && config.orderCopies;
    const std::size_t totalStreams = streamCount + (copyStream ? 1 : 0);
    while (m_labStreams.size() < totalStreams) {
        cudaStream_t stream = nullptr;
        WS_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        m_labStreams.push_back(stream);
        if (Timeline* timeline = m_recorder.timeline())
            m_labLanes.push_back(
                timeline->lane("CUDA stream " + std::to_string(m_labStreams.size()) + ": lab"));
    }
    // Poison the outputs, so an element that is never copied back fails the check.
    hostPool().parallelFor(arrays, [&](std::size_t begin, std::size_t end, unsigned) {
        for (std::size_t a = begin; a < end; ++a)
            std::fill(m_labOutputs[a], m_labOutputs[a] + length, std::nanf(""));
    });

    // Event 0 starts the job, 1 ends it, 2 .. 2 + totalStreams let stream 0 wait for the
    // others, and the rest mark each array's arrival.
    ScopedEvents events;
    if (Status s = events.create(2 + totalStreams + arrays); !s)
        return s;
    cudaEvent_t* arrived = events.events.data() + 2 + totalStreams;
    cudaStream_t first = m_labStreams[0];
    WS_CUDA_TRY(cudaEventRecord(events.events[0], first));
    for (std::size_t k = 1; k < totalStreams; ++k)
        WS_CUDA_TRY(cudaStreamWaitEvent(m_labStreams[k], events.events[0]));

    auto* device = static_cast<float*>(m_labDevice.pointer);
    auto* sums = static_cast<double*>(m_labSums.pointer);
    for (std::size_t a = 0; a < arrays; ++a) {
        cudaStream_t stream = m_labStreams[a % streamCount];
        const int lane = m_recorder.recording() ? m_labLanes[a % streamCount] : -1;
        float* data = device + a * pitch;
        double* partial = sums + a * sumsPerArray;
        const std::string tag = " " + std::to_string(a);
        // How long the host takes to queue an array's work: a copy from pageable memory, or
        // a full queue, holds the host here.
        const ScopedHostSpan queueing(m_recorder.timeline(), m_labHostLane, "queue array" + tag);
        // In order, each array arrives whole as early as the link allows, and its stream
        // takes over from there.
        cudaStream_t inStream = copyStream ? m_labStreams[streamCount] : stream;
        const int inLane = copyStream && m_recorder.recording() ? m_labLanes[streamCount] : lane;
        if (Status s =
                recorded(inStream, inLane, SpanKind::CopyHostToDevice, "copy in" + tag, arrayBytes,
                         [&] {
                             return cudaStatus(cudaMemcpyAsync(data, m_labInputs[a], arrayBytes,
                                                               cudaMemcpyHostToDevice, inStream),
                                               "Copying an array to the GPU");
                         });
            !s)
            return s;
        if (copyStream) {
            WS_CUDA_TRY(cudaEventRecord(arrived[a], inStream));
            WS_CUDA_TRY(cudaStreamWaitEvent(stream, arrived[a]));
        }
        const std::string launch =
            "grid " + std::to_string(blocks) + ", block " + std::to_string(kLabThreads);
        int token =
            m_recorder.begin(stream, lane, SpanKind::Kernel, "partial sums" + tag, 0, launch);
        if (Status s = cudaStatus(launchPartialSums(data, length, partial, blocks, stream),
                                  "Launching the partial sums");
            !s)
            return s;
        m_recorder.end(token, stream);
        token = m_recorder.begin(stream, lane, SpanKind::Kernel, "final sum" + tag, 0,
                                 "grid 1, block " + std::to_string(kLabThreads));
        if (Status s = cudaStatus(launchFinalSum(partial, blocks, partial + blocks, stream),
                                  "Launching the final sum");
            !s)
            return s;
        m_recorder.end(token, stream);
        token = m_recorder.begin(stream, lane, SpanKind::Kernel, "divide" + tag, 0, launch);
        if (Status s = cudaStatus(launchDivide(data, length, partial + blocks, blocks, stream),
                                  "Launching the division");
            !s)
            return s;
        m_recorder.end(token, stream);
        if (Status s =
                recorded(stream, lane, SpanKind::CopyDeviceToHost, "copy out" + tag, arrayBytes,
                         [&] {
                             return cudaStatus(cudaMemcpyAsync(m_labOutputs[a], data, arrayBytes,
                                                               cudaMemcpyDeviceToHost, stream),
                                               "Copying an array back to the host");
                         });
            !s)
            return s;
    }
    for (std::size_t k = 1; k < totalStreams; ++k) {
        WS_CUDA_TRY(cudaEventRecord(events.events[2 + k], m_labStreams[k]));
        WS_CUDA_TRY(cudaStreamWaitEvent(first, events.events[2 + k]));
    }
    WS_CUDA_TRY(cudaEventRecord(events.events[1], first));
    WS_CUDA_TRY(cudaEventSynchronize(events.events[1]));
    float ms = 0.0f;
    WS_CUDA_TRY(cudaEventElapsedTime(&ms, events.events[0], events.events[1]));

    result = StreamsLabResult{};
    result.totalMs = ms;
    result.streams = int(totalStreams);
    result.jobStartUs = m_recorder.hostUs(events.events[0]);
    result.jobEndUs = m_recorder.hostUs(events.events[1]);
    checkStreamsLabOutputs(hostPool(), config, m_labInputs, m_labOutputs, result);
    return Status::success();
}

} // namespace

bool cudaCompiledIn()
{
    return true;
}

std::vector<std::string> cudaDeviceNames()
{
    std::vector<std::string> names;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return names;
    }
    for (int d = 0; d < count; ++d) {
        cudaDeviceProp prop{};
        names.push_back(cudaGetDeviceProperties(&prop, d) == cudaSuccess
                            ? std::string(prop.name)
                            : "CUDA device " + std::to_string(d));
    }
    return names;
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
