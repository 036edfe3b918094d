// warpscope-bench periodogram: medians of the Lomb-Scargle periodogram on the CPU and the GPU, and
// SciPy's signal.lombscargle on the same data in the same run when Python has SciPy.
#include "PeriodogramBench.h"

#include "warpscope/gpu/Periodogram.h"
#include "warpscope/gpu/Spectrum.h"
#include "warpscope/render/GlWriteScope.h"
#include "warpscope/render/HeadlessGl.h"
#include "warpscope/render/SpectrumRenderer.h"

#define GL_GLEXT_PROTOTYPES
#include <GL/gl.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numbers>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

using namespace warpscope;

namespace {

gpu::TimeSeries syntheticSeries(int n)
{
    std::mt19937 rng(42);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::normal_distribution<double> noise(0.0, 0.5);
    gpu::TimeSeries s;
    for (int i = 0; i < n; ++i) {
        const double t = 1000.0 * u(rng);
        s.t.push_back(t);
        s.y.push_back(std::sin(2 * std::numbers::pi * t / 13.7) + noise(rng));
    }
    return s;
}

// A grid of count frequencies up to about 50 cycles per unit time, as a survey would use.
gpu::PeriodogramOptions options(long long count, gpu::Precision precision, bool fitMean = true,
                                gpu::PeriodogramMethod method = gpu::PeriodogramMethod::Auto)
{
    gpu::PeriodogramOptions o;
    o.method = method;
    o.grid = {0.001, 50.0 / double(count), count};
    o.precision = precision;
    o.fitMean = fitMean;
    if (!fitMean)
        o.normalization = gpu::Normalization::Psd; // what scipy.signal.lombscargle computes
    return o;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

struct Timing
{
    double kernelMs = 0, callMs = 0;
};

bool timePeriodogram(gpu::Context& context, int n, const gpu::PeriodogramOptions& o, int runs,
                     Timing& out)
{
    const gpu::TimeSeries s = syntheticSeries(n);
    std::vector<double> power(std::size_t(o.grid.count));
    std::vector<double> kernel, call;
    double kernelMs = 0.0;
    const auto compute = [&] {
        const gpu::Status st =
            gpu::computePeriodogram(context, s, o, std::span<double>(power), &kernelMs);
        if (!st)
            std::fprintf(stderr, "warpscope-bench: %s\n", st.message().c_str());
        return st.ok();
    };
    // Untimed runs for at least 200 ms first: a GPU idling at its lowest clock takes about
    // that long to reach its working clock, which the first case measured would otherwise pay.
    const auto warm = std::chrono::steady_clock::now();
    do {
        if (!compute())
            return false;
    } while (std::chrono::steady_clock::now() - warm < std::chrono::milliseconds(200));
    for (int k = 0; k < runs; ++k) {
        const auto t0 = std::chrono::steady_clock::now();
        if (!compute())
            return false;
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count();
        call.push_back(ms);
        kernel.push_back(kernelMs);
    }
    out = {median(kernel), median(call)};
    return true;
}

// Where a whole call's time goes: the timeline's own spans of each call (host work on the
// calling thread, the copies and kernels on their streams), as medians over the calls of each
// span's start and end after the call began. The user sees the same spans in the Timeline
// panel. Timed with CUDA events, the GPU's spans are the steps as the code names them; from
// CUPTI's records, each kernel and copy as the GPU ran it, gaps and overlaps included.
// appCall: the app's computeSpectrum rather than computePeriodogram into host memory.
void printCallSpans(gpu::Context& context, int n, const gpu::PeriodogramOptions& o, int runs,
                    bool appCall, gpu::GpuTiming timing = gpu::GpuTiming::Events)
{
    auto timeline = std::make_shared<gpu::Timeline>(runs + 4);
    timeline->setGpuTiming(timing);
    context.setTimeline(timeline, "periodogram");
    const gpu::TimeSeries s = syntheticSeries(n);
    std::vector<double> power(std::size_t(appCall ? 0 : o.grid.count));
    std::shared_ptr<const gpu::Spectrum> spectrum; // the last one stays, as in the app
    struct Offsets
    {
        std::string lane;
        std::vector<double> start, end;
    };
    std::vector<std::pair<std::string, Offsets>> spans; // in the order first seen
    std::vector<double> whole;
    for (int k = 0; k < runs + 2; ++k) {
        timeline->clear();
        const double began = timeline->nowUs();
        double kernelMs = 0.0;
        std::shared_ptr<const gpu::Spectrum> next;
        if (appCall ? !gpu::computeSpectrum(context, s, o, next)
                    : !gpu::computePeriodogram(context, s, o, std::span<double>(power), &kernelMs))
            return;
        spectrum = std::move(next);
        const double ended = timeline->nowUs();
        if (!context.collectTimeline())
            return;
        if (k < 2)
            continue; // warm-up
        whole.push_back((ended - began) / 1000.0);
        const gpu::TimelineSnapshot snap = timeline->snapshot();
        std::vector<std::pair<std::string, int>> seen;
        for (const gpu::Span& span : snap.spans) {
            // The n-th span of a name in this call is matched with the n-th of the others.
            int nth = 0;
            for (auto& [name, count] : seen)
                if (name == span.name)
                    nth = ++count;
            if (nth == 0)
                seen.emplace_back(span.name, 0);
            const std::string key = span.name + (nth ? " #" + std::to_string(nth + 1) : "");
            auto it = std::find_if(spans.begin(), spans.end(),
                                   [&](const auto& e) { return e.first == key; });
            if (it == spans.end()) {
                spans.push_back({key, {snap.lanes[std::size_t(span.lane)], {}, {}}});
                it = spans.end() - 1;
            }
            it->second.start.push_back((span.startUs - began) / 1000.0);
            it->second.end.push_back((span.endUs - began) / 1000.0);
        }
    }
    const std::string note = timeline->gpuTimingNote();
    context.setTimeline(nullptr, "periodogram");
    std::printf("  where %s time goes (%s, N %d, M 2^%d, %s; timeline spans %s, medians of %d "
                "calls, ms after the call began):\n",
                appCall ? "the app's call's" : "the call's", gpu::precisionName(o.precision), n,
                int(std::log2(double(o.grid.count))),
                o.method == gpu::PeriodogramMethod::Matrix ? "matrix" : "direct",
                timing == gpu::GpuTiming::Cupti && note.empty()
                    ? "from CUPTI's records"
                    : ("with CUDA events" + (note.empty() ? "" : " (" + note + ")")).c_str(),
                runs);
    std::sort(spans.begin(), spans.end(), [](const auto& a, const auto& b) {
        return median(a.second.start) < median(b.second.start);
    });
    for (const auto& [name, at] : spans)
        std::printf("    %8.3f .. %8.3f  %-34s %s\n", median(at.start), median(at.end),
                    name.c_str(), at.lane.c_str());
    std::printf("    %8.3f            the call returns (median of the traced calls)\n",
                median(whole));
}

// The app's own path: computeSpectrum keeps the powers on the device and brings back only the
// peaks, so its whole call is what a user waits for in the Periodogram workspace.
bool timeSpectrumCall(gpu::Context& context, int n, const gpu::PeriodogramOptions& o, int runs,
                      Timing& out)
{
    const gpu::TimeSeries s = syntheticSeries(n);
    std::vector<double> kernel, call;
    for (int k = 0; k < runs + 3; ++k) {
        std::shared_ptr<const gpu::Spectrum> spectrum;
        const auto t0 = std::chrono::steady_clock::now();
        if (const gpu::Status st = gpu::computeSpectrum(context, s, o, spectrum); !st) {
            std::fprintf(stderr, "warpscope-bench: %s\n", st.message().c_str());
            return false;
        }
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count();
        if (k < 3)
            continue;
        call.push_back(ms);
        kernel.push_back(spectrum->computeMs());
    }
    out = {median(kernel), median(call)};
    return true;
}

// SciPy's time for the same series and grid, or a negative value when it cannot run.
double scipySeconds(int n, const gpu::PeriodogramOptions& o)
{
    char path[] = "/tmp/warpscope-bench-XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    FILE* f = fdopen(fd, "w");
    const gpu::TimeSeries s = syntheticSeries(n);
    for (std::size_t i = 0; i < s.t.size(); ++i)
        std::fprintf(f, "%.17g %.17g\n", s.t[i], s.y[i]);
    std::fclose(f);
    const std::string script =
        "import sys, time, numpy as np; from scipy.signal import lombscargle; "
        "d = np.loadtxt('" +
        std::string(path) +
        "'); t, y = d[:, 0], d[:, 1] - d[:, 1].mean(); "
        "w = 2 * np.pi * (" +
        std::to_string(o.grid.fmin) + " + " + std::to_string(o.grid.df) + " * np.arange(" +
        std::to_string(o.grid.count) +
        ")); ts = []\n"
        "for k in range(3):\n"
        "    a = time.perf_counter(); lombscargle(t, y, w); ts.append(time.perf_counter() - a)\n"
        "print(sorted(ts)[1])";
    double seconds = -1;
    for (const char* python : {"python3", "/usr/bin/python3"}) {
        const std::string command = std::string(python) + " -c \"" + script + "\" 2>/dev/null";
        if (FILE* p = popen(command.c_str(), "r")) {
            if (std::fscanf(p, "%lf", &seconds) != 1)
                seconds = -1;
            pclose(p);
        }
        if (seconds > 0)
            break;
    }
    std::remove(path);
    return seconds;
}

// The plot's line for a spectrum of 2^24 frequencies, as a zoom or pan redraws it: the vertex
// buffer refilled for a slightly moved axis and drawn, wall clock up to glFinish, median of
// `runs` after a warm-up. Through interop where allowed and OpenGL runs on the context's
// GPU, else staged and uploaded.
void timeSpectrumLine(gpu::Context& context, bool allowInterop, render::HeadlessGl& gl,
                      const char* label, int runs)
{
    gpu::TimeSeries s = syntheticSeries(256);
    gpu::PeriodogramOptions o = options(1 << 24, gpu::Precision::Float64);
    std::shared_ptr<const gpu::Spectrum> spectrum;
    if (gpu::Status st = gpu::computeSpectrum(context, s, o, spectrum); !st) {
        std::printf("  %-34s %s\n", label, st.message().c_str());
        return;
    }
    render::SpectrumRenderer renderer;
    const int columns = gl.width();
    if (!renderer.initialize() || !renderer.reserve(columns)) {
        std::printf("  %-34s no renderer\n", label);
        return;
    }
    auto interop = std::make_unique<render::GlInterop>(context, allowInterop);
    const std::size_t bytes = std::size_t(columns) * gpu::kSpectrumFloatsPerColumn * sizeof(float);
    std::vector<double> times;
    int slowFrames = 0;
    for (int k = -5; k < runs; ++k) {
        const double shift = 0.001 * (k + 5) * o.grid.df * double(o.grid.count);
        const gpu::SpectrumAxis axis{
            o.grid.fmin + shift, o.grid.fmax() - shift, false, false, 1.0, columns};
        const auto t0 = std::chrono::steady_clock::now();
        render::GlWriteScope write(*interop, renderer.buffer(), bytes);
        gpu::Status st = write.status();
        if (st)
            st = gpu::writeSpectrumLine(context, *spectrum, axis, write.view<float>());
        if (st)
            st = write.commit();
        if (!st) {
            std::printf("  %-34s %s\n", label, st.message().c_str());
            break;
        }
        gl.bindFramebuffer();
        renderer.draw(columns, 0.0, spectrum->maxPower(), {0, 0, columns, gl.height()},
                      {1, 1, 1, 1});
        glFinish();
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count();
        if (k >= 0)
            times.push_back(ms);
        // Frames of seconds (seen on headless EGL on some machines) would hold the whole
        // benchmark for minutes: three of them say enough.
        slowFrames += ms > 2000.0;
        if (slowFrames >= 3) {
            std::printf("  %-34s stopped after %zu frames: three took over 2 s\n", label,
                        times.size());
            break;
        }
    }
    if (!times.empty())
        std::printf("  %-34s median %8.3f ms   (min %.3f)\n", label, median(times),
                    *std::min_element(times.begin(), times.end()));
    interop.reset(); // its registration goes before the buffer it names
    renderer.release();
}

void runSpectrumLineBench(int runs)
{
    std::string error;
    auto gl = render::HeadlessGl::create(1600, 600, error);
    if (!gl) {
        std::printf("\nSpectrum line: no headless OpenGL (%s)\n", error.c_str());
        return;
    }
    std::printf("\nThe plot's line for 2^24 frequencies (256 samples), 1600 columns: refill the "
                "vertex buffer for a moved axis and draw, wall clock to glFinish, median of %d\n",
                runs);
    std::unique_ptr<gpu::Context> cpu, cuda;
    gpu::Context::open({gpu::DeviceKind::Cpu, 0}, cpu); // the CPU is always there
    const std::vector<int> glDevices = render::glCudaDevices();
    if (!glDevices.empty() &&
        gpu::Context::open({gpu::DeviceKind::Cuda, glDevices.front()}, cuda)) {
        timeSpectrumLine(*cuda, true, *gl, "CUDA, decimated into the mapped VBO", runs);
        timeSpectrumLine(*cuda, false, *gl, "CUDA, decimated then glBufferSubData", runs);
    }
    timeSpectrumLine(*cpu, true, *gl, "CPU, decimated on the host", runs);
}

} // namespace

int runPeriodogramBench(int runs, bool appCall)
{
    std::unique_ptr<gpu::Context> cpu, cuda;
    gpu::Context::open({gpu::DeviceKind::Cpu, 0}, cpu); // the CPU is always there
    const gpu::Status cudaOpened = gpu::Context::open({gpu::DeviceKind::Cuda, 0}, cuda);
    std::printf(
        "Lomb-Scargle periodogram, exact sums; medians of %d runs after 200 ms of warm-up runs.\n"
        "kernel: CUDA events around the kernel (the CPU's clock on the CPU); call: the "
        "whole computePeriodogram into host memory, copies and checks included (target: at "
        "most 1.3x the kernel).\n\n",
        runs);
    struct Case
    {
        int n;
        long long m;
        gpu::Precision precision;
        bool fitMean;
    };
    if (cuda) {
        std::printf("CUDA on %s\n", cuda->name().c_str());
        const bool tensor = cuda->info().ccMajor >= 8;
        // The direct kernel and the matrix products side by side, each case in one run.
        for (const Case& c :
             appCall ? std::vector<Case>{}
                     : std::vector<Case>{Case{1024, 1 << 20, gpu::Precision::Float64, true},
                                         Case{1024, 1 << 20, gpu::Precision::Float64, false},
                                         Case{1024, 1 << 20, gpu::Precision::Float32, true},
                                         Case{1024, 1 << 20, gpu::Precision::Float32, false},
                                         Case{16384, 1 << 20, gpu::Precision::Float64, true},
                                         Case{16384, 1 << 20, gpu::Precision::Float64, false}}) {
            const bool matrix = tensor;
            Timing direct, products;
            if (!timePeriodogram(
                    *cuda, c.n,
                    options(c.m, c.precision, c.fitMean, gpu::PeriodogramMethod::Direct), runs,
                    direct) ||
                (matrix && !timePeriodogram(
                               *cuda, c.n,
                               options(c.m, c.precision, c.fitMean, gpu::PeriodogramMethod::Matrix),
                               runs, products)))
                return 1;
            std::printf("  N %6d  M 2^%-2d %-7s %-14s direct kernel %8.3f ms", c.n,
                        int(std::log2(double(c.m))), gpu::precisionName(c.precision),
                        c.fitMean ? "floating mean" : "fixed mean", direct.kernelMs);
            if (matrix) {
                // Flops of the products: a pair of frequencies takes four real dot products of
                // length N for each kind of sum (wy, w with a floating mean, and w at 2w), so
                // 4 N per frequency and kind.
                const double flops = 4.0 * c.n * double(c.m) * (c.fitMean ? 3.0 : 2.0);
                std::printf("   matrix %8.3f ms (%.1fx, %.1f TFLOP/s%s)   call %8.3f ms "
                            "(%.2fx the kernel)",
                            products.kernelMs, direct.kernelMs / products.kernelMs,
                            flops / products.kernelMs * 1e-9,
                            c.precision == gpu::Precision::Float32 ? " in float32 terms" : "",
                            products.callMs, products.callMs / products.kernelMs);
            }
            std::printf("\n");
        }
        // What the Periodogram workspace waits for: the same sums, the powers left on the
        // device and only the peaks brought back.
        for (gpu::Precision precision : {gpu::Precision::Float64, gpu::Precision::Float32}) {
            Timing app;
            if (!timeSpectrumCall(*cuda, 1024, options(1 << 20, precision), runs, app))
                return 1;
            std::printf("  N   1024  M 2^20 %-7s floating mean  the app's call (powers stay on "
                        "the GPU, peaks found there): kernel %8.3f ms   call %8.3f ms (%.2fx the "
                        "kernel)\n",
                        gpu::precisionName(precision), app.kernelMs, app.callMs,
                        app.callMs / app.kernelMs);
        }
        if (tensor && !appCall)
            printCallSpans(
                *cuda, 1024,
                options(1 << 20, gpu::Precision::Float64, true, gpu::PeriodogramMethod::Matrix),
                runs, false);
        if (tensor)
            for (gpu::Precision precision : {gpu::Precision::Float64, gpu::Precision::Float32})
                printCallSpans(*cuda, 1024,
                               options(1 << 20, precision, true, gpu::PeriodogramMethod::Matrix),
                               runs, true);
        if (tensor && appCall)
            printCallSpans(
                *cuda, 1024,
                options(1 << 20, gpu::Precision::Float32, true, gpu::PeriodogramMethod::Matrix),
                runs, true, gpu::GpuTiming::Cupti);
        if (appCall)
            return 0;
        // A logarithmic grid over the same range: every phase exact, on the direct kernel.
        for (gpu::Precision precision : {gpu::Precision::Float64, gpu::Precision::Float32}) {
            gpu::PeriodogramOptions o = options(1 << 20, precision);
            o.grid = gpu::frequencyGrid(o.grid.fmin, o.grid.fmax(), o.grid.count, true);
            Timing log;
            if (!timePeriodogram(*cuda, 1024, o, runs, log))
                return 1;
            std::printf("  N   1024  M 2^20 %-7s floating mean  logarithmic grid, direct kernel "
                        "%8.3f ms\n",
                        gpu::precisionName(precision), log.kernelMs);
        }
    } else {
        std::printf("CUDA: %s\n", cudaOpened.message().c_str());
    }
    std::printf("\n%s\n", cpu->name().c_str());
    const int n = 1024;
    const long long m = 1 << 16;
    Timing classic, floating, single;
    if (!timePeriodogram(*cpu, n, options(m, gpu::Precision::Float64, false), runs, classic) ||
        !timePeriodogram(*cpu, n, options(m, gpu::Precision::Float64), runs, floating) ||
        !timePeriodogram(*cpu, n, options(m, gpu::Precision::Float32), runs, single))
        return 1;
    std::printf("  N %6d  M 2^16 float64  classic (SciPy's)  %9.3f ms\n", n, classic.kernelMs);
    std::printf("  N %6d  M 2^16 float64  floating mean      %9.3f ms\n", n, floating.kernelMs);
    std::printf("  N %6d  M 2^16 float32  floating mean      %9.3f ms\n", n, single.kernelMs);
    const double scipy = scipySeconds(n, options(m, gpu::Precision::Float64, false));
    if (scipy > 0)
        std::printf("  SciPy signal.lombscargle, same data and grid: %9.1f ms   -> CPU "
                    "%.0fx faster (classic), %.0fx (floating mean)\n",
                    scipy * 1000.0, scipy * 1000.0 / classic.kernelMs,
                    scipy * 1000.0 / floating.kernelMs);
    else
        std::printf("  SciPy: not found (python3 with scipy), no side-by-side ratio\n");
    runSpectrumLineBench(std::max(runs, 20));
    return 0;
}
