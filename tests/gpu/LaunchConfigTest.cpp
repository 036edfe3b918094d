#include "warpscope/gpu/LaunchConfig.h"

#include "TestSupport.h"

#include <cstdio>
#include <gtest/gtest.h>
#include <map>

namespace warpscope::gpu::test {
namespace {

// tests/fixtures/device_limits_h100.csv, written on an H100 by generate_device_limits.cu
// from what the CUDA driver reports.
DeviceInfo loadDeviceFixture(const std::string& file)
{
    std::ifstream in(fixtureDir() + "/" + file);
    std::map<std::string, std::string> v;
    std::string line;
    while (std::getline(in, line))
        if (!line.empty() && line[0] != '#')
            v[line.substr(0, line.find(','))] = line.substr(line.find(',') + 1);
    DeviceInfo d;
    if (v.empty())
        return d;
    auto n = [&](const char* key) { return std::stoll(v.at(key)); };
    d.name = v.at("name");
    d.ccMajor = std::stoi(v.at("computeCapability"));
    d.ccMinor = std::stoi(v.at("computeCapability").substr(2));
    d.smCount = int(n("multiProcessorCount"));
    d.warpSize = int(n("warpSize"));
    d.maxThreadsPerBlock = n("maxThreadsPerBlock");
    d.maxBlock = {n("maxBlockDimX"), n("maxBlockDimY"), n("maxBlockDimZ")};
    d.maxGrid = {n("maxGridDimX"), n("maxGridDimY"), n("maxGridDimZ")};
    d.sharedPerBlock = n("sharedMemPerBlock");
    d.sharedPerBlockOptin = n("sharedMemPerBlockOptin");
    d.regsPerBlock = n("regsPerBlock");
    d.maxThreadsPerSm = n("maxThreadsPerMultiProcessor");
    d.totalMemory = n("totalGlobalMem");
    d.l2Bytes = n("l2CacheSize");
    return d;
}

class LaunchValidation : public ::testing::Test
{
protected:
    void SetUp() override
    {
        m_h100 = loadDeviceFixture("device_limits_h100.csv");
        ASSERT_FALSE(m_h100.name.empty()) << "fixture missing in " << fixtureDir();
    }
    std::vector<LaunchError> check(Dim3 block, Dim3 grid, long long shared = 0) const
    {
        return validateLaunch({block, grid, shared}, m_h100);
    }
    DeviceInfo m_h100;
};

TEST_F(LaunchValidation, SimulatedHopperHasTheH100sLimits)
{
    const DeviceInfo s = simulatedHopper();
    EXPECT_TRUE(s.simulated);
    EXPECT_EQ(s.ccMajor, m_h100.ccMajor);
    EXPECT_EQ(s.ccMinor, m_h100.ccMinor);
    EXPECT_EQ(s.smCount, m_h100.smCount);
    EXPECT_EQ(s.warpSize, m_h100.warpSize);
    EXPECT_EQ(s.maxThreadsPerBlock, m_h100.maxThreadsPerBlock);
    EXPECT_EQ(s.maxBlock, m_h100.maxBlock);
    EXPECT_EQ(s.maxGrid, m_h100.maxGrid);
    EXPECT_EQ(s.sharedPerBlock, m_h100.sharedPerBlock);
    EXPECT_EQ(s.sharedPerBlockOptin, m_h100.sharedPerBlockOptin);
    EXPECT_EQ(s.regsPerBlock, m_h100.regsPerBlock);
    EXPECT_EQ(s.maxThreadsPerSm, m_h100.maxThreadsPerSm);
}

TEST_F(LaunchValidation, EveryLimitIsInclusive)
{
    EXPECT_TRUE(check({256, 1, 1}, {1, 1, 1}).empty());
    EXPECT_TRUE(check({1024, 1, 1}, {1, 1, 1}).empty());
    EXPECT_TRUE(check({1, 1024, 1}, {1, 1, 1}).empty());
    EXPECT_TRUE(check({1, 1, 64}, {1, 1, 1}).empty());
    EXPECT_TRUE(check({1, 1, 1}, {m_h100.maxGrid.x, m_h100.maxGrid.y, m_h100.maxGrid.z}).empty());
    EXPECT_TRUE(check({1, 1, 1}, {1, 1, 1}, m_h100.sharedPerBlockOptin).empty());
}

TEST_F(LaunchValidation, OnePastEachLimitIsExplained)
{
    struct Case
    {
        Dim3 block, grid;
        LaunchField field;
        long long limit;
    };
    const Case cases[] = {
        {{m_h100.maxBlock.x + 1, 1, 1}, {1, 1, 1}, LaunchField::BlockX, m_h100.maxBlock.x},
        {{1, m_h100.maxBlock.y + 1, 1}, {1, 1, 1}, LaunchField::BlockY, m_h100.maxBlock.y},
        {{1, 1, m_h100.maxBlock.z + 1}, {1, 1, 1}, LaunchField::BlockZ, m_h100.maxBlock.z},
        {{1, 1, 1}, {m_h100.maxGrid.x + 1, 1, 1}, LaunchField::GridX, m_h100.maxGrid.x},
        {{1, 1, 1}, {1, m_h100.maxGrid.y + 1, 1}, LaunchField::GridY, m_h100.maxGrid.y},
        {{1, 1, 1}, {1, 1, m_h100.maxGrid.z + 1}, LaunchField::GridZ, m_h100.maxGrid.z},
    };
    for (const Case& c : cases) {
        const auto errors = check(c.block, c.grid);
        ASSERT_EQ(errors.size(), 1u);
        EXPECT_EQ(errors[0].field, c.field);
        EXPECT_NE(errors[0].message.find("limit of " + std::to_string(c.limit)), std::string::npos)
            << errors[0].message;
        EXPECT_NE(errors[0].message.find(m_h100.name), std::string::npos);
    }
}

TEST_F(LaunchValidation, TheTeachingExamples)
{
    // 2048 threads per block: each dimension is fine, their product is not.
    auto errors = check({32, 32, 2}, {1, 1, 1});
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_NE(errors[0].message.find("2048 threads per block"), std::string::npos);
    EXPECT_NE(errors[0].message.find("limit of 1024"), std::string::npos);
    // A grid of 2^50 blocks.
    errors = check({256, 1, 1}, {1LL << 50, 1, 1});
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0].field, LaunchField::GridX);
    EXPECT_NE(errors[0].message.find("1125899906842624"), std::string::npos);
}

TEST_F(LaunchValidation, NonPositiveValuesAndSharedMemory)
{
    const auto zero = check({0, 1, 1}, {1, -3, 1});
    ASSERT_EQ(zero.size(), 2u);
    EXPECT_NE(zero[0].message.find("at least 1, not 0"), std::string::npos);
    EXPECT_NE(zero[1].message.find("at least 1, not -3"), std::string::npos);
    const auto shared = check({1, 1, 1}, {1, 1, 1}, m_h100.sharedPerBlockOptin + 1);
    ASSERT_EQ(shared.size(), 1u);
    EXPECT_EQ(shared[0].field, LaunchField::SharedMemory);
    EXPECT_EQ(check({1, 1, 1}, {1, 1, 1}, -1).size(), 1u);
}

// What nvidia-smi, which asks the driver through NVML rather than CUDA's runtime, says of the
// GPU with CUDA's index: "name, major.minor, MiB". Empty where it is not installed. (With one
// GPU, or GPUs alike, both orders agree.)
std::string nvidiaSmi(int ordinal)
{
    const std::string command = "nvidia-smi --query-gpu=name,compute_cap,memory.total "
                                "--format=csv,noheader,nounits -i " +
                                std::to_string(ordinal) + " 2>/dev/null";
    std::string out;
    if (FILE* pipe = ::popen(command.c_str(), "r")) {
        char buffer[256];
        while (std::fgets(buffer, sizeof buffer, pipe))
            out += buffer;
        if (::pclose(pipe) != 0)
            out.clear();
    }
    return out.substr(0, out.find('\n'));
}

TEST_F(LaunchValidation, CudaReportsTheDriversLimits)
{
    auto selection = cudaContext();
    if (!selection)
        GTEST_SKIP() << "no CUDA device";
    const DeviceInfo d = selection->info();
    EXPECT_FALSE(d.simulated);
    EXPECT_GT(d.smCount, 0);
    EXPECT_GT(d.clockKHz, 0);
    // The limits every compute capability from 3.0 on shares (the programming guide's table).
    EXPECT_EQ(d.maxThreadsPerBlock, 1024);
    EXPECT_EQ(d.warpSize, 32);
    EXPECT_TRUE(d.maxBlock == (Dim3{1024, 1024, 64}));
    EXPECT_TRUE(d.maxGrid == (Dim3{2147483647, 65535, 65535}));
    // The name, capability and memory, as NVML reports them.
    if (const std::string smi = nvidiaSmi(d.ordinal); !smi.empty()) {
        const std::size_t first = smi.rfind(", ", smi.rfind(", ") - 1);
        ASSERT_NE(first, std::string::npos) << smi;
        EXPECT_EQ(smi.substr(0, first), d.name) << smi;
        int major = 0, minor = 0;
        double mib = 0.0;
        ASSERT_EQ(std::sscanf(smi.c_str() + first + 2, "%d.%d, %lf", &major, &minor, &mib), 3)
            << smi;
        EXPECT_EQ(major, d.ccMajor);
        EXPECT_EQ(minor, d.ccMinor);
        // NVML counts the whole memory, CUDA what a context can allocate: within 5 %.
        EXPECT_NEAR(double(d.totalMemory) / (1 << 20), mib, 0.05 * mib) << smi;
    }
    if (d.name != m_h100.name)
        return; // the fixture's exact figures are an H100's
    EXPECT_EQ(d.smCount, m_h100.smCount);
    EXPECT_TRUE(d.maxBlock == m_h100.maxBlock);
    EXPECT_TRUE(d.maxGrid == m_h100.maxGrid);
    EXPECT_EQ(d.sharedPerBlockOptin, m_h100.sharedPerBlockOptin);
    EXPECT_EQ(d.l2Bytes, m_h100.l2Bytes);
    EXPECT_EQ(d.totalMemory, m_h100.totalMemory);
}

} // namespace
} // namespace warpscope::gpu::test

namespace warpscope::gpu::test {
namespace {

// The calculator's arithmetic on the simulated H100 (65536 registers, 64 warps, 32 blocks
// and 228 KB of shared memory per SM), worked by hand.
TEST(Occupancy, FollowsTheAllocationRules)
{
    const DeviceInfo d = simulatedHopper();
    KernelResources k;
    k.registersPerThread = 40; // 1280 registers a warp: 51 warps fit, 48 in units of 4
    Occupancy o = theoreticalOccupancy(d, k, 256);
    EXPECT_EQ(o.activeBlocksPerSm, 6);
    EXPECT_DOUBLE_EQ(o.fraction, 48.0 / 64.0);
    EXPECT_EQ(o.limitedBy, "registers");
    o = theoreticalOccupancy(d, k, 32); // 32 one-warp blocks: the block limit
    EXPECT_EQ(o.activeBlocksPerSm, 32);
    EXPECT_EQ(o.limitedBy, "blocks");
    EXPECT_DOUBLE_EQ(o.fraction, 0.5);
    k.registersPerThread = 32; // 1024 a warp: all 64 warps
    o = theoreticalOccupancy(d, k, 1024);
    EXPECT_EQ(o.activeBlocksPerSm, 2);
    EXPECT_DOUBLE_EQ(o.fraction, 1.0);
    // 48 KB of dynamic shared memory plus the 1 KB reserved: 4 blocks in 228 KB.
    o = theoreticalOccupancy(d, k, 128, 48 * 1024);
    EXPECT_EQ(o.activeBlocksPerSm, 4);
    EXPECT_EQ(o.limitedBy, "shared memory");
    // Beyond the kernel's own limit nothing runs.
    k.maxThreadsPerBlock = 512;
    EXPECT_EQ(theoreticalOccupancy(d, k, 1024).activeBlocksPerSm, 0);
    EXPECT_EQ(theoreticalOccupancy(d, k, 0).activeBlocksPerSm, 0);
}

TEST(Occupancy, SuggestsTheLargestBlockOfHighestOccupancy)
{
    const DeviceInfo d = simulatedHopper();
    KernelResources k;
    k.registersPerThread = 32;
    EXPECT_EQ(suggestedBlockThreads(d, k), 1024);
    k.registersPerThread = 40; // 48 warps at most: 192, 384, 768 threads reach 75%
    const long long s = suggestedBlockThreads(d, k);
    EXPECT_DOUBLE_EQ(theoreticalOccupancy(d, k, s).fraction, 0.75);
    EXPECT_EQ(s, 768);
}

} // namespace
} // namespace warpscope::gpu::test
