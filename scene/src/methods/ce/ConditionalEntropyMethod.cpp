#include "ConditionalEntropyMethod.h"

#include "warpscope/gpu/ConditionalEntropy.h"

namespace warpscope::scene {
namespace {

class ConditionalEntropy final : public PeriodogramMethod
{
public:
    std::string key() const override { return "ce"; }
    std::string name() const override { return "Conditional entropy"; }

    PeriodogramMethodTraits traits(const PeriodogramScene& scene,
                                   const gpu::PeriodogramOptions&) const override
    {
        PeriodogramMethodTraits t;
        t.statistic = "-H (conditional entropy, nats)";
        t.higherIsBetter = true;
        t.parameters = {{"Phase bins", "ceBins", scene.ceBins},
                        {"Magnitude bins", "ceMagnitudeBins", scene.ceMagnitudeBins}};
        return t;
    }

    gpu::Status computePower(gpu::Context& context, const gpu::TimeSeries& series,
                             const PeriodogramScene& scene, const gpu::PeriodogramOptions& options,
                             std::span<double> power, double* kernelMs,
                             std::vector<MethodColumn>& columns) const override
    {
        columns.clear();
        const gpu::ConditionalEntropyOptions o{scene.ceBins, scene.ceMagnitudeBins};
        if (const gpu::Status s = gpu::computeConditionalEntropy(context, series, options.grid, o,
                                                                 power, kernelMs, options.cancel);
            !s)
            return s;
        for (double& p : power)
            p = -p;
        return gpu::Status::success();
    }
};

} // namespace

std::shared_ptr<const PeriodogramMethod> conditionalEntropyMethod()
{
    return std::make_shared<ConditionalEntropy>();
}

} // namespace warpscope::scene
