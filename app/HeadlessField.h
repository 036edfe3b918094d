#pragma once

#include "CommandLine.h"

namespace warpscope::app {

// --export-field: computes the field the window would show, without a window, on the device
// --backend and --device choose, and writes it as a float32 .npy file (NpyFile.h). The field
// is the kernel's output where a kernel is shown (--kernel, --kernel-source, a scene on the
// Kernel workspace: its source, its values by name over the declared defaults, its options and
// the lesson's launch), the teaching kernel's with its options (NaN where no thread went), and
// the distance field otherwise. Returns the exit status: 0 when the file was written, 1 when
// the kernel does not build or run, the field cannot be computed or the file cannot be
// written, with the reason on stderr.
int runHeadlessField(const AppOptions& options);

} // namespace warpscope::app
