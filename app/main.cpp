#include "CommandLine.h"
#include "warpscope/gpu/TraceExport.h"
#include "warpscope/ui/FieldView.h"
#include "warpscope/ui/LaunchPanel.h"
#include "warpscope/ui/MainWindow.h"
#include "warpscope/ui/PeriodogramWorkspace.h"
#include "warpscope/ui/StreamsLabPanel.h"
#include "warpscope/ui/SweepDialog.h"
#include "warpscope/ui/TimelinePanel.h"

#include <QApplication>
#include <QDeadlineTimer>
#include <QSettings>
#include <QStatusBar>
#include <QSurfaceFormat>
#include <QTimer>
#include <cstdio>

using namespace warpscope;

namespace {

// Waits until the requested field is drawn with its colour scale (and the streams lab, when
// asked for, has run), then saves the window and/or the timeline, and quits.
void scheduleBatch(ui::MainWindow& window, const QString& path, const QString& tracePath,
                   const bool* labDone)
{
    auto* timer = new QTimer(&window);
    const QDeadlineTimer deadline(120000);
    QObject::connect(window.fieldView(), &ui::FieldView::computeFailed, &window,
                     [](const QString& message) {
                         std::fprintf(stderr, "warpscope: %s\n", qPrintable(message));
                         QApplication::exit(1);
                     });
    QObject::connect(
        timer, &QTimer::timeout, &window, [&window, path, tracePath, labDone, timer, deadline] {
            ui::FieldView* view = window.fieldView();
            if (const QString launchErrors = window.launchPanel()->errorText();
                !launchErrors.isEmpty()) {
                std::fprintf(stderr, "warpscope: %s\n", qPrintable(launchErrors));
                QApplication::exit(1);
                return;
            }
            const ui::PeriodogramWorkspace* periodogram = window.periodogramWorkspace();
            const bool periodogramReady =
                !window.periodogramShown() ||
                (!periodogram->busy() &&
                 (periodogram->spectrum() || !periodogram->errorText().isEmpty()));
            if (window.periodogramShown() && !periodogram->busy() &&
                !periodogram->errorText().isEmpty()) {
                std::fprintf(stderr, "warpscope: %s\n", qPrintable(periodogram->errorText()));
                QApplication::exit(1);
                timer->stop();
                return;
            }
            // A hidden field view does not paint, so it settles only when shown.
            const bool fieldReady = window.periodogramShown() ||
                                    (view->frameSettled() && view->shownParams() == view->params());
            if (!*labDone || !periodogramReady || !fieldReady) {
                if (deadline.hasExpired()) {
                    std::fprintf(stderr, "warpscope: timed out waiting for the first frame\n");
                    QApplication::exit(1);
                }
                view->update();
                return;
            }
            timer->stop();
            // The timeline shows the newest spans, drawn now rather than on its next poll.
            view->collectTimeline();
            window.timelinePanel()->redrawNow();
            QApplication::processEvents();
            if (!path.isEmpty()) {
                if (!window.grab().save(path, "PNG")) {
                    std::fprintf(stderr, "warpscope: could not write %s\n", qPrintable(path));
                    QApplication::exit(1);
                    return;
                }
                std::printf("Saved %s (%s)\n", qPrintable(path),
                            qPrintable(view->backendDescription()));
            }
            if (!tracePath.isEmpty()) {
                view->collectTimeline();
                const gpu::TimelineSnapshot snapshot = window.timeline()->snapshot();
                if (const gpu::Status s =
                        gpu::writeTextFile(tracePath.toStdString(), gpu::chromeTraceJson(snapshot));
                    !s) {
                    std::fprintf(stderr, "warpscope: %s\n", s.message().c_str());
                    QApplication::exit(1);
                    return;
                }
                std::printf("Saved %s (%zu spans on %zu lanes)\n", qPrintable(tracePath),
                            snapshot.spans.size(), snapshot.lanes.size());
            }
            QApplication::exit(0);
        });
    timer->start(50);
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
    if (const auto count = gpu::cudaDeviceNames().size();
        options.device >= 0 && std::size_t(options.device) >= count) {
        std::fprintf(stderr, "warpscope: there is no CUDA device %d (this machine has %zu)\n",
                     options.device, count);
        return 1;
    }
    if (options.backend == gpu::BackendKind::Cuda) {
        const gpu::BackendSelection probe = gpu::createBackend(gpu::BackendKind::Cuda);
        if (!probe.backend) {
            std::fprintf(stderr, "warpscope: %s\n", probe.reason.c_str());
            return 1;
        }
    }

    // A compatibility context: drivers give their newest version (the field shader needs
    // 3.3), and Qt's painter draws the overlay in it on every driver.
    QSurfaceFormat format;
    format.setVersion(3, 3);
    format.setProfile(QSurfaceFormat::CompatibilityProfile);
    QSurfaceFormat::setDefaultFormat(format);
    QApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
    QApplication application(argc, argv);
    QApplication::setOrganizationName("Warpscope");
    QApplication::setApplicationName("Warpscope");
    QApplication::setApplicationVersion(WARPSCOPE_VERSION);

    const bool screenshot = !options.screenshot.isEmpty() || !options.exportTrace.isEmpty();
    ui::WindowOptions windowOptions;
    windowOptions.backend = options.backend;
    windowOptions.forceHostCopy = options.forceHostCopy;
    windowOptions.device = options.device;
    windowOptions.useSettings = !screenshot;
    ui::MainWindow window(windowOptions);
    window.resize(options.size);

    QString notice;
    if (options.resetSettings)
        QSettings().clear();
    else if (windowOptions.useSettings)
        notice = window.restoreSettings();
    if (options.sceneGiven || screenshot)
        window.setParams(options.params);
    if (!options.colormap.isEmpty())
        window.setColormap(options.colormap);
    if (options.teaching) {
        window.launchPanel()->chooseTeaching(options.launch, options.gridStride,
                                             ui::Overlay(options.overlay));
        window.showLaunchPanel();
    }
    if (screenshot)
        window.resize(options.size);
    if (!notice.isEmpty())
        window.statusBar()->showMessage(notice, 10000);

    if (options.device >= 0)
        window.showDevicePanel();
    if (options.cupti)
        window.timelinePanel()->setCupti(true);
    if (options.periodogram) {
        ui::PeriodogramWorkspace* workspace = window.periodogramWorkspace();
        if (options.method)
            workspace->setMethod(*options.method);
        if (options.frequencies)
            std::apply([workspace](auto... grid) { workspace->setManualGrid(grid...); },
                       *options.frequencies);
        window.showPeriodogram();
        if (!options.series.isEmpty())
            workspace->openFile(options.series);
    }
    window.show();
    bool labDone = !options.streamsLab;
    if (options.streamsLab) {
        ui::StreamsLabPanel* lab = window.streamsLabPanel();
        lab->setConfig(options.lab);
        window.showStreamsLab();
        QObject::connect(lab, &ui::StreamsLabPanel::finished, &window,
                         [&labDone, screenshot](bool ok, const QString& summary) {
                             labDone = true;
                             std::printf("Streams lab: %s\n", qPrintable(summary));
                             if (!ok && screenshot) {
                                 std::fprintf(stderr, "warpscope: the streams lab failed\n");
                                 QApplication::exit(1);
                             }
                         });
        QTimer::singleShot(0, lab, [lab] { lab->run(); });
    }
    if (options.sweep) {
        ui::SweepDialog* sweep = window.startSweep();
        if (screenshot)
            QObject::connect(sweep, &ui::SweepDialog::finished, &window,
                             [sweep, path = options.screenshot](bool completed) {
                                 std::printf("Sweep: %s\n", qPrintable(sweep->resultText()));
                                 if (!completed || !sweep->grab().save(path, "PNG")) {
                                     std::fprintf(stderr, "warpscope: %s\n",
                                                  completed ? "could not write the sweep"
                                                            : qPrintable(sweep->resultText()));
                                     QApplication::exit(1);
                                     return;
                                 }
                                 std::printf("Saved %s\n", qPrintable(path));
                                 QApplication::exit(0);
                             });
    } else if (screenshot) {
        scheduleBatch(window, options.screenshot, options.exportTrace, &labDone);
    }
    return application.exec();
}
