#pragma once

#include "warpscope/scene/methods/PeriodogramMethod.h"

namespace warpscope::scene {

// The generalised Lomb-Scargle periodogram with K harmonic terms (astropy's nterms).
std::shared_ptr<const PeriodogramMethod> lombScargleMethod();

} // namespace warpscope::scene
