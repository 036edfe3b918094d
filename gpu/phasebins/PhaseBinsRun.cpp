// The entry points of phase dispersion and conditional entropy: each request is validated and
// planned here, once, then computed by the implementation for the context's device, whose
// values are checked before they are returned.
#include "phasebins/PhaseBinsShared.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace warpscope::gpu {
namespace {

// Validates a request of `method` with validate(), checks that out can hold the grid, and
// plans it with plan(); the host's O(N) work before any computing, shown on the timeline so
// that the call's time adds up.
template <typename Plan, typename Validate, typename MakePlan>
Status checkAndPlan(Context& context, const char* method, const FrequencyGrid& grid,
                    std::size_t outSize, Validate validate, MakePlan makePlan, Plan& plan)
{
    const ScopedHostSpan span(context.timeline(), context.hostLane(),
                              std::string(method) + " check");
    if (const std::vector<std::string> problems = validate(); !problems.empty())
        return Status::failure(problems.front());
    if (outSize < std::size_t(grid.count))
        return Status::failure("The output holds " + std::to_string(outSize) +
                               " values; the grid has " + std::to_string(grid.count));
    plan = makePlan();
    return Status::success();
}

// What a computation's values must be before anyone sees them: there, and finite. The plans
// make every value defined, so a NaN here (the CUDA backend's poison, a value never written)
// is a defect, which no plot or export should pass off as a result.
Status checkValues(const char* method, std::span<const double> values, double& computeMs,
                   double* kernelMs, const std::atomic<bool>* cancel)
{
    if (cancel && cancel->load())
        return Status::failure(std::string("The ") + method + " was cancelled");
    const long long bad =
        std::count_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); });
    if (bad > 0)
        return Status::failure(std::string("The ") + method + " failed: " + std::to_string(bad) +
                               " of its " + std::to_string(values.size()) +
                               " values came out as NaN or infinity, so none is shown. This is "
                               "a defect, not a property of the data");
    if (kernelMs)
        *kernelMs = computeMs;
    return Status::success();
}

} // namespace

Status computePhaseDispersion(Context& context, const TimeSeries& series, const FrequencyGrid& grid,
                              const PhaseDispersionOptions& options, std::span<double> theta,
                              double* kernelMs, const std::atomic<bool>* cancel)
{
    constexpr const char* method = "phase dispersion";
    DispersionPlan plan;
    if (Status s = checkAndPlan(
            context, method, grid, theta.size(),
            [&] { return validatePhaseDispersion(series, grid, options); },
            [&] { return makeDispersionPlan(series, grid, options); }, plan);
        !s)
        return s;
    const std::span<double> out = theta.first(std::size_t(grid.count));
    double ms = 0.0;
    const Status status = context.isCuda() ? phaseDispersionCuda(context, plan, out, ms)
                                           : phaseDispersionCpu(context, plan, out, cancel, ms);
    return status ? checkValues(method, out, ms, kernelMs, cancel) : status;
}

Status computeConditionalEntropy(Context& context, const TimeSeries& series,
                                 const FrequencyGrid& grid,
                                 const ConditionalEntropyOptions& options,
                                 std::span<double> entropy, double* kernelMs,
                                 const std::atomic<bool>* cancel)
{
    constexpr const char* method = "conditional entropy";
    EntropyPlan plan;
    if (Status s = checkAndPlan(
            context, method, grid, entropy.size(),
            [&] { return validateConditionalEntropy(series, grid, options); },
            [&] { return makeEntropyPlan(series, grid, options); }, plan);
        !s)
        return s;
    const std::span<double> out = entropy.first(std::size_t(grid.count));
    double ms = 0.0;
    const Status status = context.isCuda() ? conditionalEntropyCuda(context, plan, out, ms)
                                           : conditionalEntropyCpu(context, plan, out, cancel, ms);
    return status ? checkValues(method, out, ms, kernelMs, cancel) : status;
}

} // namespace warpscope::gpu
