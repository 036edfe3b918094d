#include "CommandLine.h"
#include "HeadlessField.h"
#include "HeadlessPeriodogram.h"
#include "warpscope/gpu/TraceExport.h"
#include "warpscope/ui/FieldView.h"
#include "warpscope/ui/KernelWorkspace.h"
#include "warpscope/ui/LaunchPanel.h"
#include "warpscope/ui/MainWindow.h"
#include "warpscope/ui/PeriodogramWorkspace.h"
#include "warpscope/ui/StreamsLabPanel.h"
#include "warpscope/ui/SweepDialog.h"
#include "warpscope/ui/TimelinePanel.h"

#include <QApplication>
#include <QSettings>
#include <QStatusBar>
#include <QSurfaceFormat>
#include <QTimer>
#include <cstdio>
#include <functional>
#include <memory>

using namespace warpscope;

namespace {

// The command line's outcome. The first failure decides it, and nothing after it (a frame
// that settles, a picture that saves) turns it back into success.
class BatchOutcome
{
public:
    void fail(const QString& message)
    {
        std::fprintf(stderr, "warpscope: %s\n", qPrintable(message));
        m_failed = true;
        QApplication::exit(1);
    }
    void succeed()
    {
        if (!m_failed)
            QApplication::exit(0);
    }
    bool failed() const { return m_failed; }

private:
    bool m_failed = false;
};

// Once the requested field is drawn with its colour scale, the periodogram shown (and the
// streams lab, when asked for, has run), saves the window and/or the timeline and quits.
// Checked again on each completion the views signal, never on a timer; failures are also
// read from the views, because some happen while the window is first shown, before the event
// loop runs. Returns the check, for completions signalled elsewhere (the lab).
std::function<void()> scheduleBatch(ui::MainWindow& window, const QString& path,
                                    const QString& tracePath, const app::AppOptions& options,
                                    const bool* labDone, BatchOutcome* outcome)
{
    const QString periodogramCsv = options.exportPeriodogram, peaksJson = options.exportPeaks,
                  frequenciesCsv = options.exportFrequencies;
    auto done = std::make_shared<bool>(false);
    const auto check = [=, &window] {
        if (*done)
            return;
        ui::FieldView* view = window.fieldView();
        const ui::PeriodogramWorkspace* periodogram = window.periodogramWorkspace();
        const QString failure = window.failureText();
        if (outcome->failed()) { // before the event loop ran, so it could not exit then
            *done = true;
            QApplication::exit(1);
            return;
        }
        if (!failure.isEmpty()) {
            *done = true;
            outcome->fail(failure);
            return;
        }
        if (!*labDone || !window.readyForPicture())
            return;
        *done = true;
        // The timeline shows the newest spans, drawn now rather than on its next poll.
        view->collectTimeline();
        window.timelinePanel()->redrawNow();
        QApplication::processEvents();
        if (!path.isEmpty()) {
            if (!window.picture().save(path, "PNG")) {
                outcome->fail("could not write " + path);
                return;
            }
            std::printf("Saved %s (%s; %s)\n", qPrintable(path),
                        qPrintable(view->backendDescription()),
                        window.devicePool()->summary().c_str());
        }
        if (const QString failed = window.failureAfterPicture(); !failed.isEmpty()) {
            outcome->fail(failed);
            return;
        }
        // The periodogram's exports, from the workspace shown.
        for (const auto& [file, write] :
             {std::pair{periodogramCsv, &ui::PeriodogramWorkspace::exportCsv},
              std::pair{peaksJson, &ui::PeriodogramWorkspace::exportPeaks},
              std::pair{frequenciesCsv, &ui::PeriodogramWorkspace::exportSinusoids}}) {
            if (file.isEmpty())
                continue;
            if (const QString error = (periodogram->*write)(file); !error.isEmpty()) {
                outcome->fail(error);
                return;
            }
            std::printf("Saved %s\n", qPrintable(file));
        }
        if (!tracePath.isEmpty()) {
            view->collectTimeline();
            const gpu::TimelineSnapshot snapshot = window.timeline()->snapshot();
            if (const gpu::Status s =
                    gpu::writeTextFile(tracePath.toStdString(), gpu::chromeTraceJson(snapshot));
                !s) {
                outcome->fail(QString::fromStdString(s.message()));
                return;
            }
            std::printf("Saved %s (%zu spans on %zu lanes)\n", qPrintable(tracePath),
                        snapshot.spans.size(), snapshot.lanes.size());
        }
        outcome->succeed();
    };
    ui::FieldView* view = window.fieldView();
    // Queued, so that a completion's other receivers (the status bar) have run first.
    const auto later = [check] { QTimer::singleShot(0, check); };
    QObject::connect(view, &ui::FieldView::resultReady, &window, later);
    QObject::connect(view, &ui::FieldView::fieldShown, &window, later);
    QObject::connect(view, &ui::FieldView::computeFailed, &window, later);
    QObject::connect(window.periodogramWorkspace(), &ui::PeriodogramWorkspace::settled, &window,
                     later);
    QObject::connect(window.launchPanel(), &ui::LaunchPanel::changed, &window, later);
    QObject::connect(window.kernelWorkspace()->view(), &ui::KernelView::ran, &window, later);
    QObject::connect(window.kernelWorkspace(), &ui::KernelWorkspace::settled, &window, later);
    QTimer::singleShot(0, &window, check); // what happened before the event loop
    QTimer::singleShot(120000, &window, [done, outcome] {
        if (!*done) {
            *done = true;
            outcome->fail("timed out waiting for the first frame");
        }
    });
    return later;
}

// A device that is not there, or CUDA that cannot start, fails before any window opens.
int checkDevice(const app::AppOptions& options)
{
    if (const auto count = gpu::cudaDeviceNames().size();
        options.device >= 0 && std::size_t(options.device) >= count) {
        std::fprintf(stderr, "warpscope: there is no CUDA device %d (this machine has %zu)\n",
                     options.device, count);
        return 1;
    }
    if (options.backend != gpu::BackendKind::Cuda)
        return 0;
    gpu::DevicePool devices(options.backend, options.device, nullptr);
    gpu::Device device;
    std::unique_ptr<gpu::Context> context;
    gpu::Status s = devices.computeDevice(device);
    if (s)
        s = gpu::Context::open(device, context);
    if (!s) {
        std::fprintf(stderr, "warpscope: %s\n", s.message().c_str());
        return 1;
    }
    return 0;
}

// The scene, the field and its lesson as the options give them, over the saved settings
// (which an unattended run does not use).
void applyFieldOptions(ui::MainWindow& window, const app::AppOptions& options, bool unattended,
                       const ui::WindowOptions& windowOptions)
{
    QString notice;
    if (options.resetSettings)
        QSettings().clear();
    else if (windowOptions.useSettings)
        notice = window.restoreSettings();
    if (options.scene) {
        window.applyScene(*options.scene, options.scenePath);
        if (options.trustKernel)
            window.kernelWorkspace()->compileNow();
    }
    for (const QString& warning : options.sceneWarnings)
        std::fprintf(stderr, "warpscope: warning: %s\n", qPrintable(warning));
    if (options.sceneGiven || unattended)
        window.setParams(options.params);
    if (!options.colormap.isEmpty())
        window.setColormap(options.colormap);
    if (options.teaching) {
        window.launchPanel()->chooseTeaching(options.launch, options.gridStride,
                                             render::Overlay(options.overlay));
        window.showLaunchPanel();
    }
    if (unattended && options.size.isValid())
        window.resize(options.size);
    if (!notice.isEmpty())
        window.statusBar()->showMessage(notice, 10000);
    if (options.device >= 0)
        window.showDevicePanel();
    if (options.cupti)
        window.timelinePanel()->setCupti(true);
}

// The periodogram workspace with the options' controls (and the sinusoids prewhitening
// found), shown, on the --series file when one is given.
void openPeriodogram(ui::MainWindow& window, const app::AppOptions& options,
                     const std::optional<scene::PeriodogramScene>& prewhitened)
{
    ui::PeriodogramWorkspace* workspace = window.periodogramWorkspace();
    if (auto controls = workspace->currentScene();
        controls && (!options.periodogramGiven.empty() || prewhitened)) {
        scene::Scene given;
        given.periodogram = *controls;
        // Checked when the command line was read, over another scene: nothing is refused here.
        options.periodogramGiven.applyTo(given);
        if (prewhitened) {
            given.periodogram.prewhitened = prewhitened->prewhitened;
            given.periodogram.prewhitenEpoch = prewhitened->prewhitenEpoch;
        }
        workspace->applyScene(given.periodogram, QObject::tr("Command-line options"));
    }
    window.showPeriodogram();
    if (!options.series.isEmpty())
        workspace->openFile(options.series, options.timeFormat);
}

// The streams lab, run once the event loop starts; its summary is printed, and an unattended
// run fails with it or goes on to check what else it waits for.
void startLab(ui::MainWindow& window, const gpu::StreamsLabConfig& config, bool unattended,
              bool& labDone, BatchOutcome& outcome, const std::function<void()>& checkBatch)
{
    ui::StreamsLabPanel* lab = window.streamsLabPanel();
    lab->setConfig(config);
    window.showStreamsLab();
    QObject::connect(
        lab, &ui::StreamsLabPanel::finished, &window,
        [&labDone, &outcome, &checkBatch, unattended](bool ok, const QString& summary) {
            labDone = true;
            std::printf("Streams lab: %s\n", qPrintable(summary));
            if (!ok && unattended)
                outcome.fail("the streams lab failed: " + summary);
            else if (checkBatch)
                checkBatch();
        });
    QTimer::singleShot(0, lab, [lab] { lab->run(); });
}

// The block-size sweep; unattended, its window is saved to path when it ends.
void startSweep(ui::MainWindow& window, const QString& path, bool unattended)
{
    ui::SweepDialog* sweep = window.startSweep();
    if (!unattended)
        return;
    QObject::connect(sweep, &ui::SweepDialog::finished, &window, [sweep, path](bool completed) {
        std::printf("Sweep: %s\n", qPrintable(sweep->resultText()));
        if (!completed || !sweep->grab().save(path, "PNG")) {
            std::fprintf(stderr, "warpscope: %s\n",
                         completed ? "could not write the sweep" : qPrintable(sweep->resultText()));
            QApplication::exit(1);
            return;
        }
        std::printf("Saved %s\n", qPrintable(path));
        QApplication::exit(0);
    });
}

} // namespace

int main(int argc, char** argv)
{
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);
    // Parsed before QApplication exists, so --help and bad options need no display.
    const app::ParseResult parsed = app::parseCommandLine(arguments);
    if (!parsed.options) {
        std::fputs(qPrintable(parsed.output), parsed.exitCode == 0 ? stdout : stderr);
        return parsed.exitCode;
    }
    const app::AppOptions& options = *parsed.options;
    if (const int status = checkDevice(options); status != 0)
        return status;
    // Before any work: settings and caches are found by these names, with a window or without.
    QApplication::setOrganizationName("Warpscope");
    QApplication::setApplicationName("Warpscope");
    QApplication::setApplicationVersion(WARPSCOPE_VERSION);
    // Exports alone need no window, nor a display.
    if (!options.exportField.isEmpty())
        return app::runHeadlessField(options);
    if (options.headless())
        return app::runHeadlessPeriodogram(options);
    // Prewhitening before a window: the rounds run as without one, and the window opens on
    // the sinusoids found, as a scene that holds them.
    std::optional<scene::PeriodogramScene> prewhitened;
    if (options.prewhiten > 0) {
        prewhitened.emplace();
        if (const int status = app::runHeadlessPeriodogram(options, &*prewhitened); status != 0)
            return status;
    }

    // A compatibility context: drivers give their newest version (the field shader needs
    // 3.3), and Qt's painter draws the overlay in it on every driver.
    QSurfaceFormat format;
    format.setVersion(3, 3);
    format.setProfile(QSurfaceFormat::CompatibilityProfile);
    QSurfaceFormat::setDefaultFormat(format);
    QApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
    QApplication application(argc, argv);

    const bool unattended = !options.screenshot.isEmpty() || !options.exportTrace.isEmpty() ||
                            options.exportsPeriodogram();
    ui::WindowOptions windowOptions;
    windowOptions.backend = options.backend;
    windowOptions.forceHostCopy = options.forceHostCopy;
    windowOptions.device = options.device;
    windowOptions.useSettings = !unattended;
    ui::MainWindow window(windowOptions);
    if (options.size.isValid())
        window.resize(options.size);
    applyFieldOptions(window, options, unattended, windowOptions);
    if (options.periodogram)
        openPeriodogram(window, options, prewhitened);
    if (options.kernel)
        window.showKernel();
    if (options.kernelFile) // read, and refused where it could not be, with the options
        window.kernelWorkspace()->setSource(QString::fromStdString(options.kernelFile->code),
                                            options.kernelFile->shape);
    window.show();
    // A person who opened the app with nothing asked for is offered the ways in.
    if (!unattended && !options.scene && !options.periodogram && !options.kernel &&
        !options.kernelFile && !options.streamsLab && !options.sweep)
        window.offerGettingStarted();
    BatchOutcome outcome;
    bool labDone = !options.streamsLab;
    std::function<void()> checkBatch;
    if (options.streamsLab)
        startLab(window, options.lab, unattended, labDone, outcome, checkBatch);
    if (options.sweep)
        startSweep(window, options.screenshot, unattended);
    else if (unattended)
        checkBatch = scheduleBatch(window, options.screenshot, options.exportTrace, options,
                                   &labDone, &outcome);
    return application.exec();
}
