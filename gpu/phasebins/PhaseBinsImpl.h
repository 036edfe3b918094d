#pragma once

// The math of phase dispersion and conditional entropy, written once for the CPU backend and
// the CUDA kernels: the fold, the bins a phase or a scaled value falls in, a PDM bin's share of
// s^2 and a histogram cell's share of H_c. Each reproduces the definition's NumPy operations
// (tests/fixtures/generate_period_methods.py) rounding for rounding, so that a point on a
// bin's edge lands in the same bin as in the references.
#include "runtime/HostDevice.h"

#include <cmath>

namespace warpscope::gpu::phasebins {

// x modulo 1 as Python's x % 1.0 gives it, for any finite x: the exact fraction, rounded once
// (a tiny negative x gives 1.0, which the bins below put in the last bin).
WS_HD double cycleFraction(double x)
{
    return x - floor(x);
}

// The phase of a point dt = t - t[0] after the series' first time, at frequency f.
WS_HD double foldedPhase(double dt, double f)
{
    return cycleFraction(dt * f);
}

// Frequency k of a grid (FrequencyGrid::frequency, on the device too).
WS_HD double gridFrequency(double fmin, double df, long long k, bool logarithmic)
{
    return logarithmic ? fmin * exp(df * double(k)) : fmin + df * double(k);
}

// Which of `bins` equal bins of [0, 1] v falls in; 1 itself in the last.
WS_HD int unitBin(double v, int bins)
{
    const int b = int(v * double(bins));
    return b < bins - 1 ? b : bins - 1;
}

// The bin of cover `cover` a phase falls in: that cover's bins start c / (bins covers) of a
// cycle early.
WS_HD int coverBin(double phase, int cover, int bins, int covers)
{
    return unitBin(cycleFraction(phase + double(cover) / double(bins * covers)), bins);
}

// What s^2 sums over the bins: sum (n_j - 1) s_j^2, sum n_j and M, the bins with two points or
// more. Counts in double, exact far beyond any series, so that one reduction serves all three.
struct DispersionSums
{
    double squares = 0.0;
    double points = 0.0;
    double bins = 0.0;
};

// Adds a bin of n points whose values sum to `sum` and whose squares to `squares`. The values
// are centred on the series' mean, so the difference below loses little; rounding can still
// take a bin of equal values a hair below 0, which a variance never is.
WS_HD void addDispersionBin(DispersionSums& total, int n, double sum, double squares)
{
    if (n < 2)
        return;
    const double spread = squares - sum * sum / double(n);
    total.squares += spread > 0.0 ? spread : 0.0;
    total.points += double(n);
    total.bins += 1.0;
}

// theta = s^2 / sigma^2. There are more points than bins, so some bin of each cover holds two
// and the denominator is at least 1.
WS_HD double dispersionTheta(const DispersionSums& s, double sigma2)
{
    return s.squares / (s.points - s.bins) / sigma2;
}

// A non-empty cell's share of H_c: p ln(p(phi) / p), with p = cell / N and p(phi) = the cell's
// phase bin's count / N. Empty cells add nothing.
WS_HD double entropyCell(int cell, int phaseCount, double inverseN)
{
    if (cell <= 0)
        return 0.0;
    return double(cell) * inverseN * log(double(phaseCount) / double(cell));
}

} // namespace warpscope::gpu::phasebins
