#include "PhaseDispersionMethod.h"

#include "warpscope/gpu/PhaseDispersion.h"

namespace warpscope::scene {
namespace {

class PhaseDispersion final : public PeriodogramMethod
{
public:
    std::string key() const override { return "pdm"; }
    std::string name() const override { return "Phase dispersion (PDM)"; }

    PeriodogramMethodTraits traits(const PeriodogramScene& scene,
                                   const gpu::PeriodogramOptions&) const override
    {
        PeriodogramMethodTraits t;
        t.statistic = "1 - theta (PDM)";
        t.higherIsBetter = true;
        t.parameters = {{"Bins", "pdmBins", scene.pdmBins},
                        {"Covers", "pdmCovers", scene.pdmCovers}};
        return t;
    }

    gpu::Status computePower(gpu::Context& context, const gpu::TimeSeries& series,
                             const PeriodogramScene& scene, const gpu::PeriodogramOptions& options,
                             std::span<double> power, double* kernelMs,
                             std::vector<MethodColumn>& columns) const override
    {
        columns.clear();
        const gpu::PhaseDispersionOptions o{scene.pdmBins, scene.pdmCovers};
        if (const gpu::Status s = gpu::computePhaseDispersion(context, series, options.grid, o,
                                                              power, kernelMs, options.cancel);
            !s)
            return s;
        for (double& p : power)
            p = 1.0 - p;
        return gpu::Status::success();
    }
};

} // namespace

std::shared_ptr<const PeriodogramMethod> phaseDispersionMethod()
{
    return std::make_shared<PhaseDispersion>();
}

} // namespace warpscope::scene
