#pragma once

#include "warpscope/gpu/LaunchConfig.h"
#include "warpscope/gpu/UserKernel.h"

#include <QString>
#include <QStringList>
#include <cstdint>
#include <vector>

// How the Kernel workspace shows what a run printed. The CPU simulator hands back each printf
// call with the block and thread that made it (gpu::KernelPrintLine); a GPU run gives only the
// text its process printed, which is listed line by line.
namespace warpscope::ui {

// The most lines of a run's raw text the Messages tab lists (the simulator's own list is
// capped at gpu::kMaxPrintLines by the runner).
inline constexpr int kMaxListedLines = 1000;
// The most of one printed line that is shown; the rest is cut at an ellipsis.
inline constexpr int kMaxPrintedChars = 400;
// The most printf lines a node's hover lists for its thread.
inline constexpr int kHoverPrintLines = 5;

// A row of the Messages tab's account of a run's output: monospaced rows are what the kernel
// printed (so that the block and thread columns line up), the others say what the rows are.
struct PrintedRow
{
    QString text;
    bool monospace = false;
};

// The rows for what a run printed, empty when it printed nothing. The simulator's lines come
// as "blockIdx  threadIdx  text" under a heading row, the indices "(x,y,z)" padded into
// columns, then a row counting the lines the runner did not keep, and then what the process
// printed outside the kernel's threads (code run at the library's load, standard error). A GPU
// run's raw text (or a simulator run that crashed before replying) is listed line by line.
std::vector<PrintedRow> printedRows(const gpu::KernelRun& run);

// The lines printed by the thread that the teaching record names for a node (LaunchLesson.h's
// words: the block's index blockIdx.y * gridDim.x + blockIdx.x and the thread's threadIdx.y *
// blockDim.x + threadIdx.x, in the run's launch): at most kHoverPrintLines rows as in the
// Messages tab, then "… and N more". dropped (the lines the run did not keep) adds a row
// saying that this thread's later lines may be among them. Empty when the thread printed none
// of the kept lines and none were dropped.
QStringList threadPrintRows(const std::vector<gpu::KernelPrintLine>& lines, long long dropped,
                            std::uint32_t block, std::uint32_t thread,
                            const gpu::LaunchConfig& launch);

} // namespace warpscope::ui
