#include "periodogram/HarmonicPeriodogramCpu.h"

#include "periodogram/HarmonicLombScargle.h"
#include "periodogram/PeriodogramPlan.h"

#include <algorithm>
#include <string>

namespace warpscope::gpu {
namespace {

// Frequencies in chunks, as the one-term CPU periodogram does: each chunk starts every
// sample's phase exactly and rotates it from one frequency to the next (on an evenly spaced
// grid; a logarithmic grid starts every phase exactly). Phases and sums are double in either
// precision: this path runs at most a few times the one-term work per frequency, and the
// harmonics' rotations would compound float32's rounding.
template <int K>
void harmonicPeriodogram(CpuBacking& cpu, Timeline* timeline, const PeriodogramPlan<double>& plan,
                         const std::atomic<bool>* cancel, double* power)
{
    const std::size_t n = plan.t.size();
    const long long count = plan.grid.count;
    constexpr long long kChunk = 512;
    const long long chunks = (count + kChunk - 1) / kChunk;
    cpu.hostPool().parallelFor(
        std::size_t(chunks), [&](std::size_t begin, std::size_t end, unsigned worker) {
            const std::string name = "periodogram chunks " + std::to_string(begin) + "-" +
                                     std::to_string(end - 1) + ", " + std::to_string(K) + " terms";
            const ScopedHostSpan span(timeline, cpu.workerLane(worker), name, SpanKind::Kernel);
            std::vector<double> cosX(n), sinX(n);
            for (std::size_t chunk = begin; chunk < end; ++chunk) {
                if (cancel && cancel->load(std::memory_order_relaxed))
                    return;
                const long long k0 = (long long)chunk * kChunk;
                const long long steps = std::min(count - k0, kChunk);
                for (long long k = k0; k < k0 + steps; ++k) {
                    const bool exact = plan.grid.logarithmic || k == k0;
                    const double f = plan.grid.frequency(k);
                    math::HarmonicSums<K> sums;
                    for (std::size_t i = 0; i < n; ++i) {
                        if (exact) {
                            exactPhase(f, plan.tDouble[i], cosX[i], sinX[i]);
                        } else {
                            const double c = cosX[i] * plan.stepCos[i] - sinX[i] * plan.stepSin[i];
                            sinX[i] = sinX[i] * plan.stepCos[i] + cosX[i] * plan.stepSin[i];
                            cosX[i] = c;
                        }
                        math::harmonicAccumulate<K>(sums, plan.w[i], plan.wy[i], cosX[i], sinX[i]);
                    }
                    power[k] = math::harmonicPower<K>(sums, plan.yy, plan.psdScale,
                                                      plan.normalization, plan.fitMean);
                }
            }
        });
}

} // namespace

void harmonicPeriodogramCpu(CpuBacking& cpu, Timeline* timeline, const TimeSeries& series,
                            const PeriodogramMoments& moments, const PeriodogramOptions& options,
                            double* power)
{
    const PeriodogramPlan<double> plan = makePeriodogramPlan<double>(series, options, moments);
    switch (options.nterms) {
    case 2:
        return harmonicPeriodogram<2>(cpu, timeline, plan, options.cancel, power);
    case 3:
        return harmonicPeriodogram<3>(cpu, timeline, plan, options.cancel, power);
    case 4:
        return harmonicPeriodogram<4>(cpu, timeline, plan, options.cancel, power);
    case 5:
        return harmonicPeriodogram<5>(cpu, timeline, plan, options.cancel, power);
    case 6:
        return harmonicPeriodogram<6>(cpu, timeline, plan, options.cancel, power);
    default:
        return harmonicPeriodogram<1>(cpu, timeline, plan, options.cancel, power);
    }
}

} // namespace warpscope::gpu
