#pragma once

#include "CommandLine.h"

namespace warpscope::app {

// Computes the periodogram the command line asks for (--series, or the synthetic series;
// the scene's controls, then the options given) on the device --backend and --device choose,
// without a window, and writes --export-periodogram and --export-peaks. Returns the exit
// status: 0 when everything was written, 1 when the series does not load, the computation
// fails or a file cannot be written, with the reason on stderr.
int runHeadlessPeriodogram(const AppOptions& options);

} // namespace warpscope::app
