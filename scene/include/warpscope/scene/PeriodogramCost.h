#pragma once

#include "warpscope/gpu/DistanceParams.h"

#include <cstddef>
#include <string>

namespace warpscope::scene {

// What a periodogram will cost, estimated before it starts, so that a long one is announced
// instead of leaving the person to wonder: terms = points x frequencies x terms of the model
// (each sample's rotation and sums at each frequency, once per harmonic), at a rate per
// backend (terms a second):
// - the CPU: 1e9 a thread. The direct sums ran N = 1024, M = 2^16 (6.7e7 terms) in 9.6 ms on
//   the 2-core build machine idle (3.5e9 a core) and in 29.6 ms while other builds ran (1.1e9
//   a core); the busy figure is taken, so that the estimate errs long.
// - CUDA, float64: 1e10. An H100's direct kernel runs 7.2e11 (1.50 ms for N = 1024,
//   M = 2^20), but most other GPUs run float64 at 1/32 to 1/64 of float32: an estimate for
//   those, long on a data-centre GPU.
// - CUDA, float32: 2e11, a sixth of the H100's 1.27e12, for smaller GPUs.
struct PeriodogramCost
{
    std::size_t points = 0;
    long long frequencies = 0;
    int nterms = 1;
    double terms = 0.0;   // points x frequencies x nterms
    double rate = 0.0;    // terms a second on the device
    double seconds = 0.0; // terms / rate
};

PeriodogramCost periodogramCost(std::size_t points, long long frequencies, int nterms, bool cuda,
                                gpu::Precision precision, unsigned cpuThreads);

// Above this, a periodogram is announced with its estimate, and its progress shown.
constexpr double kLongPeriodogramSeconds = 5.0;
bool isLong(const PeriodogramCost& cost);

// "10000000 points x 25000000 frequencies x 1 term = 2.5e+14 terms: about 69h26m at 1e+09
// terms/s"
std::string costText(const PeriodogramCost& cost);

// A duration as a person reads it: 42s, 3m05s, 2h07m.
std::string durationText(double seconds);

} // namespace warpscope::scene
