#include "LombScargleMethod.h"

namespace warpscope::scene {
namespace {

class LombScargle final : public PeriodogramMethod
{
public:
    std::string name() const override { return "Lomb-Scargle"; }

    // Every scene today: its terms are the method's one parameter.
    bool describes(const PeriodogramScene&) const override { return true; }

    PeriodogramMethodTraits traits(const gpu::PeriodogramOptions& options) const override
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
                                const gpu::PeriodogramOptions& options,
                                std::shared_ptr<const gpu::Spectrum>& spectrum) const override
    {
        return gpu::computeSpectrum(context, series, options, spectrum);
    }

    gpu::Status computePower(gpu::Context& context, const gpu::TimeSeries& series,
                             const gpu::PeriodogramOptions& options, std::span<double> power,
                             double* kernelMs) const override
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
