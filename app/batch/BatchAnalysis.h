#pragma once

#include "BatchTable.h"
#include "HostPool.h"
#include "warpscope/gpu/Context.h"
#include "warpscope/gpu/TimeSeriesIO.h"
#include "warpscope/scene/PeriodogramScene.h"

#include <atomic>

namespace warpscope::batch {

// What every object of a run is analysed with: the periodogram scene (grid, normalisation,
// floating mean, dy, detrending, masks, precision, method) and how many peaks to keep.
struct BatchSettings
{
    scene::PeriodogramScene scene;
    int peaks = 3;
    // Where each object's periodogram is written as CSV (as the app's export), when set.
    std::string periodogramFolder;
    // Every power comes back to the host and is searched there even when none is written:
    // the way batches ran before the device's search, kept as the benchmark's baseline.
    bool powersToHost = false;
};

// The file of an object's periodogram in settings.periodogramFolder:
// scene::periodogramFileName, the id with any byte a file name should not hold as %XX, so
// that no two objects share a file and the name gives the id back.
std::string periodogramPath(const BatchSettings& settings, const std::string& id);

// An object as the catalogue gives it: its id, whether it loaded, its series and the reader's
// report.
struct BatchObject
{
    std::string id;
    gpu::Status loaded;
    gpu::TimeSeries series;
    gpu::LoadReport report;
};

// An object ready for its periodogram, or already failed (row.failed): its row so far, its
// series as the periodogram takes it, its request and its time unit.
struct PreparedObject
{
    BatchResult row;
    gpu::TimeSeries series;
    gpu::PeriodogramOptions options;
    gpu::TimeUnit timeUnit{};
};

// Each object as the periodogram workspace would prepare it: its series (loaded as loaded
// says) without dy when the scene does not use them, less its masked points, less its trend;
// the request scene::makePeriodogramRequest makes for it, which cancel stops. On pool's
// threads, objects side by side, and on no device: a worker prepares its next objects while
// its device computes the last ones.
std::vector<PreparedObject> prepareObjects(const BatchSettings& settings,
                                           std::vector<BatchObject>& objects, HostPool& pool,
                                           const std::atomic<bool>* cancel);

// Each prepared object's row, as the periodogram workspace would show it: the periodogram on
// context (written to periodogramPath when settings ask); its reportable peaks and their
// false-alarm probabilities. Objects whose requests share one grid and the one-term model
// are computed together, a group a call, with the powers each would have alone (on CUDA any
// of them, by the method the single call's Auto takes; on the CPU those of up to 4096 points,
// or any number with the direct method): gpu::computePeriodogramBatchPeaks, whose peaks are
// found on the GPU so that no power crosses to the host, or gpu::computePeriodogramBatch when
// the periodograms are written. The others go one by one, by the app's own call
// (gpu::computeSpectrum, its peaks found on the GPU too) unless the periodograms are
// written. Each object's work on the host after its periodogram runs on pool's threads,
// objects side by side. Never throws or stops on a bad object: its row says why it failed.
// cancelled is set, and the rows must be dropped, when cancel turned true during the
// computation. times, when given, gains the seconds spent in the periodogram calls and in the
// objects' work after them.
struct AnalysisTimes
{
    double periodograms = 0.0;
    double finishing = 0.0;
};
std::vector<BatchResult> analyseObjects(gpu::Context& context, const BatchSettings& settings,
                                        std::vector<PreparedObject>& prepared, HostPool& pool,
                                        const std::atomic<bool>* cancel, bool& cancelled,
                                        AnalysisTimes* times = nullptr);

} // namespace warpscope::batch
