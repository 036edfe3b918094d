#pragma once

#include "CommandLine.h"

namespace warpscope::app {

// Computes the periodogram the command line asks for (--series, or the synthetic series;
// the scene's controls, then the options given) on the device --backend and --device choose,
// without a window, prewhitens (--prewhiten) and writes --export-periodogram, --export-peaks
// and --export-frequencies. Returns the exit
// status: 0 when everything was written, 1 when the series does not load, the computation
// fails or a file cannot be written, with the reason on stderr.
// With found, --prewhiten's rounds and joint fit run and the scene's controls, with the
// sinusoids found, are handed back instead of anything written: the window opens on them.
int runHeadlessPeriodogram(const AppOptions& options, scene::PeriodogramScene* found = nullptr);

} // namespace warpscope::app
