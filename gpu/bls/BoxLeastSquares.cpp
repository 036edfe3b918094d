// The box least squares' entry point: each request is validated and prepared here, once, then
// computed by the implementation for the context's device.
#include "bls/BlsImpl.h"
#include "bls/BlsShared.h"
#include "runtime/HostDevice.h"
#include "warpscope/gpu/Timeline.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>

namespace warpscope::gpu {
namespace {

std::string number(double v)
{
    std::ostringstream s;
    s.precision(6);
    s << v;
    return s.str();
}

void checkSeries(const TimeSeries& series, bool useErrors, std::vector<std::string>& problems)
{
    const std::size_t n = series.t.size();
    if (series.y.size() != n || (!series.dy.empty() && series.dy.size() != n)) {
        problems.push_back("The series' columns differ in length");
        return;
    }
    if (n < 3) {
        problems.push_back("Box least squares needs at least 3 points; the series has " +
                           std::to_string(n));
        return;
    }
    for (std::size_t i = 0; i < n; ++i) {
        const bool badDy =
            useErrors && !series.dy.empty() && !(std::isfinite(series.dy[i]) && series.dy[i] > 0.0);
        if (!std::isfinite(series.t[i]) || !std::isfinite(series.y[i]) || badDy) {
            problems.push_back("Point " + std::to_string(i + 1) +
                               " has a time, value or error that is not a finite number (errors "
                               "must also be above 0)");
            return;
        }
    }
}

// The binning of the longest period by the shortest duration, which needs the most bins;
// null when they would be more than kMaxBlsBins.
std::optional<math::BlsBinning> largestBinning(std::span<const double> periods,
                                               const BlsOptions& options)
{
    const double pMax = *std::max_element(periods.begin(), periods.end());
    const double dMin = *std::min_element(options.durations.begin(), options.durations.end());
    const double step = dMin / options.oversample;
    if (2.0 * (pMax + step) / step + 2.0 * options.oversample > double(kMaxBlsBins))
        return std::nullopt;
    return math::blsBinning(pMax, dMin, options.oversample);
}

double median(std::vector<double> v)
{
    const std::size_t h = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + h, v.end());
    if (v.size() % 2)
        return v[h];
    const double upper = v[h];
    return 0.5 * (*std::max_element(v.begin(), v.begin() + h) + upper);
}

BlsPlan makePlan(const TimeSeries& series, std::span<const double> periods,
                 const BlsOptions& options)
{
    BlsPlan plan;
    const std::size_t n = series.t.size();
    plan.tRef = *std::min_element(series.t.begin(), series.t.end());
    const double yMedian = median(series.y);
    plan.t.resize(n);
    plan.w.resize(n);
    plan.wy.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        plan.t[i] = series.t[i] - plan.tRef;
        const double dy = options.useErrors && !series.dy.empty() ? series.dy[i] : 1.0;
        plan.w[i] = 1.0 / (dy * dy);
        plan.wy[i] = plan.w[i] * (series.y[i] - yMedian);
        plan.wTotal += plan.w[i];
        plan.wyTotal += plan.wy[i];
    }
    plan.periods = periods;
    plan.durations = options.durations;
    plan.oversample = options.oversample;
    plan.likelihood = options.objective == BlsObjective::Likelihood;
    const math::BlsBinning largest = *largestBinning(periods, options);
    plan.maxSums = math::blsSums(largest.phases, largest.oversample);
    plan.cancel = options.cancel;
    return plan;
}

} // namespace

const char* blsObjectiveName(BlsObjective objective)
{
    return objective == BlsObjective::Likelihood ? "likelihood" : "snr";
}

void BlsResult::resize(std::size_t n)
{
    for (std::vector<double>* v :
         {&power, &depth, &depthErr, &duration, &transitTime, &depthSnr, &logLikelihood})
        v->assign(n, std::numeric_limits<double>::quiet_NaN());
}

std::vector<std::string> validateBoxLeastSquares(const TimeSeries& series,
                                                 std::span<const double> periods,
                                                 const BlsOptions& options)
{
    std::vector<std::string> problems;
    checkSeries(series, options.useErrors, problems);
    if (periods.empty())
        problems.push_back("Box least squares needs at least one trial period");
    for (double p : periods)
        if (!(std::isfinite(p) && p > 0.0)) {
            problems.push_back("A trial period is " + number(p) + ": periods must be above 0");
            break;
        }
    if (options.durations.empty() || options.durations.size() > std::size_t(kMaxBlsDurations))
        problems.push_back("Box least squares needs 1 to " + std::to_string(kMaxBlsDurations) +
                           " durations; " + std::to_string(options.durations.size()) +
                           " were given");
    for (double d : options.durations)
        if (!(std::isfinite(d) && d > 0.0)) {
            problems.push_back("A transit duration is " + number(d) +
                               ": durations must be above 0");
            break;
        }
    if (options.oversample < 1 || options.oversample > kMaxBlsOversample)
        problems.push_back("The oversampling of transit times must be 1 to " +
                           std::to_string(kMaxBlsOversample) + "; it is " +
                           std::to_string(options.oversample));
    if (!problems.empty())
        return problems;
    const double pMin = *std::min_element(periods.begin(), periods.end());
    const double dMax = *std::max_element(options.durations.begin(), options.durations.end());
    if (!(dMax < pMin))
        problems.push_back("The longest transit duration (" + number(dMax) +
                           ") must be shorter than the shortest trial period (" + number(pMin) +
                           ")");
    else if (!largestBinning(periods, options))
        problems.push_back("The longest period over the shortest duration needs more than " +
                           std::to_string(kMaxBlsBins) +
                           " phase bins: try longer durations, shorter periods or less "
                           "oversampling of transit times");
    return problems;
}

Status computeBoxLeastSquares(Context& context, const TimeSeries& series,
                              std::span<const double> periods, const BlsOptions& options,
                              BlsResult& result, double* kernelMs)
{
    BlsPlan plan;
    {
        const ScopedHostSpan span(context.timeline(), context.hostLane(), "box least squares plan");
        if (const auto problems = validateBoxLeastSquares(series, periods, options);
            !problems.empty())
            return Status::failure(problems.front());
        plan = makePlan(series, periods, options);
    }
    result.resize(periods.size());
    double ms = 0.0;
    const Status status = context.isCuda() ? computeBoxLeastSquaresCuda(context, plan, result, ms)
                                           : computeBoxLeastSquaresCpu(context, plan, result, ms);
    if (!status)
        return status;
    for (std::size_t k = 0; k < result.size(); ++k)
        if (!math::isFiniteValue(result.power[k]))
            return Status::failure("Box least squares failed: the power at period " +
                                   number(periods[k]) +
                                   " came out as NaN or infinity; this is a defect, not a "
                                   "property of the data");
    if (kernelMs)
        *kernelMs = ms;
    return Status::success();
}

std::vector<double> automaticBlsDurations(const TimeSeries& series)
{
    std::vector<double> t = series.t;
    std::sort(t.begin(), t.end());
    std::vector<double> steps;
    for (std::size_t i = 1; i < t.size(); ++i)
        if (t[i] > t[i - 1])
            steps.push_back(t[i] - t[i - 1]);
    if (steps.empty())
        return {};
    const double baseline = t.back() - t.front();
    const double shortest = 3.0 * median(steps);
    const double longest = std::max(shortest, std::min(0.5, 0.1 * baseline));
    constexpr int count = 10;
    std::vector<double> durations(count);
    for (int k = 0; k < count; ++k)
        durations[std::size_t(k)] =
            shortest * std::pow(longest / shortest, double(k) / double(count - 1));
    durations.erase(std::unique(durations.begin(), durations.end()), durations.end());
    return durations;
}

} // namespace warpscope::gpu
