#pragma once

#include "warpscope/gpu/BoxLeastSquares.h"
#include "warpscope/scene/methods/PeriodogramMethod.h"

#include <optional>

namespace warpscope::scene {

// Box least squares (gpu/bls), for transits: astropy's BoxLeastSquares, exact.
std::shared_ptr<const PeriodogramMethod> boxLeastSquaresMethod();

// The scene's durations ("auto": gpu::automaticBlsDurations of series), or none with why.
std::optional<std::vector<double>> blsDurations(const PeriodogramScene& scene,
                                                const gpu::TimeSeries& series,
                                                std::string* problem = nullptr);

} // namespace warpscope::scene
