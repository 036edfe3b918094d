// The vetting statistics of one transit model, with astropy's compute_stats definitions.
#include "warpscope/gpu/BoxLeastSquares.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <numbers>

namespace warpscope::gpu {
namespace {

// Python's a % b for b > 0: in [0, b).
double floorMod(double a, double b)
{
    const double r = std::fmod(a, b);
    return r < 0.0 ? r + b : r;
}

struct Points
{
    const std::vector<double>& t;
    const std::vector<double>& y;
    std::vector<double> w;
};

// The weighted mean of y over mask and its variance (astropy's _compute_depth without an
// outside level); none when the mask holds no point.
struct Level
{
    double mean = 0.0;
    double variance = INFINITY;
    bool any = false;
};

template <typename In> Level level(const Points& p, In in)
{
    double w = 0.0, wy = 0.0;
    bool any = false;
    for (std::size_t i = 0; i < p.t.size(); ++i)
        if (in(i)) {
            any = true;
            w += p.w[i];
            wy += p.w[i] * p.y[i];
        }
    if (!any)
        return {};
    return {wy / w, 1.0 / w, true};
}

// The depth below an outside level, as astropy's _compute_depth(m, y_out, var_out).
BlsDepth depthBelow(const Level& in, const Level& out)
{
    if (!in.any || !std::isfinite(out.variance))
        return {0.0, INFINITY};
    return {out.mean - in.mean, std::sqrt(in.variance + out.variance)};
}

// Solves the 3 x 3 system a x = b by Gaussian elimination with partial pivoting.
std::array<double, 3> solve3(std::array<std::array<double, 3>, 3> a, std::array<double, 3> b)
{
    for (int c = 0; c < 3; ++c) {
        int pivot = c;
        for (int r = c + 1; r < 3; ++r)
            if (std::abs(a[r][c]) > std::abs(a[pivot][c]))
                pivot = r;
        std::swap(a[c], a[pivot]);
        std::swap(b[c], b[pivot]);
        for (int r = c + 1; r < 3; ++r) {
            const double f = a[r][c] / a[c][c];
            for (int k = c; k < 3; ++k)
                a[r][k] -= f * a[c][k];
            b[r] -= f * b[c];
        }
    }
    std::array<double, 3> x{};
    for (int r = 2; r >= 0; --r) {
        double s = b[r];
        for (int k = r + 1; k < 3; ++k)
            s -= a[r][k] * x[k];
        x[r] = s / a[r][r];
    }
    return x;
}

// The sinusoid at the period with an offset, fitted by weighted least squares: its amplitude
// and log-likelihood.
void harmonicModel(const Points& p, double period, BlsStats& stats, double boxLogLikelihood)
{
    std::array<std::array<double, 3>, 3> ata{};
    std::array<double, 3> aty{};
    std::vector<std::array<double, 3>> rows(p.t.size());
    for (std::size_t i = 0; i < p.t.size(); ++i) {
        const double x = 2.0 * std::numbers::pi * p.t[i] / period;
        rows[i] = {std::sin(x), std::cos(x), 1.0};
        for (int r = 0; r < 3; ++r) {
            aty[r] += rows[i][r] * p.y[i] * p.w[i];
            for (int c = 0; c < 3; ++c)
                ata[r][c] += rows[i][r] * rows[i][c] * p.w[i];
        }
    }
    const std::array<double, 3> x = solve3(ata, aty);
    double ll = 0.0;
    for (std::size_t i = 0; i < p.t.size(); ++i) {
        const double r = p.y[i] - (rows[i][0] * x[0] + rows[i][1] * x[1] + rows[i][2] * x[2]);
        ll -= 0.5 * r * r * p.w[i];
    }
    stats.harmonicAmplitude = std::hypot(x[0], x[1]);
    stats.harmonicDeltaLogLikelihood = ll - boxLogLikelihood;
}

} // namespace

Status computeBlsStats(const TimeSeries& series, double period, double duration, double transitTime,
                       bool useErrors, BlsStats& stats)
{
    stats = {};
    const std::size_t n = series.t.size();
    if (n < 3 || series.y.size() != n || (!series.dy.empty() && series.dy.size() != n))
        return Status::failure("The transit's statistics need at least 3 points");
    if (!(std::isfinite(period) && period > 0.0 && std::isfinite(duration) && duration > 0.0 &&
          duration < period && std::isfinite(transitTime)))
        return Status::failure("The transit's statistics need a period above 0, a duration "
                               "shorter than it and a finite transit time");
    Points p{series.t, series.y, std::vector<double>(n, 1.0)};
    if (useErrors && !series.dy.empty())
        for (std::size_t i = 0; i < n; ++i)
            p.w[i] = 1.0 / (series.dy[i] * series.dy[i]);

    const double hp = 0.5 * period, half = 0.5 * duration;
    auto within = [&](double a, double m, double centre) {
        return std::abs(floorMod(a, m) - centre) < half;
    };
    std::vector<char> in(n);
    for (std::size_t i = 0; i < n; ++i)
        in[i] = within(series.t[i] - transitTime + hp, period, hp);
    const Level out = level(p, [&](std::size_t i) { return !in[i]; });
    const Level inside = level(p, [&](std::size_t i) { return bool(in[i]); });
    if (!inside.any)
        return Status::failure("No point lies in the transit at this period, duration and time");
    stats.depth = depthBelow(inside, out);
    stats.depthOdd = depthBelow(
        level(p,
              [&](std::size_t i) { return within(series.t[i] - transitTime, 2 * period, period); }),
        out);
    stats.depthEven =
        depthBelow(level(p,
                         [&](std::size_t i) {
                             return within(series.t[i] - transitTime + period, 2 * period, period);
                         }),
                   out);
    auto phased = [&](std::size_t i) { return within(series.t[i] - transitTime, period, hp); };
    stats.depthPhased =
        depthBelow(level(p, phased), level(p, [&](std::size_t i) { return !phased(i) && !in[i]; }));
    auto halved = [&](std::size_t i) {
        return within(series.t[i] - transitTime + 0.25 * period, 0.5 * period, 0.25 * period);
    };
    stats.depthHalf =
        depthBelow(level(p, halved), level(p, [&](std::size_t i) { return !halved(i); }));

    // Each transit's points and log-likelihood gain, by the transit's number (rounded half to
    // even, as numpy rounds).
    const double yIn = out.mean - stats.depth.value, yOut = out.mean;
    std::map<long long, std::pair<long long, double>> transits;
    double boxLl = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        const double y = series.y[i], w = p.w[i];
        if (!in[i]) {
            boxLl -= 0.5 * w * (y - yOut) * (y - yOut);
            continue;
        }
        boxLl -= 0.5 * w * (y - yIn) * (y - yIn);
        auto& [count, ll] =
            transits[(long long)std::nearbyint((series.t[i] - transitTime) / period)];
        ++count;
        ll += -0.5 * w * ((y - yIn) * (y - yIn) - (y - yOut) * (y - yOut));
    }
    const long long first = transits.begin()->first, last = transits.rbegin()->first;
    for (long long id = first; id <= last; ++id) {
        stats.transitTimes.push_back(period * double(id) + transitTime);
        const auto it = transits.find(id);
        stats.perTransitCount.push_back(it == transits.end() ? 0 : it->second.first);
        stats.perTransitLogLikelihood.push_back(it == transits.end() ? 0.0 : it->second.second);
    }
    harmonicModel(p, period, stats, boxLl);
    return Status::success();
}

} // namespace warpscope::gpu
