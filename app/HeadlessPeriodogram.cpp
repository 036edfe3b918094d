#include "HeadlessPeriodogram.h"

#include "warpscope/gpu/Detrend.h"
#include "warpscope/gpu/DevicePool.h"
#include "warpscope/gpu/Spectrum.h"
#include "warpscope/gpu/TraceExport.h"
#include "warpscope/scene/PeriodogramCost.h"
#include "warpscope/scene/PeriodogramSession.h"
#include "warpscope/scene/PeriodogramUnits.h"
#include "warpscope/scene/Prewhitening.h"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>
#include <unistd.h>

namespace warpscope::app {
namespace {

int failure(const std::string& message)
{
    std::fprintf(stderr, "warpscope: %s\n", message.c_str());
    return 1;
}

// While a long periodogram computes, a line on stderr every few seconds with the time it has
// taken and the estimate (the computation itself reports no progress): on a terminal one
// line rewritten each second, else a line each 10 seconds.
class ProgressLine
{
public:
    explicit ProgressLine(const scene::PeriodogramCost& cost)
        : m_terminal(isatty(STDERR_FILENO)), m_thread([this, cost] { run(cost); })
    {}
    ~ProgressLine()
    {
        {
            std::lock_guard lock(m_mutex);
            m_done = true;
        }
        m_wake.notify_all();
        m_thread.join();
    }

private:
    void run(const scene::PeriodogramCost& cost)
    {
        const auto start = std::chrono::steady_clock::now();
        const auto every = std::chrono::seconds(m_terminal ? 1 : 10);
        std::unique_lock lock(m_mutex);
        while (!m_wake.wait_for(lock, every, [this] { return m_done; })) {
            const double elapsed =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            std::fprintf(stderr, "%swarpscope: computing the periodogram: %s of about %s%s",
                         m_terminal ? "\r" : "", scene::durationText(elapsed).c_str(),
                         scene::durationText(cost.seconds).c_str(), m_terminal ? "   " : "\n");
            std::fflush(stderr);
            m_shown = true;
        }
        if (m_terminal && m_shown)
            std::fprintf(stderr, "\n");
    }

    const bool m_terminal;
    bool m_done = false;
    bool m_shown = false;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::thread m_thread; // last: it starts once the members above are made
};

} // namespace

int runHeadlessPeriodogram(const AppOptions& options, scene::PeriodogramScene* found)
{
    scene::PeriodogramScene c = options.periodogramScene;
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
    scene::PeriodogramSession session(c);
    if (const gpu::Status s = session.prepare(std::move(series)); !s)
        return failure(s.message());
    const scene::PreparedSeries& prepared = session.prepared();
    if (prepared.masked > 0)
        std::printf("Masked %zu points in %zu ranges; %zu remain\n", prepared.masked,
                    c.masks.size(), prepared.unmasked.t.size());
    if (c.detrend.method != gpu::DetrendMethod::None)
        std::printf("Periodogram of the residuals after %s\n",
                    qPrintable(scene::detrendText(c.detrend, unit)));

    if (const gpu::Status s = session.makeRequest(); !s)
        return failure(s.message());
    const scene::PeriodogramRequest& request = session.request();
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
    const auto compute = [&] {
        // A long one is announced with its estimate before it starts, and its time shown.
        const std::size_t points = session.prepared().series.t.size();
        const scene::PeriodogramCost cost =
            scene::periodogramCost(points, o.grid.count, o.nterms, context->isCuda(), o.precision,
                                   std::thread::hardware_concurrency());
        std::optional<ProgressLine> progress;
        if (scene::isLong(cost)) {
            std::fprintf(stderr, "warpscope: this periodogram is long: %s on %s\n",
                         scene::costText(cost).c_str(), context->name().c_str());
            progress.emplace(cost);
        }
        double kernelMs = 0.0;
        const gpu::Status s = session.computePower(*context, &kernelMs);
        progress.reset();
        if (s)
            std::printf("Computed %lld frequencies from %zu points on %s in %.1f ms\n",
                        o.grid.count, points, context->name().c_str(), kernelMs);
        return s;
    };
    if (const gpu::Status s = compute(); !s)
        return failure(s.message());
    if (options.prewhiten > 0) {
        // Each round fits the highest reportable peak of what is left and takes it out; then
        // every sinusoid found is fitted together, and the periodogram is of what remains.
        for (int round = 0; round < options.prewhiten; ++round) {
            const std::vector<gpu::Peak> top = session.peaks(1).peaks;
            if (top.empty())
                return failure("Prewhitening stopped after " + std::to_string(round) +
                               " sinusoids: the periodogram of the residuals has no peak to fit");
            if (const gpu::Status s = session.prewhiten(top.front().frequency); !s)
                return failure(s.message());
            const gpu::FittedSinusoid& f = session.scene().prewhitened.back();
            std::printf("Prewhitened %d: frequency %.10g +- %.2g, amplitude %.6g +- %.2g\n",
                        round + 1, f.frequency, f.frequencyError, f.amplitude, f.amplitudeError);
            if (const gpu::Status s = compute(); !s)
                return failure(s.message());
        }
        if (const gpu::Status s = session.refit(); !s)
            return failure("Fitting the " + std::to_string(session.scene().prewhitened.size()) +
                           " sinusoids together failed: " + s.message());
        if (const gpu::Status s = compute(); !s)
            return failure(s.message());
        std::printf("Fitted together:\n%s", scene::prewhitenedCsv(session.scene(), unit).c_str());
    }
    c = session.scene();
    if (found) {
        *found = c;
        return 0;
    }

    if (!options.exportPeriodogram.isEmpty()) {
        if (const gpu::Status s = gpu::writeTextFile(
                options.exportPeriodogram.toStdString(),
                scene::periodogramCsv(o.grid, session.power(), unit, session.columns()));
            !s)
            return failure(s.message());
        std::printf("Saved %s\n", qPrintable(options.exportPeriodogram));
    }
    if (!options.exportPeaks.isEmpty()) {
        const scene::ReportedPeaks peaks = session.peaks(c.peaks);
        if (const gpu::Status s =
                gpu::writeTextFile(options.exportPeaks.toStdString(),
                                   scene::peaksJson(peaks, o.normalization, unit, o.nterms,
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
