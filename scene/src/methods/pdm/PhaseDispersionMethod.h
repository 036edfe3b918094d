#pragma once

#include "warpscope/scene/methods/PeriodogramMethod.h"

namespace warpscope::scene {

// Phase dispersion minimisation (gpu/phasebins, Stellingwerf 1978), drawn as 1 - theta so
// that the best period is a peak.
std::shared_ptr<const PeriodogramMethod> phaseDispersionMethod();

} // namespace warpscope::scene
