#pragma once

#include "periodogram/LombScargle.h"
#include "periodogram/PeriodogramPlan.h"

#include <vector>

// The CPU's one-term periodogram works on chunks of consecutive frequencies, each independent
// of the others: one series' chunks spread over the thread pool (PeriodogramCpu.cpp), and so
// do a batch's (object, chunk) pairs (PeriodogramBatchCpu.cpp), with the same powers.
namespace warpscope::gpu {

// Frequencies a chunk holds: each chunk starts every phase exactly, then rotates it, whose
// rounding grows with the steps.
template <typename T> inline constexpr long long kCpuPeriodogramChunk = sizeof(T) == 8 ? 1024 : 256;

template <typename T> long long cpuPeriodogramChunks(long long count)
{
    return (count + kCpuPeriodogramChunk<T> - 1) / kCpuPeriodogramChunk<T>;
}

// A worker's scratch, sized for a series of n samples.
template <typename T> struct CpuPeriodogramScratch
{
    std::vector<T> cosX, sinX;
    std::vector<math::LsSums<T>> sums;
    void reserve(std::size_t n)
    {
        if (cosX.size() < n) {
            cosX.resize(n);
            sinX.resize(n);
        }
        sums.resize(std::size_t(kCpuPeriodogramChunk<T>));
    }
};

// Writes the powers of chunk `chunk` of plan's grid into power (the whole grid's array).
template <typename T>
void periodogramChunkCpu(const PeriodogramPlan<T>& plan, long long chunk,
                         CpuPeriodogramScratch<T>& scratch, double* power);

} // namespace warpscope::gpu
