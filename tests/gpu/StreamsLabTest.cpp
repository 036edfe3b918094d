#include "warpscope/gpu/StreamsLab.h"

#include "TestSupport.h"
#include "streamslab/StreamsLabShared.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <set>

namespace warpscope::gpu::test {
namespace {

TEST(StreamsLab, RejectsImpossibleConfigurations)
{
    StreamsLabConfig c;
    c.arrays = 0;
    EXPECT_EQ(validateStreamsLab(c).size(), 1u);
    c.arrays = kStreamsLabMaxArrays + 1;
    c.length = 0;
    EXPECT_EQ(validateStreamsLab(c).size(), 2u);
    c = StreamsLabConfig{};
    EXPECT_TRUE(validateStreamsLab(c).empty());
    EXPECT_EQ(streamsLabHostBytes(c), 800'000'000u);

    auto cpuOwner = cpuContext(2);
    Context& cpu = *cpuOwner;
    StreamsLabResult result;
    c.length = -5;
    Status s = runStreamsLab(cpu, c, result);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("length"), std::string::npos);
    // 64 arrays of 2^32 values need 2 TiB: refused before anything is allocated.
    c.arrays = kStreamsLabMaxArrays;
    c.length = kStreamsLabMaxLength;
    s = runStreamsLab(cpu, c, result);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("host memory"), std::string::npos) << s.message();
}

TEST(StreamsLab, InputsArePositiveAndRepeatable)
{
    for (std::uint64_t i = 0; i < 100000; i += 7) {
        const float v = streamsLabInput(3, 2, i);
        ASSERT_GE(v, 0.5f);
        ASSERT_LT(v, 1.5f);
        ASSERT_EQ(v, streamsLabInput(3, 2, i));
    }
    EXPECT_NE(streamsLabInput(3, 2, 10), streamsLabInput(3, 3, 10));
    EXPECT_NE(streamsLabInput(3, 2, 10), streamsLabInput(4, 2, 10));
}

// The check must catch one wrong element, one element never written, and a wrong sum.
TEST(StreamsLab, CheckCatchesWrongOutputs)
{
    ThreadPool pool(2);
    StreamsLabConfig c;
    c.arrays = 3;
    c.length = 1000;
    std::vector<std::vector<float>> in(3, std::vector<float>(1000)), out = in;
    std::vector<float*> inputs, outputs;
    for (int a = 0; a < 3; ++a) {
        inputs.push_back(in[a].data());
        outputs.push_back(out[a].data());
    }
    fillStreamsLabInputs(pool, c, inputs);
    for (int a = 0; a < 3; ++a) {
        double sum = 0.0;
        for (float v : in[a])
            sum += v;
        for (int i = 0; i < 1000; ++i)
            out[a][i] = float(in[a][i] / sum);
    }
    StreamsLabResult r;
    checkStreamsLabOutputs(pool, c, inputs, outputs, r);
    ASSERT_TRUE(r.passed()) << r.worstSumError << " " << r.worstElementError;

    const float good = out[1][500];
    out[1][500] *= 1.0001f;
    checkStreamsLabOutputs(pool, c, inputs, outputs, r);
    EXPECT_FALSE(r.passed());
    EXPECT_GT(r.worstElementError, 5e-5);

    out[1][500] = poisonValue<float>();
    checkStreamsLabOutputs(pool, c, inputs, outputs, r);
    EXPECT_FALSE(r.passed());

    out[1][500] = good;
    for (float& v : out[2])
        v *= 1.001f; // every element off by the same factor: the sum is 1.001
    checkStreamsLabOutputs(pool, c, inputs, outputs, r);
    EXPECT_FALSE(r.passed());
    EXPECT_NEAR(r.worstSumError, 1e-3, 1e-5);
}

void expectLabPasses(Context& backend, const StreamsLabConfig& c, StreamsLabResult& r)
{
    const Status s = runStreamsLab(backend, c, r);
    ASSERT_TRUE(s.ok()) << s.message();
    ASSERT_TRUE(r.checked);
    EXPECT_TRUE(r.passed()) << "worst sum error " << r.worstSumError << ", worst element error "
                            << r.worstElementError;
    ASSERT_EQ(r.sums.size(), std::size_t(c.arrays));
    for (double sum : r.sums)
        EXPECT_NEAR(sum, 1.0, kStreamsLabTolerance);
    EXPECT_GT(r.totalMs, 0.0);
}

// On the CPU, streams are threads: each array's steps nest inside its span, in order.
TEST(StreamsLab, CpuNormalisesAndRecordsNestedSteps)
{
    auto timeline = std::make_shared<Timeline>();
    auto cpuOwner = cpuContext(3);
    Context& cpu = *cpuOwner;
    cpu.setTimeline(timeline, "lab");
    StreamsLabConfig c;
    c.arrays = 5;
    c.length = 100003;
    StreamsLabResult r;
    for (bool multi : {false, true}) {
        timeline->clear();
        c.multiStream = multi;
        expectLabPasses(cpu, c, r);
        EXPECT_EQ(r.streams, multi ? 3 : 1);
        const TimelineSnapshot snap = timeline->snapshot();
        std::set<int> lanes;
        int arraysSeen = 0;
        for (const Span& outer : snap.spans) {
            if (outer.name.rfind("normalise array", 0) != 0)
                continue;
            ++arraysSeen;
            lanes.insert(outer.lane);
            std::vector<Span> steps;
            for (const Span& s : snap.spans)
                if (s.lane == outer.lane && s.depth == outer.depth + 1 &&
                    s.startUs >= outer.startUs && s.endUs <= outer.endUs)
                    steps.push_back(s);
            ASSERT_EQ(steps.size(), 3u);
            EXPECT_EQ(steps[0].name, "partial sums");
            EXPECT_EQ(steps[1].name, "final sum");
            EXPECT_EQ(steps[2].name, "divide");
            EXPECT_LE(steps[0].endUs, steps[1].startUs);
            EXPECT_LE(steps[1].endUs, steps[2].startUs);
        }
        EXPECT_EQ(arraysSeen, c.arrays);
        EXPECT_EQ(lanes.size(), multi ? 3u : 1u);
    }
}

TEST(StreamsLab, TheCpuHasNoLinkFloor)
{
    auto cpu = cpuContext(2);
    StreamsLinkFloor floor;
    const Status s = measureStreamsLinkFloor(*cpu, StreamsLabConfig{}, 3, floor);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("needs a GPU"), std::string::npos) << s.message();
}

class CudaStreamsLabTest : public CudaContextTest
{
protected:
    void SetUp() override
    {
        CudaContextTest::SetUp();
        if (IsSkipped())
            return;
        m_timeline = std::make_shared<Timeline>();
        m_cuda->setTimeline(m_timeline, "field");
    }
    std::shared_ptr<Timeline> m_timeline;
};

TEST_F(CudaStreamsLabTest, NormalisesInEveryMode)
{
    StreamsLabConfig c;
    c.arrays = 6;
    c.length = 1'000'003; // not a multiple of the block or of 4
    StreamsLabResult r;
    for (bool pinned : {true, false})
        for (bool multi : {false, true}) {
            c.pinned = pinned;
            c.multiStream = multi;
            c.orderCopies = pinned; // both ways of issuing K streams
            SCOPED_TRACE(std::string(pinned ? "pinned" : "pageable") +
                         (multi ? ", K streams" : ", 1 stream"));
            expectLabPasses(*m_cuda, c, r);
            // In order: a stream for the copies in, one for the kernels, one for the copies
            // out.
            EXPECT_EQ(r.streams, multi ? (c.orderCopies ? 3 : c.arrays) : 1);
        }
    c.length = 1; // one value per array normalises to exactly 1
    expectLabPasses(*m_cuda, c, r);
}

// The link's floor: its job holds the copies in alone and then the last copy out, so it
// takes longer than they do. After it the lab still checks out: the floor's copies
// overwrote its outputs, which every run poisons first.
TEST_F(CudaStreamsLabTest, TheLinkFloorIsMeasuredAndTheLabStillChecksOut)
{
    StreamsLabConfig c;
    c.arrays = 4;
    c.length = 4'000'000;
    StreamsLinkFloor floor;
    ASSERT_TRUE(measureStreamsLinkFloor(*m_cuda, c, 5, floor));
    EXPECT_GT(floor.inMs, 0.0);
    EXPECT_GE(floor.duplexMs, floor.inMs);
    StreamsLabResult r;
    expectLabPasses(*m_cuda, c, r);
    c.pinned = false;
    EXPECT_FALSE(measureStreamsLinkFloor(*m_cuda, c, 5, floor));
}

// With CUPTI chosen, the lab's kernels and copies come from CUPTI's activity records: the
// kernels under their own names with their launch, the copies with their bytes, on the lanes
// of their streams, overlapping as with events; switching back to events works at once.
TEST_F(CudaStreamsLabTest, CuptiRecordsTheLab)
{
    m_timeline->setGpuTiming(GpuTiming::Cupti);
    StreamsLabConfig c;
    c.arrays = 6;
    c.length = 2'000'000;
    StreamsLabResult r;
    expectLabPasses(*m_cuda, c, r);
    ASSERT_TRUE(m_cuda->collectTimeline().ok());
    if (const std::string note = m_timeline->gpuTimingNote(); !note.empty())
        GTEST_SKIP() << note;
    m_timeline->clear();
    expectLabPasses(*m_cuda, c, r);
    ASSERT_TRUE(m_cuda->collectTimeline().ok());
    const TimelineSnapshot snap = m_timeline->snapshot();
    std::map<std::string, int> kernels;
    int copies = 0;
    double busyUs = 0.0;
    std::set<int> lanes;
    for (const Span& s : snap.spans) {
        if (snap.lanes[s.lane].find(": lab") == std::string::npos || s.kind == SpanKind::Host)
            continue;
        lanes.insert(s.lane);
        busyUs += s.durationUs();
        ASSERT_GT(s.durationUs(), 0.0) << s.name;
        if (s.kind == SpanKind::Kernel) {
            ++kernels[s.name];
            EXPECT_NE(s.detail.find("block ("), std::string::npos) << s.detail;
        } else {
            ++copies;
            EXPECT_EQ(s.bytes, std::uint64_t(c.length) * 4);
        }
    }
    EXPECT_EQ(kernels["partialSumsKernel"], c.arrays);
    EXPECT_EQ(kernels["finalSumKernel"], c.arrays);
    EXPECT_EQ(kernels["divideKernel"], c.arrays);
    EXPECT_EQ(copies, 2 * c.arrays);
    EXPECT_EQ(lanes.size(), std::size_t(c.arrays));
    EXPECT_GT(busyUs, 1000.0 * r.totalMs * 1.2);

    m_timeline->setGpuTiming(GpuTiming::Events);
    m_timeline->clear();
    expectLabPasses(*m_cuda, c, r);
    ASSERT_TRUE(m_cuda->collectTimeline().ok());
    int named = 0;
    for (const Span& s : m_timeline->snapshot().spans)
        named += s.name.rfind("partial sums", 0) == 0;
    EXPECT_EQ(named, c.arrays);
}

// With K streams and pinned memory the copies and kernels of different arrays run at the
// same time: the spans' durations add up to more than the job's wall time, and spans on
// different lanes overlap.
TEST_F(CudaStreamsLabTest, StreamsOverlap)
{
    StreamsLabConfig c;
    c.arrays = 8;
    c.length = 4'000'000;
    StreamsLabResult r;
    expectLabPasses(*m_cuda, c, r); // warm-up: allocations and first-touch
    ASSERT_TRUE(m_cuda->collectTimeline().ok());
    m_timeline->clear();
    expectLabPasses(*m_cuda, c, r);
    ASSERT_TRUE(m_cuda->collectTimeline().ok());
    const TimelineSnapshot snap = m_timeline->snapshot();
    double busyUs = 0.0;
    std::map<int, int> perLane;
    std::size_t spans = 0;
    for (const Span& s : snap.spans) {
        if (snap.lanes[s.lane].rfind("CUDA stream ", 0) != 0 ||
            snap.lanes[s.lane].find(": lab") == std::string::npos)
            continue;
        ++spans;
        ++perLane[s.lane];
        ASSERT_GE(s.durationUs(), 0.0) << s.name;
        busyUs += s.durationUs();
        if (s.kind == SpanKind::CopyHostToDevice || s.kind == SpanKind::CopyDeviceToHost)
            EXPECT_EQ(s.bytes, std::uint64_t(c.length) * 4);
    }
    EXPECT_EQ(spans, std::size_t(c.arrays) * 5);
    EXPECT_EQ(perLane.size(), std::size_t(c.arrays));
    // The host lane shows the queueing of each array.
    int queued = 0;
    for (const Span& s : snap.spans)
        queued += s.name.rfind("queue array", 0) == 0 && s.kind == SpanKind::Host;
    EXPECT_EQ(queued, c.arrays);
    EXPECT_GT(busyUs, 1000.0 * r.totalMs * 1.2)
        << "span total " << busyUs << " µs, wall " << 1000.0 * r.totalMs << " µs";
    // The lab's spans fit inside the job, give or take the clock alignment.
    const auto [first, last] =
        std::minmax_element(snap.spans.begin(), snap.spans.end(),
                            [](const Span& a, const Span& b) { return a.startUs < b.startUs; });
    EXPECT_GT(last->startUs, first->startUs);
}

// A field computed on the GPU leaves its kernel and copy on the field stream's lane, with the
// launch configuration, once the events have completed.
TEST_F(CudaStreamsLabTest, FieldWorkIsRecorded)
{
    DistanceParams p;
    p.nx = 1000;
    p.ny = 700;
    std::vector<float> out(layoutFor(p).elementCount());
    ASSERT_TRUE(computeDistance(*m_cuda, p, std::span<float>(out)).ok());
    ASSERT_TRUE(m_cuda->collectTimeline().ok());
    const TimelineSnapshot snap = m_timeline->snapshot();
    const Span* kernel = nullptr;
    const Span* copy = nullptr;
    for (const Span& s : snap.spans) {
        if (s.kind == SpanKind::Kernel)
            kernel = &s;
        if (s.name == "field to host")
            copy = &s;
    }
    ASSERT_NE(kernel, nullptr);
    ASSERT_NE(copy, nullptr);
    EXPECT_EQ(snap.lanes[kernel->lane], "CUDA stream: field");
    EXPECT_NE(kernel->detail.find("grid 8 x 11, block 32 x 8"), std::string::npos)
        << kernel->detail;
    EXPECT_GT(kernel->durationUs(), 0.0);
    EXPECT_LE(kernel->endUs, copy->startUs + 1.0);
    EXPECT_EQ(copy->bytes, out.size() * sizeof(float));
    // Converted to the host clock: the spans happened within the last second.
    EXPECT_LT(m_timeline->nowUs() - copy->endUs, 1e6);
    EXPECT_GE(m_timeline->nowUs(), copy->endUs);
}

} // namespace
} // namespace warpscope::gpu::test
