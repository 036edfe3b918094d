// warpscope-bench: timings of Warpscope's frame path, printed as medians of repeated runs.
//
//   warpscope-bench distance [--size N] [--refs K] [--frames F] [--view WxH]
//
// With a CUDA device it renders headless through EGL on that device and reports, in one run:
//   - the interop frame: map, kernel, unmap and draw, wall clock up to glFinish;
//   - the host-copy frame: kernel, device-to-host copy, glBufferSubData and draw;
//   - the kernel alone, timed with CUDA events;
// and kernel times for other sizes, reference counts and precisions. Without CUDA it times
// the CPU backend's frame the same way.
#include "warpscope/gpu/Backend.h"
#include "warpscope/ui/FieldRenderer.h"
#include "warpscope/ui/HeadlessGl.h"

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

// Fills the field (the reference moves a little each run, as while dragging) and, with
// draw, draws it into the offscreen view.
bool timeFrames(gpu::Backend& backend, ui::FieldRenderer& renderer, ui::HeadlessGl& gl,
                const ui::FieldSurface& surface, gpu::DistanceParams p, int frames, FrameStats& out,
                bool draw = true)
{
    const ui::GeoRect mesh{p.lonMin, p.latMin, p.lonMax, p.latMax};
    const double lon0 = p.references[0].lon;
    return timeRuns(
        frames,
        [&](int k) {
            p.references[0].lon = lon0 + 1e-4 * (k % 50);
            if (gpu::Status s = backend.fillDistance(p, surface.glBuffer()); !s) {
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

FrameStats timeDrawOnly(ui::FieldRenderer& renderer, ui::HeadlessGl& gl,
                        const ui::FieldSurface& surface, const gpu::DistanceParams& p, int frames)
{
    const ui::GeoRect mesh{p.lonMin, p.latMin, p.lonMax, p.latMax};
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
    auto gl = ui::HeadlessGl::create(o.viewWidth, o.viewHeight, error);
    if (!gl) {
        std::fprintf(stderr, "warpscope-bench: %s\n", error.c_str());
        return 1;
    }
    ui::FieldRenderer renderer;
    if (gpu::Status s = renderer.initialize(); !s) {
        std::fprintf(stderr, "warpscope-bench: %s\n", s.message().c_str());
        return 1;
    }
    auto primary = gpu::createBackend(gpu::BackendKind::Auto, {true, false});
    std::printf("OpenGL: %s\nBackend: %s\n", gl->renderer().c_str(), primary.reason.c_str());
    std::printf("Frame: %d x %d float32 mesh, %d reference(s), %d x %d view, median of %d frames "
                "after 10 warm-up\n\n",
                o.size, o.size, o.refs, o.viewWidth, o.viewHeight, o.frames);

    const gpu::DistanceParams p = scene(o.size, o.refs, gpu::Precision::Float32);
    ui::FieldSurface surface;
    if (gpu::Status s = renderer.createSurface(gpu::layoutFor(p), surface); !s) {
        std::fprintf(stderr, "warpscope-bench: %s\n", s.message().c_str());
        return 1;
    }
    FrameStats primaryFrame;
    if (!timeFrames(*primary.backend, renderer, *gl, surface, p, o.frames, primaryFrame))
        return 1;
    FrameStats fillOnly;
    if (!timeFrames(*primary.backend, renderer, *gl, surface, p, o.frames, fillOnly, false))
        return 1;
    const FrameStats drawOnly = timeDrawOnly(renderer, *gl, surface, p, o.frames);
    const bool interop = primary.backend->displayPath() == gpu::DisplayPath::Interop;
    printFrame(interop ? "interop frame (map, kernel, unmap, draw)"
                       : "frame (compute, glBufferSubData, draw)",
               primaryFrame);
    printFrame(interop ? "fill alone (map, kernels, unmap)" : "fill alone (compute, upload)",
               fillOnly);
    printFrame("draw alone", drawOnly);

    if (primary.backend->kind() == gpu::BackendKind::Cuda) {
        auto hostCopy = gpu::createBackend(gpu::BackendKind::Cuda, {true, true});
        primary.backend->forgetGlBuffer(surface.buffer);
        FrameStats copyFrame;
        if (hostCopy.backend && timeFrames(*hostCopy.backend, renderer, *gl, surface, p,
                                           std::max(20, o.frames / 5), copyFrame)) {
            printFrame("host-copy frame (kernel, D2H, glBufferSubData, draw)", copyFrame);
            std::printf("  %-44s %9.1fx\n", "host-copy / interop",
                        copyFrame.medianMs / primaryFrame.medianMs);
        }
    }

    std::printf("\nKernel alone, median of %s after a warm-up:\n",
                primary.backend->kind() == gpu::BackendKind::Cuda
                    ? "100 launches timed with CUDA events"
                    : "5 runs by wall clock");
    struct Case
    {
        int size, refs;
        gpu::Precision precision;
    };
    const Case cases[] = {
        {o.size, o.refs, gpu::Precision::Float32}, {o.size, o.refs, gpu::Precision::Float64},
        {8192, 1, gpu::Precision::Float32},        {8192, 16, gpu::Precision::Float32},
        {8192, 64, gpu::Precision::Float32},       {8192, 16, gpu::Precision::Float64}};
    const bool cuda = primary.backend->kind() == gpu::BackendKind::Cuda;
    for (const Case& c : cases) {
        double ms = 0;
        const gpu::DistanceParams q = scene(c.size, c.refs, c.precision);
        if (gpu::Status s = primary.backend->timeKernel(q, cuda ? 100 : 5, ms); !s) {
            std::printf("  %5d x %-5d %2d refs %-7s  failed: %s\n", c.size, c.size, c.refs,
                        gpu::precisionName(c.precision), s.message().c_str());
            continue;
        }
        const double bytes = double(gpu::layoutFor(q).elementCount()) * 4.0;
        std::printf("  %5d x %-5d %2d refs %-7s  %10.4f ms  %7.1f GB/s written\n", c.size, c.size,
                    c.refs, gpu::precisionName(c.precision), ms, bytes / (ms * 1e6));
    }
    primary.backend->forgetGlBuffer(surface.buffer);
    renderer.destroySurface(surface);
    renderer.release();
    return 0;
}

int usage()
{
    std::fprintf(
        stderr,
        "usage: warpscope-bench distance [--size N] [--refs K] [--frames F] [--view WxH]\n");
    return 2;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2 || std::strcmp(argv[1], "distance") != 0)
        return usage();
    Options o;
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
    return runDistance(o);
}
