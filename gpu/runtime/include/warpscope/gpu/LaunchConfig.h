#pragma once

#include <optional>
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
    int ordinal = -1; // the CUDA device index; -1 when simulated
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
    long long regsPerSm = 0;
    long long maxBlocksPerSm = 0;
    long long sharedPerSm = 0;
    long long reservedSharedPerBlock = 0; // the driver's own share of each block's memory
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

// What one kernel needs per thread and per block, as the compiler left it.
struct KernelResources
{
    int registersPerThread = 0;
    long long staticSharedBytes = 0;
    long long maxThreadsPerBlock = 1024; // the kernel's own limit (launch bounds, registers)
};

// How many blocks of a kernel fit on one SM at once, and which resource stops more.
struct Occupancy
{
    long long activeBlocksPerSm = 0;
    double fraction = 0.0; // active warps / the SM's maximum warps
    std::string limitedBy; // "warps", "blocks", "registers" or "shared memory"
};

// A kernel's occupancy at a block size: its resources (from the driver, or on the CPU the
// sm_90 build's), the calculator's figure, the CUDA occupancy API's where there is a GPU,
// and the block size it suggests ("auto").
struct KernelOccupancy
{
    KernelResources resources;
    Occupancy theoretical;
    std::optional<Occupancy> api;
    long long suggestedBlock = 0;
};

// The occupancy calculator's arithmetic (allocation units of compute capability 5.0 and
// later: registers in 256 per warp, warps in 4s, shared memory in 128 bytes plus the
// reserved share). Agrees with cudaOccupancyMaxActiveBlocksPerMultiprocessor, which the GPU
// tests check, and needs no GPU.
Occupancy theoreticalOccupancy(const DeviceInfo& device, const KernelResources& kernel,
                               long long blockThreads, long long dynamicShared = 0);

// The block size (a multiple of the warp size) with the highest theoretical occupancy, the
// largest of equals.
long long suggestedBlockThreads(const DeviceInfo& device, const KernelResources& kernel);

// Checks a launch against a device's limits: every dimension at least 1 and within its
// limit, threads per block, and dynamic shared memory. Empty when the launch is valid.
std::vector<LaunchError> validateLaunch(const LaunchConfig& launch, const DeviceInfo& device);

} // namespace warpscope::gpu
