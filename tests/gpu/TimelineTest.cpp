#include "warpscope/gpu/Timeline.h"

#include "TestSupport.h"
#include "warpscope/gpu/TraceExport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <thread>

namespace warpscope::gpu::test {
namespace {

std::vector<Span> spansNamed(const TimelineSnapshot& snap, const std::string& prefix)
{
    std::vector<Span> out;
    for (const Span& s : snap.spans)
        if (s.name.rfind(prefix, 0) == 0)
            out.push_back(s);
    return out;
}

bool contains(const Span& outer, const Span& inner)
{
    return outer.lane == inner.lane && outer.startUs <= inner.startUs && inner.endUs <= outer.endUs;
}

TEST(Timeline, LanesAreFoundByName)
{
    Timeline timeline;
    const int a = timeline.lane("CUDA stream 1");
    const int b = timeline.lane("CUDA stream 2");
    EXPECT_NE(a, b);
    EXPECT_EQ(timeline.lane("CUDA stream 1"), a);
    EXPECT_EQ(timeline.snapshot().lanes.size(), 2u);
}

TEST(Timeline, ScopedSpansNestAndAreOrdered)
{
    Timeline timeline;
    const int lane = timeline.lane("host");
    {
        const ScopedHostSpan outer(&timeline, lane, "outer");
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        {
            const ScopedHostSpan first(&timeline, lane, "inner 1");
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        const ScopedHostSpan second(&timeline, lane, "inner 2");
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    const TimelineSnapshot snap = timeline.snapshot();
    ASSERT_EQ(snap.spans.size(), 3u);
    // Sorted by start: the outer span first, although it was added last.
    EXPECT_EQ(snap.spans[0].name, "outer");
    EXPECT_EQ(snap.spans[1].name, "inner 1");
    EXPECT_EQ(snap.spans[2].name, "inner 2");
    EXPECT_EQ(snap.spans[0].depth, 0);
    EXPECT_EQ(snap.spans[1].depth, 1);
    EXPECT_EQ(snap.spans[2].depth, 1);
    EXPECT_TRUE(contains(snap.spans[0], snap.spans[1]));
    EXPECT_TRUE(contains(snap.spans[0], snap.spans[2]));
    EXPECT_LE(snap.spans[1].endUs, snap.spans[2].startUs);
    EXPECT_GE(snap.spans[0].durationUs(), 3000.0);
}

TEST(Timeline, KeepsOnlyTheLastFrames)
{
    Timeline timeline(3);
    const int lane = timeline.lane("host");
    for (int f = 0; f < 6; ++f) {
        timeline.add(
            Span{lane, SpanKind::Host, "frame " + std::to_string(f), double(f), double(f) + 0.5});
        timeline.beginFrame();
    }
    // Three frames are kept: the one just begun (6, still empty), 5 and 4.
    const TimelineSnapshot snap = timeline.snapshot();
    ASSERT_EQ(snap.spans.size(), 2u);
    EXPECT_EQ(snap.spans[0].name, "frame 4");
    EXPECT_EQ(snap.spans[1].name, "frame 5");
    const std::uint64_t before = timeline.version();
    timeline.clear();
    EXPECT_NE(timeline.version(), before);
    EXPECT_TRUE(timeline.snapshot().spans.empty());
}

// The periodogram adds spans without ever beginning a frame; its work is grouped in frames of
// kLongestFrame, so Keep frames bounds it like the field's.
TEST(Timeline, WorkWithoutFramesIsTrimmedAsItIsAdded)
{
    Timeline timeline(3);
    const int lane = timeline.lane("periodogram");
    for (int k = 0; k < 10; ++k) {
        const double at = timeline.nowUs();
        timeline.add(Span{lane, SpanKind::Host, "compute " + std::to_string(k), at, at + 1.0});
        std::this_thread::sleep_for(Timeline::kLongestFrame + std::chrono::milliseconds(20));
    }
    const TimelineSnapshot snap = timeline.snapshot();
    ASSERT_EQ(snap.spans.size(), 3u);
    EXPECT_EQ(snap.spans[0].name, "compute 7");
    EXPECT_EQ(snap.spans[2].name, "compute 9");
}

TEST(Timeline, KeepsAtMostTheMaximumSpansWhateverTheFrames)
{
    Timeline timeline(100000);
    const int lane = timeline.lane("synthetic");
    const std::size_t extra = 1000;
    for (std::size_t k = 0; k < Timeline::kMaxSpans + extra; ++k) {
        timeline.add(Span{lane, SpanKind::Kernel, "k", double(k), double(k) + 0.5});
        if (k % 100 == 0)
            timeline.beginFrame();
    }
    const TimelineSnapshot snap = timeline.snapshot();
    ASSERT_EQ(snap.spans.size(), Timeline::kMaxSpans);
    EXPECT_EQ(snap.spans.front().startUs, double(extra)); // the oldest went
}

// The CPU records each worker's share of a field nested in the whole computation, which
// happens on the calling thread's lane; all of it is the CPU's kernel, not host work, and
// the timeline learns that the CPU copies nothing between host and device.
TEST(Timeline, CpuRecordsTheFieldAsAKernelWithWorkersInside)
{
    auto timeline = std::make_shared<Timeline>();
    auto backendOwner = cpuContext(3);
    Context& backend = *backendOwner;
    backend.setTimeline(timeline, "field");
    DistanceParams p;
    p.nx = 300;
    p.ny = 200;
    std::vector<float> out(layoutFor(p).elementCount());
    ASSERT_TRUE(computeDistance(backend, p, std::span<float>(out)).ok());
    ASSERT_TRUE(backend.collectTimeline().ok());
    const TimelineSnapshot snap = timeline->snapshot();
    const auto field = spansNamed(snap, "distance field");
    ASSERT_EQ(field.size(), 1u);
    EXPECT_EQ(snap.lanes[field[0].lane], "CPU thread 0: field");
    EXPECT_EQ(field[0].kind, SpanKind::Kernel);
    EXPECT_TRUE(timeline->canRecord(SpanKind::Kernel));
    EXPECT_TRUE(timeline->canRecord(SpanKind::Host));
    EXPECT_FALSE(timeline->canRecord(SpanKind::CopyHostToDevice));
    EXPECT_FALSE(timeline->canRecord(SpanKind::CopyDeviceToHost));
    const auto rows = spansNamed(snap, "rows ");
    ASSERT_EQ(rows.size(), 3u); // one share per thread
    std::set<int> lanes;
    for (const Span& r : rows) {
        lanes.insert(r.lane);
        EXPECT_GE(r.startUs, field[0].startUs);
        EXPECT_LE(r.endUs, field[0].endUs);
        EXPECT_EQ(r.kind, SpanKind::Kernel);
    }
    EXPECT_EQ(lanes.size(), 3u);
    for (const Span& r : rows)
        if (r.lane == field[0].lane)
            EXPECT_EQ(r.depth, field[0].depth + 1);
}

TimelineSnapshot sampleSnapshot()
{
    Timeline timeline;
    const int stream = timeline.lane("CUDA stream 1: lab");
    const int host = timeline.lane("Host \"main\", thread");
    timeline.add(Span{stream, SpanKind::CopyHostToDevice, "copy in 0", 1000.0, 1750.5, 40000000});
    timeline.add(Span{stream, SpanKind::Kernel, "divide, \"fast\"\n", 1751.0, 1780.25, 0,
                      "grid 264, block 256"});
    timeline.add(Span{host, SpanKind::Host, "glBufferSubData", 1100.0, 1200.0});
    return timeline.snapshot();
}

TEST(TraceExport, ChromeJsonParsesBackWithEverySpan)
{
    const TimelineSnapshot snap = sampleSnapshot();
    const std::string json = chromeTraceJson(snap);
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(json), &error);
    ASSERT_EQ(error.error, QJsonParseError::NoError) << error.errorString().toStdString();
    ASSERT_TRUE(doc.isObject());
    const QJsonArray events = doc.object().value("traceEvents").toArray();
    std::map<int, std::string> laneNames;
    std::vector<QJsonObject> complete;
    for (const QJsonValue& v : events) {
        const QJsonObject e = v.toObject();
        const QString ph = e.value("ph").toString();
        ASSERT_TRUE(ph == "X" || ph == "M") << ph.toStdString();
        ASSERT_EQ(e.value("pid").toInt(), 1);
        if (ph == "M" && e.value("name").toString() == "thread_name")
            laneNames[e.value("tid").toInt()] =
                e.value("args").toObject().value("name").toString().toStdString();
        if (ph == "X")
            complete.push_back(e);
    }
    ASSERT_EQ(laneNames.size(), snap.lanes.size());
    for (std::size_t lane = 0; lane < snap.lanes.size(); ++lane)
        EXPECT_EQ(laneNames[int(lane)], snap.lanes[lane]);
    ASSERT_EQ(complete.size(), snap.spans.size());
    for (std::size_t i = 0; i < complete.size(); ++i) {
        const QJsonObject& e = complete[i];
        const Span& s = snap.spans[i];
        EXPECT_EQ(e.value("name").toString().toStdString(), s.name);
        EXPECT_EQ(e.value("cat").toString().toStdString(), spanKindName(s.kind));
        EXPECT_EQ(e.value("tid").toInt(), s.lane);
        // Relative to the earliest span, in microseconds, to the nanosecond.
        EXPECT_NEAR(e.value("ts").toDouble(), s.startUs - 1000.0, 1e-3);
        EXPECT_NEAR(e.value("dur").toDouble(), s.durationUs(), 1e-3);
        const QJsonObject args = e.value("args").toObject();
        EXPECT_EQ(args.value("bytes").toDouble(0.0), double(s.bytes));
        EXPECT_EQ(args.value("detail").toString().toStdString(), s.detail);
    }
}

TEST(TraceExport, EmptyTimelineIsValidJson)
{
    const std::string json = chromeTraceJson(TimelineSnapshot{});
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(json), &error);
    ASSERT_EQ(error.error, QJsonParseError::NoError);
    EXPECT_TRUE(doc.object().value("traceEvents").isArray());
}

TEST(TraceExport, CsvQuotesFieldsThatNeedIt)
{
    const std::string csv = timelineCsv(sampleSnapshot());
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5); // header, 3 rows, one inside quotes
    EXPECT_EQ(csv.rfind("lane,kind,name,start_us,end_us,duration_us,bytes,detail,frame\n", 0), 0u);
    EXPECT_NE(csv.find("CUDA stream 1: lab,HtoD copy,copy in 0,1000.000,1750.500,750.500,"
                       "40000000,,0\n"),
              std::string::npos);
    EXPECT_NE(csv.find("\"divide, \"\"fast\"\"\n\""), std::string::npos);
    EXPECT_NE(csv.find("\"Host \"\"main\"\", thread\""), std::string::npos);
}

TEST(TraceExport, WritesFilesAndReportsUnwritablePaths)
{
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "warpscope-trace";
    std::filesystem::create_directories(dir);
    const std::string path = (dir / "trace.json").string();
    ASSERT_TRUE(writeTextFile(path, "{}\n").ok());
    std::ifstream in(path);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text, "{}\n");
    EXPECT_FALSE(std::filesystem::exists(path + ".partial"));

    const Status missing = writeTextFile("/nonexistent-folder/trace.json", "{}");
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.message().find("/nonexistent-folder/trace.json"), std::string::npos);
    EXPECT_FALSE(writeTextFile("", "{}").ok());
    EXPECT_FALSE(writeTextFile(dir.string(), "{}").ok()) << "a folder is not a file";
}

} // namespace
} // namespace warpscope::gpu::test
