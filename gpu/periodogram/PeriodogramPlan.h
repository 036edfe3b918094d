#pragma once

#include "warpscope/gpu/Periodogram.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <type_traits>
#include <vector>

namespace warpscope::gpu {

// The sums a periodogram's normalisation needs, with y and dy first scaled by powers of two
// (exactly: only exponents change) so that the largest |y| and the smallest dy lie in
// [1, 2). Unscaled, the squares of values near double's limits (y = 1e308, or 1e-300)
// overflow to infinity or underflow to zero, and every power comes out NaN. The standard,
// model and log powers do not depend on the scale of y or of dy; psd does, and psdScale
// carries it back: 2^(2 (yExponent - dyExponent)) sum(scaled dy^-2) / 2.
struct PeriodogramMoments
{
    int yExponent = 0;
    int dyExponent = 0;
    long double wsum = 0.0L; // sum of the scaled dy^-2
    long double mean = 0.0L; // weighted mean of the scaled y
    long double yy = 0.0L;   // sum w y^2 of the scaled y (w normalised), centred when asked for
    double psdScale = 0.0;   // infinite or 0 when the psd's scale is beyond double
};

// The exponent of the largest magnitude, so that dividing by 2^exponent brings it to [1, 2);
// 0 when there is nothing to scale.
inline int scaleExponent(double largest)
{
    return largest > 0.0 && std::isfinite(largest) ? std::ilogb(largest) : 0;
}

// The exponents that bring the largest |y| and the smallest dy to [1, 2).
inline int yScaleExponent(const TimeSeries& series)
{
    double largest = 0.0;
    for (const double y : series.y)
        largest = std::max(largest, std::abs(y));
    return scaleExponent(largest);
}

inline int dyScaleExponent(const TimeSeries& series)
{
    return series.dy.empty() ? 0
                             : scaleExponent(*std::min_element(series.dy.begin(), series.dy.end()));
}

// x 2^k as std::ldexp gives it, without its call for every sample: where 2^k is a normal
// double, the product is the same correctly rounded x 2^k (exact unless it overflows or
// lands among the subnormals, rounded once either way).
inline double scaledByPowerOfTwo(double x, int k)
{
    if (k < std::numeric_limits<double>::min_exponent - 1 ||
        k >= std::numeric_limits<double>::max_exponent)
        return std::ldexp(x, k);
    return x * std::bit_cast<double>(std::uint64_t(k + 1023) << 52);
}

// Sample i's weight, dy^-2 with dy scaled by 2^-dyExponent. The scaled dy are at least 1, so
// no weight is above 1; those of dy far above the smallest underflow to 0, which is their
// share of the sums to double precision anyway. In double: the weights reach the kernels in
// double at most, and the long double sums still carry the rounding of each one. A long
// double division costs several times a double one, and every call divides once a sample.
inline double scaledWeight(const TimeSeries& series, std::size_t i, int dyExponent)
{
    if (series.dy.empty())
        return 1.0;
    const double d = scaledByPowerOfTwo(series.dy[i], -dyExponent);
    return 1.0 / (d * d);
}

inline long double scaledValue(const TimeSeries& series, std::size_t i, int yExponent)
{
    return scaledByPowerOfTwo(series.y[i], -yExponent);
}

// For a series whose values are finite and whose dy are positive (validatePeriodogram).
// The sums are kept in locals, not in m's members: the compiler then holds them in x87
// registers instead of storing and reloading 80 bits at every sample (a third of the time).
inline PeriodogramMoments periodogramMoments(const TimeSeries& series, bool center)
{
    PeriodogramMoments m;
    const std::size_t n = series.y.size();
    m.yExponent = yScaleExponent(series);
    m.dyExponent = dyScaleExponent(series);
    long double wsum = 0.0L, wy = 0.0L;
    for (std::size_t i = 0; i < n; ++i) {
        const long double w = scaledWeight(series, i, m.dyExponent);
        wsum += w;
        wy += w * scaledValue(series, i, m.yExponent);
    }
    m.wsum = wsum;
    m.mean = wy / wsum;
    // Centred in a second pass, not as sum(w y^2) - mean^2, which cancels for small variance.
    const long double mean = center ? m.mean : 0.0L;
    long double yy = 0.0L;
    for (std::size_t i = 0; i < n; ++i) {
        const long double y = scaledValue(series, i, m.yExponent) - mean;
        yy += scaledWeight(series, i, m.dyExponent) * y * y;
    }
    m.yy = yy / wsum;
    m.psdScale = std::ldexp(double(0.5L * m.wsum), 2 * (m.yExponent - m.dyExponent));
    return m;
}

// validatePeriodogram, leaving in moments the sums its scale check computed, for the plan
// (where it finds no problem).
std::vector<PeriodogramProblem> validatePeriodogram(const TimeSeries& series,
                                                    const PeriodogramOptions& options,
                                                    PeriodogramMoments& moments);

// A validated series prepared for the kernels, in the compute precision T. Times are shifted
// to the middle of the baseline (the power does not depend on the time origin, and smaller
// phases lose less to rounding); weights sum to 1; y is scaled (PeriodogramMoments) and
// centred when asked for.
template <typename T> struct PeriodogramPlan
{
    std::vector<T> t;  // t - t0
    std::vector<T> w;  // dy^-2, normalised
    std::vector<T> wy; // w * y (y scaled and centred)
    // Per sample, the rotation from one frequency to the next: cos and sin of 2 pi df t.
    std::vector<T> stepCos, stepSin;
    std::vector<double> tDouble; // t - t0 in double, for exact start phases
    double yy = 0.0;             // sum w y^2
    double psdScale = 0.0;       // sum(dy^-2) / 2, with the scale of y and dy
    FrequencyGrid grid;
    int normalization = 0;
    bool fitMean = true;
};

// The phase of frequency f at time t as (cos, sin) of 2 pi f t, reduced in cycles first, so
// large f t keep their accuracy.
inline void exactPhase(double f, double t, double& c, double& s)
{
    const double cycles = f * t;
    const double x = 2.0 * std::numbers::pi * (cycles - std::nearbyint(cycles));
    c = std::cos(x);
    s = std::sin(x);
}

// Where the rotation steps are computed: here, or by the device that runs the plan
// (stepCos and stepSin are then left empty).
enum class PlanSteps
{
    Host,
    Device
};

// m: the series' moments for these options, as validatePeriodogram left them (computed once
// a call: they are two of the host's few O(N) passes before the first launch).
template <typename T>
PeriodogramPlan<T> makePeriodogramPlan(const TimeSeries& series, const PeriodogramOptions& options,
                                       const PeriodogramMoments& m,
                                       PlanSteps steps = PlanSteps::Host)
{
    PeriodogramPlan<T> plan;
    const std::size_t n = series.t.size();
    const auto [lo, hi] = std::minmax_element(series.t.begin(), series.t.end());
    const double t0 = *lo + 0.5 * (*hi - *lo); // (lo + hi) / 2 could overflow
    const bool center = options.fitMean || options.centerData;
    // float64's values are computed in long double, so that each is rounded once. float32's
    // are computed in double, whose rounding is far below a float's: the x87's long double
    // would cost a store and a load at every step, half of the plan's time.
    using Wide = std::conditional_t<sizeof(T) == 4, double, long double>;
    const Wide toUnitSum = Wide(1.0L / m.wsum);
    const Wide mean = Wide(center ? m.mean : 0.0L);
    const int yExponent = m.yExponent, dyExponent = m.dyExponent;
    plan.t.resize(n);
    plan.tDouble.resize(n);
    plan.w.resize(n);
    plan.wy.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        const Wide y = Wide(scaledByPowerOfTwo(series.y[i], -yExponent)) - mean;
        const Wide w = Wide(scaledWeight(series, i, dyExponent)) * toUnitSum;
        plan.tDouble[i] = series.t[i] - t0;
        plan.t[i] = T(plan.tDouble[i]);
        plan.w[i] = T(w);
        plan.wy[i] = T(w * y);
    }
    if (steps == PlanSteps::Host) {
        plan.stepCos.resize(n);
        plan.stepSin.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            double c = 0.0, s = 0.0;
            exactPhase(options.grid.df, plan.tDouble[i], c, s);
            plan.stepCos[i] = T(c);
            plan.stepSin[i] = T(s);
        }
    }
    plan.yy = double(m.yy);
    plan.psdScale = m.psdScale;
    plan.grid = options.grid;
    plan.normalization = int(options.normalization);
    plan.fitMean = options.fitMean;
    return plan;
}

} // namespace warpscope::gpu
