#include "HeadlessPeriodogram.h"

#include "warpscope/gpu/Detrend.h"
#include "warpscope/gpu/DevicePool.h"
#include "warpscope/gpu/Spectrum.h"
#include "warpscope/gpu/TraceExport.h"
#include "warpscope/scene/PeriodogramRequest.h"
#include "warpscope/scene/PeriodogramUnits.h"
#include "warpscope/scene/Prewhitening.h"

#include <cstdio>

namespace warpscope::app {
namespace {

int failure(const std::string& message)
{
    std::fprintf(stderr, "warpscope: %s\n", message.c_str());
    return 1;
}

// The scene's controls with the command line's options over them, as the workspace would
// hold them.
scene::PeriodogramScene controls(const AppOptions& options)
{
    scene::PeriodogramScene c =
        options.scene ? options.scene->periodogram : scene::PeriodogramScene{};
    if (options.normalization)
        c.normalization = *options.normalization;
    if (options.fixedMean)
        c.fitMean = false;
    if (options.noDy)
        c.useErrors = false;
    if (options.method)
        c.method = *options.method;
    if (options.detrend)
        c.detrend = *options.detrend;
    if (options.masks)
        c.masks = *options.masks;
    if (options.nterms)
        c.nterms = *options.nterms;
    if (options.frequencies) {
        bool logarithmic = false;
        std::tie(c.fmin, c.fmax, c.count, logarithmic) = *options.frequencies;
        c.gridMode = logarithmic ? scene::GridMode::Logarithmic : scene::GridMode::Linear;
        c.unit = scene::FrequencyUnit::Ordinary; // --frequencies is in cycles
    }
    return c;
}

} // namespace

int runHeadlessPeriodogram(const AppOptions& options, scene::PeriodogramScene* found)
{
    scene::PeriodogramScene c = controls(options);
    if (const gpu::Status s = scene::validate(c); !s)
        return failure(s.message());
    gpu::TimeSeries series;
    gpu::TimeUnit unit = gpu::TimeUnit::Unknown;
    if (!options.series.isEmpty()) {
        gpu::ColumnChoice columns;
        columns.timeFormat = options.timeFormat;
        gpu::LoadReport report;
        const std::string path = options.series.toStdString();
        if (const gpu::Status s = gpu::loadTimeSeries(path, columns, series, report); !s)
            // The reader names the file where it opens it, not where it reads its text.
            return failure(s.message().find(path) == std::string::npos ? path + ": " + s.message()
                                                                       : s.message());
        unit = report.timeUnit;
        std::printf("Loaded %s: %s\n", qPrintable(options.series), report.summary().c_str());
    } else {
        // The workspace's synthetic series.
        gpu::SyntheticOptions synthetic;
        synthetic.points = c.points;
        synthetic.baseline = c.baseline;
        synthetic.noise = c.noise;
        synthetic.sinusoids[0].period = c.period;
        synthetic.sinusoids[0].amplitude = c.amplitude;
        synthetic.seed = std::uint64_t(c.seed);
        series = gpu::syntheticSeries(synthetic);
    }
    const gpu::TimeSeries loaded = std::move(series);
    scene::PreparedSeries prepared;
    if (const gpu::Status s = scene::prepareSeries(c, loaded, prepared); !s)
        return failure(s.message());
    if (prepared.masked > 0)
        std::printf("Masked %zu points in %zu ranges; %zu remain\n", prepared.masked,
                    c.masks.size(), prepared.unmasked.t.size());
    if (c.detrend.method != gpu::DetrendMethod::None)
        std::printf("Periodogram of the residuals after %s\n",
                    qPrintable(scene::detrendText(c.detrend, unit)));
    series = prepared.series;

    scene::PeriodogramRequest request;
    if (const gpu::Status s = scene::makePeriodogramRequest(c, series, request); !s)
        return failure(s.message());
    const gpu::PeriodogramOptions& o = request.options;
    if (!request.capNote.empty())
        std::fprintf(stderr, "warpscope: warning: %s\n", request.capNote.c_str());
    if (const QString note =
            scene::samplingNote(request.sampling, unit, o.grid.fmax(), request.stoppedAtNyquist);
        !note.isEmpty())
        std::fprintf(stderr, "warpscope: note: %s\n", qPrintable(note));

    gpu::DevicePool devices(options.backend, options.device, nullptr);
    std::unique_ptr<gpu::Context> context;
    if (const gpu::Status s = devices.open("periodogram", context); !s)
        return failure(s.message());
    if (const auto errors = gpu::validatePeriodogramLaunch(o.launch, context->info());
        !errors.empty())
        return failure(errors.front().message);
    std::vector<double> power(std::size_t(o.grid.count));
    const auto compute = [&](const gpu::TimeSeries& data) {
        double kernelMs = 0.0;
        const gpu::Status s = gpu::computePeriodogram(*context, data, o, power, &kernelMs);
        if (s)
            std::printf("Computed %lld frequencies from %zu points on %s in %.1f ms\n",
                        o.grid.count, data.t.size(), context->name().c_str(), kernelMs);
        return s;
    };
    if (const gpu::Status s = compute(series); !s)
        return failure(s.message());
    if (options.prewhiten > 0) {
        // Each round fits the highest reportable peak of what is left and takes it out; then
        // every sinusoid found is fitted together, and the periodogram is of what remains.
        for (int round = 0; round < options.prewhiten; ++round) {
            const std::vector<gpu::Peak> top =
                gpu::reportablePeaks(gpu::topPeaks(power, o.grid, gpu::kSpectrumMaxPeaks), o.grid,
                                     gpu::timeBaseline(series), 1);
            if (top.empty())
                return failure("Prewhitening stopped after " + std::to_string(round) +
                               " sinusoids: the periodogram of the residuals has no peak to fit");
            if (const gpu::Status s = scene::addPrewhitened(c, prepared, top.front().frequency); !s)
                return failure(s.message());
            const gpu::FittedSinusoid& f = c.prewhitened.back();
            std::printf("Prewhitened %d: frequency %.10g +- %.2g, amplitude %.6g +- %.2g\n",
                        round + 1, f.frequency, f.frequencyError, f.amplitude, f.amplitudeError);
            if (const gpu::Status s = scene::prepareSeries(c, loaded, prepared); !s)
                return failure(s.message());
            series = prepared.series;
            if (const gpu::Status s = compute(series); !s)
                return failure(s.message());
        }
        if (const gpu::Status s = scene::refitPrewhitened(c, prepared); !s)
            return failure("Fitting the " + std::to_string(c.prewhitened.size()) +
                           " sinusoids together failed: " + s.message());
        if (const gpu::Status s = scene::prepareSeries(c, loaded, prepared); !s)
            return failure(s.message());
        series = prepared.series;
        if (const gpu::Status s = compute(series); !s)
            return failure(s.message());
        std::printf("Fitted together:\n%s", scene::prewhitenedCsv(c, unit).c_str());
    }
    if (found) {
        *found = c;
        return 0;
    }

    if (!options.exportPeriodogram.isEmpty()) {
        if (const gpu::Status s = gpu::writeTextFile(options.exportPeriodogram.toStdString(),
                                                     scene::periodogramCsv(o.grid, power, unit));
            !s)
            return failure(s.message());
        std::printf("Saved %s\n", qPrintable(options.exportPeriodogram));
    }
    if (!options.exportPeaks.isEmpty()) {
        const std::vector<gpu::Peak> peaks =
            gpu::reportablePeaks(gpu::topPeaks(power, o.grid, gpu::kSpectrumMaxPeaks), o.grid,
                                 gpu::timeBaseline(series), c.peaks);
        const auto fap = scene::falseAlarmProbabilities(peaks, o.grid, series, o);
        if (const gpu::Status s =
                gpu::writeTextFile(options.exportPeaks.toStdString(),
                                   scene::peaksJson(peaks, fap, o.normalization, unit, o.nterms,
                                                    c.prewhitened, c.prewhitenEpoch));
            !s)
            return failure(s.message());
        std::printf("Saved %s\n", qPrintable(options.exportPeaks));
    }
    if (!options.exportFrequencies.isEmpty()) {
        if (const gpu::Status s = gpu::writeTextFile(options.exportFrequencies.toStdString(),
                                                     scene::prewhitenedCsv(c, unit));
            !s)
            return failure(s.message());
        std::printf("Saved %s\n", qPrintable(options.exportFrequencies));
    }
    return 0;
}

} // namespace warpscope::app
