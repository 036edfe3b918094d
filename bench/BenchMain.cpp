// warpscope-bench: timings of Warpscope's frame path, printed as medians of repeated runs.
//
//   warpscope-bench distance [--size N] [--refs K] [--frames F] [--view WxH]
//   warpscope-bench streams [--arrays K] [--length L] [--runs R] [--trace DIR] [--no-timeline]
//   warpscope-bench streams --sweep 16 [--runs R]
//   warpscope-bench periodogram [--app-call] [--runs R]
//   warpscope-bench bls [--days D] [--periods P] [--durations K] [--runs R] [--cpu] (BlsBench.cpp)
//   warpscope-bench pdm|ce [--points N] [--periods K] [--runs R] [--csv]   (PhaseBench.cpp)
//   warpscope-bench batch make W1|W2 FILE.fits | run FILE.fits   (BatchBench.cpp)
//
// With a CUDA device it renders headless through EGL on that device and reports, in one run:
//   - the interop frame: map, kernel, unmap and draw, wall clock up to glFinish;
//   - the host-copy frame: kernel, device-to-host copy, glBufferSubData and draw;
//   - the kernel alone, timed with CUDA events;
// and kernel times for other sizes, reference counts and precisions. Without CUDA it times
// the CPU's frame the same way. The interop frame is also timed with the timeline
// recording, side by side, to show what recording costs.
//
// streams runs the streams lab with 1 stream and with K streams, on pinned and on pageable
// memory, and prints the median job time of each (CUDA events), the ratio, and the floor the
// copies allow, from the copy spans the timeline recorded.
#include "BatchBench.h"
#include "BlsBench.h"
#include "Help.h"
#include "PeriodogramBench.h"
#include "PhaseBench.h"
#include "warpscope/gpu/DevicePool.h"
#include "warpscope/gpu/Distance.h"
#include "warpscope/gpu/StreamsLab.h"
#include "warpscope/gpu/TraceExport.h"
#include "warpscope/render/FieldRenderer.h"
#include "warpscope/render/GlWriteScope.h"
#include "warpscope/render/HeadlessGl.h"

#define GL_GLEXT_PROTOTYPES
#include <GL/gl.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace warpscope;

namespace {

struct Options
{
    int size = 4096;
    int refs = 1;
    int frames = 200;
    int viewWidth = 1600, viewHeight = 1000;
    int arrays = 10;
    long long length = 10'000'000;
    int runs = 20;
    int sweep = 0;        // streams: time the same data split over K = 1..sweep streams
    std::string traceDir; // streams: write each mode's last run as Chrome trace JSON here
    bool record = true;   // streams: record spans (the floor needs them)
};

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

gpu::DistanceParams scene(int size, int refs, gpu::Precision precision)
{
    gpu::DistanceParams p;
    p.nx = p.ny = size;
    p.precision = precision;
    p.references.clear();
    for (int r = 0; r < refs; ++r) // spread over and around the mesh
        p.references.push_back(
            {28.5 + 3.0 * ((r * 37) % 16) / 15.0, 98.5 + 3.0 * ((r * 11) % 16) / 15.0});
    return p;
}

struct FrameStats
{
    double medianMs = 0, minMs = 0, maxMs = 0;
};

// Medians of `frames` runs of body, each timed by wall clock up to glFinish, after ten
// warm-up runs. body gets the run's index (negative while warming up).
bool timeRuns(int frames, const std::function<bool(int)>& body, FrameStats& out)
{
    std::vector<double> times;
    for (int k = -10; k < frames; ++k) {
        const auto t0 = std::chrono::steady_clock::now();
        if (!body(k))
            return false;
        glFinish();
        const std::chrono::duration<double, std::milli> dt = std::chrono::steady_clock::now() - t0;
        if (k >= 0)
            times.push_back(dt.count());
    }
    out = {median(times), *std::min_element(times.begin(), times.end()),
           *std::max_element(times.begin(), times.end())};
    return true;
}

// Writes the field into the surface's GL buffer, as the app's field view does.
gpu::Status fill(render::GlInterop& interop, const gpu::DistanceParams& p,
                 const render::FieldSurface& surface)
{
    render::GlWriteScope write(interop, surface.buffer, surface.bytes());
    gpu::Status s = write.status();
    if (s)
        s = gpu::launchDistance(interop.context(), p, write.view<float>());
    return s ? write.commit() : s;
}

// Fills the field (the reference moves a little each run, as while dragging) and, with
// draw, draws it into the offscreen view.
bool timeFrames(render::GlInterop& interop, render::FieldRenderer& renderer, render::HeadlessGl& gl,
                const render::FieldSurface& surface, gpu::DistanceParams p, int frames,
                FrameStats& out, bool draw = true)
{
    const render::GeoRect mesh{p.lonMin, p.latMin, p.lonMax, p.latMax};
    const double lon0 = p.references[0].lon;
    return timeRuns(
        frames,
        [&](int k) {
            p.references[0].lon = lon0 + 1e-4 * (k % 50);
            if (gpu::Status s = fill(interop, p, surface); !s) {
                std::fprintf(stderr, "fill failed: %s\n", s.message().c_str());
                return false;
            }
            if (draw) {
                gl.bindFramebuffer();
                renderer.draw(surface, mesh, mesh, {0, 0, gl.width(), gl.height()}, {0, 0, 0});
            }
            return true;
        },
        out);
}

FrameStats timeDrawOnly(render::FieldRenderer& renderer, render::HeadlessGl& gl,
                        const render::FieldSurface& surface, const gpu::DistanceParams& p,
                        int frames)
{
    const render::GeoRect mesh{p.lonMin, p.latMin, p.lonMax, p.latMax};
    FrameStats out;
    timeRuns(
        frames,
        [&](int) {
            gl.bindFramebuffer();
            renderer.draw(surface, mesh, mesh, {0, 0, gl.width(), gl.height()}, {0, 0, 0});
            return true;
        },
        out);
    return out;
}

void printFrame(const char* name, const FrameStats& s)
{
    std::printf("  %-44s median %9.3f ms   (min %.3f, max %.3f)\n", name, s.medianMs, s.minMs,
                s.maxMs);
}

int runDistance(const Options& o)
{
    std::string error;
    auto gl = render::HeadlessGl::create(o.viewWidth, o.viewHeight, error);
    if (!gl) {
        std::fprintf(stderr, "warpscope-bench: %s\n", error.c_str());
        return 1;
    }
    render::FieldRenderer renderer;
    if (gpu::Status s = renderer.initialize(); !s) {
        std::fprintf(stderr, "warpscope-bench: %s\n", s.message().c_str());
        return 1;
    }
    gpu::DevicePool devices(gpu::BackendKind::Auto, -1, nullptr);
    std::unique_ptr<gpu::Context> context;
    std::string why;
    if (gpu::Status s = devices.openDisplay("field", render::glCudaDevices(), true, context, why);
        !s) {
        std::fprintf(stderr, "warpscope-bench: %s\n", s.message().c_str());
        return 1;
    }
    auto primary = std::make_unique<render::GlInterop>(*context);
    std::printf("OpenGL: %s\nDevice: %s\n", gl->renderer().c_str(), why.c_str());
    std::printf("Frame: %d x %d float32 mesh, %d reference(s), %d x %d view, median of %d frames "
                "after 10 warm-up\n\n",
                o.size, o.size, o.refs, o.viewWidth, o.viewHeight, o.frames);

    const gpu::DistanceParams p = scene(o.size, o.refs, gpu::Precision::Float32);
    render::FieldSurface surface;
    if (gpu::Status s = renderer.createSurface(gpu::layoutFor(p), surface); !s) {
        std::fprintf(stderr, "warpscope-bench: %s\n", s.message().c_str());
        return 1;
    }
    FrameStats primaryFrame;
    if (!timeFrames(*primary, renderer, *gl, surface, p, o.frames, primaryFrame))
        return 1;
    FrameStats fillOnly;
    if (!timeFrames(*primary, renderer, *gl, surface, p, o.frames, fillOnly, false))
        return 1;
    const FrameStats drawOnly = timeDrawOnly(renderer, *gl, surface, p, o.frames);
    const bool interop = primary->interop();
    printFrame(interop ? "interop frame (map, kernel, unmap, draw)"
                       : "frame (compute, glBufferSubData, draw)",
               primaryFrame);
    printFrame(interop ? "fill alone (map, kernels, unmap)" : "fill alone (compute, upload)",
               fillOnly);
    printFrame("draw alone", drawOnly);

    // The recorder's cost: the same frame without and with the timeline, then without again,
    // so drift between the runs shows.
    auto timeline = std::make_shared<gpu::Timeline>();
    FrameStats recorded, plainAgain;
    context->setTimeline(timeline, "field");
    const bool recordedOk = timeRuns(
        o.frames,
        [&](int k) {
            timeline->beginFrame();
            gpu::DistanceParams q = p;
            q.references[0].lon += 1e-4 * (k % 50);
            if (!fill(*primary, q, surface) || !context->collectTimeline())
                return false;
            gl->bindFramebuffer();
            renderer.draw(surface, {p.lonMin, p.latMin, p.lonMax, p.latMax},
                          {p.lonMin, p.latMin, p.lonMax, p.latMax},
                          {0, 0, gl->width(), gl->height()}, {0, 0, 0});
            return true;
        },
        recorded);
    context->setTimeline(nullptr, "field");
    if (recordedOk && timeFrames(*primary, renderer, *gl, surface, p, o.frames, plainAgain)) {
        printFrame("frame with the timeline recording", recorded);
        printFrame("frame without it, again", plainAgain);
        std::printf("  %-44s %+9.3f ms\n", "recording cost per frame",
                    recorded.medianMs - (primaryFrame.medianMs + plainAgain.medianMs) / 2.0);
        std::printf("  %-44s %9zu\n", "spans kept from those frames",
                    timeline->snapshot().spans.size());
    }

    const bool cuda = context->isCuda();
    if (cuda && interop) {
        // The least a frame that computes with CUDA and then draws with OpenGL costs, whatever
        // the sharing: the kernels into the context's own memory (a warm-up launch and one
        // timed, then a sync), then the draw of the field as it stands, nothing mapped. Less
        // one kernel, that is kernel + switch + draw, the switch being the GPU's move from
        // CUDA work to GL work (warpscope-interop-floor shows it with a buffer shared by
        // CUDA's virtual memory API instead of a map). The interop frame's target: within 15 %.
        double kernelMs = 0;
        FrameStats unshared;
        const render::GeoRect mesh{p.lonMin, p.latMin, p.lonMax, p.latMax};
        if (gpu::timeDistanceKernel(*context, p, 100, kernelMs) &&
            timeRuns(
                o.frames,
                [&](int) {
                    double ms = 0;
                    if (!gpu::timeDistanceKernel(*context, p, 1, ms))
                        return false;
                    gl->bindFramebuffer();
                    renderer.draw(surface, mesh, mesh, {0, 0, gl->width(), gl->height()},
                                  {0, 0, 0});
                    return true;
                },
                unshared)) {
            const double floorMs = unshared.medianMs - kernelMs;
            printFrame("kernels, sync, then draw; nothing shared", unshared);
            std::printf("  %-44s %9.3f ms   (the line above less one kernel, %.4f ms)\n",
                        "kernel + switch + draw", floorMs, kernelMs);
            std::printf("  %-44s %9.2fx   %s\n", "interop frame / (kernel + switch + draw)",
                        primaryFrame.medianMs / floorMs,
                        primaryFrame.medianMs <= 1.15 * floorMs ? "(within 15 %)"
                                                                : "(MORE than 15 % above)");
        }
    }
    if (cuda) {
        primary->forget(surface.buffer);
        render::GlInterop hostCopy(*context, false);
        FrameStats copyFrame;
        if (timeFrames(hostCopy, renderer, *gl, surface, p, std::max(20, o.frames / 5),
                       copyFrame)) {
            printFrame("host-copy frame (kernel, D2H, glBufferSubData, draw)", copyFrame);
            std::printf("  %-44s %9.1fx\n", "host-copy / interop",
                        copyFrame.medianMs / primaryFrame.medianMs);
        }
    }

    std::printf("\nKernel alone, median of %s after a warm-up:\n",
                cuda ? "100 launches timed with CUDA events" : "5 runs by wall clock");
    struct Case
    {
        int size, refs;
        gpu::Precision precision;
    };
    const Case cases[] = {
        {o.size, o.refs, gpu::Precision::Float32}, {o.size, o.refs, gpu::Precision::Float64},
        {8192, 1, gpu::Precision::Float32},        {8192, 16, gpu::Precision::Float32},
        {8192, 64, gpu::Precision::Float32},       {8192, 16, gpu::Precision::Float64}};
    for (const Case& c : cases) {
        double ms = 0;
        const gpu::DistanceParams q = scene(c.size, c.refs, c.precision);
        if (gpu::Status s = gpu::timeDistanceKernel(*context, q, cuda ? 100 : 5, ms); !s) {
            std::printf("  %5d x %-5d %2d refs %-7s  failed: %s\n", c.size, c.size, c.refs,
                        gpu::precisionName(c.precision), s.message().c_str());
            continue;
        }
        const double bytes = double(gpu::layoutFor(q).elementCount()) * 4.0;
        std::printf("  %5d x %-5d %2d refs %-7s  %10.4f ms  %7.1f GB/s written\n", c.size, c.size,
                    c.refs, gpu::precisionName(c.precision), ms, bytes / (ms * 1e6));
    }
    primary.reset(); // its registration goes before the buffer it names
    renderer.destroySurface(surface);
    renderer.release();
    return 0;
}

struct LabStats
{
    FrameStats time;
    double worstError = 0.0;
    bool passed = true;
};

bool timeLab(gpu::Context& context, const gpu::StreamsLabConfig& c, int runs, LabStats& out,
             gpu::Timeline* timeline = nullptr)
{
    std::vector<double> times;
    for (int k = -2; k < runs; ++k) {
        if (timeline && k == runs - 1) { // keep the spans of the last run only
            context.collectTimeline();
            timeline->clear();
        }
        gpu::StreamsLabResult r;
        if (gpu::Status s = gpu::runStreamsLab(context, c, r); !s) {
            std::fprintf(stderr, "warpscope-bench: %s\n", s.message().c_str());
            return false;
        }
        if (k < 0)
            continue;
        times.push_back(r.totalMs);
        out.passed = out.passed && r.passed();
        out.worstError = std::max({out.worstError, r.worstSumError, r.worstElementError});
    }
    if (gpu::Status s = context.collectTimeline(); !s)
        std::fprintf(stderr, "warpscope-bench: %s\n", s.message().c_str());
    out.time = {median(times), *std::min_element(times.begin(), times.end()),
                *std::max_element(times.begin(), times.end())};
    return true;
}

int runStreams(const Options& o)
{
    gpu::DevicePool devices(gpu::BackendKind::Auto, -1, nullptr);
    std::unique_ptr<gpu::Context> opened;
    if (gpu::Status s = devices.open("lab", opened); !s) {
        std::fprintf(stderr, "warpscope-bench: %s\n", s.message().c_str());
        return 1;
    }
    gpu::Context& context = *opened;
    const bool cuda = context.isCuda();
    std::printf("Device: %s\n", devices.summary().c_str());
    std::printf("Streams lab: %d arrays of %lld float32 values (%.0f MB in, %.0f MB out), median "
                "of %d runs after 2 warm-up, job timed with %s\n\n",
                o.arrays, o.length, o.arrays * o.length * 4e-6, o.arrays * o.length * 4e-6, o.runs,
                cuda ? "CUDA events" : "the host clock");
    gpu::StreamsLabConfig c;
    c.arrays = o.arrays;
    c.length = o.length;
    auto timeline = std::make_shared<gpu::Timeline>();
    if (o.record)
        context.setTimeline(timeline, "lab");

    struct Mode
    {
        bool pinned, multi, ordered;
        const char* name;
    };
    const Mode modes[] = {{true, false, false, "pinned, 1 stream"},
                          {true, true, false, "pinned, K streams"},
                          {true, true, true, "pinned, K streams, copies in order"},
                          {false, false, false, "pageable, 1 stream"},
                          {false, true, false, "pageable, K streams"}};
    double pinnedOne = 0, pinnedMany = 0, copyInUs = 0, copyOutUs = 0;
    for (const Mode& m : modes) {
        c.pinned = m.pinned;
        c.multiStream = m.multi;
        c.orderCopies = m.ordered;
        LabStats stats;
        if (!timeLab(context, c, m.pinned ? o.runs : std::max(3, o.runs / 4), stats,
                     timeline.get()))
            return 1;
        std::printf("  %-36s median %8.3f ms   (min %.3f, max %.3f)   %s, worst error %.1e\n",
                    m.name, stats.time.medianMs, stats.time.minMs, stats.time.maxMs,
                    stats.passed ? "sums checked" : "CHECK FAILED", stats.worstError);
        if (!stats.passed)
            return 1;
        if (!o.traceDir.empty()) {
            const std::string path = o.traceDir + "/streams-" +
                                     (m.pinned ? "pinned-" : "pageable-") + (m.multi ? "k" : "1") +
                                     (m.ordered ? "-ordered" : "") + ".json";
            if (gpu::Status s =
                    gpu::writeTextFile(path, gpu::chromeTraceJson(timeline->snapshot()));
                !s)
                std::fprintf(stderr, "warpscope-bench: %s\n", s.message().c_str());
        }
        if (m.pinned && !m.multi) {
            pinnedOne = stats.time.medianMs;
            // With one stream nothing overlaps, so the copy spans are the copies' own times.
            for (const gpu::Span& s : timeline->snapshot().spans) {
                if (s.kind == gpu::SpanKind::CopyHostToDevice)
                    copyInUs += s.durationUs();
                if (s.kind == gpu::SpanKind::CopyDeviceToHost)
                    copyOutUs = std::max(copyOutUs, s.durationUs());
            }
        }
        if (m.pinned && m.multi && !m.ordered)
            pinnedMany = stats.time.medianMs;
    }
    std::printf("\n  %-36s %8.2fx\n", "1 stream / K streams (pinned)", pinnedOne / pinnedMany);
    if (cuda && o.record) {
        // What the timing costs the job: pinned, K streams, timed with events, with CUPTI and
        // without a timeline, in rounds so that drift touches each alike.
        c.pinned = c.multiStream = true;
        c.orderCopies = false;
        std::vector<double> events, cupti, none;
        std::string note;
        for (int round = 0; round < 3; ++round)
            for (int way = 0; way < 3; ++way) {
                context.setTimeline(way == 2 ? nullptr : timeline, "lab");
                timeline->setGpuTiming(way == 1 ? gpu::GpuTiming::Cupti : gpu::GpuTiming::Events);
                LabStats stats;
                if (!timeLab(context, c, std::max(3, o.runs / 3), stats, nullptr))
                    return 1;
                if (way == 1 && note.empty())
                    note = timeline->gpuTimingNote();
                (way == 0 ? events : way == 1 ? cupti : none).push_back(stats.time.medianMs);
            }
        context.setTimeline(timeline, "lab");
        timeline->setGpuTiming(gpu::GpuTiming::Events);
        std::printf("  pinned, K streams, by timing (medians of 3 rounds): events %.3f ms, "
                    "CUPTI %.3f ms%s, no timeline %.3f ms\n",
                    median(events), median(cupti),
                    note.empty() ? "" : (" (fell back to events: " + note + ")").c_str(),
                    median(none));
    }
    if (cuda && copyInUs > 0) {
        const double gbps = o.arrays * o.length * 4e-3 / copyInUs;
        std::printf("  %-36s %8.3f ms   (all copies in at %.1f GB/s, then one array back, "
                    "from the 1-stream spans)\n",
                    "floor", (copyInUs + copyOutUs) / 1000.0, gbps);
    }
    if (cuda) {
        // The floor above assumes the link carries both ways at full rate; this measures what
        // it carries when it must, with the same arrays and no kernels.
        c.pinned = c.multiStream = true;
        gpu::StreamsLinkFloor link;
        if (gpu::Status s = gpu::measureStreamsLinkFloor(context, c, o.runs, link); !s) {
            std::fprintf(stderr, "warpscope-bench: %s\n", s.message().c_str());
            return 1;
        }
        const double megabytes = o.arrays * o.length * 4e-6;
        std::printf("  %-36s %8.3f ms   (every array in while all but the last go out, then the "
                    "last out: %.1f GB/s in both directions together; in alone %.3f ms, %.1f "
                    "GB/s)\n",
                    "link floor, both ways at once", link.duplexMs, 2.0 * megabytes / link.duplexMs,
                    link.inMs, megabytes / link.inMs);
    }
    return 0;
}

// The lesson's question as a chart: the same data (arrays x length values) split into K
// arrays on K streams, K = 1..upTo, pinned; median job time of each, and the floor for each K
// from the 1-stream spans (every copy in, then one K-th of the data back).
int runStreamsSweep(const Options& o)
{
    gpu::DevicePool devices(gpu::BackendKind::Auto, -1, nullptr);
    std::unique_ptr<gpu::Context> opened;
    if (gpu::Status s = devices.open("lab", opened); !s) {
        std::fprintf(stderr, "warpscope-bench: %s\n", s.message().c_str());
        return 1;
    }
    gpu::Context& context = *opened;
    auto timeline = std::make_shared<gpu::Timeline>();
    context.setTimeline(timeline, "lab");
    const long long total = o.arrays * o.length;
    std::printf("Device: %s\nStreams sweep: %lld float32 values (%.0f MB each way) split into K "
                "arrays on K streams, pinned; median of %d runs after 2 warm-up\n\n",
                devices.summary().c_str(), total, total * 4e-6, o.runs);
    double copyInUs = 0, copyOutUs = 0;
    for (int k = 1; k <= o.sweep; ++k) {
        gpu::StreamsLabConfig c;
        c.arrays = k;
        c.length = (total + k - 1) / k;
        c.pinned = true;
        c.multiStream = k > 1;
        LabStats stats;
        if (!timeLab(context, c, o.runs, stats, timeline.get()))
            return 1;
        if (k == 1)
            for (const gpu::Span& s : timeline->snapshot().spans) {
                if (s.kind == gpu::SpanKind::CopyHostToDevice)
                    copyInUs += s.durationUs();
                if (s.kind == gpu::SpanKind::CopyDeviceToHost)
                    copyOutUs = std::max(copyOutUs, s.durationUs());
            }
        std::printf("  K %2d  median %8.3f ms   (min %.3f, max %.3f)   floor %8.3f ms   %s\n", k,
                    stats.time.medianMs, stats.time.minMs, stats.time.maxMs,
                    (copyInUs + copyOutUs / k) / 1000.0,
                    stats.passed ? "sums checked" : "CHECK FAILED");
        if (!stats.passed)
            return 1;
    }
    return 0;
}

int usage(bool asked = false)
{
    return bench::printUsage(
        "usage: warpscope-bench distance [--size N] [--refs K] [--frames F] [--view WxH]\n"
        "       warpscope-bench streams [--arrays K] [--length L] [--runs R] [--trace DIR] "
        "[--no-timeline]\n"
        "       warpscope-bench streams --sweep K [--arrays K] [--length L] [--runs R]\n"
        "       warpscope-bench periodogram [--app-call] [--runs R]\n"
        "       warpscope-bench bls [--days D] [--periods P] [--durations K] [--runs R] [--cpu]\n"
        "       warpscope-bench pdm|ce [--points N] [--periods K] [--runs R] [--csv]\n"
        "       warpscope-bench batch make|run ... (warpscope-bench batch --help)\n",
        asked);
}

} // namespace

int main(int argc, char** argv)
{
    if (argc >= 2 && std::strcmp(argv[1], "batch") == 0)
        return runBatchBench(argc - 2, argv + 2);
    if (argc >= 2 && (std::strcmp(argv[1], "pdm") == 0 || std::strcmp(argv[1], "ce") == 0))
        return runPhaseBench(argv[1], argc - 2, argv + 2);
    if (bench::asksForHelp(argc, argv))
        return usage(true);
    if (argc >= 2 && std::strcmp(argv[1], "bls") == 0)
        return runBlsBench(argc - 2, argv + 2);
    if (argc >= 2 && std::strcmp(argv[1], "periodogram") == 0) {
        int runs = 10;
        bool appCall = false;
        for (int i = 2; i < argc; ++i) {
            if (std::strcmp(argv[i], "--app-call") == 0)
                appCall = true;
            else if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
                runs = std::atoi(argv[++i]);
            else
                return usage();
        }
        return runs < 1 ? usage() : runPeriodogramBench(runs, appCall);
    }
    if (argc < 2 || (std::strcmp(argv[1], "distance") != 0 && std::strcmp(argv[1], "streams") != 0))
        return usage();
    const bool streams = std::strcmp(argv[1], "streams") == 0;
    Options o;
    if (streams && argc > 2 && std::strcmp(argv[argc - 1], "--no-timeline") == 0) {
        o.record = false;
        --argc;
    }
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
        if (!value)
            return usage();
        if (arg == "--size")
            o.size = std::atoi(value);
        else if (arg == "--refs")
            o.refs = std::atoi(value);
        else if (arg == "--frames")
            o.frames = std::atoi(value);
        else if (arg == "--arrays")
            o.arrays = std::atoi(value);
        else if (arg == "--length")
            o.length = std::atoll(value);
        else if (arg == "--runs")
            o.runs = std::atoi(value);
        else if (arg == "--sweep" && streams)
            o.sweep = std::atoi(value);
        else if (arg == "--trace")
            o.traceDir = value;
        else if (arg == "--view" && std::sscanf(value, "%dx%d", &o.viewWidth, &o.viewHeight) == 2) {
        } else
            return usage();
        ++i;
    }
    if (o.size < gpu::kMinMeshAxis || o.size > gpu::kMaxMeshAxis || o.refs < 1 ||
        o.refs > gpu::kMaxReferencePoints || o.frames < 1 || o.viewWidth < 16 ||
        o.viewHeight < 16) {
        std::fprintf(stderr,
                     "warpscope-bench: size 2..16384, refs 1..64, frames >= 1, view >= 16x16\n");
        return 2;
    }
    if (streams) {
        gpu::StreamsLabConfig c;
        c.arrays = o.arrays;
        c.length = o.length;
        if (const auto problems = gpu::validateStreamsLab(c); !problems.empty() || o.runs < 1) {
            std::fprintf(stderr, "warpscope-bench: %s\n",
                         problems.empty() ? "runs must be at least 1" : problems.front().c_str());
            return 2;
        }
        if (o.sweep < 0 || o.sweep > gpu::kStreamsLabMaxArrays) {
            std::fprintf(stderr, "warpscope-bench: --sweep takes 1 to %d\n",
                         gpu::kStreamsLabMaxArrays);
            return 2;
        }
        return o.sweep > 0 ? runStreamsSweep(o) : runStreams(o);
    }
    return runDistance(o);
}
