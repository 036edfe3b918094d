#pragma once

#include "warpscope/scene/methods/PeriodogramMethod.h"

namespace warpscope::scene {

// Conditional entropy (gpu/phasebins, Graham et al. 2013), drawn as -H_c so that the best
// period is a peak.
std::shared_ptr<const PeriodogramMethod> conditionalEntropyMethod();

} // namespace warpscope::scene
