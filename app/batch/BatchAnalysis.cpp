#include "BatchAnalysis.h"

#include "warpscope/gpu/Detrend.h"
#include "warpscope/gpu/Spectrum.h"
#include "warpscope/gpu/TraceExport.h"
#include "warpscope/scene/PeriodogramRequest.h"
#include "warpscope/scene/PeriodogramUnits.h"

#include <cmath>

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
    std::string name = id;
    for (char& c : name)
        if (c == '/' || c == '\\' || c == ':' || (unsigned char)c < 32)
            c = '_';
    if (name.empty() || name[0] == '.')
        name = "_" + name;
    return settings.periodogramFolder + "/" + name + ".periodogram.csv";
}

BatchResult analyseObject(gpu::Context& context, const BatchSettings& settings,
                          const std::string& id, const gpu::Status& loaded, gpu::TimeSeries series,
                          const gpu::LoadReport& report, const std::atomic<bool>* cancel,
                          bool& cancelled)
{
    cancelled = false;
    BatchResult row;
    row.id = id;
    const auto fail = [&](const std::string& why) {
        row.failed = true;
        row.peaks.clear();
        row.warnings.push_back(why);
        return row;
    };
    if (!loaded)
        return fail("unreadable: " + loaded.message());
    if (const std::string skipped = skippedRows(report); !skipped.empty())
        row.warnings.push_back(skipped);
    const scene::PeriodogramScene& c = settings.scene;
    // The window's preparation: weights, masks, trend and any prewhitened sinusoids.
    scene::PreparedSeries prepared;
    const gpu::Status ready = scene::prepareSeries(c, series, prepared);
    row.points = (long long)prepared.unmasked.t.size();
    if (prepared.masked > 0)
        row.warnings.push_back(std::to_string(prepared.masked) + " points masked");
    if (prepared.unmasked.t.empty())
        return fail("every point is masked");
    if (!ready)
        return fail("detrending: " + ready.message());
    series = std::move(prepared.series);
    scene::PeriodogramRequest request;
    if (const gpu::Status s = scene::makePeriodogramRequest(c, series, request); !s)
        return fail(s.message());
    if (!request.capNote.empty())
        row.warnings.push_back(request.capNote);
    gpu::PeriodogramOptions options = request.options;
    options.cancel = cancel;
    std::vector<double> power(std::size_t(options.grid.count));
    if (const gpu::Status s = gpu::computePeriodogram(context, series, options, power); !s) {
        cancelled = cancel && cancel->load();
        return fail(s.message());
    }
    if (!settings.periodogramFolder.empty())
        if (const gpu::Status s =
                gpu::writeTextFile(periodogramPath(settings, id),
                                   scene::periodogramCsv(options.grid, power, report.timeUnit));
            !s)
            row.warnings.push_back("periodogram not written: " + s.message());
    const std::vector<gpu::Peak> peaks =
        gpu::reportablePeaks(gpu::topPeaks(power, options.grid, gpu::kSpectrumMaxPeaks),
                             options.grid, gpu::timeBaseline(series), settings.peaks);
    const auto faps = scene::falseAlarmProbabilities(peaks, options.grid, series, options);
    for (std::size_t k = 0; k < peaks.size(); ++k) {
        BatchPeak p;
        p.frequency = peaks[k].frequency;
        p.period = 1.0 / peaks[k].frequency;
        p.power = peaks[k].power;
        if (k < faps.size() && faps[k] && std::isfinite(*faps[k]))
            p.fap = faps[k];
        row.peaks.push_back(p);
    }
    if (row.peaks.empty())
        row.warnings.push_back("no peak inside the grid with a period within the baseline");
    return row;
}

} // namespace warpscope::batch
