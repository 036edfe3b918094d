#include "periodogram/HarmonicPeriodogramCpu.h"
#include "periodogram/LombScargle.h"
#include "periodogram/PeriodogramCpuChunks.h"
#include "periodogram/PeriodogramPlan.h"
#include "periodogram/PeriodogramShared.h"
#include "periodogram/SpectrumSupport.h"
#include "runtime/CpuContext.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <new>

namespace warpscope::gpu {
namespace {

// The sums of `steps` consecutive frequencies, two at a time per pass over the samples, and
// each sample's phase advanced as it goes. Compiled for AVX-512, AVX2 + FMA and baseline
// x86-64, picked at load time; this loop is all of the CPU periodogram's time.
template <typename T>
[[gnu::always_inline]] inline void periodogramSteps(const T* w, const T* wy, const T* stepCos,
                                                    const T* stepSin, T* cx, T* sx, std::size_t n,
                                                    long long steps, math::LsSums<T>* sums)
{
    long long k = 0;
    for (; k + 1 < steps; k += 2) {
        T c0 = 0, s0 = 0, cc0 = 0, ss0 = 0, yc0 = 0, ys0 = 0;
        T c1 = 0, s1 = 0, cc1 = 0, ss1 = 0, yc1 = 0, ys1 = 0;
#pragma omp simd reduction(+ : c0, s0, cc0, ss0, yc0, ys0, c1, s1, cc1, ss1, yc1, ys1)
        for (std::size_t i = 0; i < n; ++i) {
            const T a = stepCos[i], b = stepSin[i], wi = w[i], wyi = wy[i];
            const T cv = cx[i], sv = sx[i];
            c0 += wi * cv;
            s0 += wi * sv;
            cc0 += wi * (cv * cv - sv * sv);
            ss0 += wi * (T(2) * cv * sv);
            yc0 += wyi * cv;
            ys0 += wyi * sv;
            const T cn = cv * a - sv * b, sn = sv * a + cv * b;
            c1 += wi * cn;
            s1 += wi * sn;
            cc1 += wi * (cn * cn - sn * sn);
            ss1 += wi * (T(2) * cn * sn);
            yc1 += wyi * cn;
            ys1 += wyi * sn;
            cx[i] = cn * a - sn * b;
            sx[i] = sn * a + cn * b;
        }
        sums[k] = {c0, s0, cc0, ss0, yc0, ys0};
        sums[k + 1] = {c1, s1, cc1, ss1, yc1, ys1};
    }
    if (k < steps) {
        T c = 0, s = 0, cc = 0, ss = 0, yc = 0, ys = 0;
#pragma omp simd reduction(+ : c, s, cc, ss, yc, ys)
        for (std::size_t i = 0; i < n; ++i) {
            const T cv = cx[i], sv = sx[i];
            c += w[i] * cv;
            s += w[i] * sv;
            cc += w[i] * (cv * cv - sv * sv);
            ss += w[i] * (T(2) * cv * sv);
            yc += wy[i] * cv;
            ys += wy[i] * sv;
        }
        sums[k] = {c, s, cc, ss, yc, ys};
    }
}

#define WS_CPU_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))

WS_CPU_CLONES void periodogramStepsDouble(const double* w, const double* wy, const double* stepCos,
                                          const double* stepSin, double* cx, double* sx,
                                          std::size_t n, long long steps,
                                          math::LsSums<double>* sums)
{
    periodogramSteps(w, wy, stepCos, stepSin, cx, sx, n, steps, sums);
}

WS_CPU_CLONES void periodogramStepsFloat(const float* w, const float* wy, const float* stepCos,
                                         const float* stepSin, float* cx, float* sx, std::size_t n,
                                         long long steps, math::LsSums<float>* sums)
{
    periodogramSteps(w, wy, stepCos, stepSin, cx, sx, n, steps, sums);
}

void periodogramStepsFor(const double* w, const double* wy, const double* sc, const double* ss,
                         double* cx, double* sx, std::size_t n, long long steps,
                         math::LsSums<double>* sums)
{
    periodogramStepsDouble(w, wy, sc, ss, cx, sx, n, steps, sums);
}

void periodogramStepsFor(const float* w, const float* wy, const float* sc, const float* ss,
                         float* cx, float* sx, std::size_t n, long long steps,
                         math::LsSums<float>* sums)
{
    periodogramStepsFloat(w, wy, sc, ss, cx, sx, n, steps, sums);
}

// Frequencies k0 .. k0 + steps with every phase exact: a logarithmic grid has no common step
// to rotate by. The sums are double in either precision: next to the trigonometry they cost
// nothing, and one long float sum per frequency loses ten times float32's usual accuracy.
template <typename T>
void periodogramExact(const PeriodogramPlan<T>& plan, long long k0, long long steps, double* power)
{
    for (long long k = k0; k < k0 + steps; ++k) {
        const double f = plan.grid.frequency(k);
        math::LsSums<double> sums;
        for (std::size_t i = 0; i < plan.t.size(); ++i) {
            double c = 0.0, s = 0.0;
            exactPhase(f, plan.tDouble[i], c, s);
            math::lsAccumulate<double>(sums, plan.w[i], plan.wy[i], T(c), T(s));
        }
        power[k] = math::lsPower(sums, plan.yy, plan.psdScale, plan.normalization, plan.fitMean);
    }
}

// Frequencies go in chunks: each chunk starts every sample's phase exactly, then steps it
// from one frequency to the next by a rotation, so the inner loop has no trigonometry.
template <typename T>
void periodogram(CpuBacking& cpu, Timeline* timeline, const TimeSeries& series,
                 const PeriodogramMoments& moments, const PeriodogramOptions& options,
                 double* power)
{
    const PeriodogramPlan<T> plan = makePeriodogramPlan<T>(series, options, moments);
    cpu.hostPool().parallelFor(
        std::size_t(cpuPeriodogramChunks<T>(plan.grid.count)),
        [&](std::size_t begin, std::size_t end, unsigned worker) {
            const ScopedHostSpan span(timeline, cpu.workerLane(worker),
                                      "periodogram chunks " + std::to_string(begin) + "-" +
                                          std::to_string(end - 1),
                                      SpanKind::Kernel);
            CpuPeriodogramScratch<T> scratch;
            scratch.reserve(plan.t.size());
            for (std::size_t chunk = begin; chunk < end; ++chunk) {
                if (options.cancel && options.cancel->load(std::memory_order_relaxed))
                    return;
                periodogramChunkCpu(plan, (long long)chunk, scratch, power);
            }
        });
}

} // namespace

template <typename T>
void periodogramChunkCpu(const PeriodogramPlan<T>& plan, long long chunk,
                         CpuPeriodogramScratch<T>& scratch, double* power)
{
    constexpr long long kChunk = kCpuPeriodogramChunk<T>;
    const std::size_t n = plan.t.size();
    const long long k0 = chunk * kChunk;
    const long long steps = std::min(plan.grid.count - k0, kChunk);
    if (plan.grid.logarithmic) {
        periodogramExact(plan, k0, steps, power);
        return;
    }
    const double f0 = plan.grid.frequency(k0);
    for (std::size_t i = 0; i < n; ++i) {
        double c = 0.0, s = 0.0;
        exactPhase(f0, plan.tDouble[i], c, s);
        scratch.cosX[i] = T(c);
        scratch.sinX[i] = T(s);
    }
    periodogramStepsFor(plan.w.data(), plan.wy.data(), plan.stepCos.data(), plan.stepSin.data(),
                        scratch.cosX.data(), scratch.sinX.data(), n, steps, scratch.sums.data());
    for (long long k = 0; k < steps; ++k)
        power[k0 + k] = math::lsPower(scratch.sums[std::size_t(k)], plan.yy, plan.psdScale,
                                      plan.normalization, plan.fitMean);
}

template void periodogramChunkCpu(const PeriodogramPlan<double>&, long long,
                                  CpuPeriodogramScratch<double>&, double*);
template void periodogramChunkCpu(const PeriodogramPlan<float>&, long long,
                                  CpuPeriodogramScratch<float>&, double*);

Status computePeriodogramCpu(Context& context, const TimeSeries& series,
                             const PeriodogramMoments& moments, const PeriodogramOptions& options,
                             std::span<double> power, double& computeMs)
{
    CpuBacking& cpu = cpuBacking(context);
    const auto start = std::chrono::steady_clock::now();
    // The simulated launch evaluates the frequencies its grid covers; the rest stay NaN.
    PeriodogramOptions covered = options;
    covered.grid.count = coveredFrequencies(options.launch, options.grid.count);
    std::fill(power.begin() + covered.grid.count, power.begin() + options.grid.count,
              std::numeric_limits<double>::quiet_NaN());
    try {
        if (options.nterms > 1)
            harmonicPeriodogramCpu(cpu, context.timeline(), series, moments, covered, power.data());
        else if (options.precision == Precision::Float64)
            periodogram<double>(cpu, context.timeline(), series, moments, covered, power.data());
        else
            periodogram<float>(cpu, context.timeline(), series, moments, covered, power.data());
    } catch (const std::bad_alloc&) {
        return Status::failure("Out of host memory for the periodogram");
    }
    if (options.cancel && options.cancel->load())
        return Status::failure("The periodogram was cancelled");
    computeMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const long long nonFinite = std::count_if(power.begin(), power.begin() + covered.grid.count,
                                              [](double p) { return !std::isfinite(p); });
    return checkPowers(nonFinite, 0, options);
}

Status computeSpectrumCpu(Context& context, const TimeSeries& series,
                          const PeriodogramMoments& moments, const PeriodogramOptions& options,
                          std::shared_ptr<const Spectrum>& spectrum)
{
    std::vector<double> power;
    try {
        power.resize(std::size_t(std::max(0LL, options.grid.count)));
    } catch (const std::bad_alloc&) {
        return Status::failure("Out of host memory for the periodogram");
    }
    double ms = 0.0;
    if (Status s = computePeriodogramCpu(context, series, moments, options, power, ms); !s)
        return s;
    try {
        spectrum = std::make_shared<HostSpectrum>(
            std::move(power), options.grid, ms,
            options.grid.logarithmic ? "exact phases on the CPU" : "rotation tables on the CPU");
    } catch (const std::bad_alloc&) {
        return Status::failure("Out of host memory for the periodogram's peaks");
    }
    return Status::success();
}

KernelOccupancy periodogramOccupancyCpu(Context& context, Precision precision,
                                        long long blockThreads)
{
    // The sm_90 build's resources for the direct kernel, for the simulated device.
    const bool f64 = precision == Precision::Float64;
    return presetOccupancy(
        context.info(), {f64 ? 128 : 86, f64 ? 10240 : 6144, kPeriodogramMaxBlock}, blockThreads);
}

} // namespace warpscope::gpu
