#include "runtime/CudaContext.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

namespace warpscope::gpu {
namespace {

// The driver gives a context 8 hardware queues unless asked for more, before it starts. The
// streams lab runs up to 64 streams, the survey several workers' streams a GPU: beyond 8,
// streams share queues, and work waits behind an unrelated stream's in the same queue. 32 is
// the most the driver takes; a value the user set is kept. Set as the library loads, before
// any CUDA call.
[[maybe_unused]] const bool kHardwareQueues = setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 0) == 0;

} // namespace

Status CudaBacking::initialize()
{
    if (Status s = activate(); !s)
        return s;
    cudaDeviceProp prop{};
    WS_CUDA_TRY(cudaGetDeviceProperties(&prop, m_ordinal));
    m_info.name = prop.name;
    m_info.ordinal = m_ordinal;
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
    WS_CUDA_TRY(cudaDeviceGetAttribute(&m_info.clockKHz, cudaDevAttrClockRate, m_ordinal));
    WS_CUDA_TRY(
        cudaDeviceGetAttribute(&m_info.memoryClockKHz, cudaDevAttrMemoryClockRate, m_ordinal));
    // CUDA's priorities run from least (0) to greatest (negative): precedence counts up from
    // the least.
    int least = 0, greatest = 0;
    WS_CUDA_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    WS_CUDA_TRY(m_stream.create(std::clamp(least - m_precedence, greatest, least)));
    // Memory freed in stream order (a periodogram's powers, its scratch) stays in the
    // device's pool for the next call, up to an eighth of the device or 1 GiB. Without this
    // the pool hands it back to the driver at every synchronisation, and each call maps
    // fresh pages again.
    int pools = 0;
    cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, m_ordinal);
    if (pools) {
        cudaMemPool_t pool = nullptr;
        WS_CUDA_TRY(cudaDeviceGetDefaultMemPool(&pool, m_ordinal));
        std::uint64_t keep = std::min<std::uint64_t>(prop.totalGlobalMem / 8, 1ULL << 30);
        WS_CUDA_TRY(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    }
    return Status::success();
}

CudaBacking::~CudaBacking()
{
    cudaSetDevice(m_ordinal);
    if (m_stream)
        cudaStreamSynchronize(m_stream);
}

void CudaBacking::finish()
{
    cudaSetDevice(m_ordinal);
    if (m_stream)
        cudaStreamSynchronize(m_stream);
}

std::optional<DeviceMemory> CudaBacking::memory() const
{
    std::size_t freeBytes = 0, totalBytes = 0;
    if (cudaSetDevice(m_ordinal) != cudaSuccess ||
        cudaMemGetInfo(&freeBytes, &totalBytes) != cudaSuccess) {
        cudaGetLastError();
        return std::nullopt;
    }
    return DeviceMemory{totalBytes - freeBytes, totalBytes};
}

void CudaBacking::setTimeline(const std::shared_ptr<Timeline>& timeline, const std::string& role)
{
    cudaSetDevice(m_ordinal);
    m_streamLane = timeline ? timeline->lane("CUDA stream: " + role) : -1;
    m_hostLane = timeline ? timeline->lane("Host: " + role + " thread") : -1;
    m_recorder.setTimeline(timeline);
}

ThreadPool& CudaBacking::hostPool()
{
    if (!m_hostPool)
        m_hostPool = m_hostThreads ? std::make_unique<ThreadPool>(m_hostThreads)
                                   : std::make_unique<ThreadPool>();
    return *m_hostPool;
}

CudaBacking& cudaBacking(Context& context)
{
    return static_cast<CudaBacking&>(context.backing());
}

Status makeCudaBacking(int ordinal, unsigned hostThreads, int precedence,
                       std::unique_ptr<ContextBacking>& backing)
{
    const int count = cudaDeviceCount();
    if (ordinal < 0 || ordinal >= count)
        return Status::failure(count == 0
                                   ? std::string("There is no CUDA device")
                                   : "There is no CUDA device " + std::to_string(ordinal) +
                                         " (this machine has " + std::to_string(count) + ")");
    auto cuda = std::make_unique<CudaBacking>(ordinal, hostThreads, precedence);
    if (Status s = cuda->initialize(); !s)
        return s;
    backing = std::move(cuda);
    return Status::success();
}

int cudaDeviceCount()
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return count;
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

// A kernel's resources from the driver, the calculator's occupancy, the occupancy API's,
// and the block size the API suggests.
KernelOccupancy kernelOccupancy(const CudaBacking& cuda, const void* kernel, long long blockThreads)
{
    KernelOccupancy o;
    const DeviceInfo& m_info = cuda.info();
    cudaSetDevice(cuda.ordinal());
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

CudaBuffer::~CudaBuffer()
{
    if (m_pinned)
        cudaFreeHost(m_pointer);
    else
        cudaFree(m_pointer);
}

Status CudaBuffer::grow(std::size_t bytes, cudaStream_t stream)
{
    if (bytes <= m_bytes)
        return Status::success();
    WS_CUDA_TRY(cudaStreamSynchronize(stream));
    WS_CUDA_TRY(m_pinned ? cudaFreeHost(m_pointer) : cudaFree(m_pointer));
    m_pointer = nullptr;
    m_bytes = 0;
    const cudaError_t e =
        m_pinned ? cudaMallocHost(&m_pointer, bytes) : cudaMalloc(&m_pointer, bytes);
    if (e != cudaSuccess) {
        cudaGetLastError(); // an allocation failure is not sticky; clear it
        m_pointer = nullptr;
        return Status::failure("Could not allocate " + std::to_string((bytes + 1023) >> 10) +
                               " KiB of " + (m_pinned ? "pinned host" : "GPU") + " memory for " +
                               m_what + ": " + cudaGetErrorString(e));
    }
    m_bytes = bytes;
    return Status::success();
}

Status ScopedEvents::create(std::size_t count)
{
    while (events.size() < count) {
        CudaEvent e;
        WS_CUDA_TRY(e.create());
        events.push_back(std::move(e));
    }
    return Status::success();
}

} // namespace warpscope::gpu
