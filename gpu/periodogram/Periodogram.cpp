#include "warpscope/gpu/Periodogram.h"

#include "periodogram/PeriodogramPlan.h"
#include "periodogram/SpectrumColumns.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>

namespace warpscope::gpu {
namespace {

bool finite(double v)
{
    return std::isfinite(v);
}

// The weighted standard deviation of t, with weights dy^-2 (or equal weights). t is taken
// relative to its smallest value and in units of the baseline, and dy relative to the
// smallest dy, so that no square overflows.
double weightedTimeSpread(const TimeSeries& s)
{
    const auto [lo, hi] = std::minmax_element(s.t.begin(), s.t.end());
    const double baseline = *hi - *lo;
    if (!(baseline > 0.0))
        return 0.0;
    const int dyExponent = dyScaleExponent(s);
    long double sw = 0, st = 0, stt = 0;
    for (std::size_t i = 0; i < s.t.size(); ++i) {
        const long double w = scaledWeight(s, i, dyExponent);
        const long double u = (s.t[i] - *lo) / baseline;
        sw += w;
        st += w * u;
        stt += w * u * u;
    }
    const long double mean = st / sw;
    return baseline * std::sqrt(double(std::max(0.0L, stt / sw - mean * mean)));
}

// sqrt(2 / n) * Gamma(n / 2) / Gamma((n - 1) / 2)
double gammaFactor(double n)
{
    return std::sqrt(2.0 / n) * std::exp(std::lgamma(n / 2.0) - std::lgamma((n - 1.0) / 2.0));
}

} // namespace

const char* periodogramMethodName(PeriodogramMethod method)
{
    switch (method) {
    case PeriodogramMethod::Direct:
        return "direct kernel";
    case PeriodogramMethod::Matrix:
        return "tensor-core matrix products";
    default:
        return "auto";
    }
}

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
                                std::optional<double> maximumFrequency, AutoGridCap* cap)
{
    FrequencyGrid grid;
    if (cap)
        *cap = {};
    if (series.t.size() < 2)
        return grid;
    const auto [lo, hi] = std::minmax_element(series.t.begin(), series.t.end());
    const double baseline = *hi - *lo;
    if (!(baseline > 0.0) || !std::isfinite(baseline) || !(samplesPerPeak > 0.0) ||
        !(nyquistFactor > 0.0))
        return grid;
    grid.df = 1.0 / baseline / samplesPerPeak;
    grid.fmin = minimumFrequency.value_or(0.5 * grid.df);
    const double fmax =
        maximumFrequency.value_or(nyquistFactor * 0.5 * double(series.t.size()) / baseline);
    // In double: what a long series asks for may not fit a long long.
    const double wanted = 1.0 + std::round((fmax - grid.fmin) / grid.df);
    grid.count = !(wanted >= 1.0)                   ? 1
                 : wanted > double(kMaxFrequencies) ? kMaxFrequencies
                                                    : static_cast<long long>(wanted);
    if (cap && wanted > double(grid.count))
        *cap = {wanted, fmax};
    return grid;
}

FrequencyGrid frequencyGrid(double fmin, double fmax, long long count, bool logarithmic)
{
    FrequencyGrid grid;
    grid.fmin = fmin;
    grid.count = count;
    grid.logarithmic = logarithmic;
    if (count > 1)
        grid.df = logarithmic ? std::log(fmax / fmin) / double(count - 1)
                              : (fmax - fmin) / double(count - 1);
    else
        grid.df = 1.0; // any positive step: one frequency has no neighbour
    return grid;
}

namespace {

std::string shortNumber(double v)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", v);
    return text;
}

// The first frequency and the count: true when both are usable.
bool checkStart(double fmin, long long count, std::vector<PeriodogramProblem>& problems)
{
    const std::size_t before = problems.size();
    if (!finite(fmin))
        problems.push_back(
            {PeriodogramInput::Fmin, "The minimum frequency must be a finite number"});
    else if (!(fmin > 0.0))
        problems.push_back({PeriodogramInput::Fmin, "The minimum frequency must be above 0"});
    if (count < 1 || count > kMaxFrequencies)
        problems.push_back(
            {PeriodogramInput::Count,
             "The number of frequencies must be between 1 and " + std::to_string(kMaxFrequencies)});
    return problems.size() == before;
}

// The steps of a grid of two or more frequencies from a usable start: finite, positive, and
// each frequency far enough from the next that double tells them apart.
void checkSteps(const FrequencyGrid& g, std::vector<PeriodogramProblem>& problems)
{
    const double fmax = g.fmax();
    if (!finite(g.df) || !finite(fmax)) {
        problems.push_back(
            {PeriodogramInput::Fmax, "The maximum frequency must be a finite number"});
        return;
    }
    if (!(g.df > 0.0)) {
        problems.push_back(
            {PeriodogramInput::Fmax, "The maximum frequency must be above the minimum"});
        return;
    }
    // Each frequency is rounded to within one unit in the last place of fmax (evenly spaced:
    // k df and the sum; logarithmic: e^{k df}, whose rounded exponent k df errs by up to
    // 2^-53 k df relative, and the product). A step of 2^-50 of the frequency, above twice
    // those errors, keeps neighbours distinct.
    const double step = g.logarithmic ? fmax * -std::expm1(-g.df) : g.df;
    const double need =
        kMinRelativeStep * fmax * (g.logarithmic ? 1.0 + g.df * double(g.count - 1) : 1.0);
    if (!(step >= need))
        problems.push_back(
            {PeriodogramInput::Count,
             "Consecutive frequencies would be " + shortNumber(step) + " apart near " +
                 shortNumber(fmax) + ", closer than double precision can tell apart (at least " +
                 shortNumber(need) + " there): use fewer frequencies or a wider range"});
}

// Whether the scaled sums m can give every power of this normalisation (PeriodogramMoments).
void checkScale(const TimeSeries& series, const PeriodogramOptions& options,
                const PeriodogramMoments& m, std::vector<PeriodogramProblem>& problems)
{
    const double yy = double(m.yy);
    if (!(yy >= std::numeric_limits<double>::min())) {
        problems.push_back({PeriodogramInput::Data,
                            "y does not vary where the weights are: the points whose y differ "
                            "have dy so much larger than the others' that they weigh nothing"});
        return;
    }
    const std::size_t terms = options.fitMean ? 3 : 2;
    if (series.t.size() <= terms && (options.normalization == Normalization::Model ||
                                     options.normalization == Normalization::Log)) {
        problems.push_back(
            {PeriodogramInput::Data,
             "With " + std::to_string(series.t.size()) + " points the sinusoid" +
                 (options.fitMean ? " and its floating mean" : "") +
                 " fit every point exactly, so the " + normalizationName(options.normalization) +
                 " powers are infinite: use the standard normalisation, or more points"});
        return;
    }
    if (options.normalization != Normalization::Psd)
        return;
    // p <= yy: the fit explains at most all of y's variance, so yy * psdScale bounds the powers.
    const double largest = yy * m.psdScale;
    const double decimal = std::log10(double(0.5L * m.wsum) * yy) +
                           2.0 * (m.yExponent - m.dyExponent) * std::log10(2.0);
    if (!finite(largest) || !finite(m.psdScale))
        problems.push_back({PeriodogramInput::Data,
                            "The psd powers would reach about 1e" +
                                std::to_string(std::lround(decimal)) +
                                ", beyond double's largest number (1.8e308): y is too large "
                                "beside dy. Use the standard, model or log normalisation, which "
                                "do not depend on the scale of y, or give y in larger units"});
    else if (!(largest >= std::numeric_limits<double>::min()) ||
             !(m.psdScale >= std::numeric_limits<double>::min()))
        problems.push_back({PeriodogramInput::Data,
                            "The psd powers would be at most about 1e" +
                                std::to_string(std::lround(decimal)) +
                                ", below double's smallest normal number (2.2e-308): y is too "
                                "small beside dy. Use the standard, model or log normalisation, "
                                "which do not depend on the scale of y, or give y in smaller "
                                "units"});
}

} // namespace

std::vector<PeriodogramProblem> validateFrequencyRange(double fmin, double fmax, long long count,
                                                       bool logarithmic)
{
    std::vector<PeriodogramProblem> problems;
    const bool start = checkStart(fmin, count, problems);
    if (count < 2)
        return problems;
    if (!finite(fmax))
        problems.push_back(
            {PeriodogramInput::Fmax, "The maximum frequency must be a finite number"});
    else if (finite(fmin) && !(fmax > fmin))
        problems.push_back(
            {PeriodogramInput::Fmax, "The maximum frequency must be above the minimum"});
    else if (start)
        checkSteps(frequencyGrid(fmin, fmax, count, logarithmic), problems);
    return problems;
}

std::vector<PeriodogramProblem> validatePeriodogram(const TimeSeries& series,
                                                    const PeriodogramOptions& options)
{
    PeriodogramMoments unused;
    return validatePeriodogram(series, options, unused);
}

std::vector<PeriodogramProblem> validatePeriodogram(const TimeSeries& series,
                                                    const PeriodogramOptions& options,
                                                    PeriodogramMoments& moments)
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
    const bool positiveDy =
        std::all_of(series.dy.begin(), series.dy.end(), [](double d) { return d > 0.0; });
    if (!positiveDy)
        problems.push_back(
            {PeriodogramInput::Data, "Every uncertainty dy must be greater than zero"});
    if (n >= 2 && allFinite) {
        const auto [lo, hi] = std::minmax_element(series.t.begin(), series.t.end());
        if (!(*hi > *lo))
            problems.push_back(
                {PeriodogramInput::Data, "All " + std::to_string(n) +
                                             " times are equal (t = " + shortNumber(*lo) +
                                             "): a periodogram needs samples at different times"});
        else if (!finite(*hi - *lo))
            problems.push_back(
                {PeriodogramInput::Data, "The times span more than double can hold (from " +
                                             shortNumber(*lo) + " to " + shortNumber(*hi) + ")"});
        // Without centring a constant y is meaningful: it is the spectral window.
        const auto [ylo, yhi] = std::minmax_element(series.y.begin(), series.y.end());
        if (!(*yhi > *ylo) && (options.fitMean || options.centerData))
            problems.push_back({PeriodogramInput::Data,
                                "y does not vary (zero variance): there is nothing to find"});
    }
    if (options.nterms < 1 || options.nterms > kMaxPeriodogramTerms)
        problems.push_back({PeriodogramInput::Data,
                            "The model takes 1 to " + std::to_string(kMaxPeriodogramTerms) +
                                " terms, not " + std::to_string(options.nterms)});
    else if (const int parameters = periodogramParameters(options);
             options.nterms > 1 && n >= 3 && n <= std::size_t(parameters))
        problems.push_back(
            {PeriodogramInput::Data, "A " + std::to_string(options.nterms) + "-term model has " +
                                         std::to_string(parameters) + " parameters and fits " +
                                         std::to_string(n) +
                                         " points exactly: it needs more points than parameters"});
    if (problems.empty()) {
        moments = periodogramMoments(series, options.fitMean || options.centerData);
        checkScale(series, options, moments, problems);
    }
    const FrequencyGrid& g = options.grid;
    // No frequencies at all is the automatic grid of data without a time span: the data's
    // problem is the one to fix, and the grid's would only hide it.
    if (g.count == 0 && !problems.empty())
        return problems;
    if (checkStart(g.fmin, g.count, problems) && g.count > 1)
        checkSteps(g, problems);
    return problems;
}

FalseAlarmSeries falseAlarmSeries(const TimeSeries& series)
{
    FalseAlarmSeries s;
    s.points = series.t.size();
    if (s.points >= kFalseAlarmMinPoints)
        s.timeSpread = weightedTimeSpread(series);
    return s;
}

std::optional<double> falseAlarmProbability(double z, double fmax, const TimeSeries& series,
                                            Normalization normalization)
{
    return falseAlarmProbability(z, fmax, falseAlarmSeries(series), normalization);
}

std::optional<double> falseAlarmProbability(double z, double fmax, const FalseAlarmSeries& series,
                                            Normalization normalization)
{
    if (series.points < kFalseAlarmMinPoints)
        return std::nullopt;
    const double n = double(series.points);
    const double nh = n - 1.0, nk = n - 3.0;
    const double w = fmax * std::sqrt(4.0 * std::numbers::pi) * series.timeSpread;
    // Powers a hair outside their range (rounding at a perfect fit) would make the powers
    // below NaN.
    z = normalization == Normalization::Standard ? std::clamp(z, 0.0, 1.0) : std::max(z, 0.0);
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
    const double fap = -std::expm1(-tau) + single * std::exp(-tau);
    if (std::isnan(fap))
        return std::nullopt;
    return std::clamp(fap, 0.0, 1.0);
}

std::optional<double> falseAlarmLevel(double probability, double fmax, const TimeSeries& series,
                                      Normalization normalization)
{
    if (!(probability > 0.0 && probability < 1.0))
        return std::nullopt;
    const FalseAlarmSeries spread = falseAlarmSeries(series);
    const auto excess = [&](double z) -> std::optional<double> {
        const std::optional<double> fap = falseAlarmProbability(z, fmax, spread, normalization);
        return fap ? std::optional(*fap - probability) : std::nullopt;
    };
    // The standard power is at most 1; the others grow without bound, so the bracket
    // doubles until the probability falls below the one asked for.
    double lo = 0.0, hi = 1.0;
    for (int i = 0;; ++i) {
        const std::optional<double> e = excess(hi);
        if (!e)
            return std::nullopt;
        if (*e < 0.0)
            break;
        if (normalization == Normalization::Standard || i == 1000)
            return std::nullopt;
        lo = hi;
        hi *= 2.0;
    }
    // Bisection to the last bit: the probability is monotonic in the tail where these levels
    // lie, and each step costs only a few exponentials.
    for (int i = 0; i < 200 && hi - lo > 4.0 * std::numeric_limits<double>::epsilon() * hi; ++i) {
        const double mid = 0.5 * (lo + hi);
        const std::optional<double> e = excess(mid);
        if (!e)
            return std::nullopt;
        (*e < 0.0 ? hi : lo) = mid;
    }
    return 0.5 * (lo + hi);
}

TimeSeries windowSeries(const TimeSeries& series)
{
    TimeSeries window = series;
    std::fill(window.y.begin(), window.y.end(), 1.0);
    return window;
}

PeriodogramOptions windowOptions(const PeriodogramOptions& options)
{
    PeriodogramOptions window = options;
    window.normalization = Normalization::Standard;
    window.fitMean = false;
    window.centerData = false;
    window.nterms = 1; // the sampling's own aliases, whatever model the data are fitted with
    return window;
}

namespace {

// SplitMix64: small, fast and the same on every platform, unlike the standard distributions.
struct Random
{
    std::uint64_t state;
    double uniform()
    {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        return double(z >> 11) * 0x1.0p-53;
    }
    double normal()
    {
        const double u = 1.0 - uniform(), v = uniform();
        return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * std::numbers::pi * v);
    }
};

} // namespace

TimeSeries syntheticSeries(const SyntheticOptions& o)
{
    TimeSeries s;
    Random rng{o.seed};
    const int points = std::max(0, o.points);
    const double baseline = o.baseline > 0.0 ? o.baseline : 1.0;
    // Gaps of equal length at random places; samples falling in one are drawn again.
    std::vector<std::pair<double, double>> gaps;
    const int gapCount = std::max(0, o.gaps);
    const double gapLength =
        gapCount > 0 ? std::clamp(o.gapFraction, 0.0, 0.9) * baseline / gapCount : 0.0;
    for (int g = 0; g < gapCount; ++g) {
        const double start = rng.uniform() * (baseline - gapLength);
        gaps.emplace_back(start, start + gapLength);
    }
    auto inGap = [&](double t) {
        return std::any_of(gaps.begin(), gaps.end(),
                           [t](const auto& g) { return t > g.first && t < g.second; });
    };
    for (int i = 0; i < points; ++i) {
        double t = rng.uniform() * baseline;
        for (int tries = 0; tries < 1000 && inGap(t); ++tries)
            t = rng.uniform() * baseline;
        s.t.push_back(t);
    }
    std::sort(s.t.begin(), s.t.end());
    for (double t : s.t) {
        double y = o.mean + o.noise * rng.normal();
        for (const Sinusoid& w : o.sinusoids)
            if (w.period > 0.0)
                y += w.amplitude * std::sin(2.0 * std::numbers::pi * t / w.period + w.phase);
        s.y.push_back(y);
        if (o.withErrors && o.noise > 0.0)
            s.dy.push_back(o.noise);
    }
    return s;
}

std::vector<Peak> topPeaks(std::span<const double> power, const FrequencyGrid& grid, int k)
{
    std::vector<Peak> peaks;
    const std::size_t n = power.size();
    for (std::size_t i = 0; i < n; ++i)
        if (math::spectrumIsPeak(power.data(), (long long)i, (long long)n))
            peaks.push_back({(long long)i, grid.frequency((long long)i), power[i]});
    const std::size_t keep = std::min(peaks.size(), std::size_t(std::max(0, k)));
    std::partial_sort(peaks.begin(), peaks.begin() + keep, peaks.end(),
                      [](const Peak& a, const Peak& b) {
                          return math::spectrumPeakBefore(a.power, a.index, b.power, b.index);
                      });
    peaks.resize(keep);
    return peaks;
}

double timeBaseline(const TimeSeries& series)
{
    if (series.t.size() < 2)
        return 0.0;
    const auto [lo, hi] = std::minmax_element(series.t.begin(), series.t.end());
    return *hi - *lo;
}

std::vector<Peak> reportablePeaks(const std::vector<Peak>& peaks, const FrequencyGrid& grid,
                                  double baseline, int k)
{
    std::vector<Peak> kept;
    for (const Peak& p : peaks) {
        if (int(kept.size()) >= k)
            break;
        const bool edge = p.index == 0 || p.index == grid.count - 1;
        if (!edge && !(1.0 / p.frequency > baseline))
            kept.push_back(p);
    }
    return kept;
}

std::vector<LaunchError> validatePeriodogramLaunch(const PeriodogramLaunch& launch,
                                                   const DeviceInfo& device)
{
    LaunchConfig config;
    config.block = {launch.blockThreads, 1, 1};
    config.grid = {launch.gridBlocks > 0 ? launch.gridBlocks : 1, 1, 1};
    std::vector<LaunchError> errors = validateLaunch(config, device);
    if (launch.gridBlocks < 0)
        errors.push_back(
            {LaunchField::GridX, "Blocks must be 0 (enough to cover the grid) or more"});
    if (launch.blockThreads > kPeriodogramMaxBlock &&
        launch.blockThreads <= device.maxThreadsPerBlock)
        errors.push_back(
            {LaunchField::BlockX, "The periodogram kernel runs at most " +
                                      std::to_string(kPeriodogramMaxBlock) +
                                      " threads a block (its registers allow no more), not " +
                                      std::to_string(launch.blockThreads)});
    return errors;
}

long long coveredFrequencies(const PeriodogramLaunch& launch, long long count)
{
    if (launch.gridStride || launch.gridBlocks <= 0)
        return count;
    const long long per = std::max(1LL, launch.blockThreads) * kFrequenciesPerThread;
    return launch.gridBlocks >= (count + per - 1) / per ? count : launch.gridBlocks * per;
}

} // namespace warpscope::gpu
