#pragma once

#include "warpscope/gpu/Periodogram.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

namespace warpscope::gpu {

// A validated series prepared for the kernels, in the compute precision T. Times are shifted
// to the middle of the baseline (the power does not depend on the time origin, and smaller
// phases lose less to rounding); weights sum to 1; y is centred when asked for.
template <typename T> struct PeriodogramPlan
{
    std::vector<T> t;  // t - t0
    std::vector<T> w;  // dy^-2, normalised
    std::vector<T> wy; // w * y (y centred)
    // Per sample, the rotation from one frequency to the next: cos and sin of 2 pi df t.
    std::vector<T> stepCos, stepSin;
    std::vector<double> tDouble; // t - t0 in double, for exact start phases
    double yy = 0.0;             // sum w y^2
    double psdScale = 0.0;       // sum(dy^-2) / 2
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

template <typename T>
PeriodogramPlan<T> makePeriodogramPlan(const TimeSeries& series, const PeriodogramOptions& options)
{
    PeriodogramPlan<T> plan;
    const std::size_t n = series.t.size();
    const auto [lo, hi] = std::minmax_element(series.t.begin(), series.t.end());
    const double t0 = 0.5 * (*lo + *hi);
    std::vector<long double> w(n);
    long double wsum = 0.0L, wdy = 0.0L;
    for (std::size_t i = 0; i < n; ++i) {
        const long double d = series.dy.empty() ? 1.0L : (long double)series.dy[i];
        w[i] = 1.0L / (d * d);
        wsum += w[i];
    }
    wdy = wsum;
    long double mean = 0.0L;
    for (std::size_t i = 0; i < n; ++i) {
        w[i] /= wsum;
        mean += w[i] * series.y[i];
    }
    const bool center = options.fitMean || options.centerData;
    plan.t.resize(n);
    plan.tDouble.resize(n);
    plan.w.resize(n);
    plan.wy.resize(n);
    plan.stepCos.resize(n);
    plan.stepSin.resize(n);
    long double yy = 0.0L;
    for (std::size_t i = 0; i < n; ++i) {
        const long double y = series.y[i] - (center ? mean : 0.0L);
        yy += w[i] * y * y;
        plan.tDouble[i] = series.t[i] - t0;
        plan.t[i] = T(plan.tDouble[i]);
        plan.w[i] = T(w[i]);
        plan.wy[i] = T(w[i] * y);
        double c = 0.0, s = 0.0;
        exactPhase(options.grid.df, plan.tDouble[i], c, s);
        plan.stepCos[i] = T(c);
        plan.stepSin[i] = T(s);
    }
    plan.yy = double(yy);
    plan.psdScale = double(0.5L * wdy);
    plan.grid = options.grid;
    plan.normalization = int(options.normalization);
    plan.fitMean = options.fitMean;
    return plan;
}

} // namespace warpscope::gpu
