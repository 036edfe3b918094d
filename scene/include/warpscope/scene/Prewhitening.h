#pragma once

#include "warpscope/gpu/FrequencyFit.h"
#include "warpscope/gpu/Status.h"
#include "warpscope/gpu/TimeSeriesIO.h"
#include "warpscope/scene/PeriodogramRequest.h"
#include "warpscope/scene/PeriodogramScene.h"

#include <string>

// Prewhitening, as Period04 does it and as the window, the command line and the batch program
// share it: fit the highest peak's sinusoid, take it out, look at the periodogram of what is
// left, and repeat; then fit every sinusoid found together.
namespace warpscope::scene {

// Fits one sinusoid, starting at frequency, to prepared.series (the data less what the scene
// has taken out so far) and adds it to the scene's list; the scene then takes it out too.
gpu::Status addPrewhitened(PeriodogramScene& scene, const PreparedSeries& prepared,
                           double frequency);

// Fits every listed sinusoid together to prepared.detrended (frequencies refined from the
// list's, amplitudes and phases afresh) and replaces the list with the result.
gpu::Status refitPrewhitened(PeriodogramScene& scene, const PreparedSeries& prepared);

// The list as CSV: frequency, period, amplitude and phase, each with its error, one row a
// sinusoid in the order found; comment lines give the model, its epoch and the units.
std::string prewhitenedCsv(const PeriodogramScene& scene, gpu::TimeUnit unit);

} // namespace warpscope::scene
