// The span recorder on a real stream. Built where the toolkit is; skips without a device.
#include "runtime/CudaSpanRecorder.h"

#include "warpscope/gpu/Device.h"

#include <algorithm>
#include <gtest/gtest.h>

namespace warpscope::gpu::test {
namespace {

bool hasSpan(const Timeline& timeline, const std::string& name)
{
    const TimelineSnapshot snapshot = timeline.snapshot();
    return std::any_of(snapshot.spans.begin(), snapshot.spans.end(),
                       [&](const Span& s) { return s.name == name && s.endUs >= s.startUs; });
}

// Spans are resolved in order, so a span begun by a function that then returned early, and
// never ended, used to hold back every span recorded after it for good.
TEST(CudaSpanRecorder, ASpanLeftByAnEarlyReturnStillEndsAndLaterSpansArrive)
{
    if (cudaDeviceNames().empty())
        GTEST_SKIP() << "no CUDA device";
    auto timeline = std::make_shared<Timeline>();
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    {
        CudaSpanRecorder recorder;
        recorder.setTimeline(timeline);
        const int lane = timeline->lane("CUDA stream: test");
        auto failing = [&]() -> Status {
            const SpanScope span(recorder, stream, lane, SpanKind::Kernel, "left early");
            return Status::failure("an injected failure");
        };
        EXPECT_FALSE(failing().ok());
        {
            const SpanScope span(recorder, stream, lane, SpanKind::Kernel, "recorded after");
        }
        ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
        ASSERT_TRUE(recorder.collect().ok());
        EXPECT_TRUE(hasSpan(*timeline, "left early"));
        EXPECT_TRUE(hasSpan(*timeline, "recorded after"));
    }
    cudaStreamDestroy(stream);
}

} // namespace
} // namespace warpscope::gpu::test
