#include "LombScargleMethod.h"

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
