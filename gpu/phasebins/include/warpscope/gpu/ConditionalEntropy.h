#pragma once

#include "warpscope/gpu/Context.h"
#include "warpscope/gpu/Periodogram.h"
#include "warpscope/gpu/Status.h"
#include "warpscope/gpu/TimeSeries.h"

#include <atomic>
#include <span>
#include <string>
#include <vector>

namespace warpscope::gpu {

// Conditional entropy (Graham et al. 2013, MNRAS 434, 2629, eqs. 1-3). The values y are scaled
// to [0, 1] by their minimum and maximum (the maximum falls in the last magnitude bin); at each
// trial frequency f the series folds at phase = frac((t - t[0]) f), t[0] the series' first
// time as given. The points fall in a histogram of phaseBins phase bins by magnitudeBins
// magnitude bins, p(m_i, phi_j) = count / N and p(phi_j) = sum_i p(m_i, phi_j);
// H_c = sum over the non-empty cells of p(m_i, phi_j) ln(p(phi_j) / p(m_i, phi_j)), in nats.
// H_c is least at the true period.
//
// Unweighted, as the definition is: dy is ignored.
inline constexpr int kConditionalEntropyMinBins = 2;
inline constexpr int kConditionalEntropyMaxBins = 1000;

struct ConditionalEntropyOptions
{
    int phaseBins = 10;    // kConditionalEntropyMinBins to kConditionalEntropyMaxBins
    int magnitudeBins = 5; // the same range
};

// What is wrong with the request, one message per problem; empty when valid. The series needs
// finite t and y, times that differ and y that varies (its minimum and maximum scale it); the
// grid, what validateFrequencyRange accepts (1 to kMaxFrequencies positive frequencies).
std::vector<std::string> validateConditionalEntropy(const TimeSeries& series,
                                                    const FrequencyGrid& grid,
                                                    const ConditionalEntropyOptions& options);

// H_c for every frequency of grid, into entropy (at least grid.count values) on context's
// device; kernelMs, cancel and the failures as computePhaseDispersion's.
Status computeConditionalEntropy(Context& context, const TimeSeries& series,
                                 const FrequencyGrid& grid,
                                 const ConditionalEntropyOptions& options,
                                 std::span<double> entropy, double* kernelMs = nullptr,
                                 const std::atomic<bool>* cancel = nullptr);

} // namespace warpscope::gpu
