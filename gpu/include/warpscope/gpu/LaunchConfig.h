#pragma once

#include <string>
#include <vector>

namespace warpscope::gpu {

// Launch dimensions as a person may type them: wide enough to hold 2^50 so that a value
// beyond every limit is explained, not wrapped.
struct Dim3
{
    long long x = 1, y = 1, z = 1;
    long long volume() const { return x * y * z; }
    bool operator==(const Dim3&) const = default;
};

struct LaunchConfig
{
    Dim3 block{256, 1, 1};
    Dim3 grid{1, 1, 1};
    long long sharedBytes = 0; // dynamic shared memory per block
    bool operator==(const LaunchConfig&) const = default;
};

// What a device allows and what it has, as the CUDA driver reports it, or a preset standing
// in for a GPU on machines without one (simulated is then true and the UI says so).
struct DeviceInfo
{
    std::string name;
    int ccMajor = 0, ccMinor = 0;
    int smCount = 0;
    int warpSize = 32;
    long long maxThreadsPerBlock = 0;
    Dim3 maxBlock;
    Dim3 maxGrid;
    long long sharedPerBlock = 0;      // without opting in
    long long sharedPerBlockOptin = 0; // the most a kernel can opt in to
    long long regsPerBlock = 0;
    long long maxThreadsPerSm = 0;
    long long totalMemory = 0;
    long long l2Bytes = 0;
    int clockKHz = 0;
    int memoryClockKHz = 0;
    bool simulated = false;
};

// The limits of a compute capability 9.0 device with 132 SMs (an H100 SXM), as the CUDA
// programming guide tabulates them; the CPU backend's simulator runs kernels under these.
DeviceInfo simulatedHopper();

enum class LaunchField
{
    BlockX,
    BlockY,
    BlockZ,
    GridX,
    GridY,
    GridZ,
    SharedMemory
};

struct LaunchError
{
    LaunchField field;
    std::string message; // names the limit and the device's value
};

// Checks a launch against a device's limits: every dimension at least 1 and within its
// limit, threads per block, and dynamic shared memory. Empty when the launch is valid.
std::vector<LaunchError> validateLaunch(const LaunchConfig& launch, const DeviceInfo& device);

} // namespace warpscope::gpu
