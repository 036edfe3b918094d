#pragma once

#include "periodogram/PeriodogramPlan.h"
#include "runtime/CpuContext.h"
#include "warpscope/gpu/Periodogram.h"

namespace warpscope::gpu {

// The multi-term periodogram (options.nterms harmonics) of a validated request on the CPU's
// threads, into power (options.grid.count values).
void harmonicPeriodogramCpu(CpuBacking& cpu, Timeline* timeline, const TimeSeries& series,
                            const PeriodogramMoments& moments, const PeriodogramOptions& options,
                            double* power);

} // namespace warpscope::gpu
