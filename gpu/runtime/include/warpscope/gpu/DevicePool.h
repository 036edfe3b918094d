#pragma once

#include "warpscope/gpu/Context.h"
#include "warpscope/gpu/Device.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace warpscope::gpu {

// The app's one device policy. Made once from what the person asked for (--backend,
// --device), it decides the device every part of the app computes on, opens their contexts,
// and remembers who computes where, for the status bar and the Device panel.
//
// Work without a display (the periodogram's sums, the lab, the sweep) runs on the chosen
// CUDA device, or the first, or the CPU when there is none or the CPU was asked for. Parts
// that draw through OpenGL open theirs with openDisplay().
class DevicePool
{
public:
    // ordinal: a CUDA device index, or -1 for the first.
    DevicePool(BackendKind requested, int ordinal, std::shared_ptr<Timeline> timeline);

    BackendKind requested() const { return m_requested; }
    int requestedOrdinal() const;
    // A person chose another CUDA device (the Device panel): contexts opened from now on are
    // on it, and generation() moves on, so parts holding a context open a new one.
    void setOrdinal(int ordinal);
    std::uint64_t generation() const;
    const std::shared_ptr<Timeline>& timeline() const { return m_timeline; }

    // The device for work without a display, or why the request cannot be met.
    Status computeDevice(Device& device) const;
    // Opens a context on computeDevice() for role ("periodogram", "lab", ...), recording into
    // the timeline (record: false keeps a context off it, as a timing sweep wants). Safe from
    // any thread; the context is then used by the caller's thread only.
    Status open(const std::string& role, std::unique_ptr<Context>& context, bool record = true);
    // Opens the context of a part that draws through OpenGL, whose context runs on the CUDA
    // devices glDevices. As open(), except that with Auto and no device chosen it is the GPU
    // OpenGL runs on, whose results go straight into GL buffers (interop), or else the CPU:
    // copies through the host would cost more than a GPU saves on this work. interop: false
    // turns the GPU's interop off, so Auto takes the CPU there too. why says which device
    // and why, for the status bar.
    Status openDisplay(const std::string& role, const std::vector<int>& glDevices, bool interop,
                       std::unique_ptr<Context>& context, std::string& why);
    // Notes where role computes.
    void note(const std::string& role, const std::string& where);
    // Who computes where, one "role: device" per part, in a stable order.
    std::string summary() const;

private:
    BackendKind m_requested;
    int m_ordinal;
    std::uint64_t m_generation = 0;
    std::shared_ptr<Timeline> m_timeline;
    mutable std::mutex m_mutex;
    std::map<std::string, std::string> m_where;
};

} // namespace warpscope::gpu
