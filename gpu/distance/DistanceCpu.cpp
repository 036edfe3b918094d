#include "distance/DistancePlan.h"
#include "distance/DistanceShared.h"
#include "runtime/CpuContext.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <new>
#include <unistd.h>
#include <vector>

namespace warpscope::gpu {
namespace {

std::size_t availableHostBytes()
{
    const long pages = sysconf(_SC_AVPHYS_PAGES);
    const long pageSize = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || pageSize <= 0)
        return std::numeric_limits<std::size_t>::max();
    return std::size_t(pages) * std::size_t(pageSize);
}

// The separable form of the kernel, over the pool's threads: the column terms once per
// frame, then each row's terms against them.
template <typename T, typename Out>
void run(Context& context, const DistanceParams& params, Out* out)
{
    ThreadPool& pool = context.hostPool();
    const CpuBacking& cpu = cpuBacking(context);
    Timeline* timeline = context.timeline();
    const DistancePlan<T> plan = makePlan<T>(params);
    const FieldLayout layout = layoutFor(params);
    const int nx = plan.nx;
    const int refs = plan.refCount;

    // Column terms once per frame: sin² of half the longitude difference, per reference.
    std::vector<T> colTerms(std::size_t(refs) * nx);
    pool.parallelFor(colTerms.size(), [&](std::size_t b, std::size_t e, unsigned w) {
        const ScopedHostSpan span(timeline, cpu.workerLane(w), "column terms", SpanKind::Kernel);
        for (std::size_t k = b; k < e; ++k)
            colTerms[k] = planColTerm(plan, int(k % nx), int(k / nx));
    });

    std::vector<Out> mins(pool.size(), std::numeric_limits<Out>::max());
    std::vector<Out> maxs(pool.size(), Out(0));
    pool.parallelFor(std::size_t(plan.ny), [&](std::size_t b, std::size_t e, unsigned w) {
        const ScopedHostSpan span(timeline, cpu.workerLane(w),
                                  "rows " + std::to_string(b) + "-" + std::to_string(e - 1),
                                  SpanKind::Kernel);
        std::vector<T> best(nx);
        Out lo = mins[w], hi = maxs[w];
        for (std::size_t i = b; i < e; ++i) {
            const T latRad = planLatRad(plan, int(i));
            std::fill(best.begin(), best.end(), T(2));
            for (int r = 0; r < refs; ++r) {
                const math::RowTerms<T> row =
                    math::rowTerms(latRad, plan.refLatRad[r], plan.cosRefLat[r]);
                const T* col = colTerms.data() + std::size_t(r) * nx;
                for (int j = 0; j < nx; ++j)
                    best[j] = math::wsMin(best[j], math::haversineA(row, col[j]));
            }
            Out* dst = out + layout.index(int(i), 0);
            for (int j = 0; j < nx; ++j) {
                const Out v = Out(plan.radius * math::centralAngle(best[j]));
                dst[j] = v;
                lo = math::wsMin(lo, v);
                hi = math::wsMax(hi, v);
            }
            // Padding repeats the last column, so every element holds a real distance.
            std::fill(dst + nx, dst + layout.pitch, dst[nx - 1]);
        }
        mins[w] = lo;
        maxs[w] = hi;
    });
    out[layout.statsOffset()] = *std::min_element(mins.begin(), mins.end());
    out[layout.statsOffset() + 1] = *std::max_element(maxs.begin(), maxs.end());
}

template <typename Out> Status compute(Context& context, const DistanceParams& params, Out* out)
{
    const FieldLayout layout = layoutFor(params);
    const auto start = std::chrono::steady_clock::now();
    const ScopedHostSpan span(context.timeline(), cpuBacking(context).workerLane(0),
                              "distance field", SpanKind::Kernel);
    try {
        if (params.precision == Precision::Float64)
            run<double>(context, params, out);
        else
            run<float>(context, params, out);
    } catch (const std::bad_alloc&) {
        return Status::failure("Out of host memory while computing the field");
    }
    const std::chrono::duration<double, std::milli> elapsed =
        std::chrono::steady_clock::now() - start;
    context.state<CpuFieldResult>().last =
        FieldResult{elapsed.count(),
                    {double(out[layout.statsOffset()]), double(out[layout.statsOffset() + 1])}};
    return Status::success();
}

} // namespace

Status checkDistanceCapacityCpu(const DistanceParams& params)
{
    const FieldLayout layout = layoutFor(params);
    const std::size_t valueBytes = params.precision == Precision::Float64 ? 8 : 4;
    // The values, and the float32 copy the display holds.
    const std::size_t needed = layout.elementCount() * (valueBytes + sizeof(float));
    const std::size_t available = availableHostBytes();
    if (needed > available)
        return Status::failure("The mesh needs " + std::to_string(needed >> 20) +
                               " MiB of host memory; only " + std::to_string(available >> 20) +
                               " MiB are available");
    return Status::success();
}

Status computeDistanceCpu(Context& context, const DistanceParams& params, float* out)
{
    return compute(context, params, out);
}

Status computeDistanceCpu(Context& context, const DistanceParams& params, double* out)
{
    return compute(context, params, out);
}

Status timeDistanceKernelCpu(Context& context, const DistanceParams& params, int repetitions,
                             double& medianMs)
{
    std::vector<float> out;
    try {
        out.resize(layoutFor(params).elementCount());
    } catch (const std::bad_alloc&) {
        return Status::failure("Out of host memory for the field");
    }
    std::vector<double> times;
    for (int k = 0; k < std::max(1, repetitions); ++k) {
        if (Status s = compute(context, params, out.data()); !s)
            return s;
        times.push_back(context.state<CpuFieldResult>().last->kernelMs);
    }
    std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
    medianMs = times[times.size() / 2];
    return Status::success();
}

} // namespace warpscope::gpu
