#pragma once

#include "warpscope/gpu/Device.h"
#include "warpscope/gpu/LaunchConfig.h"
#include "warpscope/gpu/Status.h"
#include "warpscope/gpu/Timeline.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <typeindex>
#include <vector>

namespace warpscope::gpu {

class ContextBacking;
class ThreadPool;

// The memory of a device: in use (by every context and process on it) and in all.
struct DeviceMemory
{
    std::uint64_t usedBytes = 0;
    std::uint64_t totalBytes = 0;
};

// What a feature slice keeps in a context between calls (its buffers, streams, last
// results). Destroyed with the context, before the device's own objects.
class SliceState
{
public:
    virtual ~SliceState() = default;
};

// One device's working state, shared by every feature that computes on it: its stream and
// events (CUDA) or thread pool (CPU), the timeline lanes, and each slice's state. Feature
// slices take a Context& and keep what they need in it through state<T>(), so adding a
// feature changes nothing here. A multi-GPU run opens one context per device.
//
// Used from one thread at a time. The CPU and CUDA implementations are chosen by linking.
class Context
{
public:
    // Opens a context on device, or says why it cannot (no such device, a CUDA error, or a
    // build without CUDA). cpuThreads sizes the CPU's pool, or a GPU's pool for its host-side
    // work (0: one thread per core). precedence, 0 to 5, puts this context's kernels ahead of
    // those of contexts of lower precedence on the same GPU (a CUDA stream priority, clamped
    // to the device's range; the CPU has none): contexts that feed one GPU in turns finish
    // one after another instead of all at once, so the GPU is not left idle while all of
    // them do their host work together.
    static Status open(Device device, std::unique_ptr<Context>& context, unsigned cpuThreads = 0,
                       int precedence = 0);
    ~Context();
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;

    Device device() const { return m_device; }
    bool isCuda() const { return m_device.kind == DeviceKind::Cuda; }
    // The device's properties and launch limits; on the CPU, the simulated device's.
    const DeviceInfo& info() const;
    // For example "NVIDIA H100 80GB HBM3" or "CPU, 16 threads".
    std::string name() const;
    // The device's memory now; none on the CPU, whose memory is the process's own, or where
    // the driver cannot say.
    std::optional<DeviceMemory> memory() const;

    // Records the work of every slice on this context into timeline from now on (null
    // stops). role names the context's lanes ("field", "periodogram", ...), so several
    // contexts can share one timeline.
    void setTimeline(std::shared_ptr<Timeline> timeline, const std::string& role);
    Timeline* timeline() const { return m_timeline.get(); }
    const std::string& role() const { return m_role; }
    // The timeline lane of the host thread that queues this context's work (-1 while not
    // recording), for host work done on its behalf, such as an upload to OpenGL.
    int hostLane() const;
    // The timeline lane of a GPU's queue, where its kernels and copies are recorded (-1 on the
    // CPU, whose kernels run on its workers' lanes, and while not recording).
    int streamLane() const;
    // Moves the spans whose device work has completed into the timeline, without blocking.
    // Fails when spans could not be recorded since the last call.
    Status collectTimeline();

    // Host threads for the CPU's kernels and for host-side work beside a GPU's.
    ThreadPool& hostPool();

    // The state slice T keeps here, made on first use. T derives from SliceState and is
    // default-constructible or constructible from Context&.
    template <typename T> T& state()
    {
        for (const auto& [type, state] : m_states)
            if (type == std::type_index(typeid(T)))
                return static_cast<T&>(*state);
        if constexpr (std::is_constructible_v<T, Context&>)
            m_states.emplace_back(std::type_index(typeid(T)), std::make_unique<T>(*this));
        else
            m_states.emplace_back(std::type_index(typeid(T)), std::make_unique<T>());
        return static_cast<T&>(*m_states.back().second);
    }

    // The device side, for the slices' own implementations (gpu/runtime's private headers).
    ContextBacking& backing() { return *m_backing; }

private:
    Context(Device device, std::unique_ptr<ContextBacking> backing);

    Device m_device;
    std::unique_ptr<ContextBacking> m_backing;
    std::shared_ptr<Timeline> m_timeline;
    std::string m_role;
    // In order of creation; destroyed in reverse, before the backing.
    std::vector<std::pair<std::type_index, std::unique_ptr<SliceState>>> m_states;
};

} // namespace warpscope::gpu
