#include "warpscope/gpu/Detrend.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <set>

namespace warpscope::gpu {
namespace {

std::string number(double v)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", v);
    return text;
}

Status checkSeries(const TimeSeries& series)
{
    if (series.t.empty())
        return Status::failure("There are no points to detrend");
    if (series.y.size() != series.t.size() ||
        (!series.dy.empty() && series.dy.size() != series.t.size()))
        return Status::failure("The series' t, y and dy have different lengths");
    for (std::size_t i = 0; i < series.t.size(); ++i) {
        if (!std::isfinite(series.t[i]) || !std::isfinite(series.y[i]))
            return Status::failure("Point " + std::to_string(i + 1) +
                                   " has a time or value that is not a finite number");
        if (!series.dy.empty() && !(std::isfinite(series.dy[i]) && series.dy[i] > 0.0))
            return Status::failure("Point " + std::to_string(i + 1) +
                                   " has an uncertainty dy that is not a finite number above 0");
    }
    return Status::success();
}

// Weighted least squares by Givens rotations, one row at a time: R and Q^T b are updated as
// each scaled Vandermonde row arrives, so memory stays (degree + 1)^2 however long the
// series, and the solution has QR's stability (the normal equations would square the
// condition number).
Status fitPolynomial(const TimeSeries& series, int degree, std::vector<double>& trend)
{
    const std::size_t n = series.t.size();
    const int terms = degree + 1;
    const auto [lo, hi] = std::minmax_element(series.t.begin(), series.t.end());
    // The middle and half-range of t, so that u = (t - centre) / half lies in [-1, 1].
    const double centre = *lo + (*hi - *lo) / 2.0;
    const double half = *hi > *lo ? (*hi - *lo) / 2.0 : 1.0;
    std::vector<double> sorted(series.t);
    std::sort(sorted.begin(), sorted.end());
    const auto distinct = std::size_t(std::unique(sorted.begin(), sorted.end()) - sorted.begin());
    if (distinct < std::size_t(terms))
        return Status::failure("A degree-" + std::to_string(degree) +
                               " polynomial needs at least " + std::to_string(terms) +
                               " distinct times, and there " +
                               (distinct == 1 ? "is 1" : "are " + std::to_string(distinct)));
    // y and the weights divided by their largest magnitudes: any finite values stay in range.
    double yScale = 0.0;
    for (const double y : series.y)
        yScale = std::max(yScale, std::abs(y));
    if (yScale == 0.0)
        yScale = 1.0;
    const double dyMin =
        series.dy.empty() ? 1.0 : *std::min_element(series.dy.begin(), series.dy.end());

    std::array<std::array<double, kMaxDetrendDegree + 1>, kMaxDetrendDegree + 1> r{};
    std::array<double, kMaxDetrendDegree + 1> z{};
    std::array<double, kMaxDetrendDegree + 2> row{};
    for (std::size_t i = 0; i < n; ++i) {
        // sqrt(w_i) = 1 / dy_i, relative to the largest weight.
        const double s = series.dy.empty() ? 1.0 : dyMin / series.dy[i];
        const double u = (series.t[i] - centre) / half;
        double power = s;
        for (int k = 0; k < terms; ++k, power *= u)
            row[std::size_t(k)] = power;
        double b = s * (series.y[i] / yScale);
        for (int k = 0; k < terms; ++k) {
            const double a = row[std::size_t(k)];
            if (a == 0.0)
                continue;
            double& d = r[std::size_t(k)][std::size_t(k)];
            const double h = std::hypot(d, a);
            const double c = d / h, sn = a / h;
            d = h;
            for (int j = k + 1; j < terms; ++j) {
                double& rj = r[std::size_t(k)][std::size_t(j)];
                const double before = rj, aj = row[std::size_t(j)];
                rj = c * before + sn * aj;
                row[std::size_t(j)] = -sn * before + c * aj;
            }
            const double zk = z[std::size_t(k)];
            z[std::size_t(k)] = c * zk + sn * b;
            b = -sn * zk + c * b;
        }
    }
    double largest = 0.0;
    for (int k = 0; k < terms; ++k)
        largest = std::max(largest, std::abs(r[std::size_t(k)][std::size_t(k)]));
    std::array<double, kMaxDetrendDegree + 1> coefficient{};
    for (int k = terms - 1; k >= 0; --k) {
        const double d = r[std::size_t(k)][std::size_t(k)];
        // Distinct times can still be too close together for double to separate the powers.
        if (!(std::abs(d) > 1e-13 * largest))
            return Status::failure("The times are too close together for a degree-" +
                                   std::to_string(degree) + " polynomial; choose a lower degree");
        double sum = z[std::size_t(k)];
        for (int j = k + 1; j < terms; ++j)
            sum -= r[std::size_t(k)][std::size_t(j)] * coefficient[std::size_t(j)];
        coefficient[std::size_t(k)] = sum / d;
    }
    trend.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        const double u = (series.t[i] - centre) / half;
        double value = 0.0;
        for (int k = terms - 1; k >= 0; --k)
            value = value * u + coefficient[std::size_t(k)];
        trend[i] = value * yScale;
    }
    return Status::success();
}

// The median of a sliding window of values, kept as two sorted halves: low holds the smaller
// half (one more when the count is odd), high the larger.
class SlidingMedian
{
public:
    void insert(double v)
    {
        if (m_low.empty() || v <= *m_low.rbegin())
            m_low.insert(v);
        else
            m_high.insert(v);
        balance();
    }
    void erase(double v)
    {
        // Every value below the low half's largest is in it, and that largest is too.
        if (v <= *m_low.rbegin())
            m_low.erase(m_low.find(v));
        else
            m_high.erase(m_high.find(v));
        balance();
    }
    double median() const
    {
        const double a = *m_low.rbegin();
        if (m_low.size() > m_high.size())
            return a;
        // Halved first, so that two values near double's limit do not overflow.
        return a / 2.0 + *m_high.begin() / 2.0;
    }

private:
    void balance()
    {
        if (m_low.size() > m_high.size() + 1) {
            m_high.insert(*m_low.rbegin());
            m_low.erase(std::prev(m_low.end()));
        } else if (m_high.size() > m_low.size()) {
            m_low.insert(*m_high.begin());
            m_high.erase(m_high.begin());
        }
    }
    std::multiset<double> m_low, m_high;
};

void runningMedian(const TimeSeries& series, double window, std::vector<double>& trend)
{
    const std::size_t n = series.t.size();
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::stable_sort(order.begin(), order.end(),
                     [&t = series.t](std::size_t a, std::size_t b) { return t[a] < t[b]; });
    const double half = window / 2.0;
    trend.resize(n);
    SlidingMedian median;
    // [first, last) of the sorted points inside the window of the point at k; both ends only
    // move forward, since t_k - t_j and t_j - t_k are monotonic in t_k even when rounded.
    std::size_t first = 0, last = 0;
    for (std::size_t k = 0; k < n; ++k) {
        const double tk = series.t[order[k]];
        while (last < n && series.t[order[last]] - tk <= half)
            median.insert(series.y[order[last++]]);
        while (tk - series.t[order[first]] > half)
            median.erase(series.y[order[first++]]);
        trend[order[k]] = median.median();
    }
}

} // namespace

const char* detrendMethodName(DetrendMethod method)
{
    switch (method) {
    case DetrendMethod::None:
        return "none";
    case DetrendMethod::Polynomial:
        return "polynomial";
    case DetrendMethod::RunningMedian:
        return "running median";
    }
    return "none";
}

Status validateDetrend(const DetrendOptions& options)
{
    if (options.method != DetrendMethod::None && options.method != DetrendMethod::Polynomial &&
        options.method != DetrendMethod::RunningMedian)
        return Status::failure("Unknown detrending method");
    if (options.degree < 0 || options.degree > kMaxDetrendDegree)
        return Status::failure("The detrending polynomial's degree must be 0 to " +
                               std::to_string(kMaxDetrendDegree) + ", not " +
                               std::to_string(options.degree));
    if (!std::isfinite(options.window) || options.window <= 0.0)
        return Status::failure("The running median's window must be a finite time above 0, not " +
                               number(options.window));
    return Status::success();
}

Status detrend(const TimeSeries& series, const DetrendOptions& options, std::vector<double>& trend,
               TimeSeries& residuals)
{
    if (Status s = validateDetrend(options); !s)
        return s;
    if (Status s = checkSeries(series); !s)
        return s;
    std::vector<double> fitted;
    if (options.method == DetrendMethod::Polynomial) {
        if (Status s = fitPolynomial(series, options.degree, fitted); !s)
            return s;
    } else if (options.method == DetrendMethod::RunningMedian) {
        runningMedian(series, options.window, fitted);
    } else {
        fitted.assign(series.t.size(), 0.0);
    }
    TimeSeries out{series.t, series.y, series.dy};
    for (std::size_t i = 0; i < out.y.size(); ++i) {
        out.y[i] -= fitted[i];
        if (!std::isfinite(out.y[i]) || !std::isfinite(fitted[i]))
            return Status::failure("The residual at point " + std::to_string(i + 1) +
                                   " is beyond the range of a double");
    }
    trend = std::move(fitted);
    residuals = std::move(out);
    return Status::success();
}

Status validateMasks(const std::vector<TimeRange>& masks)
{
    if (masks.size() > kMaxMasks)
        return Status::failure("There are " + std::to_string(masks.size()) +
                               " masked ranges; at most " + std::to_string(kMaxMasks) +
                               " are allowed");
    for (std::size_t i = 0; i < masks.size(); ++i) {
        const TimeRange& m = masks[i];
        if (!std::isfinite(m.t0) || !std::isfinite(m.t1))
            return Status::failure("Masked range " + std::to_string(i + 1) +
                                   " needs finite times, not [" + number(m.t0) + ", " +
                                   number(m.t1) + "]");
        if (m.t0 > m.t1)
            return Status::failure("Masked range " + std::to_string(i + 1) + " is reversed: [" +
                                   number(m.t0) + ", " + number(m.t1) +
                                   "] (its start must not be after its end)");
    }
    return Status::success();
}

TimeSeries applyMasks(const TimeSeries& series, const std::vector<TimeRange>& masks,
                      std::size_t* masked)
{
    // Sorted by start, with the latest end so far: a time is masked when the last range
    // starting at or before it reaches it.
    std::vector<TimeRange> ranges(masks);
    std::sort(ranges.begin(), ranges.end(),
              [](const TimeRange& a, const TimeRange& b) { return a.t0 < b.t0; });
    for (std::size_t i = 1; i < ranges.size(); ++i)
        ranges[i].t1 = std::max(ranges[i].t1, ranges[i - 1].t1);
    const auto inside = [&ranges](double t) {
        const auto after = std::upper_bound(ranges.begin(), ranges.end(), t,
                                            [](double v, const TimeRange& r) { return v < r.t0; });
        return after != ranges.begin() && t <= std::prev(after)->t1;
    };
    TimeSeries kept;
    const bool withErrors = !series.dy.empty();
    for (std::size_t i = 0; i < series.t.size(); ++i) {
        if (inside(series.t[i]))
            continue;
        kept.t.push_back(series.t[i]);
        kept.y.push_back(series.y[i]);
        if (withErrors)
            kept.dy.push_back(series.dy[i]);
    }
    if (masked)
        *masked = series.t.size() - kept.t.size();
    return kept;
}

} // namespace warpscope::gpu
