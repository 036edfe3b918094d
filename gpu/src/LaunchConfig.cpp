#include "warpscope/gpu/LaunchConfig.h"

namespace warpscope::gpu {
namespace {

void checkDimension(std::vector<LaunchError>& errors, LaunchField field, const char* what,
                    long long value, long long limit, const DeviceInfo& device)
{
    if (value < 1)
        errors.push_back(
            {field, std::string(what) + " must be at least 1, not " + std::to_string(value)});
    else if (value > limit)
        errors.push_back({field, std::string(what) + " of " + std::to_string(value) +
                                     " exceeds the limit of " + std::to_string(limit) + " on " +
                                     device.name});
}

} // namespace

DeviceInfo simulatedHopper()
{
    DeviceInfo d;
    d.name = "simulated compute capability 9.0 (H100 limits)";
    d.ccMajor = 9;
    d.ccMinor = 0;
    d.smCount = 132;
    d.warpSize = 32;
    d.maxThreadsPerBlock = 1024;
    d.maxBlock = {1024, 1024, 64};
    d.maxGrid = {2147483647LL, 65535, 65535};
    d.sharedPerBlock = 48 * 1024;
    d.sharedPerBlockOptin = 227 * 1024;
    d.regsPerBlock = 65536;
    d.maxThreadsPerSm = 2048;
    d.simulated = true;
    return d;
}

std::vector<LaunchError> validateLaunch(const LaunchConfig& launch, const DeviceInfo& device)
{
    std::vector<LaunchError> errors;
    checkDimension(errors, LaunchField::BlockX, "Block x", launch.block.x, device.maxBlock.x,
                   device);
    checkDimension(errors, LaunchField::BlockY, "Block y", launch.block.y, device.maxBlock.y,
                   device);
    checkDimension(errors, LaunchField::BlockZ, "Block z", launch.block.z, device.maxBlock.z,
                   device);
    // The product is meaningful (and cannot overflow) only when each factor is in range.
    if (errors.empty() && launch.block.volume() > device.maxThreadsPerBlock)
        errors.push_back({LaunchField::BlockX,
                          std::to_string(launch.block.volume()) +
                              " threads per block (x * y * z) exceed the limit of " +
                              std::to_string(device.maxThreadsPerBlock) + " on " + device.name});
    checkDimension(errors, LaunchField::GridX, "Grid x", launch.grid.x, device.maxGrid.x, device);
    checkDimension(errors, LaunchField::GridY, "Grid y", launch.grid.y, device.maxGrid.y, device);
    checkDimension(errors, LaunchField::GridZ, "Grid z", launch.grid.z, device.maxGrid.z, device);
    if (launch.sharedBytes < 0)
        errors.push_back({LaunchField::SharedMemory, "Shared memory cannot be negative"});
    else if (launch.sharedBytes > device.sharedPerBlockOptin)
        errors.push_back({LaunchField::SharedMemory,
                          std::to_string(launch.sharedBytes) +
                              " bytes of shared memory per block exceed the limit of " +
                              std::to_string(device.sharedPerBlockOptin) + " on " + device.name});
    return errors;
}

} // namespace warpscope::gpu
