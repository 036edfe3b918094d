#pragma once

#include "warpscope/gpu/Context.h"
#include "warpscope/gpu/LaunchConfig.h"
#include "warpscope/gpu/Status.h"
#include "warpscope/gpu/UserKernel.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

// The same kernel compiled several ways and measured side by side: the default build, with
// -use_fast_math, with -maxrregcount=32 and =64, with __launch_bounds__(the block's threads),
// and with `real` as double. NVRTC compiles every variant (no device needed), so registers,
// spills and theoretical occupancy are known everywhere. On a GPU each variant is timed with
// CUDA events (the median of several runs) and its whole output compared with the default's.
// On the CPU the simulator times and compares only what changes its results (the float64
// row); compile flags and launch bounds mean nothing to it, and the row says so.
namespace warpscope::gpu {

struct KernelVariant
{
    std::string name; // "default", "-use_fast_math", ..., shown in the table
    KernelSource source;
    KernelOptions options;
    // Why this variant is not built (empty: it is), e.g. the source already declares
    // __launch_bounds__.
    std::string skip;
    // Whether the CPU simulator's build differs from the default's (only `real` does).
    bool simulated = false;
};

// The variants of a kernel, default first. base holds the architecture and the user's own
// options, which every variant keeps; blockThreads is the launch's (per node: 256).
std::vector<KernelVariant> kernelVariants(const KernelSource& source, const KernelOptions& base,
                                          long long blockThreads);

// One row of the table. A figure that is not known has its reason instead, never a NaN.
struct KernelVariantRow
{
    std::string name;
    bool compiled = false;
    std::string problem; // why it did not compile or run, when it did not
    KernelUsage usage;
    bool occupancyKnown = false;
    Occupancy occupancy;
    bool timed = false;
    double medianMs = 0.0;
    std::string timeNote; // how it was timed, or why it was not
    bool compared = false;
    double maxAbsDiff = 0.0; // over the nodes finite in both outputs
    // The nodes whose values differ (NaN against NaN does not), and of them those that are not
    // finite in one output or both (NaN against a number, +inf against -inf, ...).
    long long differingNodes = 0;
    long long nonFiniteDiffering = 0;
    std::string diffNote;
    // Why its output may differ from the default's with no bug (expectedDifference); empty
    // where nothing does.
    std::string expected;
    // What one run recorded by the simulator did to memory (request.recordMemory), or why
    // there is no record.
    bool memoryKnown = false;
    MemorySummary memory;
    std::string memoryNote;
};

// Why a variant's output may legitimately differ from the default's, or from one run to the
// next: -use_fast_math's approximations, and atomicAdd, whose additions a GPU makes in the
// order the threads arrive (different each run, so floats' last bits differ; the simulator's
// order is fixed). Empty where neither applies.
std::string expectedDifference(const KernelVariant& variant, bool cuda);

struct KernelVariantsRequest
{
    KernelSource source;
    KernelOptions options; // the architecture (the context's on a GPU) and the user's options
    KernelArgs args;       // mesh, parameter values, launch (whole kernels)
    int runs = 7;          // timed runs per variant, after one warm-up
    std::string cacheDir;  // for NVRTC's and the simulator's builds (empty: none)
    // Also one run of each variant the simulator runs in a recording build (KernelMemory.h),
    // for the memory columns; its time is not counted.
    bool recordMemory = false;
};

// Progress: called after each step with (done, total); cancel is checked between runs.
using KernelVariantsProgress = std::function<void(int done, int total)>;

// Fills rows, one per kernelVariants() entry, on context (one thread at a time, like every
// use of a context). Fails only when the default variant cannot be built or run, or when
// cancelled (rows then hold what was measured).
Status measureKernelVariants(Context& context, const KernelVariantsRequest& request,
                             std::vector<KernelVariantRow>& rows,
                             const std::atomic<bool>* cancel = nullptr,
                             const KernelVariantsProgress& progress = {});

// The table as CSV: a header, then one line per row; unknown figures are empty cells with the
// reason in the note column.
std::string kernelVariantsCsv(const std::vector<KernelVariantRow>& rows);

} // namespace warpscope::gpu
