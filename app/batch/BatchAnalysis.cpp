#include "BatchAnalysis.h"

#include "warpscope/gpu/Detrend.h"
#include "warpscope/gpu/PeriodogramBatch.h"
#include "warpscope/gpu/Spectrum.h"
#include "warpscope/gpu/TraceExport.h"
#include "warpscope/scene/BatchIds.h"
#include "warpscope/scene/PeriodogramCost.h"
#include "warpscope/scene/PeriodogramSession.h"
#include "warpscope/scene/PeriodogramUnits.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <thread>

namespace warpscope::batch {
namespace {

// The rows the reader skipped, as one warning; empty when none was.
std::string skippedRows(const gpu::LoadReport& r)
{
    std::string text;
    const auto add = [&](std::size_t count, const char* what) {
        if (count > 0)
            text += (text.empty() ? "" : ", ") + std::to_string(count) + " " + what;
    };
    add(r.nonFiniteRows, "with NaN or infinite values");
    add(r.nonNumericRows, "not numeric");
    add(r.outOfRangeRows, "out of range");
    add(r.nonPositiveErrors, "with dy <= 0");
    add(r.invalidDates, "with invalid dates");
    add(r.flaggedRows, "flagged by QUALITY");
    return text.empty() ? text : "rows skipped: " + text;
}

} // namespace

std::string periodogramPath(const BatchSettings& settings, const std::string& id)
{
    return (std::filesystem::path(settings.periodogramFolder) / scene::periodogramFileName(id))
        .string();
}

namespace {

PreparedObject prepareObject(const BatchSettings& settings, BatchObject& object)
{
    PreparedObject p;
    BatchResult& row = p.row;
    row.id = object.id;
    const auto fail = [&](const std::string& why) {
        row.failed = true;
        row.peaks.clear();
        row.warnings.push_back(why);
        return std::move(p);
    };
    // A table's rows without an id may be any objects' rows: refused, in a row of their own.
    if (object.id.empty())
        return fail("refused: rows with an empty id are no one object's; give each row its "
                    "object's id in the table");
    if (!object.loaded)
        return fail("unreadable: " + object.loaded.message());
    if (const std::string skipped = skippedRows(object.report); !skipped.empty())
        row.warnings.push_back(skipped);
    const scene::PeriodogramScene& c = settings.scene;
    // The window's preparation: weights, masks, trend and any prewhitened sinusoids.
    scene::PeriodogramSession session(c);
    const gpu::Status ready = session.prepare(std::move(object.series));
    const scene::PreparedSeries& prepared = session.prepared();
    row.points = (long long)prepared.unmasked.t.size();
    if (prepared.masked > 0)
        row.warnings.push_back(std::to_string(prepared.masked) + " points masked");
    if (prepared.unmasked.t.empty())
        return fail("every point is masked");
    if (!ready)
        return fail("detrending: " + ready.message());
    if (const gpu::Status s = session.makeRequest(); !s)
        return fail(s.message());
    const scene::PeriodogramRequest& request = session.request();
    if (!request.capNote.empty())
        row.warnings.push_back(request.capNote);
    p.series = prepared.series;
    p.options = request.options;
    p.timeUnit = object.report.timeUnit;
    return p;
}

// The object's periodogram, as the app's export writes it, in a file of its own: one that
// exists (an earlier run's) is kept, never replaced.
gpu::Status writePeriodogram(const BatchSettings& settings, const PreparedObject& p,
                             std::span<const double> power)
{
    const std::string path = periodogramPath(settings, p.row.id);
    std::error_code error;
    if (std::filesystem::exists(path, error) || std::filesystem::is_symlink(path, error))
        return gpu::Status::failure(path + " already exists (kept; remove it to write it again)");
    return gpu::writeTextFile(path, scene::periodogramCsv(p.options.grid, power, p.timeUnit));
}

// The row of an object whose highest local maxima are top (as topPeaks finds them, up to
// kSpectrumMaxPeaks), or which failed with status; power is its periodogram, written when
// settings ask.
void finishObject(const BatchSettings& settings, PreparedObject& p, const gpu::Status& status,
                  const std::vector<gpu::Peak>& top, std::span<const double> power)
{
    BatchResult& row = p.row;
    if (!status) {
        row.failed = true;
        row.warnings.push_back(status.message());
        return;
    }
    const gpu::PeriodogramOptions& options = p.options;
    if (!settings.periodogramFolder.empty())
        if (const gpu::Status s = writePeriodogram(settings, p, power); !s)
            row.warnings.push_back("periodogram not written: " + s.message());
    const scene::ReportedPeaks reported = scene::reportPeaks(scene::periodogramTraits(options), top,
                                                             p.series, options, settings.peaks);
    const std::vector<gpu::Peak>& peaks = reported.peaks;
    const std::vector<std::optional<double>>& faps = reported.falseAlarm;
    for (std::size_t k = 0; k < peaks.size(); ++k) {
        BatchPeak peak;
        peak.frequency = peaks[k].frequency;
        peak.period = 1.0 / peaks[k].frequency;
        peak.power = peaks[k].power;
        if (k < faps.size() && faps[k] && std::isfinite(*faps[k]))
            peak.fap = faps[k];
        row.peaks.push_back(peak);
    }
    if (row.peaks.empty())
        row.warnings.push_back("no peak inside the grid with a period within the baseline");
}

// Calls work, adding the seconds it took to seconds; returns what it returns.
template <typename Work> auto timed(double& seconds, Work&& work)
{
    const auto start = std::chrono::steady_clock::now();
    struct Add
    {
        double& seconds;
        std::chrono::steady_clock::time_point start;
        ~Add()
        {
            seconds +=
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        }
    } add{seconds, start};
    return work();
}

// Says on stderr, before it starts, that a periodogram call of points samples in all (one
// object's, or a batch's) will take long: the objects' ETA knows nothing of it until they end.
void announceLong(const gpu::Context& context, const std::string& what, std::size_t points,
                  const gpu::PeriodogramOptions& options)
{
    const scene::PeriodogramCost cost =
        scene::periodogramCost(points, options.grid.count, options.nterms, context.isCuda(),
                               options.precision, std::thread::hardware_concurrency());
    if (!scene::isLong(cost))
        return;
    // An id is anyone's bytes: its control characters are not sent to the terminal.
    std::string shown = what;
    for (char& c : shown)
        if ((unsigned char)c < 32 || c == 127)
            c = '?';
    std::fprintf(stderr, "warpscope-batch: %s: %s on %s\n", shown.c_str(),
                 scene::costText(cost).c_str(), context.name().c_str());
}

// Whether two requests can share a batch: the same grid and the same sums.
bool sameBatch(const gpu::PeriodogramOptions& a, const gpu::PeriodogramOptions& b)
{
    return a.grid == b.grid && a.normalization == b.normalization && a.fitMean == b.fitMean &&
           a.centerData == b.centerData && a.precision == b.precision &&
           a.launch.blockThreads == b.launch.blockThreads &&
           a.launch.gridBlocks == b.launch.gridBlocks && a.launch.gridStride == b.launch.gridStride;
}

// On the CPU, an object of more points than this keeps the cores busy on its own: its own
// call spreads its frequencies over them.
constexpr std::size_t kBatchMostPoints = 4096;

// On CUDA every object of a batchable method batches, whatever its size: the batch runs what the
// single call would (Auto: the matrix products where the tensor cores suit the precision), and even
// large objects fill the GPU only together (one of 20 000 points and 10^5 frequencies is 49
// blocks of the matrix products, on an H100's 132 SMs). The matrix products are batched on
// CUDA only.
bool batchable(const PreparedObject& p, bool cuda)
{
    const gpu::PeriodogramOptions& o = p.options;
    return scene::periodogramTraits(o).batchable &&
           (cuda || o.method != gpu::PeriodogramMethod::Matrix) &&
           gpu::coveredFrequencies(o.launch, o.grid.count) == o.grid.count &&
           (cuda || o.method == gpu::PeriodogramMethod::Direct ||
            p.series.t.size() <= kBatchMostPoints);
}

// Powers (256 MiB) and samples (16 Mi, some 600 MiB staged) a batch holds at most: a group
// beyond either goes in several batches.
constexpr std::size_t kBatchPowers = std::size_t(32) << 20;
constexpr std::size_t kBatchSamples = std::size_t(16) << 20;

} // namespace

std::vector<PreparedObject> prepareObjects(const BatchSettings& settings,
                                           std::vector<BatchObject>& objects, HostPool& pool,
                                           const std::atomic<bool>* cancel)
{
    std::vector<PreparedObject> prepared(objects.size());
    pool.forEach(objects.size(), [&](std::size_t i) {
        prepared[i] = prepareObject(settings, objects[i]);
        prepared[i].options.cancel = cancel;
    });
    return prepared;
}

std::vector<BatchResult> analyseObjects(gpu::Context& context, const BatchSettings& settings,
                                        std::vector<PreparedObject>& prepared, HostPool& pool,
                                        const std::atomic<bool>* cancel, bool& cancelled,
                                        AnalysisTimes* times)
{
    AnalysisTimes unused;
    AnalysisTimes& spent = times ? *times : unused;
    cancelled = false;
    const auto failedBy = [&](const gpu::Status& s) {
        cancelled = cancel && cancel->load();
        return !s;
    };
    // Only the peaks are wanted: on a GPU they are found there, and the powers never cross to
    // the host.
    const bool peaksOnly = settings.periodogramFolder.empty() && !settings.powersToHost;
    // The rows' host work, timed and shown on the worker's lane of a run's timeline.
    const auto finishing = [&](auto&& work) {
        const gpu::ScopedHostSpan span(context.timeline(), context.hostLane(), "finishing rows");
        timed(spent.finishing, work);
    };
    std::vector<bool> done(prepared.size());
    for (std::size_t i = 0; i < prepared.size() && !cancelled; ++i) {
        if (done[i] || prepared[i].row.failed)
            continue;
        const gpu::PeriodogramOptions& options = prepared[i].options;
        const std::size_t count = std::size_t(options.grid.count);
        if (!batchable(prepared[i], context.isCuda())) {
            done[i] = true;
            announceLong(context, "object " + prepared[i].row.id, prepared[i].series.t.size(),
                         options);
            if (peaksOnly) {
                // The app's own call: the device's peak search, as in the Periodogram workspace.
                std::shared_ptr<const gpu::Spectrum> spectrum;
                const gpu::Status s = timed(spent.periodograms, [&] {
                    return gpu::computeSpectrum(context, prepared[i].series, options, spectrum);
                });
                if (failedBy(s) && cancelled)
                    break;
                finishing([&] {
                    finishObject(settings, prepared[i], s,
                                 s ? spectrum->peaks() : std::vector<gpu::Peak>{}, {});
                });
                continue;
            }
            std::vector<double> power(count);
            const gpu::Status s = timed(spent.periodograms, [&] {
                return gpu::computePeriodogram(context, prepared[i].series, options, power);
            });
            if (failedBy(s) && cancelled)
                break;
            finishing([&] {
                finishObject(settings, prepared[i], s,
                             gpu::topPeaks(power, options.grid, gpu::kSpectrumMaxPeaks), power);
            });
            continue;
        }
        // This object and the next ones that share its request, up to the batch's size.
        std::vector<std::size_t> group;
        const std::size_t most =
            std::max<std::size_t>(1, kBatchPowers / std::max<std::size_t>(1, count));
        std::size_t samples = 0;
        for (std::size_t j = i; j < prepared.size() && group.size() < most; ++j) {
            if (done[j] || prepared[j].row.failed || !batchable(prepared[j], context.isCuda()) ||
                !sameBatch(prepared[j].options, options))
                continue;
            samples += prepared[j].series.t.size();
            if (!group.empty() && samples > kBatchSamples)
                break;
            group.push_back(j);
            done[j] = true;
        }
        std::vector<gpu::TimeSeries> series;
        series.reserve(group.size());
        std::size_t groupPoints = 0;
        for (const std::size_t j : group) {
            groupPoints += prepared[j].series.t.size();
            series.push_back(std::move(prepared[j].series));
        }
        announceLong(context,
                     std::to_string(group.size()) + " objects from " + prepared[i].row.id +
                         " on, in one call",
                     groupPoints, options);
        std::vector<gpu::Status> perObject;
        if (peaksOnly) {
            std::vector<std::vector<gpu::Peak>> peaks;
            const gpu::Status s = timed(spent.periodograms, [&] {
                return gpu::computePeriodogramBatchPeaks(context, series, options,
                                                         gpu::kSpectrumMaxPeaks, peaks, &perObject);
            });
            if (failedBy(s) && cancelled)
                break;
            finishing([&] {
                pool.forEach(group.size(), [&](std::size_t g) {
                    PreparedObject& p = prepared[group[g]];
                    p.series = std::move(series[g]);
                    finishObject(settings, p, s ? perObject[g] : s,
                                 s ? peaks[g] : std::vector<gpu::Peak>{}, {});
                });
            });
            continue;
        }
        // Reused by the worker from chunk to chunk: a batch's powers are up to 256 MiB, which
        // would otherwise be zeroed before every batch overwrites them.
        thread_local std::vector<double> batchPower;
        if (batchPower.size() < group.size() * count)
            batchPower.resize(group.size() * count);
        const std::span<double> power(batchPower.data(), group.size() * count);
        const gpu::Status s = timed(spent.periodograms, [&] {
            return gpu::computePeriodogramBatch(context, series, options, power, &perObject);
        });
        if (failedBy(s) && cancelled)
            break;
        finishing([&] {
            pool.forEach(group.size(), [&](std::size_t g) {
                PreparedObject& p = prepared[group[g]];
                p.series = std::move(series[g]);
                const std::span<const double> row = power.subspan(g * count, count);
                finishObject(settings, p, s ? perObject[g] : s,
                             gpu::topPeaks(row, options.grid, gpu::kSpectrumMaxPeaks), row);
            });
        });
    }
    std::vector<BatchResult> rows;
    if (cancelled)
        return rows;
    rows.reserve(prepared.size());
    for (PreparedObject& p : prepared)
        rows.push_back(std::move(p.row));
    return rows;
}

} // namespace warpscope::batch
