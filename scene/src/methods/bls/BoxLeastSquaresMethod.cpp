#include "BoxLeastSquaresMethod.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace warpscope::scene {
namespace {

// The figures beside the power, as exports head them (astropy's result names).
constexpr const char* kColumns[] = {"depth",        "depth_err", "duration",
                                    "transit_time", "depth_snr", "log_likelihood"};

std::optional<gpu::BlsObjective> objective(const std::string& name)
{
    if (name == "likelihood")
        return gpu::BlsObjective::Likelihood;
    if (name == "snr")
        return gpu::BlsObjective::Snr;
    return std::nullopt;
}

class BoxLeastSquares final : public PeriodogramMethod
{
public:
    std::string key() const override { return "bls"; }
    std::string name() const override { return "Box least squares"; }

    PeriodogramMethodTraits traits(const PeriodogramScene& scene,
                                   const gpu::PeriodogramOptions&) const override
    {
        PeriodogramMethodTraits t;
        t.statistic = scene.blsObjective == "snr" ? "depth S/N" : "log-likelihood";
        t.higherIsBetter = true;
        t.foldBox = true;
        return t;
    }

    // astropy's autoperiod: periods from twice the longest duration to half the baseline (three
    // transits), evenly spaced in frequency by the shortest duration over the baseline squared.
    void automaticGrid(const PeriodogramScene& scene, const gpu::TimeSeries& series,
                       PeriodogramRequest& request) const override
    {
        const auto durations = blsDurations(scene, series);
        const auto [lo, hi] = std::minmax_element(series.t.begin(), series.t.end());
        const double baseline = series.t.empty() ? 0.0 : *hi - *lo;
        if (!durations || !(baseline > 0.0))
            return; // the request's validation says why
        const double dMin = *std::min_element(durations->begin(), durations->end());
        const double dMax = *std::max_element(durations->begin(), durations->end());
        double pMin = 2.0 * dMax, pMax = 0.5 * baseline;
        if (pMax < pMin)
            std::swap(pMin, pMax);
        const double df = dMin / (baseline * baseline);
        const double fmin = 1.0 / pMax, fmax = 1.0 / pMin;
        const double wanted = 1.0 + std::round((fmax - fmin) / df);
        const long long count = (long long)std::min(wanted, double(gpu::kMaxFrequencies));
        request.options.grid =
            gpu::frequencyGrid(fmax - df * double(count - 1), fmax, count, false);
        if (wanted > double(count)) {
            char text[200];
            std::snprintf(text, sizeof text,
                          "the automatic grid stops at %lld periods of the %.0f box least "
                          "squares asks for: it starts at the longest period",
                          count, wanted);
            request.capNote = text;
        }
        request.sampling = gpu::regularSampling(series.t);
    }

    gpu::Status computePower(gpu::Context& context, const gpu::TimeSeries& series,
                             const PeriodogramScene& scene, const gpu::PeriodogramOptions& options,
                             std::span<double> power, double* kernelMs,
                             std::vector<MethodColumn>& columns) const override
    {
        std::string problem;
        gpu::BlsOptions bls;
        const auto durations = blsDurations(scene, series, &problem);
        if (!durations)
            return gpu::Status::failure(problem);
        bls.durations = *durations;
        bls.objective = objective(scene.blsObjective).value_or(gpu::BlsObjective::Likelihood);
        bls.useErrors = !series.dy.empty();
        bls.cancel = options.cancel;
        std::vector<double> periods(std::size_t(options.grid.count));
        // Longest period first, as astropy's grid: the output keeps the grid's order.
        for (long long k = 0; k < options.grid.count; ++k)
            periods[std::size_t(k)] = 1.0 / options.grid.frequency(k);
        gpu::BlsResult r;
        if (const gpu::Status s =
                gpu::computeBoxLeastSquares(context, series, periods, bls, r, kernelMs);
            !s)
            return s;
        std::copy(r.power.begin(), r.power.end(), power.begin());
        columns = {{kColumns[0], std::move(r.depth)},    {kColumns[1], std::move(r.depthErr)},
                   {kColumns[2], std::move(r.duration)}, {kColumns[3], std::move(r.transitTime)},
                   {kColumns[4], std::move(r.depthSnr)}, {kColumns[5], std::move(r.logLikelihood)}};
        return gpu::Status::success();
    }
};

} // namespace

std::optional<std::vector<double>> blsDurations(const PeriodogramScene& scene,
                                                const gpu::TimeSeries& series, std::string* problem)
{
    std::string why;
    std::optional<std::vector<double>> durations;
    if (scene.blsDurations == "auto") {
        durations = gpu::automaticBlsDurations(series);
        if (durations->empty()) {
            durations.reset();
            why = "Automatic transit durations need at least two distinct times";
        }
    } else {
        durations = parseBlsDurations(scene.blsDurations, why);
    }
    if (problem)
        *problem = why;
    return durations;
}

std::shared_ptr<const PeriodogramMethod> boxLeastSquaresMethod()
{
    return std::make_shared<BoxLeastSquares>();
}

} // namespace warpscope::scene
