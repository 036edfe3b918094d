#include "warpscope/gpu/FrequencyFit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>

namespace warpscope::gpu {
namespace {

constexpr double kTwoPi = 2.0 * std::numbers::pi;
constexpr int kMaxIterations = 500;

std::string number(double v)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.10g", v);
    return text;
}

// A symmetric positive definite system, solved by Cholesky in place; false when the matrix
// is not clearly positive definite (columns the data cannot tell apart).
class Cholesky
{
public:
    explicit Cholesky(std::vector<double> m, std::size_t n) : m_l(std::move(m)), m_n(n) {}
    bool factor()
    {
        for (std::size_t j = 0; j < m_n; ++j) {
            double d = at(j, j);
            const double scale = d;
            for (std::size_t k = 0; k < j; ++k)
                d -= at(j, k) * at(j, k);
            if (!(d > 1e-14 * scale) || !std::isfinite(d))
                return false;
            at(j, j) = std::sqrt(d);
            for (std::size_t i = j + 1; i < m_n; ++i) {
                double v = at(i, j);
                for (std::size_t k = 0; k < j; ++k)
                    v -= at(i, k) * at(j, k);
                at(i, j) = v / at(j, j);
            }
        }
        return true;
    }
    std::vector<double> solve(std::vector<double> b) const
    {
        for (std::size_t i = 0; i < m_n; ++i) {
            for (std::size_t k = 0; k < i; ++k)
                b[i] -= at(i, k) * b[k];
            b[i] /= at(i, i);
        }
        for (std::size_t i = m_n; i-- > 0;) {
            for (std::size_t k = i + 1; k < m_n; ++k)
                b[i] -= at(k, i) * b[k];
            b[i] /= at(i, i);
        }
        return b;
    }
    // Column j of the inverse.
    std::vector<double> inverseColumn(std::size_t j) const
    {
        std::vector<double> e(m_n, 0.0);
        e[j] = 1.0;
        return solve(std::move(e));
    }

private:
    double& at(std::size_t i, std::size_t j) { return m_l[i * m_n + j]; }
    double at(std::size_t i, std::size_t j) const { return m_l[i * m_n + j]; }
    std::vector<double> m_l;
    std::size_t m_n;
};

// The problem in scaled units, so that the normal equations are well conditioned whatever the
// data's units: time u = (t - epoch) / span in [-1/2, 1/2], frequency g = f span (cycles over
// the span), y less its weighted mean over its spread, weights relative to the largest.
struct Scaled
{
    std::vector<double> u, y, w;
    double span = 1.0, mean = 0.0, spread = 1.0;
};

Scaled scale(const TimeSeries& s, double epoch)
{
    Scaled out;
    const std::size_t n = s.t.size();
    const auto [lo, hi] = std::minmax_element(s.t.begin(), s.t.end());
    out.span = *hi - *lo;
    const double dyMin = s.dy.empty() ? 1.0 : *std::min_element(s.dy.begin(), s.dy.end());
    long double sw = 0, swy = 0;
    out.w.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        const double r = s.dy.empty() ? 1.0 : dyMin / s.dy[i];
        out.w[i] = r * r;
        sw += out.w[i];
        swy += out.w[i] * s.y[i];
    }
    out.mean = double(swy / sw);
    double largest = 0.0;
    for (const double y : s.y)
        largest = std::max(largest, std::abs(y - out.mean));
    out.spread = largest > 0.0 ? largest : 1.0;
    out.u.resize(n);
    out.y.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        out.u[i] = (s.t[i] - epoch) / out.span;
        out.y[i] = (s.y[i] - out.mean) / out.spread;
    }
    return out;
}

// Parameters: [offset, then g, a, b for each sinusoid]; the model is
// offset + sum a sin(2 pi g u) + b cos(2 pi g u).
std::size_t parameterCount(std::size_t terms)
{
    return 1 + 3 * terms;
}

// Weighted residuals' sum of squares at theta, and optionally the normal matrix J^T W J and
// J^T W r (r = y - model).
double evaluate(const Scaled& d, const std::vector<double>& theta, std::vector<double>* jtj,
                std::vector<double>* jtr)
{
    const std::size_t p = theta.size(), terms = (p - 1) / 3;
    std::vector<double> row(p);
    if (jtj) {
        jtj->assign(p * p, 0.0);
        jtr->assign(p, 0.0);
    }
    double chi2 = 0.0;
    for (std::size_t i = 0; i < d.u.size(); ++i) {
        double model = theta[0];
        row[0] = 1.0;
        for (std::size_t k = 0; k < terms; ++k) {
            const double g = theta[1 + 3 * k], a = theta[2 + 3 * k], b = theta[3 + 3 * k];
            const double cycles = g * d.u[i];
            const double x = kTwoPi * (cycles - std::nearbyint(cycles));
            const double sn = std::sin(x), cs = std::cos(x);
            model += a * sn + b * cs;
            row[1 + 3 * k] = kTwoPi * d.u[i] * (a * cs - b * sn);
            row[2 + 3 * k] = sn;
            row[3 + 3 * k] = cs;
        }
        const double r = d.y[i] - model;
        chi2 += d.w[i] * r * r;
        if (jtj) {
            for (std::size_t a = 0; a < p; ++a) {
                (*jtr)[a] += d.w[i] * row[a] * r;
                for (std::size_t b = 0; b <= a; ++b)
                    (*jtj)[a * p + b] += d.w[i] * row[a] * row[b];
            }
        }
    }
    if (jtj)
        for (std::size_t a = 0; a < p; ++a)
            for (std::size_t b = 0; b < a; ++b)
                (*jtj)[b * p + a] = (*jtj)[a * p + b];
    return chi2;
}

// The linear fit of offset, a and b at fixed frequencies: the starting point.
bool linearStart(const Scaled& d, std::vector<double>& theta)
{
    const std::size_t terms = (theta.size() - 1) / 3, q = 1 + 2 * terms;
    std::vector<double> m(q * q, 0.0), r(q, 0.0), row(q);
    for (std::size_t i = 0; i < d.u.size(); ++i) {
        row[0] = 1.0;
        for (std::size_t k = 0; k < terms; ++k) {
            const double cycles = theta[1 + 3 * k] * d.u[i];
            const double x = kTwoPi * (cycles - std::nearbyint(cycles));
            row[1 + 2 * k] = std::sin(x);
            row[2 + 2 * k] = std::cos(x);
        }
        for (std::size_t a = 0; a < q; ++a) {
            r[a] += d.w[i] * row[a] * d.y[i];
            for (std::size_t b = 0; b < q; ++b)
                m[a * q + b] += d.w[i] * row[a] * row[b];
        }
    }
    Cholesky c(std::move(m), q);
    if (!c.factor())
        return false;
    const std::vector<double> x = c.solve(std::move(r));
    theta[0] = x[0];
    for (std::size_t k = 0; k < terms; ++k) {
        theta[2 + 3 * k] = x[1 + 2 * k];
        theta[3 + 3 * k] = x[2 + 2 * k];
    }
    return true;
}

} // namespace

double fitEpoch(const TimeSeries& series)
{
    if (series.t.empty())
        return 0.0;
    const auto [lo, hi] = std::minmax_element(series.t.begin(), series.t.end());
    return *lo + 0.5 * (*hi - *lo);
}

double FrequencyFit::sinusoidsAt(double t) const
{
    double y = 0.0;
    for (const FittedSinusoid& s : terms) {
        const double cycles = s.frequency * (t - epoch) + s.phase;
        y += s.amplitude * std::sin(kTwoPi * (cycles - std::nearbyint(cycles)));
    }
    return y;
}

double FrequencyFit::at(double t) const
{
    return offset + sinusoidsAt(t);
}

TimeSeries subtractSinusoids(const TimeSeries& series, const std::vector<FittedSinusoid>& terms,
                             double epoch)
{
    FrequencyFit model;
    model.epoch = epoch;
    model.terms = terms;
    TimeSeries out = series;
    for (std::size_t i = 0; i < out.t.size(); ++i)
        out.y[i] -= model.sinusoidsAt(out.t[i]);
    return out;
}

double HarmonicFit::at(double frequency, double t) const
{
    const double cycles = frequency * (t - epoch);
    const double x = kTwoPi * (cycles - std::nearbyint(cycles));
    double y = offset;
    for (std::size_t k = 0; k < harmonics.size(); ++k) {
        const double kx = double(k + 1) * x;
        y += harmonics[k].first * std::cos(kx) + harmonics[k].second * std::sin(kx);
    }
    return y;
}

HarmonicFit fitHarmonics(const TimeSeries& series, double frequency, int nterms, bool fitMean)
{
    HarmonicFit fit;
    const std::size_t n = series.t.size(), terms = std::size_t(std::max(0, nterms));
    if (n == 0 || series.y.size() != n)
        return fit;
    fit.epoch = fitEpoch(series);
    const Scaled d = scale(series, fit.epoch);
    fit.offset = d.mean;
    if (!(d.span > 0.0) || !std::isfinite(d.span))
        return fit; // one time: no phase to fit
    // Columns: [offset,] then cos kx and sin kx for each harmonic, x in the scaled time.
    const std::size_t first = fitMean ? 0 : 1, q = 1 + 2 * terms - first;
    std::vector<double> m(q * q, 0.0), r(q, 0.0), row(1 + 2 * terms);
    const double g = frequency * d.span;
    for (std::size_t i = 0; i < n; ++i) {
        const double cycles = g * d.u[i];
        const double x = kTwoPi * (cycles - std::nearbyint(cycles));
        row[0] = 1.0;
        for (std::size_t k = 0; k < terms; ++k) {
            row[1 + 2 * k] = std::cos(double(k + 1) * x);
            row[2 + 2 * k] = std::sin(double(k + 1) * x);
        }
        for (std::size_t a = 0; a < q; ++a) {
            r[a] += d.w[i] * row[first + a] * d.y[i];
            for (std::size_t b = 0; b < q; ++b)
                m[a * q + b] += d.w[i] * row[first + a] * row[first + b];
        }
    }
    Cholesky c(std::move(m), q);
    if (terms == 0 || !c.factor())
        return fit;
    const std::vector<double> x = c.solve(std::move(r));
    if (fitMean)
        fit.offset += d.spread * x[0];
    for (std::size_t k = 0; k < terms; ++k)
        fit.harmonics.emplace_back(d.spread * x[1 + 2 * k - first],
                                   d.spread * x[2 + 2 * k - first]);
    return fit;
}

Status fitFrequencies(const TimeSeries& series, const std::vector<double>& frequencies,
                      FrequencyFit& fit)
{
    const std::size_t n = series.t.size(), terms = frequencies.size();
    if (terms == 0)
        return Status::failure("No frequency to fit");
    if (series.y.size() != n || (!series.dy.empty() && series.dy.size() != n))
        return Status::failure("The columns t, y and dy differ in length");
    const std::size_t p = parameterCount(terms);
    if (n <= p)
        return Status::failure("Fitting " + std::to_string(terms) + " frequencies takes " +
                               std::to_string(p) + " parameters, and there are only " +
                               std::to_string(n) +
                               " points: more points than parameters are "
                               "needed");
    for (std::size_t i = 0; i < n; ++i)
        if (!std::isfinite(series.t[i]) || !std::isfinite(series.y[i]) ||
            (!series.dy.empty() && !(std::isfinite(series.dy[i]) && series.dy[i] > 0.0)))
            return Status::failure("The data hold NaN, infinite values or an uncertainty that "
                                   "is not positive (row " +
                                   std::to_string(i + 1) + ")");
    const double epoch = fitEpoch(series);
    const Scaled d = scale(series, epoch);
    if (!(d.span > 0.0) || !std::isfinite(d.span))
        return Status::failure("The times have no span to fit a frequency over");
    for (std::size_t k = 0; k < terms; ++k) {
        if (!(frequencies[k] > 0.0) || !std::isfinite(frequencies[k]))
            return Status::failure("A frequency to fit must be a finite number above 0, not " +
                                   number(frequencies[k]));
        for (std::size_t j = 0; j < k; ++j)
            if (std::abs(frequencies[k] - frequencies[j]) * d.span < 0.5)
                return Status::failure(
                    "The frequencies " + number(frequencies[j]) + " and " + number(frequencies[k]) +
                    " are closer than the data's time span can separate (1 / span = " +
                    number(1.0 / d.span) + "); remove one of them");
    }
    std::vector<double> theta(p, 0.0);
    for (std::size_t k = 0; k < terms; ++k)
        theta[1 + 3 * k] = frequencies[k] * d.span;
    if (!linearStart(d, theta))
        return Status::failure("The sinusoids at these frequencies cannot be told apart in "
                               "these data (the fit's matrix is singular)");

    std::vector<double> jtj, jtr;
    double chi2 = evaluate(d, theta, &jtj, &jtr);
    double lambda = 1e-3;
    int iteration = 0;
    bool converged = false;
    for (; iteration < kMaxIterations && !converged; ++iteration) {
        bool stepped = false;
        while (lambda < 1e16) {
            std::vector<double> a = jtj;
            for (std::size_t i = 0; i < p; ++i)
                a[i * p + i] *= 1.0 + lambda;
            Cholesky c(std::move(a), p);
            if (!c.factor()) {
                lambda *= 10.0;
                continue;
            }
            const std::vector<double> delta = c.solve(jtr);
            std::vector<double> next = theta;
            for (std::size_t i = 0; i < p; ++i)
                next[i] += delta[i];
            const double nextChi2 = evaluate(d, next, nullptr, nullptr);
            if (nextChi2 <= chi2) {
                const double gain = chi2 - nextChi2;
                theta = std::move(next);
                converged = gain <= 1e-13 * chi2 || chi2 == 0.0;
                chi2 = evaluate(d, theta, &jtj, &jtr);
                lambda = std::max(lambda / 10.0, 1e-12);
                stepped = true;
                break;
            }
            lambda *= 10.0;
        }
        // No step lowers chi-square any more: the minimum, to the precision of double.
        if (!stepped)
            converged = true;
    }
    if (!converged)
        return Status::failure("The fit did not converge in " + std::to_string(kMaxIterations) +
                               " iterations");
    for (std::size_t k = 0; k < terms; ++k)
        if (!(theta[1 + 3 * k] > 0.0))
            return Status::failure("The fit drove the frequency that started at " +
                                   number(frequencies[k]) + " to zero or below");

    Cholesky c(jtj, p);
    if (!c.factor())
        return Status::failure("The fitted parameters cannot be told apart in these data (the "
                               "fit's matrix is singular)");
    // curve_fit's covariance with absolute_sigma = False: (J^T W J)^-1 times the reduced
    // chi-square; both in scaled units, brought back below.
    const double reduced = chi2 / double(n - p);
    std::vector<double> cov(p * p);
    for (std::size_t j = 0; j < p; ++j) {
        const std::vector<double> column = c.inverseColumn(j);
        for (std::size_t i = 0; i < p; ++i)
            cov[i * p + j] = column[i] * reduced;
    }
    double sumW = 0.0;
    for (const double w : d.w)
        sumW += w;

    fit = FrequencyFit{};
    fit.epoch = epoch;
    fit.offset = d.mean + d.spread * theta[0];
    fit.offsetError = d.spread * std::sqrt(std::max(0.0, cov[0]));
    fit.residualRms = d.spread * std::sqrt(chi2 / sumW);
    fit.iterations = iteration;
    for (std::size_t k = 0; k < terms; ++k) {
        const std::size_t g = 1 + 3 * k, ia = g + 1, ib = g + 2;
        const double a = theta[ia], b = theta[ib];
        const double amplitude = std::hypot(a, b);
        FittedSinusoid s;
        s.frequency = theta[g] / d.span;
        s.frequencyError = std::sqrt(std::max(0.0, cov[g * p + g])) / d.span;
        s.amplitude = d.spread * amplitude;
        double phase = std::atan2(b, a) / kTwoPi;
        s.phase = phase - std::floor(phase);
        if (s.phase >= 1.0)
            s.phase = 0.0;
        // Propagated from a and b: A = hypot(a, b), phase = atan2(b, a) / 2 pi.
        const double va = cov[ia * p + ia], vb = cov[ib * p + ib], vab = cov[ia * p + ib];
        if (amplitude > 0.0) {
            const double a2 = amplitude * amplitude;
            s.amplitudeError =
                d.spread *
                std::sqrt(std::max(0.0, (a * a * va + b * b * vb + 2 * a * b * vab) / a2));
            s.phaseError =
                std::sqrt(std::max(0.0, (b * b * va + a * a * vb - 2 * a * b * vab) / (a2 * a2))) /
                kTwoPi;
        }
        fit.terms.push_back(s);
    }
    return Status::success();
}

} // namespace warpscope::gpu
