// Box least squares on the host's cores: the periods in chunks over the context's threads,
// each period binned once per duration (BlsImpl.h) and every box summed from its bins.
#include "bls/BlsImpl.h"
#include "bls/BlsShared.h"
#include "runtime/CpuContext.h"
#include "warpscope/gpu/Timeline.h"

#include <atomic>
#include <chrono>
#include <string>

namespace warpscope::gpu {
namespace {

constexpr std::size_t kPeriodsPerChunk = 16;

struct Best
{
    math::BlsCandidate box;
    long long order = 0;
    double duration = 0.0;
    double transitTime = 0.0;
};

// The best box of one period; sums holds plan.maxSums values.
Best bestBox(const BlsPlan& plan, double period, std::vector<double>& bins)
{
    Best best;
    best.order = std::numeric_limits<long long>::max();
    for (std::size_t d = 0; d < plan.durations.size(); ++d) {
        const math::BlsBinning b = math::blsBinning(period, plan.durations[d], plan.oversample);
        double* w = bins.data();
        double* wy = w + b.bins;
        double* boxW = wy + b.bins;
        double* boxWy = boxW + b.phases;
        std::fill(w, boxWy + b.phases, 0.0);
        for (std::size_t i = 0; i < plan.t.size(); ++i)
            math::blsBinPoint(
                b, plan.t[i], math::blsPhase(plan.t[i], period),
                [&](long long bin) {
                    w[bin] += plan.w[i];
                    wy[bin] += plan.wy[i];
                },
                [&](long long k, double sign) {
                    boxW[k] += sign * plan.w[i];
                    boxWy[k] += sign * plan.wy[i];
                });
        const long long run = 2LL * plan.oversample;
        for (long long k = 0; k < b.phases; ++k) {
            double wIn = boxW[k], wyIn = boxWy[k];
            for (long long j = 2 * k; j < 2 * k + run; ++j) {
                wIn += w[j];
                wyIn += wy[j];
            }
            const math::BlsCandidate c =
                math::blsEvaluate(wIn, wyIn, plan.wTotal, plan.wyTotal, plan.likelihood);
            const long long order = math::blsOrder(int(d), k);
            if (math::blsBefore(c.objective, order, best.box.objective, best.order)) {
                best = {c, order, plan.durations[d], math::blsTransitTime(b, k)};
            }
        }
    }
    return best;
}

void store(const BlsPlan& plan, std::size_t k, const Best& best, BlsResult& result)
{
    const bool found = best.box.objective > -INFINITY;
    result.power[k] = found ? best.box.objective : 0.0;
    result.depth[k] = best.box.depth;
    result.depthErr[k] = best.box.depthErr;
    result.duration[k] = found ? best.duration : plan.durations.front();
    result.transitTime[k] = (found ? best.transitTime : 0.0) + plan.tRef;
    result.depthSnr[k] = best.box.snr;
    result.logLikelihood[k] = best.box.logLikelihood;
}

} // namespace

Status computeBoxLeastSquaresCpu(Context& context, const BlsPlan& plan, BlsResult& result,
                                 double& ms)
{
    CpuBacking& cpu = cpuBacking(context);
    const auto start = std::chrono::steady_clock::now();
    const std::size_t periods = plan.periods.size();
    const std::size_t chunks = (periods + kPeriodsPerChunk - 1) / kPeriodsPerChunk;
    cpu.hostPool().parallelFor(chunks, [&](std::size_t begin, std::size_t end, unsigned worker) {
        const ScopedHostSpan span(context.timeline(), cpu.workerLane(worker),
                                  "box least squares periods " +
                                      std::to_string(begin * kPeriodsPerChunk) + "-" +
                                      std::to_string(std::min(end * kPeriodsPerChunk, periods) - 1),
                                  SpanKind::Kernel);
        std::vector<double> bins(std::size_t(plan.maxSums));
        for (std::size_t chunk = begin; chunk < end; ++chunk) {
            if (plan.cancel && plan.cancel->load(std::memory_order_relaxed))
                return;
            const std::size_t last = std::min(periods, (chunk + 1) * kPeriodsPerChunk);
            for (std::size_t k = chunk * kPeriodsPerChunk; k < last; ++k)
                store(plan, k, bestBox(plan, plan.periods[k], bins), result);
        }
    });
    if (plan.cancel && plan.cancel->load())
        return Status::failure("Box least squares was cancelled");
    ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return Status::success();
}

} // namespace warpscope::gpu
