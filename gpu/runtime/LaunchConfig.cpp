#include "warpscope/gpu/LaunchConfig.h"

#include <algorithm>

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
    d.regsPerSm = 65536;
    d.maxBlocksPerSm = 32;
    d.sharedPerSm = 228 * 1024;
    d.reservedSharedPerBlock = 1024;
    d.simulated = true;
    return d;
}

Occupancy theoreticalOccupancy(const DeviceInfo& device, const KernelResources& kernel,
                               long long blockThreads, long long dynamicShared)
{
    Occupancy o;
    const long long warpSize = std::max(1, device.warpSize);
    const long long maxWarps = device.maxThreadsPerSm / warpSize;
    if (blockThreads < 1 || blockThreads > kernel.maxThreadsPerBlock || maxWarps < 1) {
        o.limitedBy = "threads per block";
        return o;
    }
    const long long warpsPerBlock = (blockThreads + warpSize - 1) / warpSize;
    struct Limit
    {
        long long blocks;
        const char* name;
    };
    std::vector<Limit> limits{{maxWarps / warpsPerBlock, "warps"},
                              {device.maxBlocksPerSm, "blocks"}};
    if (kernel.registersPerThread > 0) {
        constexpr long long kRegisterUnit = 256, kWarpUnit = 4;
        const long long perWarp = (kernel.registersPerThread * warpSize + kRegisterUnit - 1) /
                                  kRegisterUnit * kRegisterUnit;
        const long long warps = device.regsPerSm / perWarp / kWarpUnit * kWarpUnit;
        limits.push_back({warps / warpsPerBlock, "registers"});
    }
    const long long shared = kernel.staticSharedBytes + dynamicShared;
    if (shared > 0) {
        constexpr long long kSharedUnit = 128;
        const long long perBlock =
            (shared + device.reservedSharedPerBlock + kSharedUnit - 1) / kSharedUnit * kSharedUnit;
        limits.push_back({device.sharedPerSm / perBlock, "shared memory"});
    }
    const Limit* tightest = &limits.front();
    for (const Limit& l : limits)
        if (l.blocks < tightest->blocks)
            tightest = &l;
    o.activeBlocksPerSm = std::max(0LL, tightest->blocks);
    o.fraction = double(o.activeBlocksPerSm * warpsPerBlock) / double(maxWarps);
    o.limitedBy = tightest->name;
    return o;
}

long long suggestedBlockThreads(const DeviceInfo& device, const KernelResources& kernel)
{
    const long long warp = std::max(1, device.warpSize);
    const long long most = std::min(kernel.maxThreadsPerBlock, device.maxThreadsPerBlock);
    long long best = warp;
    double bestFraction = -1.0;
    for (long long threads = warp; threads <= most; threads += warp) {
        const double f = theoreticalOccupancy(device, kernel, threads).fraction;
        if (f >= bestFraction) {
            bestFraction = f;
            best = threads;
        }
    }
    return best;
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
