#include "BackendInternal.h"
#include "GlUpload.h"
#include "cuda/CudaCheck.h"
#include "cuda/DistanceKernel.cuh"
#include "cuda/LessonKernel.cuh"

#define GL_GLEXT_PROTOTYPES
#include <GL/gl.h>
#include <algorithm>
#include <cuda_gl_interop.h>
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
    Status registration(const GlBuffer& target, cudaGraphicsResource_t& resource);

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
    GrowBuffer m_scratch{"the kernel's tables", false};
    GrowBuffer m_field{"the field", false}; // host results and the host-copy display path
    GrowBuffer m_pinned{"the field's copy", true};
    GrowBuffer m_owners{"the thread owners", false};
    std::vector<Registration> m_registrations;
};

Status CudaBackend::initialize()
{
    WS_CUDA_TRY(cudaSetDevice(m_device));
    cudaDeviceProp prop{};
    WS_CUDA_TRY(cudaGetDeviceProperties(&prop, m_device));
    m_info.name = prop.name;
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
    if (Status s = launch(params, out); !s)
        return s;
    WS_CUDA_TRY(cudaEventRecord(m_stop, m_stream));
    m_timingPending = true;
    return Status::success();
}

Status CudaBackend::queueStatsReadback()
{
    // From the kernel's state, never from a mapped GL buffer (see DistanceKernel.cuh).
    WS_CUDA_TRY(cudaMemcpyAsync(m_pinnedStats, &m_statsState->finalMin, 2 * sizeof(double),
                                cudaMemcpyDeviceToHost, m_stream));
    m_statsPending = true;
    return Status::success();
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
    WS_CUDA_TRY(cudaMemcpyAsync(out.data(), device, bytes, cudaMemcpyDeviceToHost, m_stream));
    WS_CUDA_TRY(cudaStreamSynchronize(m_stream));
    return Status::success();
}

Status CudaBackend::registration(const GlBuffer& target, cudaGraphicsResource_t& resource)
{
    const std::size_t bytes = target.layout.elementCount() * sizeof(float);
    auto it = std::find_if(m_registrations.begin(), m_registrations.end(),
                           [&](const Registration& r) { return r.buffer == target.id; });
    if (it != m_registrations.end() && it->bytes == bytes) {
        resource = it->resource;
        return Status::success();
    }
    if (it != m_registrations.end()) { // same buffer id, new storage: register again
        WS_CUDA_TRY(cudaGraphicsUnregisterResource(it->resource));
        m_registrations.erase(it);
    }
    WS_CUDA_TRY(
        cudaGraphicsGLRegisterBuffer(&resource, target.id, cudaGraphicsRegisterFlagsWriteDiscard));
    m_registrations.push_back({target.id, bytes, resource});
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
        WS_CUDA_TRY(cudaMemcpyAsync(m_pinned.pointer, m_field.pointer, count * sizeof(float),
                                    cudaMemcpyDeviceToHost, m_stream));
        WS_CUDA_TRY(cudaStreamSynchronize(m_stream));
        return uploadToGlBuffer(target.id, static_cast<const float*>(m_pinned.pointer), count);
    }

    cudaGraphicsResource_t resource = nullptr;
    if (Status s = registration(target, resource); !s)
        return s;
    WS_CUDA_TRY(cudaGraphicsMapResources(1, &resource, m_stream));
    // The pointer can change between maps, so it is fetched after every map.
    void* pointer = nullptr;
    std::size_t mappedBytes = 0;
    Status status =
        cudaStatus(cudaGraphicsResourceGetMappedPointer(&pointer, &mappedBytes, resource),
                   "cudaGraphicsResourceGetMappedPointer");
    if (status && mappedBytes < count * sizeof(float))
        status = Status::failure("The mapped OpenGL buffer is smaller than the field");
    if (status)
        status = runTimed(params, static_cast<float*>(pointer));
    // Unmap even after a failure, so GL can use the buffer again.
    const Status unmapped = cudaStatus(cudaGraphicsUnmapResources(1, &resource, m_stream),
                                       "cudaGraphicsUnmapResources");
    if (!status)
        return status;
    if (!unmapped)
        return unmapped;
    return queueStatsReadback();
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
    if (Status s = launch(params, out); !s) // warm-up
        return s;
    std::vector<double> times;
    for (int k = 0; k < std::max(1, repetitions); ++k) {
        WS_CUDA_TRY(cudaEventRecord(m_start, m_stream));
        if (Status s = launch(params, out); !s)
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

} // namespace

bool cudaCompiledIn()
{
    return true;
}

CudaProbe probeCuda(bool glContextCurrent)
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
    probe.available = true;
    if (glContextCurrent) {
        unsigned int glDevices = 0;
        int devices[8] = {};
        const cudaError_t e = cudaGLGetDevices(&glDevices, devices, 8, cudaGLDeviceListAll);
        if (e == cudaSuccess && glDevices > 0) {
            probe.glOnDevice = true;
            probe.device = devices[0];
        } else {
            cudaGetLastError();
            probe.reason = "OpenGL runs on a different GPU than CUDA";
        }
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
