// The occupancy calculator against the CUDA toolkit's own host-side calculator
// (cuda_occupancy.h), on the simulated H100, for every register count, block size and
// shared-memory request below. Built where the toolkit is; needs no GPU.
#include "warpscope/gpu/LaunchConfig.h"

#include <climits>
#include <cuda_occupancy.h>
#include <gtest/gtest.h>

namespace warpscope::gpu::test {
namespace {

TEST(OccupancyCalculator, AgreesWithTheToolkitsCalculator)
{
    const DeviceInfo d = simulatedHopper();
    cudaOccDeviceProp prop;
    prop.computeMajor = d.ccMajor;
    prop.computeMinor = d.ccMinor;
    prop.maxThreadsPerBlock = int(d.maxThreadsPerBlock);
    prop.maxThreadsPerMultiprocessor = int(d.maxThreadsPerSm);
    prop.regsPerBlock = int(d.regsPerBlock);
    prop.regsPerMultiprocessor = int(d.regsPerSm);
    prop.warpSize = d.warpSize;
    prop.sharedMemPerBlock = std::size_t(d.sharedPerBlock);
    prop.sharedMemPerMultiprocessor = std::size_t(d.sharedPerSm);
    prop.numSms = d.smCount;
    prop.sharedMemPerBlockOptin = std::size_t(d.sharedPerBlockOptin);
    prop.reservedSharedMemPerBlock = std::size_t(d.reservedSharedPerBlock);
    int compared = 0;
    for (int registers : {16, 24, 32, 40, 46, 64, 96, 128, 168, 255})
        for (long long shared : {0LL, 4096LL, 10000LL, 48 * 1024LL})
            for (long long threads = 32; threads <= 1024; threads += 32) {
                cudaOccFuncAttributes attributes;
                attributes.maxThreadsPerBlock = INT_MAX;
                attributes.numRegs = registers;
                attributes.sharedSizeBytes = 0;
                attributes.maxDynamicSharedSizeBytes = int(d.sharedPerBlockOptin);
                cudaOccDeviceState state;
                cudaOccResult result{};
                ASSERT_EQ(cudaOccMaxActiveBlocksPerMultiprocessor(&result, &prop, &attributes,
                                                                  &state, int(threads),
                                                                  std::size_t(shared)),
                          CUDA_OCC_SUCCESS);
                KernelResources kernel;
                kernel.registersPerThread = registers;
                EXPECT_EQ(theoreticalOccupancy(d, kernel, threads, shared).activeBlocksPerSm,
                          result.activeBlocksPerMultiprocessor)
                    << registers << " registers, " << threads << " threads, " << shared
                    << " bytes of shared memory";
                ++compared;
            }
    std::printf("compared %d launches with cuda_occupancy.h\n", compared);
}

} // namespace
} // namespace warpscope::gpu::test
