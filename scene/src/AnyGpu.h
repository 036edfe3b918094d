#pragma once

#include "warpscope/gpu/LaunchConfig.h"

namespace warpscope::scene {

// Every GPU from compute capability 3.0 on has the same block and grid limits, so a scene's
// launch is checked against those; what depends on the device (registers, shared memory) is
// checked once the device is known.
inline gpu::DeviceInfo anyGpu()
{
    gpu::DeviceInfo device = gpu::simulatedHopper();
    device.name = "any CUDA GPU";
    return device;
}

} // namespace warpscope::scene
