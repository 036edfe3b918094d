#include "periodogram/PeriodogramBatchShared.h"
#include "periodogram/PeriodogramCpuChunks.h"
#include "runtime/CpuContext.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <new>

namespace warpscope::gpu {
namespace {

// Every (object, chunk of frequencies) pair goes to whichever thread of the pool is free,
// the largest objects' first: a batch mixes objects of very different sizes, which a fixed
// split would leave to a few threads. Each chunk is computed as computePeriodogramCpu
// computes it, so each row holds the same powers bit for bit.
// The k-th valid object's row of powers is rows + rowOf(k) * count.
template <typename T>
Status batch(CpuBacking& cpu, Timeline* timeline, BatchRequest& request, double* rows,
             const std::function<std::size_t(std::size_t)>& rowOf)
{
    const PeriodogramOptions& options = *request.options;
    const std::size_t objects = request.valid.size();
    std::vector<PeriodogramPlan<T>> plans(objects);
    std::atomic<std::size_t> nextPlan{0};
    cpu.hostPool().parallelFor(
        cpu.hostPool().size(), [&](std::size_t, std::size_t, unsigned worker) {
            const ScopedHostSpan span(timeline, cpu.workerLane(worker), "periodogram batch plans");
            for (std::size_t k; (k = nextPlan.fetch_add(1)) < objects;)
                plans[k] = makePeriodogramPlan<T>(request.series[request.valid[k]], options,
                                                  request.moments[request.valid[k]]);
        });
    std::vector<std::size_t> order(objects);
    for (std::size_t k = 0; k < objects; ++k)
        order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return plans[a].t.size() > plans[b].t.size();
    });
    const std::size_t count = std::size_t(options.grid.count);
    // Poison: a power no chunk writes stays NaN and fails its object.
    for (std::size_t k = 0; k < objects; ++k)
        std::fill_n(rows + rowOf(k) * count, count, std::numeric_limits<double>::quiet_NaN());
    const long long chunks = cpuPeriodogramChunks<T>(options.grid.count);
    const std::size_t pairs = objects * std::size_t(chunks);
    std::atomic<std::size_t> nextPair{0};
    cpu.hostPool().parallelFor(
        cpu.hostPool().size(), [&](std::size_t, std::size_t, unsigned worker) {
            const ScopedHostSpan span(timeline, cpu.workerLane(worker), "periodogram batch",
                                      SpanKind::Kernel);
            CpuPeriodogramScratch<T> scratch;
            for (std::size_t p; (p = nextPair.fetch_add(1)) < pairs;) {
                if (options.cancel && options.cancel->load(std::memory_order_relaxed))
                    return;
                const std::size_t k = order[p / std::size_t(chunks)];
                scratch.reserve(plans[k].t.size());
                periodogramChunkCpu(plans[k], (long long)(p % std::size_t(chunks)), scratch,
                                    rows + rowOf(k) * count);
            }
        });
    return Status::success();
}

} // namespace

Status computePeriodogramBatchCpu(Context& context, BatchRequest& request, double& computeMs)
{
    CpuBacking& cpu = cpuBacking(context);
    const PeriodogramOptions& options = *request.options;
    const auto start = std::chrono::steady_clock::now();
    const std::size_t count = std::size_t(options.grid.count);
    // Peaks alone: the valid objects' powers side by side here, searched, then dropped.
    std::vector<double> searched;
    try {
        if (request.peaks)
            searched.resize(request.valid.size() * count);
        double* rows = request.peaks ? searched.data() : request.power.data();
        const std::function<std::size_t(std::size_t)> rowOf =
            request.peaks ? std::function<std::size_t(std::size_t)>([](std::size_t k) { return k; })
                          : [&](std::size_t k) { return request.valid[k]; };
        const Status s = options.precision == Precision::Float64
                             ? batch<double>(cpu, context.timeline(), request, rows, rowOf)
                             : batch<float>(cpu, context.timeline(), request, rows, rowOf);
        if (!s)
            return s;
    } catch (const std::bad_alloc&) {
        return Status::failure("Out of host memory for the periodogram batch");
    }
    if (options.cancel && options.cancel->load())
        return Status::failure("The periodogram was cancelled");
    computeMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!request.peaks) {
        for (const std::size_t i : request.valid)
            checkBatchRow(request, i);
        return Status::success();
    }
    for (std::size_t k = 0; k < request.valid.size(); ++k) {
        const std::span<const double> row(searched.data() + k * count, count);
        const auto nonFinite =
            std::count_if(row.begin(), row.end(), [](double p) { return !std::isfinite(p); });
        const std::size_t object = request.valid[k];
        (*request.peaks)[object] = topPeaks(row, options.grid, request.maxPeaks);
        checkBatchPeaks(request, object, (long long)nonFinite);
    }
    return Status::success();
}

} // namespace warpscope::gpu
