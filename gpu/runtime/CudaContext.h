#pragma once

// For the slices' CUDA implementations only (compiled by nvcc): a CUDA context's stream,
// span recorder and device memory.
#include "runtime/ContextBacking.h"
#include "runtime/CudaCheck.h"
#include "runtime/CudaEvent.h"
#include "runtime/CudaSpanRecorder.h"
#include "runtime/CudaStream.h"
#include "runtime/ThreadPool.h"

#include <algorithm>
#include <cuda_runtime.h>
#include <memory>
#include <string>
#include <vector>

namespace warpscope::gpu {

class CudaBacking final : public ContextBacking
{
public:
    // hostThreads: the host pool's threads (0: one per core); precedence: Context::open's.
    CudaBacking(int ordinal, unsigned hostThreads, int precedence)
        : m_ordinal(ordinal), m_hostThreads(hostThreads), m_precedence(precedence)
    {}
    ~CudaBacking() override;
    Status initialize();

    const DeviceInfo& info() const override { return m_info; }
    std::string name() const override { return m_info.name; }
    std::optional<DeviceMemory> memory() const override;
    void setTimeline(const std::shared_ptr<Timeline>& timeline, const std::string& role) override;
    Status collectTimeline() override { return m_recorder.collect(); }
    ThreadPool& hostPool() override;
    void finish() override;

    int ordinal() const { return m_ordinal; }
    // Makes this device current on the calling thread; every entry point calls it first.
    Status activate() const { return cudaStatus(cudaSetDevice(m_ordinal), "Choosing the GPU"); }
    // The context's stream: work on it runs in order, asynchronously to the host.
    cudaStream_t stream() const { return m_stream; }
    CudaSpanRecorder& recorder() { return m_recorder; }
    // The lanes of the stream and of the host thread that queues its work (-1: not recording).
    int streamLane() const override { return m_streamLane; }
    int hostLane() const override { return m_hostLane; }

    // Runs op, which queues work on stream, as one span of the timeline, which ends however
    // op returns.
    template <typename Op>
    Status recorded(cudaStream_t stream, int lane, SpanKind kind, std::string name,
                    std::uint64_t bytes, Op&& op)
    {
        const SpanScope span(m_recorder, stream, lane, kind, std::move(name), bytes);
        return op();
    }

private:
    int m_ordinal;
    DeviceInfo m_info;
    CudaStream m_stream;
    CudaSpanRecorder m_recorder;
    int m_streamLane = -1;
    int m_hostLane = -1;
    unsigned m_hostThreads = 0;
    int m_precedence = 0;
    std::unique_ptr<ThreadPool> m_hostPool; // made when host-side work first needs it
};

// The CUDA side of a context that runs on a CUDA device.
CudaBacking& cudaBacking(Context& context);

// A kernel's resources from the driver, the calculator's occupancy, the occupancy API's,
// and the block size the API suggests.
KernelOccupancy kernelOccupancy(const CudaBacking& cuda, const void* kernel,
                                long long blockThreads);

// Device or pinned host memory that only grows, reused from call to call, and freed with
// its owner.
class CudaBuffer
{
public:
    CudaBuffer(const char* what, bool pinned) : m_what(what), m_pinned(pinned) {}
    ~CudaBuffer();
    CudaBuffer(const CudaBuffer&) = delete;
    CudaBuffer& operator=(const CudaBuffer&) = delete;

    // Makes room for bytes, after waiting for stream (the old memory may still be in use).
    // Fails with a message that names what the memory is for.
    Status grow(std::size_t bytes, cudaStream_t stream);
    void* get() const { return m_pointer; }
    template <typename T> T* as() const { return static_cast<T*>(m_pointer); }
    std::size_t bytes() const { return m_bytes; }
    const char* what() const { return m_what; }

private:
    const char* m_what;
    bool m_pinned;
    void* m_pointer = nullptr;
    std::size_t m_bytes = 0;
};

// Median time of launch(), which queues work on stream, between the events start and stop
// over `repetitions` launches, after one warm-up launch. For benchmarks and sweeps.
template <typename Launch>
Status medianEventTime(cudaStream_t stream, cudaEvent_t start, cudaEvent_t stop, int repetitions,
                       Launch&& launch, double& medianMs)
{
    if (Status s = launch(); !s) // warm-up
        return s;
    std::vector<double> times;
    for (int k = 0; k < std::max(1, repetitions); ++k) {
        WS_CUDA_TRY(cudaEventRecord(start, stream));
        if (Status s = launch(); !s)
            return s;
        WS_CUDA_TRY(cudaEventRecord(stop, stream));
        WS_CUDA_TRY(cudaEventSynchronize(stop));
        float ms = 0.0f;
        WS_CUDA_TRY(cudaEventElapsedTime(&ms, start, stop));
        times.push_back(ms);
    }
    std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
    medianMs = times[times.size() / 2];
    return Status::success();
}

// Timed events for one job, destroyed with it.
struct ScopedEvents
{
    std::vector<CudaEvent> events;
    Status create(std::size_t count);
};

} // namespace warpscope::gpu
