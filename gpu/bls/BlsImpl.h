#pragma once

// The box least squares' arithmetic, written once for the CPU backend and the CUDA kernel.
//
// A box of duration D centred at transit time t0 holds the points whose phase lies within
// D / 2 of t0 (modulo the period). astropy tries t0 = k * s, s = D / oversample, for k = 0,
// 1, ... while t0 < period + s. With half-steps h = s / 2 every box's edges, (2k - o) h and
// (2k + o) h (o = oversample), fall on multiples of h, so the points binned by floor(phase /
// h) give every box's exact sums as a run of 2o bins. A box that wraps around the period's end
// takes its points at phase - period or phase + period, so each point near an end is binned
// there too; bins start at -o (stored from index 0).
#include "runtime/HostDevice.h"

#include <cmath>

namespace warpscope::gpu::math {

// The transit times tried for a duration's step: numpy's arange(0, period + step, step).
WS_HD long long blsPhaseCount(double period, double step)
{
    return (long long)ceil((period + step) / step);
}

// The half-step bins a period and duration need: from -o to the last box's right edge.
WS_HD long long blsBinCount(long long phases, int oversample)
{
    return 2 * phases + 2 * (long long)oversample - 2;
}

// The doubles a period and duration's sums take: a weight and a weighted y for each bin and
// each box's correction (blsBinPoint).
WS_HD long long blsSums(long long phases, int oversample)
{
    return 2 * (blsBinCount(phases, oversample) + phases);
}

// The phase of a time in [0, period).
WS_HD double blsPhase(double t, double period)
{
    double phase = t - period * floor(t / period);
    if (phase >= period)
        phase -= period;
    if (phase < 0.0)
        phase += period;
    return phase;
}

// One duration's binning of a period (see above).
struct BlsBinning
{
    double period = 0.0;
    double halfDuration = 0.0;
    double step = 0.0;
    double inverseHalfStep = 0.0;
    int oversample = 1;
    long long phases = 0;
    long long bins = 0;
};

WS_HD BlsBinning blsBinning(double period, double duration, int oversample)
{
    BlsBinning b;
    b.period = period;
    b.halfDuration = 0.5 * duration;
    b.step = duration / oversample;
    b.inverseHalfStep = 2.0 / b.step;
    b.oversample = oversample;
    b.phases = blsPhaseCount(period, b.step);
    b.bins = blsBinCount(b.phases, oversample);
    return b;
}

// Plain double arithmetic, each operation rounded on its own: the compilers may not fuse
// them into one multiply-add, so a point on a box's edge is decided as astropy decides it.
WS_HD double blsAdd(double a, double b)
{
#if defined(__CUDA_ARCH__)
    return __dadd_rn(a, b);
#else
    return a + b;
#endif
}

WS_HD double blsMul(double a, double b)
{
#if defined(__CUDA_ARCH__)
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
}

// Whether the point at time t lies in box k, as astropy's expression computes it:
// abs((t - t0 + P / 2) % P - P / 2) < D / 2 with t0 = k * step, in double, Python's modulo.
WS_HD bool blsInBox(const BlsBinning& b, double t, long long k)
{
    const double halfPeriod = 0.5 * b.period;
    const double shifted = blsAdd(blsAdd(t, -blsMul(double(k), b.step)), halfPeriod);
    double m = fmod(shifted, b.period);
    if (m < 0.0)
        m = blsAdd(m, b.period);
    return fabs(blsAdd(m, -halfPeriod)) < b.halfDuration;
}

// How close to a bin's edge, in bins, a point's phase is taken to be on it: the binned phase
// and astropy's differ by their roundings, far below this.
inline constexpr double kBlsEdgeTolerance = 1e-6;

// Bins the point at time t and phase: add(bin) for every bin it falls in (its own, and its
// copies a period before and after where a box that wraps around the period's end reaches
// them). A copy on an edge between bins, where a box's edge may fall, is decided for the two
// boxes with that edge by astropy's own expression (blsInBox), and correct(k, sign) adds
// (sign +1) or takes out (-1) the point from box k where the bins decided otherwise; real
// cadences put points there, when the period is a multiple of the cadence.
template <typename Add, typename Correct>
WS_HD void blsBinPoint(const BlsBinning& b, double t, double phase, Add add, Correct correct)
{
    const double at[3] = {phase, phase - b.period, phase + b.period};
    const bool needed[3] = {true, phase >= b.period - b.halfDuration,
                            phase < b.step + b.halfDuration};
    const long long o = b.oversample;
    WS_UNROLL
    for (int c = 0; c < 3; ++c) {
        const double x = at[c] * b.inverseHalfStep;
        const long long bin = (long long)floor(x) + o;
        const bool binned = needed[c] && bin >= 0 && bin < b.bins;
        if (binned)
            add(bin);
        const double nearest = floor(x + 0.5);
        if (!(fabs(x - nearest) < kBlsEdgeTolerance))
            continue;
        // The edge is the left one of box (e + o) / 2 and the right one of box (e - o) / 2,
        // where those are whole; box k holds bins 2k to 2k + 2o - 1 (stored indices).
        const long long e = (long long)nearest;
        const long long twice[2] = {e + o, e - o};
        for (const long long twiceK : twice) {
            if (twiceK < 0 || twiceK % 2 != 0 || twiceK / 2 >= b.phases)
                continue;
            const long long k = twiceK / 2;
            const bool byBins = binned && bin >= 2 * k && bin < 2 * k + 2 * o;
            const bool exact = blsInBox(b, t, k);
            if (byBins != exact)
                correct(k, exact ? 1.0 : -1.0);
        }
    }
}

// A box's figures; objective is -infinity for a box that is not a transit.
struct BlsCandidate
{
    double objective = -INFINITY;
    double depth = 0.0;
    double depthErr = 0.0;
    double snr = 0.0;
    double logLikelihood = 0.0;
};

// The box with weights wIn and weighted sum wyIn inside, of totals wTotal and wyTotal. Not a
// transit (astropy's NaN comparisons) when either side holds no weight or the box is not
// lower than the rest. The outside's weight is a difference, so "none" is a weight below
// 1e-12 of the total.
WS_HD BlsCandidate blsEvaluate(double wIn, double wyIn, double wTotal, double wyTotal,
                               bool likelihood)
{
    BlsCandidate c;
    const double wOut = wTotal - wIn;
    if (!(wIn > 0.0) || !(wOut > 1e-12 * wTotal))
        return c;
    const double yIn = wyIn / wIn;
    const double yOut = (wyTotal - wyIn) / wOut;
    const double depth = yOut - yIn;
    if (!(depth > 0.0))
        return c;
    c.depth = depth;
    c.depthErr = sqrt(1.0 / wIn + 1.0 / wOut);
    c.snr = depth / c.depthErr;
    c.logLikelihood = 0.5 * wIn * depth * depth;
    c.objective = likelihood ? c.logLikelihood : c.snr;
    return c;
}

// A box's place in astropy's search order (durations, then transit times), so that of equal
// objectives the first one found wins, as there.
WS_HD long long blsOrder(int duration, long long phase)
{
    return ((long long)duration << 40) | phase;
}

// Whether (objective, order) is the better of two boxes.
WS_HD bool blsBefore(double objective, long long order, double otherObjective, long long otherOrder)
{
    return objective > otherObjective || (objective == otherObjective && order < otherOrder);
}

// The mid-transit time of box k of a binning, in [0, period), from the series' first time.
WS_HD double blsTransitTime(const BlsBinning& b, long long k)
{
    const double t0 = double(k) * b.step;
    return t0 >= b.period ? t0 - b.period : t0;
}

} // namespace warpscope::gpu::math
