#include "warpscope/gpu/Context.h"

#include "runtime/ContextBacking.h"

namespace warpscope::gpu {

const char* backendKindName(BackendKind kind)
{
    switch (kind) {
    case BackendKind::Cpu:
        return "cpu";
    case BackendKind::Cuda:
        return "cuda";
    case BackendKind::Auto:
        break;
    }
    return "auto";
}

std::optional<BackendKind> parseBackendKind(const std::string& text)
{
    for (BackendKind kind : {BackendKind::Auto, BackendKind::Cpu, BackendKind::Cuda})
        if (text == backendKindName(kind))
            return kind;
    return std::nullopt;
}

std::vector<Device> listDevices()
{
    std::vector<Device> devices{{DeviceKind::Cpu, 0}};
    for (int d = 0; d < cudaDeviceCount(); ++d)
        devices.push_back({DeviceKind::Cuda, d});
    return devices;
}

std::string deviceLabel(Device device)
{
    return device.kind == DeviceKind::Cpu ? std::string("CPU")
                                          : "GPU " + std::to_string(device.ordinal);
}

Status Context::open(Device device, std::unique_ptr<Context>& context, unsigned cpuThreads,
                     int precedence)
{
    context.reset();
    std::unique_ptr<ContextBacking> backing;
    if (device.kind == DeviceKind::Cpu) {
        backing = makeCpuBacking(cpuThreads);
    } else if (Status s = makeCudaBacking(device.ordinal, cpuThreads, precedence, backing); !s) {
        return s;
    }
    context.reset(new Context(device, std::move(backing)));
    return Status::success();
}

Context::Context(Device device, std::unique_ptr<ContextBacking> backing)
    : m_device(device), m_backing(std::move(backing))
{}

Context::~Context()
{
    m_backing->finish();
    while (!m_states.empty())
        m_states.pop_back();
}

const DeviceInfo& Context::info() const
{
    return m_backing->info();
}

std::string Context::name() const
{
    return m_backing->name();
}

std::optional<DeviceMemory> Context::memory() const
{
    return m_backing->memory();
}

void Context::setTimeline(std::shared_ptr<Timeline> timeline, const std::string& role)
{
    m_role = role;
    m_backing->setTimeline(timeline, role);
    if (timeline)
        timeline->addRecordableKinds(backendSpanKinds(isCuda()));
    m_timeline = std::move(timeline);
}

int Context::hostLane() const
{
    return m_backing->hostLane();
}

int Context::streamLane() const
{
    return m_backing->streamLane();
}

Status Context::collectTimeline()
{
    return m_backing->collectTimeline();
}

ThreadPool& Context::hostPool()
{
    return m_backing->hostPool();
}

} // namespace warpscope::gpu
