// The batch's entry point: what concerns every object is checked once, each object is
// validated on its own, then the implementation for the context's device computes the valid
// ones.
#include "periodogram/PeriodogramBatchShared.h"
#include "periodogram/PeriodogramShared.h"
#include "runtime/ThreadPool.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace warpscope::gpu {

void checkBatchRow(BatchRequest& request, std::size_t object)
{
    const PeriodogramOptions& options = *request.options;
    const std::size_t count = std::size_t(options.grid.count);
    double* row = request.power.data() + object * count;
    const long long nonFinite =
        std::count_if(row, row + count, [](double p) { return !std::isfinite(p); });
    if (Status s = checkPowers(nonFinite, 0, options); !s) {
        (*request.status)[object] = s;
        std::fill(row, row + count, std::numeric_limits<double>::quiet_NaN());
    }
}

void checkBatchPeaks(BatchRequest& request, std::size_t object, long long nonFinite)
{
    if (Status s = checkPowers(nonFinite, 0, *request.options); !s) {
        (*request.status)[object] = s;
        (*request.peaks)[object].clear();
    }
}

namespace {

// What concerns every object is checked once, each object is validated on its own, then the
// implementation for the context's device computes the valid ones: their powers into power,
// or, when peaks is set, their peaks alone.
Status runBatch(Context& context, std::span<const TimeSeries> series,
                const PeriodogramOptions& options, std::span<double> power,
                std::vector<Status>* perObject, double* kernelMs,
                std::vector<std::vector<Peak>>* peaks, int maxPeaks)
{
    if (options.nterms != 1)
        return Status::failure("The batch computes the one-term model; " +
                               std::to_string(options.nterms) +
                               " terms are computed one object at a time");
    if (options.method == PeriodogramMethod::Matrix && !context.isCuda())
        return Status::failure("The batch's matrix products run on CUDA; on the CPU the "
                               "batch runs the direct sums (Method: Auto or Direct)");
    if (options.grid.count < 1 || options.grid.count > kMaxFrequencies)
        return Status::failure("The batch's grid needs 1 to " + std::to_string(kMaxFrequencies) +
                               " frequencies; it has " + std::to_string(options.grid.count));
    if (coveredFrequencies(options.launch, options.grid.count) < options.grid.count)
        return Status::failure(
            "The batch evaluates every frequency; the launch covers only " +
            std::to_string(coveredFrequencies(options.launch, options.grid.count)) +
            " (use an automatic grid of blocks or grid-stride)");
    const std::size_t count = std::size_t(options.grid.count);
    if (!peaks && power.size() / count < series.size())
        return Status::failure("The output holds " + std::to_string(power.size()) +
                               " values; the batch needs " + std::to_string(series.size()) + " x " +
                               std::to_string(count));
    std::vector<Status> local;
    BatchRequest request;
    request.series = series;
    request.options = &options;
    if (!peaks)
        request.power = power.first(series.size() * count);
    request.status = perObject ? perObject : &local;
    request.status->assign(series.size(), Status::success());
    request.peaks = peaks;
    request.maxPeaks = maxPeaks;
    if (peaks)
        peaks->assign(series.size(), {});
    request.moments.resize(series.size());
    // Each object's checks are O(N) passes over its samples (the scale check's moments among
    // them): spread over the host's threads, so that the device does not wait for them.
    {
        const ScopedHostSpan span(context.timeline(), context.hostLane(),
                                  "periodogram batch checks");
        context.hostPool().parallelFor(series.size(), [&](std::size_t first, std::size_t last,
                                                          unsigned) {
            for (std::size_t i = first; i < last; ++i)
                (*request.status)[i] =
                    checkPeriodogram(series[i], options, count, context.info(), request.moments[i]);
        });
    }
    // A failed object's row is NaN; the implementations poison the others' (on CUDA on the
    // device, where the kernels write) and check every power.
    for (std::size_t i = 0; i < series.size(); ++i) {
        if (!(*request.status)[i]) {
            if (!peaks)
                std::fill_n(request.power.begin() + std::ptrdiff_t(i * count), count,
                            std::numeric_limits<double>::quiet_NaN());
        } else {
            request.valid.push_back(i);
        }
    }
    if (options.cancel && options.cancel->load())
        return Status::failure("The periodogram was cancelled");
    double ms = 0.0;
    if (!request.valid.empty()) {
        const Status status = context.isCuda() ? computePeriodogramBatchCuda(context, request, ms)
                                               : computePeriodogramBatchCpu(context, request, ms);
        if (!status)
            return status;
    }
    if (kernelMs)
        *kernelMs = ms;
    return Status::success();
}

} // namespace

Status computePeriodogramBatch(Context& context, std::span<const TimeSeries> series,
                               const PeriodogramOptions& options, std::span<double> power,
                               std::vector<Status>* perObject, double* kernelMs)
{
    return runBatch(context, series, options, power, perObject, kernelMs, nullptr, 0);
}

Status computePeriodogramBatchPeaks(Context& context, std::span<const TimeSeries> series,
                                    const PeriodogramOptions& options, int maxPeaks,
                                    std::vector<std::vector<Peak>>& peaks,
                                    std::vector<Status>* perObject, double* kernelMs)
{
    if (maxPeaks < 1 || maxPeaks > kSpectrumMaxPeaks)
        return Status::failure("The batch keeps 1 to " + std::to_string(kSpectrumMaxPeaks) +
                               " peaks per object, not " + std::to_string(maxPeaks));
    return runBatch(context, series, options, {}, perObject, kernelMs, &peaks, maxPeaks);
}

} // namespace warpscope::gpu
