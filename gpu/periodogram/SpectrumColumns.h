#pragma once

#include "runtime/HostDevice.h"

#include <math.h>

// How a periodogram maps onto a plot's pixel columns and what each column draws, written once
// for the CPU and the CUDA decimation (see gpu/Spectrum.h).
namespace warpscope::gpu::math {

struct SpectrumMapping
{
    double xMin, xMax; // the visible axis range
    bool period, logX;
    double scale; // axis units per cycle per unit time, for frequency axes
    int columns;
    double fmin, df;
    long long count;
    bool logGrid; // f_k = fmin e^{k df} instead of fmin + k df
};

// The fractional frequency index at column position c (0 at the left edge).
WS_HD double spectrumIndexAt(const SpectrumMapping& m, double c)
{
    const double u = c / double(m.columns);
    const double x = m.logX ? exp(log(m.xMin) + u * (log(m.xMax) - log(m.xMin)))
                            : m.xMin + u * (m.xMax - m.xMin);
    const double f = m.period ? (x > 0.0 ? 1.0 / x : HUGE_VAL) : x / m.scale;
    // On a logarithmic grid, f <= 0 gives -inf or NaN, which count as below the grid.
    return m.logGrid ? log(f / m.fmin) / m.df : (f - m.fmin) / m.df;
}

// The column position of frequency index k.
WS_HD double spectrumColumnOf(const SpectrumMapping& m, long long k)
{
    const double f = m.logGrid ? m.fmin * exp(m.df * double(k)) : m.fmin + m.df * double(k);
    const double x = m.period ? 1.0 / f : f * m.scale;
    const double u = m.logX ? (log(x) - log(m.xMin)) / (log(m.xMax) - log(m.xMin))
                            : (x - m.xMin) / (m.xMax - m.xMin);
    return u * double(m.columns);
}

// The smallest index at or above a fractional index, within [0, count].
WS_HD long long spectrumCeilIndex(double v, long long count)
{
    if (!(v > 0.0))
        return 0;
    if (v >= double(count))
        return count;
    return (long long)ceil(v);
}

// The indices column c covers: [lo, hi). Neighbouring columns share their boundary, so the
// columns partition the visible indices.
WS_HD void spectrumColumnRange(const SpectrumMapping& m, int c, long long& lo, long long& hi)
{
    double a = spectrumIndexAt(m, double(c));
    double b = spectrumIndexAt(m, double(c + 1));
    if (a > b) {
        const double t = a;
        a = b;
        b = t;
    }
    lo = spectrumCeilIndex(a, m.count);
    hi = spectrumCeilIndex(b, m.count);
}

// The index nearest the centre of a column that covers none.
WS_HD long long spectrumNearestIndex(const SpectrumMapping& m, int c)
{
    const double v = spectrumIndexAt(m, double(c) + 0.5);
    if (!(v > 0.0))
        return 0;
    if (v >= double(m.count - 1))
        return m.count - 1;
    return (long long)floor(v + 0.5);
}

// Whether index i is a local maximum: higher than its left neighbour and not lower than its
// right one, so a plateau counts once, at its first point.
WS_HD bool spectrumIsPeak(const double* power, long long i, long long count)
{
    const double p = power[i];
    if (!isFiniteValue(p))
        return false;
    const bool left = i == 0 || p > power[i - 1];
    const bool right = i + 1 == count || p >= power[i + 1];
    return left && right;
}

// Peak order: higher power first, then the lower index.
WS_HD bool spectrumPeakBefore(double powerA, long long indexA, double powerB, long long indexB)
{
    return powerA > powerB || (powerA == powerB && indexA < indexB);
}

} // namespace warpscope::gpu::math
