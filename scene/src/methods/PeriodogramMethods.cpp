#include "bls/BoxLeastSquaresMethod.h"
#include "ce/ConditionalEntropyMethod.h"
#include "ls/LombScargleMethod.h"
#include "pdm/PhaseDispersionMethod.h"
#include "warpscope/scene/methods/PeriodogramMethod.h"

#include <cstdio>
#include <mutex>

namespace warpscope::scene {
namespace {

struct Registry
{
    std::mutex mutex;
    // The built-in methods, one line each; the first is the one a scene names by default.
    std::vector<std::shared_ptr<const PeriodogramMethod>> methods{
        lombScargleMethod(), boxLeastSquaresMethod(), phaseDispersionMethod(),
        conditionalEntropyMethod()};
};

Registry& registry()
{
    static Registry r;
    return r;
}

} // namespace

void PeriodogramMethod::automaticGrid(const PeriodogramScene& scene, const gpu::TimeSeries& series,
                                      PeriodogramRequest& request) const
{
    const gpu::AutomaticGrid automatic =
        gpu::automaticGrid(series, scene.samplesPerPeak, scene.nyquistFactor);
    request.options.grid = automatic.grid;
    request.sampling = automatic.sampling;
    request.stoppedAtNyquist = automatic.stopsAtNyquist;
    request.cap = automatic.cap;
    if (automatic.cap.wanted > 0.0) {
        char text[200];
        std::snprintf(text, sizeof text,
                      "the automatic grid stops at %g instead of %g, to stay within %lld "
                      "frequencies",
                      request.options.grid.fmax(), automatic.cap.wantedFmax, gpu::kMaxFrequencies);
        request.capNote = text;
    }
}

gpu::Status PeriodogramMethod::computeSpectrum(gpu::Context& context, const gpu::TimeSeries& series,
                                               const PeriodogramScene& scene,
                                               const gpu::PeriodogramOptions& options,
                                               std::shared_ptr<const gpu::Spectrum>& spectrum,
                                               std::vector<MethodColumn>& columns) const
{
    std::vector<double> power(std::size_t(options.grid.count));
    double ms = 0.0;
    if (const gpu::Status s = computePower(context, series, scene, options, power, &ms, columns);
        !s)
        return s;
    spectrum = gpu::hostSpectrum(std::move(power), options.grid, ms, name());
    return gpu::Status::success();
}

bool registerPeriodogramMethod(std::shared_ptr<const PeriodogramMethod> method)
{
    Registry& r = registry();
    const std::lock_guard lock(r.mutex);
    for (const auto& m : r.methods)
        if (m->key() == method->key())
            return false;
    r.methods.push_back(std::move(method));
    return true;
}

const PeriodogramMethod* findPeriodogramMethod(const std::string& key)
{
    Registry& r = registry();
    const std::lock_guard lock(r.mutex);
    for (const auto& m : r.methods)
        if (m->key() == key)
            return m.get();
    return nullptr;
}

std::vector<std::string> periodogramMethodKeys()
{
    Registry& r = registry();
    const std::lock_guard lock(r.mutex);
    std::vector<std::string> keys;
    for (const auto& m : r.methods)
        keys.push_back(m->key());
    return keys;
}

const PeriodogramMethod& periodogramMethod(const PeriodogramScene& scene)
{
    if (const PeriodogramMethod* m = findPeriodogramMethod(scene.search))
        return *m;
    Registry& r = registry();
    const std::lock_guard lock(r.mutex);
    return *r.methods.front();
}

PeriodogramMethodTraits periodogramTraits(const gpu::PeriodogramOptions& options)
{
    PeriodogramScene scene;
    scene.nterms = options.nterms;
    return periodogramMethod(scene).traits(scene, options);
}

} // namespace warpscope::scene
