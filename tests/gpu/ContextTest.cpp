#include "warpscope/gpu/Context.h"

#include "warpscope/gpu/DevicePool.h"
#include "warpscope/gpu/Periodogram.h"
#include "warpscope/gpu/StreamsLab.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace warpscope::gpu::test {
namespace {

TEST(Context, ListsTheCpuFirstThenEveryCudaDevice)
{
    const std::vector<Device> devices = listDevices();
    ASSERT_FALSE(devices.empty());
    EXPECT_EQ(devices.front(), (Device{DeviceKind::Cpu, 0}));
    ASSERT_EQ(devices.size(), 1 + cudaDeviceNames().size());
    for (std::size_t d = 1; d < devices.size(); ++d)
        EXPECT_EQ(devices[d], (Device{DeviceKind::Cuda, int(d - 1)}));
    EXPECT_EQ(deviceLabel({DeviceKind::Cuda, 1}), "GPU 1");
    EXPECT_EQ(deviceLabel({DeviceKind::Cpu, 0}), "CPU");
}

TEST(Context, OpensTheCpuWithTheThreadsAskedFor)
{
    std::unique_ptr<Context> context;
    ASSERT_TRUE(Context::open({DeviceKind::Cpu, 0}, context, 3).ok());
    EXPECT_FALSE(context->isCuda());
    EXPECT_EQ(context->name(), "CPU, 3 threads");
    EXPECT_TRUE(context->info().simulated);
    EXPECT_FALSE(context->memory().has_value());
}

TEST(Context, RefusesADeviceThatIsNotThere)
{
    std::unique_ptr<Context> context;
    const Status s = Context::open({DeviceKind::Cuda, 99}, context);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(context, nullptr);
    EXPECT_NE(s.message().find("CUDA"), std::string::npos) << s.message();
}

// Records the order in which slice states are made and released.
std::vector<std::string> g_events;

struct FirstState : SliceState
{
    FirstState() { g_events.push_back("make first"); }
    ~FirstState() override { g_events.push_back("release first"); }
    int value = 0;
};

struct SecondState : SliceState
{
    explicit SecondState(Context& context) : threads(context.name())
    {
        g_events.push_back("make second");
    }
    ~SecondState() override { g_events.push_back("release second"); }
    std::string threads;
};

TEST(Context, KeepsOneStatePerSliceAndReleasesThemInReverse)
{
    g_events.clear();
    {
        std::unique_ptr<Context> context;
        ASSERT_TRUE(Context::open({DeviceKind::Cpu, 0}, context, 2).ok());
        context->state<FirstState>().value = 7;
        EXPECT_EQ(context->state<SecondState>().threads, "CPU, 2 threads");
        EXPECT_EQ(context->state<FirstState>().value, 7); // the same state, not a new one
    }
    EXPECT_EQ(g_events, (std::vector<std::string>{"make first", "make second", "release second",
                                                  "release first"}));
}

TEST(DevicePool, TheCpuRequestReachesEveryPartThatOpensAContext)
{
    auto timeline = std::make_shared<Timeline>();
    DevicePool pool(BackendKind::Cpu, -1, timeline);
    std::unique_ptr<Context> periodogram, lab;
    ASSERT_TRUE(pool.open("periodogram", periodogram).ok());
    ASSERT_TRUE(pool.open("lab", lab).ok());
    EXPECT_FALSE(periodogram->isCuda());
    EXPECT_FALSE(lab->isCuda());
    EXPECT_EQ(periodogram->timeline(), timeline.get());
    EXPECT_EQ(pool.summary(), "lab: CPU · periodogram: CPU");

    // The slices run on the contexts the pool opened.
    StreamsLabConfig config;
    config.arrays = 2;
    config.length = 1000;
    StreamsLabResult result;
    ASSERT_TRUE(runStreamsLab(*lab, config, result).ok());
    EXPECT_TRUE(result.passed());
}

TEST(DevicePool, SaysWhenTheDeviceAskedForIsNotThere)
{
    const int count = int(cudaDeviceNames().size());
    DevicePool pool(BackendKind::Cuda, count + 2, nullptr);
    std::unique_ptr<Context> context;
    const Status s = pool.open("periodogram", context);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find(count == 0 ? "no CUDA device" : std::to_string(count + 2)),
              std::string::npos)
        << s.message();
    EXPECT_EQ(pool.summary(), "");
}

// With two GPUs, a device chosen by index computes the periodogram and the lab there.
TEST(DevicePool, ADeviceChoiceReachesThePeriodogramAndTheLab)
{
    if (cudaDeviceNames().size() < 2)
        GTEST_SKIP() << "needs two CUDA devices";
    DevicePool pool(BackendKind::Auto, 1, nullptr);
    std::unique_ptr<Context> periodogram, lab;
    ASSERT_TRUE(pool.open("periodogram", periodogram).ok());
    ASSERT_TRUE(pool.open("lab", lab).ok());
    EXPECT_EQ(periodogram->device(), (Device{DeviceKind::Cuda, 1}));
    EXPECT_EQ(periodogram->info().ordinal, 1);
    EXPECT_EQ(lab->info().ordinal, 1);
    const TimeSeries series = syntheticSeries({});
    PeriodogramOptions options;
    options.grid = autoFrequencyGrid(series);
    std::vector<double> power(std::size_t(options.grid.count));
    ASSERT_TRUE(computePeriodogram(*periodogram, series, options, power).ok());
    EXPECT_NE(pool.summary().find("periodogram: GPU 1"), std::string::npos) << pool.summary();
}

} // namespace
} // namespace warpscope::gpu::test
