// warpscope-bench pdm | ce: medians of phase dispersion minimisation or conditional entropy on
// the GPU and the CPU, on a synthetic series that bench/phase_numpy.py builds alike, so that
// the NumPy implementation's time on the same series and grid stands beside these.
//
//   warpscope-bench pdm|ce [--points N] [--periods K] [--runs R] [--csv]
#include "PhaseBench.h"

#include "Help.h"
#include "warpscope/gpu/ConditionalEntropy.h"
#include "warpscope/gpu/PhaseDispersion.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

using namespace warpscope;

namespace {

struct PhaseBenchOptions
{
    bool entropy = false;
    int points = 600;
    long long periods = 100'000;
    int runs = 10;
    bool csv = false; // one CSV row a device instead of sentences
};

// t_i = i / 2 + sin(1.7 i) / 5 days (uneven, 300 days for 600 points), and a sinusoid of
// 2.345 days under deterministic "noise": phase_numpy.py's series, formula for formula.
gpu::TimeSeries benchSeries(int n)
{
    gpu::TimeSeries s;
    for (int i = 0; i < n; ++i) {
        const double t = 0.5 * i + 0.2 * std::sin(1.7 * i);
        s.t.push_back(t);
        s.y.push_back(std::sin(2.0 * std::numbers::pi * t / 2.345) +
                      0.3 * std::sin(12.9898 * i + 0.7));
    }
    return s;
}

// Periods from 0.1 to 100 days: frequencies 0.01 to 10 per day, evenly spaced.
gpu::FrequencyGrid benchGrid(long long count)
{
    return gpu::frequencyGrid(0.01, 10.0, count, false);
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

struct PhaseTiming
{
    double kernelMs = 0.0, callMs = 0.0, bestPeriod = 0.0;
};

bool timeMethod(gpu::Context& context, const PhaseBenchOptions& o, PhaseTiming& out)
{
    const gpu::TimeSeries series = benchSeries(o.points);
    const gpu::FrequencyGrid grid = benchGrid(o.periods);
    std::vector<double> values(std::size_t(grid.count));
    double kernelMs = 0.0;
    const auto compute = [&] {
        const gpu::Status s =
            o.entropy ? gpu::computeConditionalEntropy(context, series, grid, {}, values, &kernelMs)
                      : gpu::computePhaseDispersion(context, series, grid, {}, values, &kernelMs);
        if (!s)
            std::fprintf(stderr, "warpscope-bench: %s\n", s.message().c_str());
        return s.ok();
    };
    if (!compute()) // warm-up: the GPU's clocks, the context's buffers
        return false;
    std::vector<double> kernel, call;
    for (int r = 0; r < o.runs; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        if (!compute())
            return false;
        call.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count());
        kernel.push_back(kernelMs);
    }
    const long long best = std::min_element(values.begin(), values.end()) - values.begin();
    out = {median(kernel), median(call), 1.0 / grid.frequency(best)};
    return true;
}

int usage(bool asked = false)
{
    return bench::printUsage(
        "usage: warpscope-bench pdm|ce [--points N] [--periods K] [--runs R] [--csv]\n"
        "  pdm: phase dispersion (10 bins, 2 covers); ce: conditional entropy (10 x 5 bins)\n"
        "  N points (default 600), K trial periods from 0.1 to 100 days (default 100000),\n"
        "  medians of R runs (default 10); --csv: one row a device\n",
        asked);
}

bool parse(int argc, char** argv, PhaseBenchOptions& o)
{
    for (int i = 0; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--csv") {
            o.csv = true;
            continue;
        }
        if (i + 1 >= argc)
            return false;
        char* end = nullptr;
        const long long v = std::strtoll(argv[++i], &end, 10);
        if (*end != '\0')
            return false;
        if (arg == "--points" && v >= 2 && v <= 100'000'000)
            o.points = int(v);
        else if (arg == "--periods" && v >= 1 && v <= gpu::kMaxFrequencies)
            o.periods = v;
        else if (arg == "--runs" && v >= 1 && v <= 100'000)
            o.runs = int(v);
        else
            return false;
    }
    return true;
}

} // namespace

int runPhaseBench(const char* method, int argc, char** argv)
{
    if (bench::asksForHelp(argc, argv))
        return usage(true);
    PhaseBenchOptions o;
    o.entropy = std::strcmp(method, "ce") == 0;
    if (!parse(argc, argv, o))
        return usage();
    const char* name = o.entropy ? "conditional entropy" : "phase dispersion";
    std::unique_ptr<gpu::Context> cpu, cuda;
    gpu::Context::open({gpu::DeviceKind::Cpu, 0}, cpu); // the CPU is always there
    const gpu::Status cudaOpened = gpu::Context::open({gpu::DeviceKind::Cuda, 0}, cuda);
    if (o.csv)
        std::printf("method,device,points,periods,runs,kernel_ms,call_ms,best_period\n");
    else
        std::printf("%s, %d points, %lld trial periods (0.1 to 100 days); medians of %d runs.\n"
                    "kernel: CUDA events around the kernel (the CPU's clock on the CPU); call: "
                    "the whole call into host memory, checks and copies included.\n"
                    "NumPy on the same series and grid: /usr/bin/python3 bench/phase_numpy.py %s "
                    "--points %d --periods %lld\n\n",
                    name, o.points, o.periods, o.runs, method, o.points, o.periods);
    if (!cuda && !o.csv)
        std::printf("CUDA: %s\n", cudaOpened.message().c_str());
    for (gpu::Context* context : {cuda.get(), cpu.get()}) {
        if (!context)
            continue;
        PhaseTiming t;
        if (!timeMethod(*context, o, t))
            return 1;
        if (o.csv)
            std::printf("%s,\"%s\",%d,%lld,%d,%.6f,%.6f,%.9g\n", method, context->name().c_str(),
                        o.points, o.periods, o.runs, t.kernelMs, t.callMs, t.bestPeriod);
        else
            std::printf("%-40s kernel %10.3f ms   call %10.3f ms   least at %.6g days\n",
                        context->name().c_str(), t.kernelMs, t.callMs, t.bestPeriod);
    }
    return 0;
}
