#include "warpscope/gpu/DevicePool.h"

#include "runtime/ContextBacking.h"

#include <algorithm>

namespace warpscope::gpu {

DevicePool::DevicePool(BackendKind requested, int ordinal, std::shared_ptr<Timeline> timeline)
    : m_requested(requested), m_ordinal(ordinal), m_timeline(std::move(timeline))
{}

int DevicePool::requestedOrdinal() const
{
    std::lock_guard lock(m_mutex);
    return m_ordinal;
}

void DevicePool::setOrdinal(int ordinal)
{
    std::lock_guard lock(m_mutex);
    if (ordinal == m_ordinal)
        return;
    m_ordinal = ordinal;
    ++m_generation;
}

std::uint64_t DevicePool::generation() const
{
    std::lock_guard lock(m_mutex);
    return m_generation;
}

Status DevicePool::computeDevice(Device& device) const
{
    const int count = cudaDeviceCount();
    const int requested = requestedOrdinal();
    if (m_requested == BackendKind::Cpu || (m_requested == BackendKind::Auto && count == 0)) {
        device = {DeviceKind::Cpu, 0};
        return Status::success();
    }
    const int ordinal = requested < 0 ? 0 : requested;
    if (ordinal >= count)
        return Status::failure(count == 0
                                   ? std::string("The CUDA backend was requested, but "
                                                 "there is no CUDA device")
                                   : "There is no CUDA device " + std::to_string(ordinal) +
                                         " (this machine has " + std::to_string(count) + ")");
    device = {DeviceKind::Cuda, ordinal};
    return Status::success();
}

Status DevicePool::open(const std::string& role, std::unique_ptr<Context>& context, bool record)
{
    Device device;
    if (Status s = computeDevice(device); !s)
        return s;
    if (Status s = Context::open(device, context); !s)
        return s;
    if (record && m_timeline)
        context->setTimeline(m_timeline, role);
    note(role, deviceLabel(device) + (device.kind == DeviceKind::Cuda ? " (" + context->name() + ")"
                                                                      : std::string()));
    return Status::success();
}

Status DevicePool::openDisplay(const std::string& role, const std::vector<int>& glDevices,
                               bool interop, std::unique_ptr<Context>& context, std::string& why)
{
    context.reset();
    const int count = cudaDeviceCount();
    const int requested = requestedOrdinal();
    const auto openOn = [&](Device device) {
        if (Status s = Context::open(device, context); !s)
            return s;
        if (m_timeline)
            context->setTimeline(m_timeline, role);
        note(role,
             deviceLabel(device) +
                 (device.kind == DeviceKind::Cuda ? " (" + context->name() + ")" : std::string()));
        return Status::success();
    };
    if (m_requested == BackendKind::Cpu) {
        why = "CPU: chosen with --backend cpu";
        return openOn({DeviceKind::Cpu, 0});
    }
    std::string missing;
    if (count == 0)
        missing = "no CUDA device";
    else if (requested >= count)
        missing = "there is no CUDA device " + std::to_string(requested) + " (this machine has " +
                  std::to_string(count) + ")";
    if (!missing.empty()) {
        if (m_requested == BackendKind::Cuda)
            return Status::failure("The CUDA backend was requested, but " + missing);
        why = "CPU: " + missing;
        return openOn({DeviceKind::Cpu, 0});
    }
    const int ordinal = requested >= 0 ? requested : glDevices.empty() ? 0 : glDevices.front();
    const bool glOnDevice =
        std::find(glDevices.begin(), glDevices.end(), ordinal) != glDevices.end();
    const std::string hostCopy =
        !interop        ? std::string("interop was turned off")
        : requested < 0 ? std::string("OpenGL runs on a different GPU than CUDA")
                        : "OpenGL does not run on CUDA device " + std::to_string(ordinal);
    // A device chosen by index is used even where OpenGL is elsewhere (through host copies).
    if (m_requested == BackendKind::Auto && requested < 0 && !(glOnDevice && interop)) {
        why = "CPU: " + hostCopy;
        return openOn({DeviceKind::Cpu, 0});
    }
    if (Status s = openOn({DeviceKind::Cuda, ordinal}); !s)
        return Status::failure("The CUDA backend could not start: " + s.message());
    why = "CUDA on " + context->name() +
          (glOnDevice && interop ? std::string(" (interop)") : " (host copy: " + hostCopy + ")");
    return Status::success();
}

void DevicePool::note(const std::string& role, const std::string& where)
{
    std::lock_guard lock(m_mutex);
    m_where[role] = where;
}

std::string DevicePool::summary() const
{
    std::lock_guard lock(m_mutex);
    std::string text;
    for (const auto& [role, where] : m_where)
        text += (text.empty() ? "" : " · ") + role + ": " + where;
    return text;
}

} // namespace warpscope::gpu
