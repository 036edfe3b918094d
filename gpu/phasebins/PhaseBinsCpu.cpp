// Phase dispersion and conditional entropy on the CPU: chunks of consecutive frequencies spread
// over the context's threads, each frequency's bins filled point by point (PhaseBinsImpl.h).
#include "phasebins/PhaseBinsImpl.h"
#include "phasebins/PhaseBinsShared.h"
#include "runtime/CpuContext.h"

#include <algorithm>
#include <chrono>
#include <new>
#include <string>

namespace warpscope::gpu {
namespace {

// Frequencies a chunk holds: enough to make a chunk's bookkeeping nothing beside its work,
// few enough that cancelling waits for little.
constexpr long long kChunk = 256;

// Runs frequencyValue(k, scratch) for every frequency of a grid of `count` over the context's
// threads, each with a Scratch of its own (made by makeScratch), recording each thread's
// chunks as a kernel span named `name`. Returns how long it took, in ms.
template <typename Scratch, typename MakeScratch, typename Value>
Status forEachFrequency(Context& context, const char* name, long long count,
                        const std::atomic<bool>* cancel, MakeScratch makeScratch,
                        Value frequencyValue, double& computeMs)
{
    CpuBacking& cpu = cpuBacking(context);
    const auto start = std::chrono::steady_clock::now();
    try {
        cpu.hostPool().parallelFor(
            std::size_t((count + kChunk - 1) / kChunk),
            [&](std::size_t begin, std::size_t end, unsigned worker) {
                const ScopedHostSpan span(context.timeline(), cpu.workerLane(worker),
                                          std::string(name) + " chunks " + std::to_string(begin) +
                                              "-" + std::to_string(end - 1),
                                          SpanKind::Kernel);
                Scratch scratch = makeScratch();
                for (std::size_t chunk = begin; chunk < end; ++chunk) {
                    if (cancel && cancel->load(std::memory_order_relaxed))
                        return;
                    const long long k0 = (long long)chunk * kChunk;
                    for (long long k = k0; k < std::min(count, k0 + kChunk); ++k)
                        frequencyValue(k, scratch);
                }
            });
    } catch (const std::bad_alloc&) {
        return Status::failure(std::string("Out of host memory for the ") + name);
    }
    computeMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return Status::success();
}

// A thread's bins for phase dispersion: every cover's, side by side.
struct DispersionScratch
{
    std::vector<int> counts;
    std::vector<double> sums, squares;
};

// A thread's histogram for conditional entropy, each phase bin's count and each point's cell.
struct EntropyScratch
{
    std::vector<int> cells, phaseCounts;
    std::vector<std::size_t> pointCell;
};

} // namespace

Status phaseDispersionCpu(Context& context, const DispersionPlan& plan, std::span<double> out,
                          const std::atomic<bool>* cancel, double& computeMs)
{
    const std::size_t bins = std::size_t(plan.bins) * std::size_t(plan.covers);
    const auto make = [bins] {
        return DispersionScratch{std::vector<int>(bins), std::vector<double>(bins),
                                 std::vector<double>(bins)};
    };
    const auto value = [&](long long k, DispersionScratch& s) {
        std::fill(s.counts.begin(), s.counts.end(), 0);
        std::fill(s.sums.begin(), s.sums.end(), 0.0);
        std::fill(s.squares.begin(), s.squares.end(), 0.0);
        const double f =
            phasebins::gridFrequency(plan.grid.fmin, plan.grid.df, k, plan.grid.logarithmic);
        for (std::size_t i = 0; i < plan.dt.size(); ++i) {
            const double phase = phasebins::foldedPhase(plan.dt[i], f), y = plan.y[i];
            for (int c = 0; c < plan.covers; ++c) {
                const std::size_t b =
                    std::size_t(c) * std::size_t(plan.bins) +
                    std::size_t(phasebins::coverBin(phase, c, plan.bins, plan.covers));
                ++s.counts[b];
                s.sums[b] += y;
                s.squares[b] += y * y;
            }
        }
        phasebins::DispersionSums total;
        for (std::size_t b = 0; b < bins; ++b)
            phasebins::addDispersionBin(total, s.counts[b], s.sums[b], s.squares[b]);
        out[std::size_t(k)] = phasebins::dispersionTheta(total, plan.sigma2);
    };
    return forEachFrequency<DispersionScratch>(context, "phase dispersion", plan.grid.count, cancel,
                                               make, value, computeMs);
}

Status conditionalEntropyCpu(Context& context, const EntropyPlan& plan, std::span<double> out,
                             const std::atomic<bool>* cancel, double& computeMs)
{
    const std::size_t n = plan.dt.size(), magnitudeBins = std::size_t(plan.magnitudeBins);
    const auto make = [&] {
        return EntropyScratch{std::vector<int>(std::size_t(plan.phaseBins) * magnitudeBins),
                              std::vector<int>(std::size_t(plan.phaseBins)),
                              std::vector<std::size_t>(n)};
    };
    // Only the cells the points reach are read and then cleared, so a frequency costs O(N)
    // however many cells the histogram has (a million at the most bins).
    const auto value = [&](long long k, EntropyScratch& s) {
        const double f =
            phasebins::gridFrequency(plan.grid.fmin, plan.grid.df, k, plan.grid.logarithmic);
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t p = std::size_t(
                phasebins::unitBin(phasebins::foldedPhase(plan.dt[i], f), plan.phaseBins));
            s.pointCell[i] = p * magnitudeBins + std::size_t(plan.magnitudeBin[i]);
            ++s.cells[s.pointCell[i]];
            ++s.phaseCounts[p];
        }
        double entropy = 0.0;
        for (std::size_t i = 0; i < n; ++i) {
            int& cell = s.cells[s.pointCell[i]];
            entropy += phasebins::entropyCell(cell, s.phaseCounts[s.pointCell[i] / magnitudeBins],
                                              plan.inverseN);
            cell = 0; // each cell counts once
        }
        std::fill(s.phaseCounts.begin(), s.phaseCounts.end(), 0);
        out[std::size_t(k)] = entropy;
    };
    return forEachFrequency<EntropyScratch>(context, "conditional entropy", plan.grid.count, cancel,
                                            make, value, computeMs);
}

} // namespace warpscope::gpu
