#include "warpscope/gpu/PeriodogramSampling.h"

#include <algorithm>
#include <cmath>

namespace warpscope::gpu {

std::optional<RegularSampling> regularSampling(const std::vector<double>& times)
{
    if (!std::all_of(times.begin(), times.end(), [](double v) { return std::isfinite(v); }))
        return std::nullopt;
    std::vector<double> t = times;
    std::sort(t.begin(), t.end());
    t.erase(std::unique(t.begin(), t.end()), t.end());
    if (t.size() < kRegularSamplingMinTimes)
        return std::nullopt;
    const double span = t.back() - t.front();
    if (!std::isfinite(span))
        return std::nullopt;
    std::vector<double> intervals(t.size() - 1);
    for (std::size_t i = 0; i + 1 < t.size(); ++i)
        intervals[i] = t[i + 1] - t[i];
    const double shortest = *std::min_element(intervals.begin(), intervals.end());
    // One-step intervals: their median is robust to times rounded to a few digits.
    std::vector<double> single;
    for (const double d : intervals)
        if (d <= 1.5 * shortest)
            single.push_back(d);
    std::nth_element(single.begin(), single.begin() + single.size() / 2, single.end());
    const double steps = std::round(span / single[single.size() / 2]);
    // A lattice finer than double can place the times on is no evidence of regularity.
    if (!(steps >= 1.0) || steps > 0x1p40)
        return std::nullopt;
    RegularSampling s;
    s.step = span / steps;
    s.nyquist = 0.5 / s.step;
    for (const double v : t) {
        const double k = (v - t.front()) / s.step;
        if (std::abs(k - std::round(k)) > kRegularSamplingTolerance)
            return std::nullopt;
    }
    s.intervals = (long long)intervals.size();
    s.singleSteps = std::count_if(intervals.begin(), intervals.end(),
                                  [&](double d) { return std::round(d / s.step) == 1.0; });
    return s;
}

AutomaticGrid automaticGrid(const TimeSeries& series, double samplesPerPeak, double nyquistFactor)
{
    AutomaticGrid a;
    a.grid = autoFrequencyGrid(series, samplesPerPeak, nyquistFactor, std::nullopt, std::nullopt,
                               &a.cap);
    a.sampling = regularSampling(series.t);
    if (!a.sampling || a.grid.count < 1)
        return a;
    const double wantedFmax = a.cap.wanted > 0.0 ? a.cap.wantedFmax : a.grid.fmax();
    // The steps at or below the Nyquist frequency; the tolerance keeps a grid that lands on
    // it exactly from losing its last point to rounding.
    const double below =
        std::floor((a.sampling->nyquist - a.grid.fmin) / a.grid.df * (1.0 + 1e-12)) + 1.0;
    if (!(wantedFmax > a.sampling->nyquist) || !(below >= 1.0))
        return a;
    a.stopsAtNyquist = true;
    a.wantedFmax = wantedFmax;
    if (below > double(kMaxFrequencies)) {
        a.grid.count = kMaxFrequencies;
        a.cap = {below, a.sampling->nyquist};
    } else {
        a.grid.count = (long long)below;
        a.cap = {};
    }
    return a;
}

std::vector<Alias> aliasFrequencies(double f, TimeUnit unit,
                                    const std::optional<RegularSampling>& sampling)
{
    std::vector<Alias> aliases;
    if (!(f > 0.0) || !std::isfinite(f))
        return aliases;
    // A window peak at w copies f to f + w and to |f - w| (negative frequencies fold back).
    const auto add = [&](double w, const std::string& name) {
        aliases.push_back({f + w, "f + " + name});
        const double below = f - w;
        if (below > 0.0)
            aliases.push_back({below, "f - " + name});
        else if (below < 0.0)
            aliases.push_back({-below, name + " - f"});
    };
    if (sampling)
        add(1.0 / sampling->step, "1/dt");
    if (unit == TimeUnit::Day) {
        add(1.0, "1/d");
        add(1.0 / 365.25, "1/yr");
    } else if (unit == TimeUnit::Year) {
        add(1.0, "1/yr");
    }
    std::stable_sort(aliases.begin(), aliases.end(),
                     [](const Alias& a, const Alias& b) { return a.frequency < b.frequency; });
    // Yearly data sampled every year: 1/dt and 1/yr are the same window peak, listed once.
    const auto same = [](const Alias& a, const Alias& b) {
        return std::abs(a.frequency - b.frequency) <= 1e-9 * b.frequency;
    };
    aliases.erase(std::unique(aliases.begin(), aliases.end(), same), aliases.end());
    return aliases;
}

} // namespace warpscope::gpu
