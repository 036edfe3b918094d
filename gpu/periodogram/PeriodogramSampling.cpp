#include "warpscope/gpu/PeriodogramSampling.h"

#include <algorithm>
#include <cmath>

namespace warpscope::gpu {

namespace {

// The place of the last decimal the times are written to, as a power of ten (1e-6 for times
// printed with six decimals), or 0 when they carry more than kMaxPrintedDecimals.
double printedQuantum(const std::vector<double>& t)
{
    constexpr int kMaxPrintedDecimals = 9;
    for (int d = 0; d <= kMaxPrintedDecimals; ++d) {
        const double scale = std::pow(10.0, d);
        const bool whole = std::all_of(t.begin(), t.end(), [&](double v) {
            const double x = v * scale;
            // What double's 53 bits leave of x's fraction, and a little more.
            return std::abs(x - std::round(x)) <= 1e-6 + 8.0 * std::abs(x) * 0x1p-52;
        });
        if (whole)
            return 1.0 / scale;
    }
    return 0.0;
}

} // namespace

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
    std::vector<double> single;
    for (const double d : intervals)
        if (d <= 1.5 * shortest)
            single.push_back(d);
    std::nth_element(single.begin(), single.begin() + single.size() / 2, single.end());
    const double median = single[single.size() / 2];
    // The one-step intervals' mean, as each one's rounding is undone by the next one's (the
    // sum of a run of them is its ends' difference); the median is one rounded interval,
    // 0.001389 for a 2-minute cadence written with six decimals, 2 steps short in 27 days.
    double sum = 0.0;
    long long ones = 0;
    for (const double d : single)
        if (std::abs(d - median) <= 0.25 * median) {
            sum += d;
            ++ones;
        }
    const double steps = std::round(span / (sum / double(ones)));
    // A lattice finer than double can place the times on is no evidence of regularity.
    if (!(steps >= 1.0) || steps > 0x1p40)
        return std::nullopt;
    RegularSampling s;
    s.step = span / steps;
    s.nyquist = 0.5 / s.step;
    // Times written with few decimals lie up to half their last decimal off the lattice, so a
    // whole decimal from the first time, itself rounded; a rounding coarser than
    // kRegularSamplingMaxRounding steps leaves the lattice unseen.
    double tolerance = kRegularSamplingTolerance;
    if (const double rounding = printedQuantum(t) / s.step; rounding <= kRegularSamplingMaxRounding)
        tolerance = std::max(tolerance, 1.01 * rounding);
    for (const double v : t) {
        const double k = (v - t.front()) / s.step;
        if (std::abs(k - std::round(k)) > tolerance)
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
