#include "warpscope/gpu/Periodogram.h"

#include "PeriodogramPlan.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace warpscope::gpu {
namespace {

bool finite(double v)
{
    return std::isfinite(v);
}

// Weighted mean and variance of t, with weights dy^-2 (or equal weights).
double weightedVariance(const TimeSeries& s)
{
    long double sw = 0, st = 0, stt = 0;
    for (std::size_t i = 0; i < s.t.size(); ++i) {
        const long double w = s.dy.empty() ? 1.0L : 1.0L / ((long double)s.dy[i] * s.dy[i]);
        sw += w;
        st += w * s.t[i];
        stt += w * s.t[i] * s.t[i];
    }
    const long double mean = st / sw;
    return double(stt / sw - mean * mean);
}

// sqrt(2 / n) * Gamma(n / 2) / Gamma((n - 1) / 2)
double gammaFactor(double n)
{
    return std::sqrt(2.0 / n) * std::exp(std::lgamma(n / 2.0) - std::lgamma((n - 1.0) / 2.0));
}

} // namespace

const char* normalizationName(Normalization normalization)
{
    switch (normalization) {
    case Normalization::Model:
        return "model";
    case Normalization::Log:
        return "log";
    case Normalization::Psd:
        return "psd";
    case Normalization::Standard:
        break;
    }
    return "standard";
}

std::optional<Normalization> parseNormalization(const std::string& text)
{
    for (Normalization n :
         {Normalization::Standard, Normalization::Model, Normalization::Log, Normalization::Psd})
        if (text == normalizationName(n))
            return n;
    return std::nullopt;
}

FrequencyGrid autoFrequencyGrid(const TimeSeries& series, double samplesPerPeak,
                                double nyquistFactor, std::optional<double> minimumFrequency,
                                std::optional<double> maximumFrequency)
{
    FrequencyGrid grid;
    if (series.t.size() < 2)
        return grid;
    const auto [lo, hi] = std::minmax_element(series.t.begin(), series.t.end());
    const double baseline = *hi - *lo;
    if (!(baseline > 0.0) || !(samplesPerPeak > 0.0) || !(nyquistFactor > 0.0))
        return grid;
    grid.df = 1.0 / baseline / samplesPerPeak;
    grid.fmin = minimumFrequency.value_or(0.5 * grid.df);
    const double fmax =
        maximumFrequency.value_or(nyquistFactor * 0.5 * double(series.t.size()) / baseline);
    grid.count = 1 + static_cast<long long>(std::llround((fmax - grid.fmin) / grid.df));
    grid.count = std::max(grid.count, 1LL);
    return grid;
}

std::vector<PeriodogramProblem> validatePeriodogram(const TimeSeries& series,
                                                    const PeriodogramOptions& options)
{
    std::vector<PeriodogramProblem> problems;
    const std::size_t n = series.t.size();
    if (series.y.size() != n || (!series.dy.empty() && series.dy.size() != n)) {
        problems.push_back({PeriodogramInput::Data, "The columns t, y and dy differ in length"});
        return problems;
    }
    if (n < 3)
        problems.push_back(
            {PeriodogramInput::Data,
             "A periodogram needs at least 3 points; there are " + std::to_string(n)});
    const bool allFinite = std::all_of(series.t.begin(), series.t.end(), finite) &&
                           std::all_of(series.y.begin(), series.y.end(), finite) &&
                           std::all_of(series.dy.begin(), series.dy.end(), finite);
    if (!allFinite)
        problems.push_back({PeriodogramInput::Data, "The data hold NaN or infinite values"});
    if (std::any_of(series.dy.begin(), series.dy.end(), [](double d) { return !(d > 0.0); }))
        problems.push_back(
            {PeriodogramInput::Data, "Every uncertainty dy must be greater than zero"});
    if (n >= 2 && allFinite) {
        const auto [lo, hi] = std::minmax_element(series.t.begin(), series.t.end());
        if (!(*hi > *lo))
            problems.push_back({PeriodogramInput::Data, "All times are equal"});
        const auto [ylo, yhi] = std::minmax_element(series.y.begin(), series.y.end());
        if (!(*yhi > *ylo))
            problems.push_back({PeriodogramInput::Data,
                                "y does not vary (zero variance): there is nothing to find"});
    }
    const FrequencyGrid& g = options.grid;
    if (!finite(g.fmin) || !(g.fmin > 0.0))
        problems.push_back({PeriodogramInput::Fmin, "The minimum frequency must be above 0"});
    if (g.count < 1 || g.count > kMaxFrequencies)
        problems.push_back(
            {PeriodogramInput::Count,
             "The number of frequencies must be between 1 and " + std::to_string(kMaxFrequencies)});
    else if (g.count > 1 && (!finite(g.df) || !(g.df > 0.0) || !finite(g.fmax())))
        problems.push_back(
            {PeriodogramInput::Fmax, "The maximum frequency must be above the minimum"});
    return problems;
}

double falseAlarmProbability(double z, double fmax, const TimeSeries& series,
                             Normalization normalization)
{
    const double n = double(series.t.size());
    const double nh = n - 1.0, nk = n - 3.0;
    const double w = fmax * std::sqrt(4.0 * std::numbers::pi * weightedVariance(series));
    double single = 0.0, tau = 0.0;
    switch (normalization) {
    case Normalization::Psd:
        single = std::exp(-z);
        tau = w * std::exp(-z) * std::sqrt(z);
        break;
    case Normalization::Standard:
        single = std::pow(1.0 - z, 0.5 * nk);
        tau = gammaFactor(nh) * w * std::pow(1.0 - z, 0.5 * (nk - 1.0)) * std::sqrt(0.5 * nh * z);
        break;
    case Normalization::Model:
        single = std::pow(1.0 + z, -0.5 * nk);
        tau = gammaFactor(nk) * w * std::pow(1.0 + z, -0.5 * nk) * std::sqrt(0.5 * nk * z);
        break;
    case Normalization::Log:
        single = std::exp(-0.5 * nk * z);
        tau = gammaFactor(nk) * w * std::exp(-0.5 * z * (nk - 0.5)) *
              std::sqrt(nk * std::sinh(0.5 * z));
        break;
    }
    // 1 - (1 - single) exp(-tau), written so small probabilities keep their digits.
    return std::clamp(-std::expm1(-tau) + single * std::exp(-tau), 0.0, 1.0);
}

} // namespace warpscope::gpu
