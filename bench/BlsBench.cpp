// warpscope-bench bls: box least squares of one TESS-like sector (2-minute cadence, a transit,
// white noise) over an astropy-like grid of trial periods (even in frequency) and durations,
// medians of repeated calls on each backend: the device's own time (CUDA events) and the whole
// call. --save-series writes the series, so bench/bls_astropy.py times astropy on the same
// data and grid.
#include "BlsBench.h"

#include "warpscope/gpu/BoxLeastSquares.h"
#include "warpscope/gpu/Context.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace warpscope;

struct BlsBenchOptions
{
    double days = 27.0;
    int periods = 20000;
    int durations = 10;
    int runs = 7;
    bool cpu = false;
    std::string saveSeries;
};

// 2-minute cadence over days with a day's gap in the middle; a 0.5 % deep, 2.5-hour transit
// every 3.5725 days; 0.1 % noise.
gpu::TimeSeries sector(double days)
{
    gpu::TimeSeries s;
    std::mt19937_64 rng(7);
    std::normal_distribution<double> noise(0.0, 1e-3);
    const double cadence = 2.0 / 1440.0, period = 3.5725, width = 2.5 / 24.0;
    for (double t = 0.0; t < days; t += cadence) {
        if (std::abs(t - days / 2) < 0.5)
            continue;
        const double phase = std::remainder(t - 1.3, period);
        s.t.push_back(t);
        s.y.push_back(1.0 - (std::abs(phase) < width / 2 ? 0.005 : 0.0) + noise(rng));
        s.dy.push_back(1e-3);
    }
    return s;
}

// Periods from 0.5 days to half the span, even in frequency (as astropy's autoperiod), and
// durations from 1 to 8 hours, logarithmically.
void grid(const BlsBenchOptions& o, std::vector<double>& periods, std::vector<double>& durations)
{
    const double fmax = 1.0 / 0.5, fmin = 2.0 / o.days;
    for (int k = 0; k < o.periods; ++k)
        periods.push_back(1.0 / (fmax - (fmax - fmin) * k / std::max(1, o.periods - 1)));
    for (int k = 0; k < o.durations; ++k)
        durations.push_back(1.0 / 24.0 * std::pow(8.0, double(k) / std::max(1, o.durations - 1)));
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int bench(gpu::Context& context, const gpu::TimeSeries& series, const BlsBenchOptions& o)
{
    std::vector<double> periods;
    gpu::BlsOptions options;
    grid(o, periods, options.durations);
    std::vector<double> kernel, call;
    gpu::BlsResult r;
    for (int run = 0; run <= o.runs; ++run) { // the first is a warm-up
        double ms = 0.0;
        const auto start = std::chrono::steady_clock::now();
        if (const gpu::Status s =
                gpu::computeBoxLeastSquares(context, series, periods, options, r, &ms);
            !s) {
            std::fprintf(stderr, "warpscope-bench: %s\n", s.message().c_str());
            return 1;
        }
        const double wall =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        if (run > 0) {
            kernel.push_back(ms);
            call.push_back(wall);
        }
    }
    const auto best = std::max_element(r.power.begin(), r.power.end()) - r.power.begin();
    std::printf("bls %-28s N %zu  periods %d  durations %d  kernel median %9.3f ms  call median "
                "%9.3f ms  (%d runs)  best period %.5f d, depth %.5f, duration %.4f d\n",
                context.name().c_str(), series.t.size(), o.periods, o.durations, median(kernel),
                median(call), o.runs, periods[best], r.depth[best], r.duration[best]);
    return 0;
}

int usage()
{
    std::fprintf(stderr, "usage: warpscope-bench bls [--days D] [--periods P] [--durations K] "
                         "[--runs R] [--cpu] [--save-series FILE]\n");
    return 2;
}

} // namespace

int runBlsBench(int argc, char** argv)
{
    BlsBenchOptions o;
    for (int i = 0; i < argc; ++i) {
        const std::string arg = argv[i];
        const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
        if (arg == "--cpu") {
            o.cpu = true;
            continue;
        }
        if (!value)
            return usage();
        if (arg == "--days")
            o.days = std::atof(value);
        else if (arg == "--periods")
            o.periods = std::atoi(value);
        else if (arg == "--durations")
            o.durations = std::atoi(value);
        else if (arg == "--runs")
            o.runs = std::atoi(value);
        else if (arg == "--save-series")
            o.saveSeries = value;
        else
            return usage();
        ++i;
    }
    if (!(o.days >= 2.0 && o.days <= 1000.0) || o.periods < 1 || o.durations < 1 ||
        o.durations > gpu::kMaxBlsDurations || o.runs < 1)
        return usage();
    const gpu::TimeSeries series = sector(o.days);
    if (!o.saveSeries.empty()) {
        std::ofstream out(o.saveSeries);
        out.precision(17);
        out << "t,y,dy\n";
        for (std::size_t i = 0; i < series.t.size(); ++i)
            out << series.t[i] << ',' << series.y[i] << ',' << series.dy[i] << '\n';
        if (!out)
            return std::fprintf(stderr, "warpscope-bench: cannot write %s\n", o.saveSeries.c_str()),
                   1;
    }
    int status = 0;
    std::unique_ptr<gpu::Context> context;
    if (gpu::Context::open({gpu::DeviceKind::Cuda, 0}, context))
        status |= bench(*context, series, o);
    else
        std::printf("bls: no CUDA device\n");
    if (o.cpu && gpu::Context::open({gpu::DeviceKind::Cpu, 0}, context))
        status |= bench(*context, series, o);
    return status;
}
