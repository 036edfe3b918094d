#include "LombScargleMethod.h"

#include "warpscope/gpu/FrequencyFit.h"

#include <algorithm>
#include <cmath>

namespace warpscope::scene {
namespace {

class LombScargle final : public PeriodogramMethod
{
public:
    std::string key() const override { return "ls"; }
    std::string name() const override { return "Lomb-Scargle"; }

    PeriodogramMethodTraits traits(const PeriodogramScene&,
                                   const gpu::PeriodogramOptions& options) const override
    {
        // One term is the classic sinusoid, with Baluev's false-alarm probability, the
        // batched kernels and the matrix products; more terms solve a normal matrix per
        // frequency, which none of them has.
        const bool one = options.nterms == 1;
        PeriodogramMethodTraits t;
        t.statistic = "power";
        t.higherIsBetter = true;
        t.falseAlarm = one;
        t.batchable = one;
        t.matrixProducts = one;
        t.foldHarmonics = std::max(1, options.nterms);
        t.parameters = {{"Terms", "nterms", options.nterms}};
        return t;
    }

    // The one-term periodogram's power at f is the weighted least-squares sinusoid's share of
    // the variance, so its continuous maximum is the frequency of the best sinusoid: fitted
    // by Levenberg-Marquardt from the peak, its error from the fit's covariance (scipy's
    // curve_fit convention). A fit that leaves the peak (more than two grid steps away) is
    // no refinement of it.
    std::optional<RefinedPeak> refine(const gpu::TimeSeries& series, const PeriodogramScene&,
                                      const gpu::PeriodogramOptions& options, const gpu::Peak& peak,
                                      const std::vector<MethodColumn>&) const override
    {
        if (options.nterms != 1)
            return std::nullopt;
        gpu::FrequencyFit fit;
        if (!gpu::fitFrequencies(series, {peak.frequency}, fit) || fit.terms.size() != 1)
            return std::nullopt;
        const gpu::FittedSinusoid& s = fit.terms.front();
        const double step =
            std::abs(options.grid.frequency(std::min(peak.index + 1, options.grid.count - 1)) -
                     options.grid.frequency(std::max(peak.index - 1, 0LL))) /
            2.0;
        if (!(std::isfinite(s.frequency) && std::isfinite(s.frequencyError)) ||
            std::abs(s.frequency - peak.frequency) > 2.0 * std::max(step, 0.0))
            return std::nullopt;
        return RefinedPeak{s.frequency, s.frequencyError, "least-squares sinusoid"};
    }

    gpu::Status computeSpectrum(gpu::Context& context, const gpu::TimeSeries& series,
                                const PeriodogramScene&, const gpu::PeriodogramOptions& options,
                                std::shared_ptr<const gpu::Spectrum>& spectrum,
                                std::vector<MethodColumn>&) const override
    {
        return gpu::computeSpectrum(context, series, options, spectrum);
    }

    gpu::Status computePower(gpu::Context& context, const gpu::TimeSeries& series,
                             const PeriodogramScene&, const gpu::PeriodogramOptions& options,
                             std::span<double> power, double* kernelMs,
                             std::vector<MethodColumn>&) const override
    {
        return gpu::computePeriodogram(context, series, options, power, kernelMs);
    }
};

} // namespace

std::shared_ptr<const PeriodogramMethod> lombScargleMethod()
{
    return std::make_shared<LombScargle>();
}

} // namespace warpscope::scene
