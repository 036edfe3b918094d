#include "warpscope/scene/PeriodogramRequest.h"

#include "warpscope/scene/methods/PeriodogramMethod.h"

#include <numbers>

namespace warpscope::scene {

gpu::Status prepareSeries(const PeriodogramScene& scene, const gpu::TimeSeries& loaded,
                          PreparedSeries& prepared)
{
    prepared = {};
    gpu::TimeSeries series = loaded;
    if (!scene.useErrors)
        series.dy.clear();
    prepared.unmasked = gpu::applyMasks(series, scene.masks, &prepared.masked);
    if (prepared.unmasked.t.empty())
        return gpu::Status::failure("Every point of the series is masked");
    if (scene.detrend.method == gpu::DetrendMethod::None) {
        prepared.detrended = prepared.unmasked;
    } else if (const gpu::Status s = gpu::detrend(prepared.unmasked, scene.detrend, prepared.trend,
                                                  prepared.detrended);
               !s) {
        return s;
    }
    prepared.series =
        scene.prewhitened.empty()
            ? prepared.detrended
            : gpu::subtractSinusoids(prepared.detrended, scene.prewhitened, scene.prewhitenEpoch);
    return gpu::Status::success();
}

gpu::Status makePeriodogramRequest(const PeriodogramScene& scene, const gpu::TimeSeries& series,
                                   PeriodogramRequest& request)
{
    request = {};
    gpu::PeriodogramOptions& o = request.options;
    o.normalization = scene.normalization;
    o.fitMean = scene.fitMean;
    o.centerData = scene.center;
    o.precision = scene.precision;
    o.method = scene.method;
    o.nterms = scene.nterms;
    o.launch = scene.launch();
    if (scene.gridMode == GridMode::Automatic) {
        periodogramMethod(scene).automaticGrid(scene, series, request);
    } else {
        request.sampling = gpu::regularSampling(series.t);
        // The scene's manual grid may be in angular frequency; the kernels take cycles.
        const double scale = scene.unit == FrequencyUnit::Angular ? 2.0 * std::numbers::pi : 1.0;
        o.grid = gpu::frequencyGrid(scene.fmin / scale, scene.fmax / scale, scene.count,
                                    scene.gridMode == GridMode::Logarithmic);
    }
    request.problems = gpu::validatePeriodogram(series, o);
    if (!request.problems.empty()) {
        std::string message;
        for (const gpu::PeriodogramProblem& p : request.problems)
            message += (message.empty() ? "" : "; ") + p.message;
        return gpu::Status::failure(message);
    }
    return gpu::Status::success();
}

} // namespace warpscope::scene
