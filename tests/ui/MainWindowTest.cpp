#include "warpscope/ui/MainWindow.h"

#include "warpscope/scene/FieldScene.h"
#include "warpscope/ui/DevicePanel.h"
#include "warpscope/ui/FieldView.h"
#include "warpscope/ui/FoldView.h"
#include "warpscope/ui/LaunchPanel.h"
#include "warpscope/ui/NumberField.h"
#include "warpscope/ui/ParametersPanel.h"
#include "warpscope/ui/PeriodogramWorkspace.h"
#include "warpscope/ui/SpectrumView.h"
#include "warpscope/ui/StreamsLabPanel.h"
#include "warpscope/ui/SweepDialog.h"
#include "warpscope/ui/TimelinePanel.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFile>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>
#include <QUndoStack>
#include <cmath>
#include <numbers>
#include <qcustomplot.h>
#include <random>

using namespace warpscope;

// Drives the real main window as a person would: typing into fields, clicking the map,
// undoing. Runs under Xvfb (or any X server) with the CPU backend.
class MainWindowTest : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<ui::MainWindow> m_window;

    ui::ParametersPanel* panel() const { return m_window->parametersPanel(); }
    ui::FieldView* view() const { return m_window->fieldView(); }
    QDoubleSpinBox* spin(const char* name) const
    {
        return panel()->findChild<ui::NumberField*>(name)->spinBox();
    }

    // Waits until the view shows the requested field and its colours, then grabs it.
    QImage settledImage()
    {
        bool ok = QTest::qWaitFor(
            [&] {
                view()->update();
                return view()->frameSettled() && view()->shownParams() == view()->params();
            },
            20000);
        if (!ok)
            qWarning("the field did not settle");
        return view()->grabFramebuffer();
    }

    static int differingPixels(const QImage& a, const QImage& b)
    {
        if (a.size() != b.size())
            return a.width() * a.height();
        int n = 0;
        for (int y = 0; y < a.height(); ++y)
            for (int x = 0; x < a.width(); ++x)
                n += a.pixel(x, y) != b.pixel(x, y);
        return n;
    }

    void typeInto(QDoubleSpinBox* box, const QString& text)
    {
        box->setFocus();
        box->selectAll();
        QTest::keyClicks(box, text);
        QTest::keyClick(box, Qt::Key_Return);
    }

private slots:
    void init()
    {
        ui::WindowOptions options;
        options.backend = gpu::BackendKind::Cpu;
        options.useSettings = false;
        m_window = std::make_unique<ui::MainWindow>(options);
        m_window->resize(1000, 700);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    void cleanup() { m_window.reset(); }

    void opensOnTheDefaultScene()
    {
        settledImage();
        const gpu::DistanceParams p = view()->shownParams();
        QCOMPARE(p, gpu::DistanceParams{});
        QCOMPARE(p.nx, 1000);
        QVERIFY(view()->backendDescription().startsWith("CPU"));
    }

    // A mesh beyond the OpenGL driver's buffer limit fails as the window is first shown,
    // before anything has been drawn; the map says why instead of "Computing…" for ever, and
    // after a good field, the old picture is marked as not updated.
    void aFailureBeforeTheFirstFrameIsNamedOnTheMap()
    {
        gpu::DistanceParams huge;
        huge.nx = huge.ny = 16384;
        ui::WindowOptions options;
        options.backend = gpu::BackendKind::Cpu;
        options.useSettings = false;
        m_window = std::make_unique<ui::MainWindow>(options);
        m_window->setParams(huge);
        m_window->resize(1000, 700);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        QTRY_VERIFY2(view()->failureText().contains("can display at most"),
                     qPrintable(view()->failureText()));

        // The banner is drawn by the overlay widget, so the grabs include the children.
        m_window->setParams(gpu::DistanceParams{});
        settledImage();
        QVERIFY(view()->failureText().isEmpty());
        const QImage good = view()->grab().toImage();
        m_window->setParams(huge);
        QTRY_VERIFY(!view()->failureText().isEmpty());
        QTRY_VERIFY2(differingPixels(good, view()->grab().toImage()) > 1000,
                     "the map does not show that the field was not updated");
    }

    // Moving the view to another window destroys its GL context and makes a new one; the
    // field went with the old context and must be computed again, not left blank.
    void theFieldIsDrawnAgainInANewContext()
    {
        QWidget other; // first, so that the view, its child by the end, goes before it
        ui::FieldView standalone;
        standalone.setDevices(std::make_shared<gpu::DevicePool>(gpu::BackendKind::Cpu, -1, nullptr),
                              true);
        standalone.resize(600, 400);
        standalone.show();
        QVERIFY(QTest::qWaitForWindowExposed(&standalone));
        const auto settled = [&] {
            return QTest::qWaitFor(
                [&] {
                    standalone.update();
                    return standalone.frameSettled() &&
                           standalone.shownParams() == standalone.params();
                },
                20000);
        };
        QVERIFY(settled());
        const QImage before = standalone.grabFramebuffer();
        other.resize(600, 400);
        standalone.setParent(&other);
        other.show();
        standalone.show();
        QVERIFY(QTest::qWaitForWindowExposed(&other));
        // Each grab paints, which starts the computation if the view knows it must.
        QVERIFY2(
            QTest::qWaitFor(
                [&] { return differingPixels(before, standalone.grabFramebuffer()) == 0; }, 20000),
            "the field was not computed again in the new context");
    }

    // Opening on the periodogram, before the field has ever been shown: the Device dock,
    // which takes the place of the field's panels, describes the periodogram's device.
    void devicePanelIsFilledWhenOpeningOnThePeriodogram()
    {
        ui::WindowOptions options;
        options.backend = gpu::BackendKind::Cpu;
        options.useSettings = false;
        m_window = std::make_unique<ui::MainWindow>(options);
        m_window->showPeriodogram();
        m_window->resize(1000, 700);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        QVERIFY(waitForPeriodogram());
        // The periodogram's plots have the window until the Device dock is asked for.
        QVERIFY(!m_window->devicePanel()->isVisible());
        m_window->showDevicePanel();
        QVERIFY(m_window->devicePanel()->isVisible());
        QVERIFY2(!m_window->devicePanel()->value("Device").isEmpty(), "the Device dock is empty");
        // Every row is shown (the line saying who computes where waits for its first report).
        for (const QLabel* label : m_window->devicePanel()->findChildren<QLabel*>())
            QVERIFY2(label->isVisible() || label->text().isEmpty(), qPrintable(label->text()));
        // The field's status (its backend has not started) waits for the field.
        auto* backend = m_window->findChild<QLabel*>("backendLabel");
        QVERIFY(!backend->isVisible());
        m_window->showPeriodogram(false);
        QVERIFY(backend->isVisible());
        QTRY_VERIFY(backend->text() != "Starting…");
    }

    void devicePanelShowsTheSimulatedDeviceOnTheCpu()
    {
        // A choice of GPU appears only where there are several.
        QCOMPARE(m_window->devicePanel()->chooser()->isVisibleTo(m_window->devicePanel()),
                 gpu::cudaDeviceNames().size() > 1);
        // Choosing a device reopens the view's context, and the field comes back.
        const QImage before = settledImage();
        QSignalSpy reopened(view(), &ui::FieldView::backendReady);
        emit m_window->devicePanel()->deviceChosen(0);
        QCOMPARE(differingPixels(before, settledImage()), 0);
        QTRY_COMPARE(reopened.count(), 1); // said once the frame that reopened it is drawn
        settledImage();
        const ui::DevicePanel* device = m_window->devicePanel();
        QVERIFY(device->value("Kind").contains("simulated"));
        QCOMPARE(device->value("SMs"), QString("132"));
        QCOMPARE(device->value("Threads per block"), QString("1024"));
        QCOMPARE(device->value("Grid dimensions"), QString("2147483647 x 65535 x 65535"));
    }

    void typingABoundChangesThePicture()
    {
        const QImage before = settledImage();
        typeInto(spin("latMin"), "29.9");
        const QImage after = settledImage();
        QCOMPARE(view()->shownParams().latMin, 29.9);
        QVERIFY2(differingPixels(before, after) > before.width() * before.height() / 10,
                 "the picture should change when a bound changes");
    }

    void outOfRangeLatitudeIsExplainedAndThePictureKept()
    {
        const QImage before = settledImage();
        typeInto(spin("latMin"), "95");
        QTest::qWait(50);
        const QImage after = settledImage();
        QVERIFY(spin("latMin")->property("invalid").toBool());
        QVERIFY(panel()->errorText().contains("[-90, 90]"));
        QCOMPARE(view()->shownParams().latMin, 29.0);
        QCOMPARE(differingPixels(before, after), 0);
        QVERIFY(m_window->isVisible());
        // Correcting it clears the message.
        typeInto(spin("latMin"), "29.5");
        settledImage();
        QVERIFY(!spin("latMin")->property("invalid").toBool());
        QVERIFY(panel()->errorText().isEmpty());
        QCOMPARE(view()->shownParams().latMin, 29.5);
    }

    void sliderDragUpdatesLive()
    {
        const QImage before = settledImage();
        auto* slider = panel()->findChild<ui::NumberField*>("lonMin")->slider();
        slider->setValue(slider->value() + 3); // as a drag does, one step at a time
        const QImage after = settledImage();
        QVERIFY(view()->shownParams().lonMin > 99.0);
        QVERIFY(differingPixels(before, after) > 0);
    }

    void minimumAboveMaximumIsFlaggedOnTheMaximum()
    {
        settledImage();
        typeInto(spin("lonMin"), "102");
        QVERIFY(spin("lonMax")->property("invalid").toBool());
        QVERIFY(panel()->errorText().contains("greater than the minimum"));
        QCOMPARE(view()->shownParams().lonMin, 99.0);
    }

    void meshTooLargeForTheDriverKeepsTheLastPicture()
    {
        const QImage before = settledImage();
        QSignalSpy failed(view(), &ui::FieldView::computeFailed);
        typeInto(spin("nx"), "16384");
        typeInto(spin("ny"), "16384");
        QVERIFY(QTest::qWaitFor([&] { return failed.count() > 0; }, 20000));
        QVERIFY(failed.last().at(0).toString().contains("at most"));
        QVERIFY(panel()->findChild<QLabel*>("computeError")->isVisible());
        QCOMPARE(view()->shownParams().nx, 1000);
        QTest::qWait(50);
        QCOMPARE(differingPixels(before, view()->grabFramebuffer()), 0);
        QVERIFY(m_window->isVisible());
    }

    void undoAndRedoRestoreParameters()
    {
        settledImage();
        typeInto(spin("lonMax"), "100.5");
        settledImage();
        QCOMPARE(view()->shownParams().lonMax, 100.5);
        QVERIFY(m_window->undoStack()->canUndo());
        m_window->undoStack()->undo();
        settledImage();
        QCOMPARE(view()->shownParams().lonMax, 101.0);
        QCOMPARE(spin("lonMax")->value(), 101.0);
        m_window->undoStack()->redo();
        settledImage();
        QCOMPARE(view()->shownParams().lonMax, 100.5);
    }

    void ctrlClickAddsAReferenceAndClickMovesIt()
    {
        const QImage before = settledImage();
        const QPoint centre = view()->rect().center();
        QTest::mouseClick(view(), Qt::LeftButton, Qt::ControlModifier, centre);
        settledImage();
        QCOMPARE(int(view()->shownParams().references.size()), 2);
        QCOMPARE(panel()->findChild<QTableWidget*>("references")->rowCount(), 2);
        QTest::mouseClick(view(), Qt::LeftButton, Qt::NoModifier, centre + QPoint(-150, 100));
        const QImage after = settledImage();
        const gpu::GeoPoint moved = view()->shownParams().references[1];
        QVERIFY(moved.lon < 100.0 && moved.lat < 30.0);
        QVERIFY(differingPixels(before, after) > 1000);
    }

    void teachingKernelOverlaysChangeThePicture()
    {
        const QImage fast = settledImage();
        ui::LaunchPanel* launch = m_window->launchPanel();
        auto* kernel = launch->findChild<QComboBox*>("kernel");
        kernel->setCurrentIndex(1); // teaching, grid fitted to the mesh: same field
        QTRY_VERIFY(view()->lessonActive());
        const QImage teaching = settledImage();
        QVERIFY(differingPixels(fast, teaching) < fast.width() * fast.height() / 50);
        auto* overlay = launch->findChild<QComboBox*>("overlay");
        overlay->setCurrentIndex(int(render::Overlay::Block));
        view()->update();
        QTest::qWait(50);
        const QImage blocks = settledImage();
        QVERIFY2(differingPixels(teaching, blocks) > teaching.width() * teaching.height() / 4,
                 "colouring by block must change the picture");
        overlay->setCurrentIndex(int(render::Overlay::Sm));
        view()->update();
        QTest::qWait(50);
        QVERIFY(differingPixels(blocks, settledImage()) > 1000);
    }

    void impossibleLaunchIsExplainedAtTheField()
    {
        ui::LaunchPanel* launch = m_window->launchPanel();
        launch->findChild<QComboBox*>("kernel")->setCurrentIndex(1);
        QTRY_VERIFY(view()->lessonActive());
        const QImage before = settledImage();
        const gpu::LaunchConfig shown = view()->lesson()->launch;
        QLineEdit* bx = launch->field("blockx");
        QLineEdit* by = launch->field("blocky");
        bx->setText("64");
        by->setText("32"); // 2048 threads per block
        emit by->editingFinished();
        QVERIFY(launch->errorText().contains("2048 threads per block"));
        QVERIFY(launch->errorText().contains("1024"));
        QVERIFY(!bx->styleSheet().isEmpty());
        settledImage();
        QVERIFY(view()->lesson()->launch == shown); // the last valid launch stays
        launch->field("gridx")->setText("1125899906842624");
        emit launch->field("gridx")->editingFinished();
        QVERIFY(launch->errorText().contains("exceeds the limit of 2147483647"));
        // A grid too small to cover the mesh is allowed: the rest shows as uncovered.
        bx->setText("16");
        by->setText("16");
        launch->field("gridx")->setText("2");
        launch->field("gridy")->setText("2");
        emit by->editingFinished();
        QVERIFY(launch->errorText().isEmpty());
        const QImage partial = settledImage();
        QCOMPARE(view()->lesson()->launch.grid.x, 2);
        QVERIFY(differingPixels(before, partial) > before.width() * before.height() / 4);
    }

    // Whether a dock is shown, as its View menu entry says (a dock behind another's tab is
    // shown, not raised).
    bool docked(const ui::MainWindow& window, const char* name) const
    {
        return window.findChild<QDockWidget*>(name)->toggleViewAction()->isChecked();
    }

    // The periodogram opens with its plots alone: the field's docks step aside, and come back
    // as they were on the field. A dock shown or closed on a tab comes back so on that tab,
    // also after the window is closed and opened again.
    void docksAreRememberedPerTab()
    {
        QSettings().clear();
        ui::WindowOptions options;
        options.backend = gpu::BackendKind::Cpu;
        const std::vector<const char*> all{"parametersDock", "deviceDock", "launchDock",
                                           "streamsLabDock", "timelineDock"};
        {
            ui::MainWindow first(options);
            first.show();
            QVERIFY(QTest::qWaitForWindowExposed(&first));
            for (const char* name : all)
                QVERIFY2(docked(first, name), name);
            QVERIFY(first.findChild<QDockWidget*>("timelineDock")->isVisible());
            first.showPeriodogram();
            for (const char* name : all) {
                QVERIFY2(!docked(first, name), name);
                QVERIFY2(!first.findChild<QDockWidget*>(name)->isVisible(), name);
            }
            // The plots have the window: the fold is wide and the peaks show six rows.
            first.resize(1400, 900);
            QTRY_VERIFY(first.periodogramWorkspace()->foldPlot()->width() >= 400);
            auto* table = first.periodogramWorkspace()->findChild<QTableWidget*>("peaks");
            QVERIFY2(table->viewport()->height() >=
                         6 * table->verticalHeader()->defaultSectionSize(),
                     qPrintable(QString::number(table->viewport()->height())));
            // Back on the field, every dock as it was, the Parameters tab in front.
            first.showPeriodogram(false);
            for (const char* name : all)
                QVERIFY2(docked(first, name), name);
            QVERIFY(first.parametersPanel()->isVisible());
            // The timeline shown on the periodogram, and closed on the field.
            first.showPeriodogram();
            first.findChild<QDockWidget*>("timelineDock")->toggleViewAction()->trigger();
            QVERIFY(docked(first, "timelineDock"));
            first.showPeriodogram(false);
            first.findChild<QDockWidget*>("timelineDock")->toggleViewAction()->trigger();
            QVERIFY(!docked(first, "timelineDock"));
            first.showPeriodogram();
            QVERIFY(docked(first, "timelineDock"));
            QVERIFY(!docked(first, "deviceDock"));
            first.showPeriodogram(false);
            QVERIFY(!docked(first, "timelineDock"));
            QVERIFY(docked(first, "deviceDock"));
            first.showPeriodogram(); // closed on the periodogram
            first.close();
        }
        {
            ui::MainWindow second(options);
            second.restoreSettings();
            second.show();
            QVERIFY(QTest::qWaitForWindowExposed(&second));
            QVERIFY(!docked(second, "timelineDock"));
            QVERIFY(docked(second, "deviceDock"));
            QVERIFY(docked(second, "parametersDock"));
            second.showPeriodogram();
            QVERIFY(docked(second, "timelineDock"));
            QVERIFY(!docked(second, "deviceDock"));
            QVERIFY(!docked(second, "launchDock"));
        }
        QSettings().clear();
    }

    void settingsRememberTheSceneAndRejectABadOne()
    {
        QSettings().clear();
        ui::WindowOptions options;
        options.backend = gpu::BackendKind::Cpu;
        gpu::DistanceParams scene;
        scene.latMin = -10.0;
        scene.nx = 321;
        scene.references = {{1.5, 2.5}, {-3.0, 40.0}};
        scene.precision = gpu::Precision::Float64;
        scene.unit = gpu::DistanceUnit::NauticalMiles;
        {
            ui::MainWindow first(options);
            first.setParams(scene);
            first.setColormap("magma");
            first.close(); // saves
        }
        {
            ui::MainWindow second(options);
            QVERIFY(second.restoreSettings().isEmpty());
            QCOMPARE(second.parametersPanel()->params(), scene);
            QCOMPARE(second.fieldView()->params(), scene);
            QCOMPARE(second.fieldView()->colormapName(), QString("magma"));
        }
        // The lab's, the periodogram's and the timeline's settings come back too.
        {
            ui::MainWindow first(options);
            first.streamsLabPanel()->arraysField()->setValue(7);
            first.periodogramWorkspace()
                ->findChild<QComboBox*>("normalization")
                ->setCurrentIndex(3);
            first.timelinePanel()->setKeptFrames(33);
            first.timelinePanel()->findChild<QCheckBox*>("cupti")->setChecked(true);
            QCOMPARE(first.timeline()->gpuTiming(), gpu::GpuTiming::Cupti);
            first.close();
        }
        {
            ui::MainWindow second(options);
            second.restoreSettings();
            QCOMPARE(second.streamsLabPanel()->arraysField()->value(), 7);
            QCOMPARE(second.periodogramWorkspace()
                         ->findChild<QComboBox*>("normalization")
                         ->currentIndex(),
                     3);
            QCOMPARE(second.timeline()->keptFrames(), 33);
            QVERIFY(second.timelinePanel()->cupti());
            QCOMPARE(second.timeline()->gpuTiming(), gpu::GpuTiming::Cupti);
        }
        QSettings().setValue("scene/latMin", 120.0); // edited by hand, out of range
        ui::MainWindow third(options);
        QVERIFY(third.restoreSettings().contains("not valid"));
        QCOMPARE(third.fieldView()->params(), gpu::DistanceParams{});
        QSettings().clear();
    }

    // Hovering a bar of the timeline names the work, its lane and its duration.
    void timelineShowsTheFieldWorkAndExplainsABarOnHover()
    {
        settledImage();
        ui::TimelinePanel* timeline = m_window->timelinePanel();
        QVERIFY(QTest::qWaitFor(
            [&] {
                timeline->refresh();
                for (const gpu::Span& s : timeline->shown().spans)
                    if (s.name == "distance field")
                        return true;
                return false;
            },
            5000));
        timeline->fitAll();
        const gpu::TimelineSnapshot& shown = timeline->shown();
        const gpu::Span* field = nullptr;
        for (const gpu::Span& s : shown.spans)
            if (s.name == "distance field")
                field = &s;
        QCustomPlot* plot = timeline->plot();
        plot->xAxis->setRange(field->startUs / 1000.0, field->endUs / 1000.0);
        plot->replot();
        const int x = int(plot->xAxis->coordToPixel((field->startUs + field->endUs) / 2000.0));
        // The field's span holds each thread's share of rows, nested; the tooltip names the
        // innermost span under the pointer.
        QString described, tooltip;
        for (double row = plot->yAxis->range().lower; row < plot->yAxis->range().upper;
             row += 0.25) {
            const QPoint pos(x, int(plot->yAxis->coordToPixel(row)));
            QTest::mouseMove(plot, pos);
            described = timeline->describeAt(pos);
            if (described.contains("host on CPU thread 0: field")) {
                QTRY_VERIFY(QToolTip::isVisible());
                tooltip = QToolTip::text();
                break;
            }
        }
        QCOMPARE(tooltip, described);
        QVERIFY2(tooltip.startsWith("rows ") || tooltip.startsWith("distance field"),
                 qPrintable(tooltip));
        QVERIFY2(tooltip.contains(" ms") || tooltip.contains(" µs"), qPrintable(tooltip));
        const QPoint empty(x, int(plot->yAxis->coordToPixel(plot->yAxis->range().lower + 0.02)));
        QCOMPARE(timeline->describeAt(empty), QString());
    }

    void freezingTheTimelineHoldsTheViewUntilThawed()
    {
        settledImage();
        ui::TimelinePanel* timeline = m_window->timelinePanel();
        timeline->refresh();
        auto* freeze = timeline->findChild<QPushButton*>("freeze");
        QTest::mouseClick(freeze, Qt::LeftButton);
        QVERIFY(timeline->frozen());
        const std::uint64_t frozenAt = timeline->shown().version;
        typeInto(spin("nx"), "700");
        settledImage();
        QTest::qWait(300); // several of the panel's refreshes
        QCOMPARE(timeline->shown().version, frozenAt);
        QTest::mouseClick(freeze, Qt::LeftButton);
        QVERIFY(!timeline->frozen());
        QVERIFY(timeline->shown().version != frozenAt);

        QTest::mouseClick(timeline->findChild<QPushButton*>("clear"), Qt::LeftButton);
        QVERIFY(timeline->shown().spans.empty());
    }

    // 10^5 spans in view are drawn as a few hundred merged bars at most.
    void timelineCullsAndMergesManySpans()
    {
        ui::TimelinePanel* timeline = m_window->timelinePanel();
        QTest::mouseClick(timeline->findChild<QPushButton*>("freeze"), Qt::LeftButton);
        auto store = m_window->timeline();
        store->setKeptFrames(100000);
        const int lane = store->lane("synthetic");
        for (int k = 0; k < 100000; ++k)
            store->add(
                gpu::Span{lane, gpu::SpanKind::Kernel, "k", 1e6 + k * 2.0, 1e6 + k * 2.0 + 1.0});
        QTest::mouseClick(timeline->findChild<QPushButton*>("freeze"), Qt::LeftButton);
        QCOMPARE(timeline->shown().spans.size() >= 100000u, true);
        timeline->fitAll();
        timeline->plot()->replot(QCustomPlot::rpImmediateRefresh);
        const int wide = timeline->barsDrawn();
        QVERIFY2(wide > 0 && wide <= timeline->plot()->width(), qPrintable(QString::number(wide)));
        // Zoomed in to 20 spans, each is drawn on its own.
        timeline->plot()->xAxis->setRange(1000.0005, 1000.0395);
        timeline->plot()->replot(QCustomPlot::rpImmediateRefresh);
        QCOMPARE(timeline->barsDrawn(), 20);
    }

    // Long after start the times need more than six digits; the default labels then read
    // "2e+06" on every tick of a window a few milliseconds wide.
    void timelineLabelsLateTimesDistinctly()
    {
        ui::TimelinePanel* timeline = m_window->timelinePanel();
        auto store = m_window->timeline();
        const int lane = store->lane("synthetic");
        for (int k = 0; k < 40; ++k) // 2000 s after start, as in a long session
            store->add(gpu::Span{lane, gpu::SpanKind::Kernel, "k", 2e9 + k * 500.0,
                                 2e9 + k * 500.0 + 200.0});
        timeline->refresh();
        QCustomPlot* plot = timeline->plot();
        plot->replot(QCustomPlot::rpImmediateRefresh);
        const QVector<double> ticks = plot->xAxis->tickVector();
        const QVector<QString> labels = plot->xAxis->tickVectorLabels();
        QVERIFY(ticks.size() >= 3);
        QCOMPARE(labels.size(), ticks.size());
        const double step = ticks[1] - ticks[0];
        for (int i = 0; i < ticks.size(); ++i) {
            bool ok = false;
            const double value = plot->locale().toDouble(labels[i], &ok);
            QVERIFY2(ok && std::abs(value - ticks[i]) < step / 2,
                     qPrintable(labels[i] + " at " + QString::number(ticks[i], 'f', 3)));
        }
    }

    void timelineExportsAndExplainsAnUnwritablePath()
    {
        settledImage();
        ui::TimelinePanel* timeline = m_window->timelinePanel();
        QVERIFY(QTest::qWaitFor(
            [&] {
                timeline->refresh();
                return !timeline->shown().spans.empty();
            },
            5000));
        QTemporaryDir dir;
        const QString path = dir.filePath("trace.json");
        QCOMPARE(timeline->exportTrace(path), QString());
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonDocument doc = QJsonDocument::fromJson(file.readAll());
        QVERIFY(doc.object().value("traceEvents").toArray().size() >
                int(timeline->shown().spans.size()));
        QCOMPARE(timeline->exportCsv(dir.filePath("t.csv")), QString());
        const QString error = timeline->exportTrace("/nonexistent-folder/trace.json");
        QVERIFY2(error.contains("/nonexistent-folder/trace.json"), qPrintable(error));
    }

    void streamsLabRunsAndItsStepsShowInTheTimeline()
    {
        m_window->showStreamsLab();
        ui::StreamsLabPanel* lab = m_window->streamsLabPanel();
        QLineEdit* length = lab->lengthField();
        length->setFocus();
        length->selectAll();
        QTest::keyClicks(length, "200000");
        lab->arraysField()->setValue(4);
        QSignalSpy finished(lab, &ui::StreamsLabPanel::finished);
        QTest::mouseClick(lab->findChild<QPushButton*>("labCompare"), Qt::LeftButton);
        QVERIFY(finished.wait(30000));
        QCOMPARE(finished.front().at(0).toBool(), true);
        QVERIFY2(lab->resultText().contains("every array sums to 1"),
                 qPrintable(lab->resultText()));
        QVERIFY2(lab->resultText().contains("faster"), qPrintable(lab->resultText()));
        ui::TimelinePanel* timeline = m_window->timelinePanel();
        timeline->refresh();
        int arrays = 0;
        for (const gpu::Span& s : timeline->shown().spans)
            arrays += s.name.rfind("normalise array", 0) == 0;
        QCOMPARE(arrays, 8); // 4 arrays, twice
    }

    // The lab's chart: the same data split over 1..16 streams, one point per k, each run
    // checked, the progress bar counting the k done; on the CPU there are no copies, so no
    // floor is drawn and the legend says why.
    void streamsLabSweepChartsEveryStreamCount()
    {
        m_window->showStreamsLab();
        ui::StreamsLabPanel* lab = m_window->streamsLabPanel();
        lab->lengthField()->setText("40000");
        lab->arraysField()->setValue(4);
        QCustomPlot* chart = lab->sweepChart();
        QVERIFY(!chart->isVisible());
        QProgressBar* progress = lab->findChild<QProgressBar*>();
        QVERIFY(progress);
        QSignalSpy steps(progress, &QProgressBar::valueChanged);
        QSignalSpy finished(lab, &ui::StreamsLabPanel::finished);
        QTest::mouseClick(lab->findChild<QPushButton*>("labSweep"), Qt::LeftButton);
        QVERIFY(!lab->findChild<QPushButton*>("labRun")->isEnabled()); // until it ends
        QVERIFY(finished.wait(60000));
        QVERIFY2(finished.front().at(0).toBool(), qPrintable(lab->resultText()));
        QVERIFY(chart->isVisible());
        QCOMPARE(chart->graph(0)->dataCount(), ui::StreamsLabPanel::kSweepStreams);
        for (int k = 0; k < chart->graph(0)->dataCount(); ++k) {
            QCOMPARE(chart->graph(0)->data()->at(k)->key, double(k + 1));
            QVERIFY(chart->graph(0)->data()->at(k)->value > 0.0);
        }
        QCOMPARE(steps.last().at(0).toInt(), ui::StreamsLabPanel::kSweepStreams);
        QCOMPARE(chart->graph(1)->dataCount(), 0);
        QVERIFY2(chart->graph(1)->name().contains("needs a GPU"),
                 qPrintable(chart->graph(1)->name()));
        QVERIFY2(lab->resultText().contains("every array summed to 1"),
                 qPrintable(lab->resultText()));
        // A bad length is refused at the field, as for a run, and the chart stays.
        lab->lengthField()->setText("abc");
        QSignalSpy refused(lab, &ui::StreamsLabPanel::finished);
        QTest::mouseClick(lab->findChild<QPushButton*>("labSweep"), Qt::LeftButton);
        QCOMPARE(refused.size(), 1);
        QCOMPARE(refused.front().at(0).toBool(), false);
        QVERIFY(!lab->running());
        lab->lengthField()->setText("40000");
    }

    // One device policy: what the window was asked for (here the CPU) reaches the periodogram
    // and the lab, and the Device panel says who computes where.
    void theDeviceChoiceReachesThePeriodogramAndTheLab()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        m_window->showStreamsLab();
        ui::StreamsLabPanel* lab = m_window->streamsLabPanel();
        lab->lengthField()->setText("100000");
        lab->arraysField()->setValue(2);
        QSignalSpy finished(lab, &ui::StreamsLabPanel::finished);
        QTest::mouseClick(lab->findChild<QPushButton*>("labRun"), Qt::LeftButton);
        QVERIFY(finished.wait(30000));
        QVERIFY2(lab->resultText().contains("CPU"), qPrintable(lab->resultText()));
        m_window->showDevicePanel();
        QTRY_VERIFY(m_window->devicePanel()->use().contains("lab: CPU"));
        const QString use = m_window->devicePanel()->use();
        QVERIFY2(use.contains("periodogram: CPU"), qPrintable(use));
        QVERIFY2(use.contains("field: CPU"), qPrintable(use));
    }

    void badStreamsLabSizesAreExplainedAtTheField()
    {
        ui::StreamsLabPanel* lab = m_window->streamsLabPanel();
        QLineEdit* length = lab->lengthField();
        QSignalSpy finished(lab, &ui::StreamsLabPanel::finished);
        for (const char* bad : {"abc", "2.5", "-3", "1e30"}) {
            length->setFocus();
            length->selectAll();
            QTest::keyClicks(length, bad);
            QTest::mouseClick(lab->findChild<QPushButton*>("labRun"), Qt::LeftButton);
            QVERIFY2(length->styleSheet().contains("border"), bad);
            QVERIFY2(lab->resultText().contains("length"), qPrintable(lab->resultText()));
            QCOMPARE(finished.takeLast().at(0).toBool(), false);
        }
        // Valid on its own, but 64 arrays of 2^32 values need 2 TiB of host memory.
        length->selectAll();
        QTest::keyClicks(length, QString::number(gpu::kStreamsLabMaxLength));
        lab->arraysField()->setValue(gpu::kStreamsLabMaxArrays);
        QTest::mouseClick(lab->findChild<QPushButton*>("labRun"), Qt::LeftButton);
        QVERIFY(finished.wait(10000));
        QCOMPARE(finished.front().at(0).toBool(), false);
        QVERIFY2(lab->resultText().contains("host memory"), qPrintable(lab->resultText()));
        QVERIFY(lab->arraysField()->styleSheet().contains("border"));
        QVERIFY(!lab->running());
    }

    ui::PeriodogramWorkspace* periodogram() const { return m_window->periodogramWorkspace(); }

    bool waitForPeriodogram()
    {
        return QTest::qWaitFor([&] { return !periodogram()->busy(); }, 30000);
    }

    QSpinBox* periodogramPoints() const { return periodogram()->findChild<QSpinBox*>("points"); }

    // Recomputes the periodogram as a person holding the arrow keys on its Points field does.
    void recomputePeriodogram(int times)
    {
        QSpinBox* points = periodogramPoints();
        QVERIFY(points);
        points->setFocus();
        for (int i = 0; i < times; ++i) {
            QTest::keyClick(points, i % 2 ? Qt::Key_Down : Qt::Key_Up);
            QVERIFY(waitForPeriodogram());
        }
    }

    // The periodogram never begins a frame (the field, hidden, does not draw), yet its spans
    // go with the frames kept like the field's.
    void periodogramWorkKeepsTheTimelineBounded()
    {
        m_window->timelinePanel()->setKeptFrames(1);
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        recomputePeriodogram(200); // three spans or more each
        const std::size_t kept = m_window->timeline()->snapshot().spans.size();
        QVERIFY2(kept < 200, qPrintable(QString::number(kept)));
    }

    // Every change is an undo step holding the controls; hours of changes must not pile up.
    void periodogramUndoIsLimited()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        QSpinBox* points = periodogramPoints();
        QVERIFY(points);
        for (int i = 0; i < 1100; ++i)
            points->setValue(points->value() + (i % 2 ? -1 : 2));
        QVERIFY(waitForPeriodogram());
        const QUndoStack* undo = periodogram()->undoStack();
        QVERIFY2(undo->count() <= 1000, qPrintable(QString::number(undo->count())));
        QVERIFY(undo->canUndo());
    }

    // The default scene finds the synthetic sinusoid, gives its false-alarm probability and
    // folds the data at it.
    void periodogramFindsTheSyntheticSignal()
    {
        m_window->resize(1600, 1100); // room for the plot to resolve its peaks
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        QVERIFY2(periodogram()->spectrum(), qPrintable(periodogram()->errorText()));
        QVERIFY(!periodogram()->peaks().empty());
        QVERIFY(std::abs(1.0 / periodogram()->peaks()[0].frequency - 7.3) < 0.1);
        auto* fap = periodogram()->findChild<QLabel*>("falseAlarm");
        QVERIFY2(fap->text().contains("false-alarm probability"), qPrintable(fap->text()));
        auto* table = periodogram()->findChild<QTableWidget*>("peaks");
        QVERIFY(table->rowCount() >= 2);
        // Up to 20 peaks, found where the periodogram lives.
        auto* count = periodogram()->findChild<QSpinBox*>("peakCount");
        count->setValue(20);
        QCOMPARE(table->rowCount(), 20);
        QCOMPARE(periodogram()->peaks().size(), std::size_t(20));
        count->setValue(10);
        QCOMPARE(table->rowCount(), 10);
        table->setCurrentCell(1, 0);
        const QString period = table->item(1, 1)->text();
        QVERIFY2(periodogram()->foldPlot()->xAxis->label().contains(period.left(5)),
                 qPrintable(periodogram()->foldPlot()->xAxis->label()));
        // Clicking the highest peak on the plot folds at it again.
        ui::SpectrumView* view = periodogram()->spectrumView();
        const gpu::Peak& top = periodogram()->peaks()[0];
        const QPoint at(int(view->xPixel(top.frequency)), int(view->yPixel(top.power)));
        QTest::mouseClick(view, Qt::LeftButton, {}, at);
        QCOMPARE(table->currentRow(), 0);
        // Hovering the peak reads its power back from the line.
        // Sent straight to the view: moving the real pointer would race its own events.
        QMouseEvent move(QEvent::MouseMove, QPointF(at), view->mapToGlobal(QPointF(at)),
                         Qt::NoButton, Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(view, &move);
        view->grabFramebuffer(); // paints
        QVERIFY2(view->readout().contains("power"), qPrintable(view->readout()));
        QVERIFY2(view->readout().contains(QString::number(top.power, 'g', 3).left(4)),
                 qPrintable(view->readout() + " vs " + QString::number(top.power)));
    }

    void periodogramOptionsChangeThePicture()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        const QImage before = periodogram()->spectrumView()->grabFramebuffer();
        auto* normalization = periodogram()->findChild<QComboBox*>("normalization");
        normalization->setCurrentIndex(3); // psd
        QVERIFY(waitForPeriodogram());
        const QImage after = periodogram()->spectrumView()->grabFramebuffer();
        QVERIFY(differingPixels(before, after) > 100);
        // A logarithmic period axis redraws the same spectrum, without recomputing it.
        const auto spectrum = periodogram()->spectrum();
        periodogram()->findChild<QComboBox*>("xAxis")->setCurrentIndex(1);
        periodogram()->findChild<QCheckBox*>("logX")->setChecked(true);
        ui::SpectrumView* view = periodogram()->spectrumView();
        const QImage period = view->grabFramebuffer();
        QVERIFY(differingPixels(after, period) > 100);
        QVERIFY2(view->errorText().isEmpty(), qPrintable(view->errorText()));
        QCOMPARE(periodogram()->spectrum(), spectrum);
        const gpu::FrequencyGrid& g = spectrum->grid();
        QCOMPARE(view->xRange().first, 1.0 / g.fmax());
        QCOMPARE(view->xRange().second, 1.0 / g.fmin);
        // The highest peak stays where the period axis puts it.
        const gpu::Peak top = periodogram()->peaks().at(0);
        const double x = view->xPixel(top.frequency);
        QVERIFY(x > 0 && x < view->width());
        periodogram()->findChild<QCheckBox*>("logX")->setChecked(false);
        periodogram()->findChild<QComboBox*>("xAxis")->setCurrentIndex(0);
    }

    // A million frequencies across a few hundred pixels: the line comes from the GL vertex
    // buffer, two vertices a pixel column, and still reaches the top of the highest peak.
    // Zooming in redraws it from the same spectrum.
    void spectrumLineKeepsPeaksAndZooms()
    {
        m_window->resize(1400, 1000);
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        periodogram()->findChild<QComboBox*>("gridMode")->setCurrentIndex(1);
        auto* count = periodogram()->findChild<QLineEdit*>("frequencyCount");
        count->setText("1000000");
        QMetaObject::invokeMethod(count, "editingFinished");
        QVERIFY(waitForPeriodogram());
        QTRY_VERIFY(periodogram()->spectrum() &&
                    periodogram()->spectrum()->grid().count == 1000000);
        ui::SpectrumView* view = periodogram()->spectrumView();
        // The line alone: the selected peak's red dashed stem runs over the line's top, and
        // whether a dash or a gap lands there depends on the plot's height.
        view->setPeaks({}, -1);
        const QImage image = view->grabFramebuffer();
        QVERIFY2(view->errorText().isEmpty(), qPrintable(view->errorText()));
        const gpu::Peak top = periodogram()->spectrum()->peaks().at(0);
        const qreal ratio = image.devicePixelRatio();
        const int x = int(view->xPixel(top.frequency) * ratio);
        const int peakY = int(view->yPixel(top.power) * ratio);
        // The line's blue, in the peak's column or its neighbours, within 3 px of its top.
        auto lineAt = [&](int px, int py) {
            const QColor c = image.pixelColor(px, py);
            return c.blue() > 150 && c.red() < 120 && c.green() < 160;
        };
        bool reached = false;
        for (int dx = -1; dx <= 1 && !reached; ++dx)
            for (int y = peakY - 3; y <= peakY + 3 && !reached; ++y)
                reached = lineAt(x + dx, y);
        QVERIFY2(reached, "the highest peak is not drawn at its height");
        const auto [lo, hi] = view->xRange();
        QWheelEvent wheel(QPointF(view->width() / 2.0, view->height() / 2.0),
                          view->mapToGlobal(QPointF(view->width() / 2.0, view->height() / 2.0)),
                          QPoint(), QPoint(0, 480), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase,
                          false);
        QApplication::sendEvent(view, &wheel);
        QVERIFY(view->xRange().second - view->xRange().first < 0.7 * (hi - lo));
        const QImage zoomed = view->grabFramebuffer();
        QVERIFY(differingPixels(image, zoomed) > 100);
        // The keyboard: the right arrow pans by a tenth, minus zooms out, Home fits.
        const auto [zlo, zhi] = view->xRange();
        QTest::keyClick(view, Qt::Key_Right);
        QCOMPARE(view->xRange().first, zlo + 0.1 * (zhi - zlo));
        QTest::keyClick(view, Qt::Key_Minus);
        QVERIFY(view->xRange().second - view->xRange().first > 1.2 * (zhi - zlo));
        QTest::keyClick(view, Qt::Key_Home);
        QCOMPARE(view->xRange().first, lo);
        QCOMPARE(view->xRange().second, hi);
    }

    void badGridIsExplainedAtTheField()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        const auto kept = periodogram()->spectrum();
        auto* mode = periodogram()->findChild<QComboBox*>("gridMode");
        mode->setCurrentIndex(1);
        auto* fmin = periodogram()->findChild<QLineEdit*>("fmin");
        fmin->setText("0");
        QMetaObject::invokeMethod(fmin, "editingFinished");
        QVERIFY(waitForPeriodogram());
        QVERIFY(fmin->styleSheet().contains("border"));
        QVERIFY2(periodogram()->errorText().contains("minimum frequency"),
                 qPrintable(periodogram()->errorText()));
        QCOMPARE(periodogram()->spectrum(), kept); // the last good periodogram stays
        fmin->setText("0.01");
        auto* fmax = periodogram()->findChild<QLineEdit*>("fmax");
        fmax->setText("inf");
        QMetaObject::invokeMethod(fmax, "editingFinished");
        QVERIFY(waitForPeriodogram());
        QVERIFY(fmax->styleSheet().contains("border"));
        QVERIFY2(periodogram()->errorText().contains("finite"),
                 qPrintable(periodogram()->errorText()));
        fmax->setText("2");
        QMetaObject::invokeMethod(fmin, "editingFinished");
        QVERIFY(waitForPeriodogram());
        QVERIFY(periodogram()->errorText().isEmpty());
        QCOMPARE(periodogram()->grid().count, 100000);
    }

    // The periodogram's launch: a block beyond the kernel's limit is explained at the field;
    // a small grid leaves frequencies out (NaN), which the panel counts; Auto restores a
    // covering launch at the suggested block size.
    void periodogramLaunchIsExplainedAndCounted()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        auto* block = periodogram()->findChild<QLineEdit*>("periodogramBlock");
        auto* grid = periodogram()->findChild<QLineEdit*>("periodogramGrid");
        block->setText("2048");
        QMetaObject::invokeMethod(block, "editingFinished");
        QVERIFY(waitForPeriodogram());
        QVERIFY(block->styleSheet().contains("border"));
        QVERIFY2(periodogram()->errorText().contains("2048"),
                 qPrintable(periodogram()->errorText()));
        block->setText("64");
        grid->setText("2");
        QMetaObject::invokeMethod(grid, "editingFinished");
        QVERIFY(waitForPeriodogram());
        QVERIFY(periodogram()->errorText().isEmpty());
        const std::vector<double> power = periodogram()->readPower();
        QVERIFY(!std::isnan(power[1023]) && std::isnan(power[1024]));
        QCOMPARE(periodogram()->spectrum()->nonFinite(), 5001 - 1024);
        QVERIFY2(periodogram()->launchText().contains("1024 of 5001 frequencies"),
                 qPrintable(periodogram()->launchText()));
        QTest::mouseClick(periodogram()->findChild<QPushButton*>("periodogramAuto"),
                          Qt::LeftButton);
        QVERIFY(waitForPeriodogram());
        QCOMPARE(grid->text(), QString("0"));
        QVERIFY(block->text().toInt() >= 32);
        QVERIFY2(periodogram()->launchText().contains("5001 of 5001"),
                 qPrintable(periodogram()->launchText()));
    }

    void periodogramLoadsFilesAndExplainsBadOnes()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        periodogram()->openFile(WARPSCOPE_FIXTURE_DIR "/periodogram/series_B.csv");
        QVERIFY(waitForPeriodogram());
        QCOMPARE(periodogram()->series().t.size(), 200u);
        QVERIFY(periodogram()->spectrum());
        QTemporaryDir dir;
        const QString bad = dir.filePath("bad.csv");
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("t,y\nnot,numbers\n");
        f.close();
        periodogram()->openFile(bad);
        QVERIFY(waitForPeriodogram());
        QVERIFY2(periodogram()->errorText().contains("No row holds usable numbers"),
                 qPrintable(periodogram()->errorText()));
        QCOMPARE(periodogram()->series().t.size(), 200u); // the loaded series stays
        const QString csv = dir.filePath("power.csv");
        QCOMPARE(periodogram()->exportCsv(csv), QString());
        QFile out(csv);
        QVERIFY(out.open(QIODevice::ReadOnly));
        QCOMPARE(out.readAll().count('\n'), qsizetype(periodogram()->readPower().size() + 1));
        QVERIFY(!periodogram()->exportCsv("/nonexistent/p.csv").isEmpty());
    }

    // Writes a t,y[,dy] file into dir and opens it on the periodogram.
    void openRows(const QTemporaryDir& dir, const QString& name, const QByteArray& text)
    {
        const QString path = dir.filePath(name);
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text);
        f.close();
        periodogram()->openFile(path);
        QVERIFY(waitForPeriodogram());
    }

    // y = +-1e308: the sums of squares overflow unless y is scaled first. The periodogram is
    // the same as for +-1, with finite peaks and a false-alarm probability.
    void periodogramOfHugeValuesIsFinite()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        QTemporaryDir dir;
        QByteArray rows = "t,y\n";
        for (int i = 0; i < 200; ++i)
            rows +=
                QString("%1,%2\n")
                    .arg(i * 0.37 + 0.01 * (i % 7), 0, 'g', 10)
                    .arg(std::sin(i * 0.37 * 2.0 * std::numbers::pi / 5.0) > 0 ? "1e308" : "-1e308")
                    .toUtf8();
        openRows(dir, "huge.csv", rows);
        QVERIFY2(periodogram()->errorText().isEmpty(), qPrintable(periodogram()->errorText()));
        QVERIFY(periodogram()->spectrum());
        QVERIFY(!periodogram()->peaks().empty());
        QVERIFY(std::abs(1.0 / periodogram()->peaks()[0].frequency - 5.0) < 0.05);
        for (const double p : periodogram()->readPower())
            QVERIFY(std::isfinite(p));
        const QString fap = periodogram()->findChild<QLabel*>("falseAlarm")->text();
        QVERIFY2(!fap.contains("nan", Qt::CaseInsensitive), qPrintable(fap));
        // The folded data, in units of a power of ten the plot can hold.
        QCPAxis* foldY = periodogram()->foldPlot()->yAxis;
        QVERIFY2(foldY->label().contains("1e30"), qPrintable(foldY->label()));
        QVERIFY(foldY->range().lower < -0.5 && foldY->range().upper > 0.5);
    }

    // Weekly dates over ten years with a linear and quadratic trend and a yearly sinusoid: the
    // trend's leakage is the highest peak until a degree-2 polynomial is taken out. A range
    // masked with Shift+drag on the light curve leaves its points out, as one undo step, and a
    // click on it unmasks it. Then the yearly sinusoid is prewhitened and the results export:
    // the whole flow from a dated CSV.
    void detrendingAndMaskingTheLightCurve()
    {
        // At the default size a pixel of the light curve is a few days, less than a week.
        m_window->resize(1400, 900);
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        QTemporaryDir dir;
        std::mt19937 rng(5);
        std::normal_distribution<double> noise(0.0, 0.3);
        QByteArray rows = "date,value\n";
        const QDate start(2010, 1, 3);
        for (int i = 0; i < 520; ++i) {
            const double x = i / 52.0;
            const double y = 10.0 + 4.0 * x + 0.8 * (x - 5.0) * (x - 5.0) +
                             std::sin(2.0 * std::numbers::pi * i * 7.0 / 365.25) + noise(rng);
            rows += QString("%1,%2\n")
                        .arg(start.addDays(7 * i).toString(Qt::ISODate))
                        .arg(y, 0, 'f', 4)
                        .toUtf8();
        }
        openRows(dir, "trended.csv", rows);
        QVERIFY2(periodogram()->errorText().isEmpty(), qPrintable(periodogram()->errorText()));
        const auto bestPeriod = [this] {
            return periodogram()->peaks().empty() ? 0.0 : 1.0 / periodogram()->peaks()[0].frequency;
        };
        QVERIFY2(bestPeriod() > 0.0 && std::abs(bestPeriod() - 365.25) > 0.2 * 365.25,
                 qPrintable(QString::number(bestPeriod())));

        periodogram()->findChild<QSpinBox*>("detrendDegree")->setValue(2);
        periodogram()->findChild<QComboBox*>("detrendMethod")->setCurrentIndex(1);
        QVERIFY(waitForPeriodogram());
        QVERIFY2(periodogram()->errorText().isEmpty(), qPrintable(periodogram()->errorText()));
        QVERIFY2(std::abs(bestPeriod() - 365.25) < 0.02 * 365.25,
                 qPrintable(QString::number(bestPeriod())));
        auto* status = periodogram()->findChild<QLabel*>("periodogramStatus");
        QVERIFY2(status->text().contains("periodogram of residuals after a degree-2 polynomial"),
                 qPrintable(status->text()));
        QCOMPARE(periodogram()->analysedSeries().t.size(), std::size_t(520));

        // Shift+drag between the 100th and 150th weeks, halfway between samples.
        QCustomPlot* curve = periodogram()->lightCurveView();
        curve->replot();
        const std::vector<double>& t = periodogram()->series().t;
        const int x0 = qRound(curve->xAxis->coordToPixel(t[100] + 3.5));
        const int x1 = qRound(curve->xAxis->coordToPixel(t[150] + 3.5));
        const int y = curve->axisRect()->center().y();
        QVERIFY2(x1 - x0 > 20, qPrintable(QString("%1 to %2").arg(x0).arg(x1)));
        const int steps = periodogram()->undoStack()->count();
        QTest::mousePress(curve, Qt::LeftButton, Qt::ShiftModifier, QPoint(x0, y));
        QTest::mouseMove(curve, QPoint((x0 + x1) / 2, y));
        QTest::mouseRelease(curve, Qt::LeftButton, Qt::ShiftModifier, QPoint(x1, y));
        QVERIFY(waitForPeriodogram());
        QCOMPARE(periodogram()->masks().size(), std::size_t(1));
        QCOMPARE(periodogram()->undoStack()->count(), steps + 1);
        const gpu::TimeRange mask = periodogram()->masks()[0];
        const auto masked = std::size_t(
            std::count_if(t.begin(), t.end(), [&mask](double v) { return mask.contains(v); }));
        // A pixel is a few days: the ends may move by a sample, no more.
        QVERIFY2(masked >= 49 && masked <= 51, qPrintable(QString::number(masked)));
        QCOMPARE(periodogram()->analysedSeries().t.size(), 520 - masked);
        QVERIFY2(status->text().contains(QString("; %1 points masked").arg(masked)),
                 qPrintable(status->text()));
        QVERIFY2(std::abs(bestPeriod() - 365.25) < 0.03 * 365.25,
                 qPrintable(QString::number(bestPeriod())));

        periodogram()->undoStack()->undo();
        QVERIFY(waitForPeriodogram());
        QVERIFY(periodogram()->masks().empty());
        QCOMPARE(periodogram()->analysedSeries().t.size(), std::size_t(520));
        periodogram()->undoStack()->redo();
        QVERIFY(waitForPeriodogram());
        QCOMPARE(periodogram()->masks().size(), std::size_t(1));
        QCOMPARE(periodogram()->analysedSeries().t.size(), 520 - masked);

        // A click on the shaded range unmasks it.
        curve->replot();
        QTest::mouseClick(curve, Qt::LeftButton, Qt::NoModifier,
                          QPoint(qRound(curve->xAxis->coordToPixel(t[125])), y));
        QVERIFY(waitForPeriodogram());
        QVERIFY(periodogram()->masks().empty());
        QCOMPARE(periodogram()->analysedSeries().t.size(), std::size_t(520));

        // On to the end of the flow: the yearly sinusoid is prewhitened, its fitted period is
        // a year within its error, what is left has no significant peak, and the list and the
        // residuals' peaks export.
        QTest::mouseClick(periodogram()->findChild<QPushButton*>("prewhiten"), Qt::LeftButton);
        QVERIFY(waitForPeriodogram());
        QVERIFY2(periodogram()->errorText().isEmpty(), qPrintable(periodogram()->errorText()));
        const auto prewhitened = periodogram()->currentScene()->prewhitened;
        QCOMPARE(prewhitened.size(), std::size_t(1));
        const double period = 1.0 / prewhitened[0].frequency;
        const double periodError = prewhitened[0].frequencyError * period * period;
        QVERIFY2(std::abs(period - 365.25) < 3.0 * periodError && periodError < 2.0,
                 qPrintable(QString("%1 +- %2").arg(period).arg(periodError)));
        QVERIFY2(std::abs(prewhitened[0].amplitude - 1.0) < 0.05,
                 qPrintable(QString::number(prewhitened[0].amplitude)));
        auto* fap = periodogram()->findChild<QLabel*>("falseAlarm");
        QVERIFY2(fap->text().contains("false-alarm probability"), qPrintable(fap->text()));
        const double highestFap =
            fap->text().section("false-alarm probability ", 1).section(' ', 0, 0).toDouble();
        QVERIFY2(highestFap > 0.01, qPrintable(fap->text()));
        QTemporaryDir out;
        QCOMPARE(periodogram()->exportSinusoids(out.filePath("frequencies.csv")), QString());
        QCOMPARE(periodogram()->exportPeaks(out.filePath("peaks.json")), QString());
        QFile json(out.filePath("peaks.json"));
        QVERIFY(json.open(QIODevice::ReadOnly));
        const QJsonObject root = QJsonDocument::fromJson(json.readAll()).object();
        QCOMPARE(root["timeUnit"].toString(), QString("day"));
        const QJsonArray sinusoids = root["prewhitened"].toObject()["sinusoids"].toArray();
        QCOMPARE(sinusoids.size(), 1);
        QCOMPARE(sinusoids[0].toObject()["frequency"].toDouble(), prewhitened[0].frequency);
    }

    // Three sinusoids near BJD 2459000 (tests/fixtures/generate_multiterm.py). Prewhitening
    // as a person does it: the highest peak is selected, Prewhiten peak fits and takes it out,
    // three times, each the next sinusoid; Fit all together then gives scipy's simultaneous
    // fit; the list exports as CSV; every step undoes. A second file starts its own list.
    void prewhiteningFindsFitsAndExportsTheSinusoids()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        periodogram()->openFile(WARPSCOPE_FIXTURE_DIR "/periodogram/series_P.csv");
        QVERIFY(waitForPeriodogram());
        QVERIFY2(periodogram()->errorText().isEmpty(), qPrintable(periodogram()->errorText()));
        auto* prewhiten = periodogram()->findChild<QPushButton*>("prewhiten");
        auto* refit = periodogram()->findChild<QPushButton*>("refitAll");
        auto* list = periodogram()->findChild<QTableWidget*>("prewhitened");
        auto* peaks = periodogram()->findChild<QTableWidget*>("peaks");
        QVERIFY(prewhiten && refit && list && peaks);
        QVERIFY(!refit->isEnabled());
        const int steps = periodogram()->undoStack()->count();
        const double truth[] = {0.731, 1.173, 0.2217};
        for (int round = 0; round < 3; ++round) {
            QVERIFY(!periodogram()->peaks().empty());
            QVERIFY2(std::abs(periodogram()->peaks()[0].frequency - truth[round]) < 0.002,
                     qPrintable(QString::number(periodogram()->peaks()[0].frequency)));
            QCOMPARE(peaks->currentRow(), 0);
            QVERIFY(prewhiten->isEnabled());
            QTest::mouseClick(prewhiten, Qt::LeftButton);
            QVERIFY(waitForPeriodogram());
            QVERIFY2(periodogram()->errorText().isEmpty(), qPrintable(periodogram()->errorText()));
            QCOMPARE(list->rowCount(), round + 1);
        }
        QCOMPARE(periodogram()->undoStack()->count(), steps + 3);
        auto* status = periodogram()->findChild<QLabel*>("periodogramStatus");
        QVERIFY2(status->text().contains("3 sinusoids prewhitened"), qPrintable(status->text()));

        QVERIFY(refit->isEnabled());
        QTest::mouseClick(refit, Qt::LeftButton);
        QVERIFY(waitForPeriodogram());
        const auto scene = periodogram()->currentScene();
        QVERIFY(scene);
        QCOMPARE(scene->prewhitened.size(), std::size_t(3));
        // scipy's curve_fit of all three, to 1e-4 of each error bar (MultiTermTest says why).
        QFile fixture(WARPSCOPE_FIXTURE_DIR "/periodogram/fit_P.csv");
        QVERIFY(fixture.open(QIODevice::ReadOnly));
        int compared = 0;
        for (const QByteArray& line : fixture.readAll().split('\n')) {
            const QList<QByteArray> f = line.split(',');
            if (f.size() != 4 || f[0] != "all" || f[1] == "offset")
                continue;
            const gpu::FittedSinusoid& s = scene->prewhitened[std::size_t(f[1].right(1).toInt())];
            const double value = f[1].startsWith("frequency")   ? s.frequency
                                 : f[1].startsWith("amplitude") ? s.amplitude
                                                                : s.phase;
            QVERIFY2(std::abs(value - f[2].toDouble()) < 1e-4 * f[3].toDouble(), line.constData());
            ++compared;
        }
        QCOMPARE(compared, 9);

        QTemporaryDir dir;
        const QString csv = dir.filePath("frequencies.csv");
        QCOMPARE(periodogram()->exportSinusoids(csv), QString());
        QFile out(csv);
        QVERIFY(out.open(QIODevice::ReadOnly));
        const QByteArray text = out.readAll();
        QCOMPARE(text.count('\n'), 5); // the model, the header and three sinusoids
        QVERIFY(text.contains("frequency (cycles per day)"));
        QVERIFY(!periodogram()->exportSinusoids("/nonexistent/f.csv").isEmpty());

        // Undo the joint fit, then the last prewhitening.
        periodogram()->undoStack()->undo();
        QVERIFY(waitForPeriodogram());
        QCOMPARE(periodogram()->currentScene()->prewhitened.size(), std::size_t(3));
        QVERIFY(periodogram()->currentScene()->prewhitened != scene->prewhitened);
        periodogram()->undoStack()->undo();
        QVERIFY(waitForPeriodogram());
        QCOMPARE(list->rowCount(), 2);
        QVERIFY2(std::abs(periodogram()->peaks()[0].frequency - truth[2]) < 0.002,
                 qPrintable(QString::number(periodogram()->peaks()[0].frequency)));

        // Another file: the list was fitted to other data, so it starts empty.
        periodogram()->openFile(WARPSCOPE_FIXTURE_DIR "/periodogram/series_H.csv");
        QVERIFY(waitForPeriodogram());
        QCOMPARE(list->rowCount(), 0);
        QVERIFY(!refit->isEnabled());
    }

    // A light curve with two overtones: three terms put the highest peak at the fundamental,
    // and the panel says why no false-alarm probability is given.
    void multiTermModelsFindTheFundamental()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        periodogram()->openFile(WARPSCOPE_FIXTURE_DIR "/periodogram/series_H.csv");
        QVERIFY(waitForPeriodogram());
        auto* terms = periodogram()->findChild<QSpinBox*>("nterms");
        QVERIFY(terms);
        terms->setFocus();
        QTest::keyClick(terms, Qt::Key_Up);
        QTest::keyClick(terms, Qt::Key_Up);
        QVERIFY(waitForPeriodogram());
        QCOMPARE(terms->value(), 3);
        QVERIFY2(periodogram()->errorText().isEmpty(), qPrintable(periodogram()->errorText()));
        QVERIFY(!periodogram()->peaks().empty());
        QVERIFY2(std::abs(1.0 / periodogram()->peaks()[0].frequency - 2.37) < 0.01,
                 qPrintable(QString::number(1.0 / periodogram()->peaks()[0].frequency)));
        auto* fap = periodogram()->findChild<QLabel*>("falseAlarm");
        QVERIFY2(fap->text().contains("3 terms"), qPrintable(fap->text()));
        auto* levels = periodogram()->findChild<QLabel*>("falseAlarmLevels");
        QVERIFY2(levels->text().contains("one-term model"), qPrintable(levels->text()));
        QVERIFY(periodogram()->markLabels().filter("FAP").isEmpty());
    }

    // Yearly means from 1700, as sunspot numbers come: an 11-year cycle and noise. Above 0.5
    // cycles per year the periodogram of yearly times only mirrors what lies below, so the
    // automatic grid stops there, the panel says why, and the highest peak is the cycle, not
    // its twin at 1 + 1/11 cycles per year. The false-alarm levels and the peak's aliases are
    // drawn, every listed peak has its false-alarm probability, and the spectral window shows.
    void regularSamplingStopsTheGridAndMarksAliases()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        QTemporaryDir dir;
        std::mt19937 rng(11);
        std::normal_distribution<double> noise(0.0, 20.0);
        QByteArray rows = "year,value\n";
        for (int i = 0; i < 320; ++i)
            rows += QString("%1,%2\n")
                        .arg(1700 + i)
                        .arg(80.0 + 60.0 * std::sin(2.0 * std::numbers::pi * i / 11.0) + noise(rng),
                             0, 'f', 1)
                        .toUtf8();
        openRows(dir, "yearly.csv", rows);
        QVERIFY2(periodogram()->errorText().isEmpty(), qPrintable(periodogram()->errorText()));
        auto* note = periodogram()->findChild<QLabel*>("samplingNote");
        QVERIFY(note && note->isVisibleTo(periodogram()));
        QVERIFY2(note->text().contains("Regular sampling every 1 years") &&
                     note->text().contains("Nyquist frequency 0.5 cycles per year") &&
                     note->text().contains("automatic grid stops there"),
                 qPrintable(note->text()));
        QVERIFY(periodogram()->grid().fmax() <= 0.5);
        QVERIFY(!periodogram()->peaks().empty());
        const double best = 1.0 / periodogram()->peaks()[0].frequency;
        QVERIFY2(std::abs(best - 11.0) < 0.2, qPrintable(QString::number(best)));
        const QString fap = periodogram()->findChild<QLabel*>("falseAlarm")->text();
        QVERIFY2(fap.contains("period " + QString::number(best, 'g', 6) + " years"),
                 qPrintable(fap));
        auto* table = periodogram()->findChild<QTableWidget*>("peaks");
        QCOMPARE(table->horizontalHeaderItem(3)->text(), QString("FAP"));
        for (int row = 0; row < table->rowCount(); ++row) {
            bool number = false;
            table->item(row, 3)->text().toDouble(&number);
            QVERIFY2(number, qPrintable(table->item(row, 3)->text()));
        }
        QVERIFY2(table->item(0, 0)->toolTip().contains("1/dt - f"),
                 qPrintable(table->item(0, 0)->toolTip()));
        const QStringList marks = periodogram()->markLabels();
        QVERIFY2(marks.contains("FAP 1 %") && marks.contains("FAP 0.1 %") &&
                     marks.contains("1/dt - f") && marks.contains("f + 1/dt"),
                 qPrintable(marks.join(", ")));
        const QString levels = periodogram()->findChild<QLabel*>("falseAlarmLevels")->text();
        QVERIFY2(levels.contains("1 % at power") && !levels.contains("nan", Qt::CaseInsensitive),
                 qPrintable(levels));
        const QString aliases = periodogram()->findChild<QLabel*>("aliases")->text();
        // Sampled every year, the cycle's twins lie at 1 - f and 1 + f cycles per year.
        const double f = periodogram()->peaks()[0].frequency;
        QVERIFY2(aliases.contains(QString::number(1.0 - f, 'g', 6) + " (1/dt - f)") &&
                     aliases.contains(QString::number(1.0 + f, 'g', 6) + " (f + 1/dt)"),
                 qPrintable(aliases));

        // A manual grid may go beyond the Nyquist frequency: the note says what lies there,
        // the plot marks the Nyquist frequency, and peaks above it are listed as aliases.
        periodogram()->setManualGrid(0.01, 2.5, 20000);
        QVERIFY(waitForPeriodogram());
        QVERIFY2(note->text().contains("goes beyond it"), qPrintable(note->text()));
        QVERIFY(periodogram()->markLabels().contains("Nyquist"));
        bool aliasListed = false;
        for (int row = 0; row < table->rowCount(); ++row)
            aliasListed = aliasListed || table->item(row, 1)->text().contains("(alias)");
        QVERIFY(aliasListed);

        // The spectral window: the sampling's own periodogram, 1 where every sample is in
        // phase (at 1 cycle per year, inside this grid), under the periodogram.
        QVERIFY(!periodogram()->windowPlot()->isVisibleTo(periodogram()));
        periodogram()->findChild<QCheckBox*>("spectralWindow")->setChecked(true);
        QVERIFY(waitForPeriodogram());
        QVERIFY2(periodogram()->errorText().isEmpty(), qPrintable(periodogram()->errorText()));
        QCustomPlot* window = periodogram()->windowPlot();
        QVERIFY(window->isVisibleTo(periodogram()));
        QVERIFY(window->graph(0)->dataCount() > 100);
        bool found = false;
        double highest = 0.0;
        for (auto it = window->graph(0)->data()->begin(); it != window->graph(0)->data()->end();
             ++it) {
            QVERIFY(std::isfinite(it->value));
            highest = std::max(highest, it->value);
            found = found || (std::abs(it->key - 1.0) < 0.01 && it->value > 0.99);
        }
        QVERIFY(found);
        QVERIFY(highest <= 1.0 + 1e-6);
    }

    // Three rows left once the row with dy = 0 is skipped: a sinusoid and its floating mean
    // pass through all three at every frequency, so there is no peak, and the panel says why
    // instead of printing nan.
    void periodogramFalseAlarmIsExplainedForFewPoints()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        QTemporaryDir dir;
        openRows(dir, "few.csv", "t,y,dy\n0,1,0.1\n1.3,-0.5,0.2\n2,3,0\n2.9,0.7,0.1\n");
        QCOMPARE(periodogram()->series().t.size(), std::size_t(3));
        const QString fap = periodogram()->findChild<QLabel*>("falseAlarm")->text();
        QVERIFY2(!fap.contains("nan", Qt::CaseInsensitive), qPrintable(fap));
        QVERIFY2(fap.contains("too few points"), qPrintable(fap));
    }

    // All times equal: one message, about the times, not about the grid made from them.
    void equalTimesAreExplainedOnce()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        QTemporaryDir dir;
        openRows(dir, "same.csv", "t,y\n5,1\n5,2\n5,0.5\n5,3\n");
        const QString error = periodogram()->errorText();
        QVERIFY2(error.contains("times are equal") && !error.contains('\n'), qPrintable(error));
    }

    // 1000 samples a peak up to 1000 times the Nyquist frequency asks for 2e8 frequencies:
    // the automatic grid stops at the maximum and the panel says so, and what to change. The
    // capped computation is cancelled by going back, so the test stays short.
    void cappedAutomaticGridIsExplained()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        auto* samples = periodogram()->findChild<QDoubleSpinBox*>("samplesPerPeak");
        auto* nyquist = periodogram()->findChild<QDoubleSpinBox*>("nyquistFactor");
        auto* status = periodogram()->findChild<QLabel*>("periodogramStatus");
        samples->setValue(1000.0);
        nyquist->setValue(1000.0);
        QTRY_VERIFY2_WITH_TIMEOUT(status->text().contains("would need 200000"),
                                  qPrintable(status->text()), 30000);
        QVERIFY2(status->text().contains(QString::number(gpu::kMaxFrequencies)) &&
                     status->text().contains("samples per peak"),
                 qPrintable(status->text()));
        QVERIFY(periodogram()->errorText().isEmpty()); // a note, not an error
        nyquist->setValue(5.0);
        samples->setValue(5.0);
        QVERIFY(waitForPeriodogram());
        QVERIFY2(!status->text().contains("would need"), qPrintable(status->text()));
        QCOMPARE(periodogram()->grid().count, 5001);
    }

    // Edit > Undo follows the workspace shown: on the periodogram it takes back the last
    // control change and recomputes; redo brings it back.
    void periodogramChangesUndo()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        QAction* undo = nullptr;
        QAction* redo = nullptr;
        for (QAction* a : m_window->findChildren<QAction*>()) {
            if (a->shortcut() == QKeySequence(QKeySequence::Undo))
                undo = a;
            if (a->shortcut() == QKeySequence(QKeySequence::Redo))
                redo = a;
        }
        QVERIFY(undo && redo);
        auto* normalization = periodogram()->findChild<QComboBox*>("normalization");
        const int before = normalization->currentIndex();
        const auto first = periodogram()->spectrum();
        normalization->setCurrentIndex(before == 2 ? 1 : 2);
        QVERIFY(waitForPeriodogram());
        const int after = normalization->currentIndex();
        QVERIFY2(undo->isEnabled() && undo->text().contains("normalization"),
                 qPrintable(undo->text()));
        undo->trigger();
        QVERIFY(waitForPeriodogram());
        QCOMPARE(normalization->currentIndex(), before);
        QVERIFY(periodogram()->spectrum() != first); // recomputed
        redo->trigger();
        QVERIFY(waitForPeriodogram());
        QCOMPARE(normalization->currentIndex(), after);
        // The map's undo is its own: on its tab the periodogram's steps are out of reach.
        m_window->showPeriodogram(false);
        QVERIFY(!undo->text().contains("normalization"));
        m_window->showPeriodogram();
        normalization->setCurrentIndex(before);
        QVERIFY(waitForPeriodogram());
    }

    // A scene saved through the window comes back whole after everything has changed: the
    // field's mesh, colormap and launch, the periodogram's controls, the lab and the workspace
    // shown, as one undo step on each workspace's stack. A bad file changes nothing.
    void sceneFilesRestoreEveryWorkspace()
    {
        settledImage();
        QTemporaryDir dir;
        const QString path = dir.filePath("scene.json");
        gpu::DistanceParams saved;
        saved.latMin = 10.0;
        saved.latMax = 12.5;
        saved.nx = 300;
        saved.ny = 200;
        saved.references = {{11.0, 100.0}, {10.5, 99.5}};
        saved.precision = gpu::Precision::Float64;
        m_window->setParams(saved);
        m_window->setColormap("magma");
        m_window->launchPanel()->chooseTeaching({{32, 8, 1}, {5, 6, 1}, 0}, true,
                                                render::Overlay::Warp);
        auto* normalization = periodogram()->findChild<QComboBox*>("normalization");
        auto* fmax = periodogram()->findChild<QLineEdit*>("fmax");
        normalization->setCurrentIndex(2);
        periodogramPoints()->setValue(777);
        fmax->setText("3.5");
        emit fmax->editingFinished();
        m_window->streamsLabPanel()->arraysField()->setValue(5);
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        QCOMPARE(m_window->saveScene(path), QString());

        m_window->showPeriodogram(false);
        m_window->setParams(gpu::DistanceParams{});
        m_window->setColormap("viridis");
        m_window->launchPanel()->setSettings(scene::LessonScene{});
        normalization->setCurrentIndex(0);
        periodogramPoints()->setValue(400);
        fmax->setText("2");
        emit fmax->editingFinished();
        m_window->streamsLabPanel()->arraysField()->setValue(9);
        m_window->undoStack()->clear();

        QCOMPARE(m_window->openScene(path), QString());
        QVERIFY(m_window->periodogramShown());
        QCOMPARE(panel()->params(), saved);
        QCOMPARE(view()->params(), saved);
        QCOMPARE(spin("latMax")->value(), 12.5);
        QCOMPARE(view()->colormapName(), QString("magma"));
        const ui::LaunchPanel* launch = m_window->launchPanel();
        QVERIFY(launch->teachingChosen());
        QCOMPARE(launch->field("blockx")->text(), QString("32"));
        QCOMPARE(launch->field("blocky")->text(), QString("8"));
        QCOMPARE(launch->field("gridx")->text(), QString("5"));
        QCOMPARE(launch->field("gridy")->text(), QString("6"));
        QCOMPARE(launch->overlay(), render::Overlay::Warp);
        QVERIFY(launch->settings()->gridStride);
        QCOMPARE(normalization->currentIndex(), 2);
        QCOMPARE(periodogramPoints()->value(), 777);
        QCOMPARE(fmax->text(), QString("3.5"));
        QCOMPARE(m_window->streamsLabPanel()->arraysField()->value(), 5);
        QVERIFY(waitForPeriodogram());

        // A bad file is refused, named, and leaves the scene as it was.
        const QString bad = dir.filePath("bad.json");
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"format": "warpscope-scene", "version": 1, "field": {"nx": "many"}})");
        f.close();
        const QString error = m_window->openScene(bad);
        QVERIFY2(error.contains("bad.json: field.nx: expected a whole number"), qPrintable(error));
        QCOMPARE(panel()->params(), saved);
        QCOMPARE(normalization->currentIndex(), 2);

        // Opening was one step on each stack.
        QCOMPARE(periodogram()->undoStack()->undoText(), QString("Open scene"));
        periodogram()->undoStack()->undo();
        QCOMPARE(normalization->currentIndex(), 0);
        QCOMPARE(periodogramPoints()->value(), 400);
        QVERIFY(waitForPeriodogram());
        QCOMPARE(m_window->undoStack()->undoText(), QString("Open scene"));
        m_window->undoStack()->undo();
        QCOMPARE(panel()->params(), gpu::DistanceParams{});

        // A field that holds no number is named, and nothing is written.
        launch->field("blockx")->setText("lots");
        const QString refused = m_window->saveScene(dir.filePath("refused.json"));
        QVERIFY2(refused.contains("not saved") && refused.contains("'lots' is not a whole number"),
                 qPrintable(refused));
        QVERIFY(!QFile::exists(dir.filePath("refused.json")));
    }

    // A logarithmic axis chosen before any periodogram has arrived: a positive placeholder
    // range, axes drawn, no crash.
    void spectrumViewTakesALogAxisBeforeItsFirstSpectrum()
    {
        ui::SpectrumView view(std::make_shared<gpu::DevicePool>(gpu::BackendKind::Cpu, -1,
                                                                std::make_shared<gpu::Timeline>()));
        view.resize(600, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setAxis(false, true, 1.0, "frequency");
        const QImage image = view.grabFramebuffer();
        QVERIFY(view.xRange().first > 0.0 && view.xRange().second > view.xRange().first);
        QVERIFY(!image.isNull());
        view.setAxis(true, true, 1.0, "period");
        view.grabFramebuffer();
        QVERIFY(view.xRange().first > 0.0);
    }

    // A logarithmic grid typed in by hand spans its range, finds the signal and says it is
    // log-spaced; going back to the automatic grid spaces it evenly again.
    void periodogramLogGridFindsTheSignal()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        auto* mode = periodogram()->findChild<QComboBox*>("gridMode");
        auto* logX = periodogram()->findChild<QCheckBox*>("logX");
        logX->setChecked(false);
        mode->setCurrentIndex(2);
        QVERIFY(logX->isChecked()); // the grid's even steps on a logarithmic axis
        const std::pair<const char*, const char*> fields[] = {
            {"fmin", "0.01"}, {"fmax", "2"}, {"frequencyCount", "30000"}};
        for (const auto& [name, text] : fields) {
            auto* edit = periodogram()->findChild<QLineEdit*>(name);
            QVERIFY(edit->isEnabled());
            edit->selectAll();
            QTest::keyClicks(edit, text);
            QTest::keyClick(edit, Qt::Key_Return);
        }
        QVERIFY(waitForPeriodogram());
        QVERIFY2(periodogram()->spectrum(), qPrintable(periodogram()->errorText()));
        const gpu::FrequencyGrid grid = periodogram()->spectrum()->grid();
        QVERIFY(grid.logarithmic);
        QCOMPARE(grid.count, 30000LL);
        QVERIFY(std::abs(grid.fmin - 0.01) < 1e-12 && std::abs(grid.fmax() - 2.0) < 1e-9);
        // Equal ratios: the middle frequency is the geometric mean of the ends.
        QVERIFY(std::abs(grid.frequency(14999) * grid.frequency(15000) - 0.02) < 1e-6);
        QVERIFY(std::abs(1.0 / periodogram()->peaks()[0].frequency - 7.3) < 0.1);
        auto* status = periodogram()->findChild<QLabel*>("periodogramStatus");
        QVERIFY2(status->text().contains("log-spaced"), qPrintable(status->text()));
        mode->setCurrentIndex(0);
        QVERIFY(waitForPeriodogram());
        QVERIFY(!periodogram()->spectrum()->grid().logarithmic);
        logX->setChecked(false);
    }

    // A file's columns are found by name, shown in the pickers, and can be chosen by hand;
    // a choice that leaves no usable row is explained and the series kept.
    void periodogramColumnsCanBeChosen()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        QTemporaryDir dir;
        const QString path = dir.filePath("four.csv");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("time,note,flux,flux_err\n");
        for (int i = 0; i < 50; ++i)
            f.write(QString("%1,n%2,%3,%4\n")
                        .arg(i * 0.7)
                        .arg(i)
                        .arg(std::sin(i * 0.9) + 5.0)
                        .arg(0.1 + 0.001 * i)
                        .toUtf8());
        f.close();
        periodogram()->openFile(path);
        QVERIFY(waitForPeriodogram());
        auto* t = periodogram()->findChild<QComboBox*>("tColumn");
        auto* y = periodogram()->findChild<QComboBox*>("yColumn");
        auto* dy = periodogram()->findChild<QComboBox*>("dyColumn");
        QVERIFY(y->isEnabled());
        QCOMPARE(t->currentText(), QString("time"));
        QCOMPARE(y->currentText(), QString("flux"));
        QCOMPARE(dy->currentText(), QString("flux_err"));
        QCOMPARE(periodogram()->series().dy.size(), std::size_t(50));
        // No uncertainties: every point weighs the same.
        periodogram()->chooseColumns(0, 2, -1);
        QVERIFY(waitForPeriodogram());
        QVERIFY(periodogram()->series().dy.empty());
        QCOMPARE(dy->currentText(), QString("none"));
        // The text column as values: nothing usable, so the series stays.
        periodogram()->chooseColumns(0, 1, -1);
        QVERIFY(waitForPeriodogram());
        QVERIFY2(!periodogram()->errorText().isEmpty(), "no message for an unusable column");
        QCOMPARE(periodogram()->series().t.size(), std::size_t(50));
        QCOMPARE(y->currentText(), QString("flux"));
        periodogram()->useSynthetic();
        QVERIFY(!y->isEnabled());
        QVERIFY(waitForPeriodogram());
    }

    // Chooses a time format in the workspace's picker as a person does, and waits for the
    // reload and its periodogram.
    void chooseTimeFormat(gpu::TimeFormat format)
    {
        auto* box = periodogram()->findChild<QComboBox*>("timeFormat");
        QVERIFY(box->isEnabled());
        const int index = box->findData(int(format));
        QVERIFY(index >= 0);
        box->setCurrentIndex(index);
        emit box->activated(index);
        QVERIFY(waitForPeriodogram());
    }

    // Weekly YYYYMMDD dates are days: the axis, the peak table, the status line, the fold,
    // the false-alarm line and the export name the unit, and the yearly cycle is found at 365
    // days (below the Nyquist frequency). Read as plain numbers the file has no unit, and the
    // wording says so; read as ISO dates it is refused, with the loader's reason, and the numbers
    // stay.
    void periodogramNamesTheFilesTimeUnit()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        // Strictly weekly samples alias the yearly cycle, equally high, above the Nyquist
        // frequency: the grid stops at it.
        auto* nyquist = periodogram()->findChild<QDoubleSpinBox*>("nyquistFactor");
        nyquist->setValue(1.0);
        QVERIFY(waitForPeriodogram());
        periodogram()->openFile(WARPSCOPE_FIXTURE_DIR "/dates/weekly_yyyymmdd.csv");
        QVERIFY(waitForPeriodogram());
        QVERIFY2(periodogram()->errorText().isEmpty(), qPrintable(periodogram()->errorText()));
        QCOMPARE(periodogram()->shownUnit(), gpu::TimeUnit::Day);
        ui::SpectrumView* view = periodogram()->spectrumView();
        QVERIFY2(view->xLabel().contains("cycles per day"), qPrintable(view->xLabel()));
        QVERIFY(!periodogram()->peaks().empty());
        const double f = periodogram()->peaks()[0].frequency;
        // Within a grid step of a year, measured in period.
        const double step = periodogram()->grid().df / (f * f);
        QVERIFY2(std::abs(1.0 / f - 365.25) <= step,
                 qPrintable(QString("%1 days, step %2").arg(1.0 / f).arg(step)));
        auto* table = periodogram()->findChild<QTableWidget*>("peaks");
        QCOMPARE(table->horizontalHeaderItem(0)->text(), QString("frequency (cycles per day)"));
        QCOMPARE(table->horizontalHeaderItem(1)->text(), QString("period (days)"));
        const QString status = periodogram()->findChild<QLabel*>("periodogramStatus")->text();
        QVERIFY2(status.contains("cycles per day"), qPrintable(status));
        const QString fold = periodogram()->foldPlot()->xAxis->label();
        QVERIFY2(fold.contains("days"), qPrintable(fold));
        const QString fap = periodogram()->findChild<QLabel*>("falseAlarm")->text();
        QVERIFY2(fap.contains("days"), qPrintable(fap));
        periodogram()->findChild<QComboBox*>("xAxis")->setCurrentIndex(1);
        QCOMPARE(view->xLabel(), QString("period (days)"));
        periodogram()->findChild<QComboBox*>("xAxis")->setCurrentIndex(0);
        QTemporaryDir dir;
        const QString csv = dir.filePath("power.csv");
        QCOMPARE(periodogram()->exportCsv(csv), QString());
        QFile out(csv);
        QVERIFY(out.open(QIODevice::ReadOnly));
        QCOMPARE(out.readLine(), QByteArray("frequency (cycles per day),period (days),power\n"));
        const QString json = dir.filePath("peaks.json");
        QCOMPARE(periodogram()->exportPeaks(json), QString());
        QFile peaksFile(json);
        QVERIFY(peaksFile.open(QIODevice::ReadOnly));
        const QJsonObject peaks = QJsonDocument::fromJson(peaksFile.readAll()).object();
        QCOMPARE(peaks["periodUnit"].toString(), QString("days"));
        QCOMPARE(peaks["peaks"].toArray().size(), qsizetype(periodogram()->peaks().size()));

        chooseTimeFormat(gpu::TimeFormat::Number);
        QVERIFY2(periodogram()->errorText().isEmpty(), qPrintable(periodogram()->errorText()));
        QCOMPARE(periodogram()->series().t.front(), 19580329.0);
        QCOMPARE(periodogram()->shownUnit(), gpu::TimeUnit::Unknown);
        QVERIFY2(view->xLabel().contains("cycles per unit time"), qPrintable(view->xLabel()));
        QCOMPARE(table->horizontalHeaderItem(1)->text(), QString("period"));

        chooseTimeFormat(gpu::TimeFormat::IsoDate);
        QVERIFY2(periodogram()->errorText().contains("is not a date"),
                 qPrintable(periodogram()->errorText()));
        QCOMPARE(periodogram()->series().t.front(), 19580329.0); // the series shown stays
        auto* box = periodogram()->findChild<QComboBox*>("timeFormat");
        QCOMPARE(box->currentData().toInt(), int(gpu::TimeFormat::Number));

        chooseTimeFormat(gpu::TimeFormat::Auto);
        QCOMPARE(periodogram()->shownUnit(), gpu::TimeUnit::Day);
        QVERIFY2(box->currentText().contains("YYYYMMDD"), qPrintable(box->currentText()));
        QVERIFY2(view->xLabel().contains("cycles per day"), qPrintable(view->xLabel()));
        periodogram()->useSynthetic();
        QVERIFY(waitForPeriodogram());
        QVERIFY2(view->xLabel().contains("cycles per unit time"), qPrintable(view->xLabel()));
        QVERIFY(!box->isEnabled());
        nyquist->setValue(5.0);
        QVERIFY(waitForPeriodogram());
    }

    // While a file is shown, the synthetic series' controls are hidden, and a change to one
    // (a scene applied, say) leaves the file; the Synthetic button brings them back with the
    // synthetic series. Quoted header names show without their quotes.
    void syntheticControlsNeverReplaceAFile()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        QSpinBox* points = periodogramPoints();
        QVERIFY(points->isVisibleTo(periodogram()));
        QTemporaryDir dir;
        QByteArray rows = "\"time\", \"flux\"\n";
        for (int i = 0; i < 60; ++i)
            rows += QString("%1,%2\n").arg(i * 0.61).arg(std::sin(i * 0.8)).toUtf8();
        openRows(dir, "quoted.csv", rows);
        QCOMPARE(periodogram()->series().t.size(), std::size_t(60));
        QCOMPARE(periodogram()->findChild<QComboBox*>("tColumn")->currentText(), QString("time"));
        QCOMPARE(periodogram()->findChild<QComboBox*>("yColumn")->currentText(), QString("flux"));
        for (const char* name : {"points", "baseline", "noise", "period", "amplitude", "seed"})
            QVERIFY2(!periodogram()->findChild<QWidget*>(name)->isVisibleTo(periodogram()), name);
        points->setValue(points->value() + 10);
        QVERIFY(waitForPeriodogram());
        QCOMPARE(periodogram()->series().t.size(), std::size_t(60));
        QTest::mouseClick(periodogram()->findChild<QPushButton*>("synthetic"), Qt::LeftButton);
        QVERIFY(waitForPeriodogram());
        QVERIFY(points->isVisibleTo(periodogram()));
        QCOMPARE(periodogram()->series().t.size(), std::size_t(points->value()));
        points->setValue(points->value() - 10);
        QVERIFY(waitForPeriodogram());
        QCOMPARE(periodogram()->series().t.size(), std::size_t(points->value()));
    }

    // Auto picks the block with the most occupancy for the teaching kernel's registers on the
    // simulated H100 (40 a thread: 768 threads, 75%), and the panel says what limits it.
    void autoBlockUsesTheOccupancyCalculator()
    {
        settledImage();
        m_window->showLaunchPanel();
        QTest::mouseClick(m_window->launchPanel()->findChild<QPushButton*>("autoBlock"),
                          Qt::LeftButton);
        QCOMPARE(m_window->launchPanel()->field("blockx")->text(), QString("768"));
        QCOMPARE(m_window->launchPanel()->field("blocky")->text(), QString("1"));
        const QString occupancy = m_window->launchPanel()->occupancyText();
        QVERIFY2(occupancy.contains("Theoretical occupancy 75%"), qPrintable(occupancy));
        QVERIFY2(occupancy.contains("registers"), qPrintable(occupancy));
        QVERIFY(m_window->launchPanel()->lesson().has_value());
    }

    void blockSizeSweepRunsAndCancels()
    {
        gpu::DistanceParams p = view()->params();
        p.nx = 96;
        p.ny = 64;
        m_window->setParams(p);
        ui::SweepDialog* sweep = m_window->startSweep();
        QSignalSpy finished(sweep, &ui::SweepDialog::finished);
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.front().at(0).toBool(), true);
        QCOMPARE(sweep->points().size(), 32u);
        for (const auto& point : sweep->points())
            QVERIFY(point.medianMs > 0.0 && point.occupancy > 0.0);
        QVERIFY2(sweep->resultText().contains("Fastest at"), qPrintable(sweep->resultText()));
        sweep->close();

        p.nx = p.ny = 2000; // slow enough on the simulator to cancel midway
        m_window->setParams(p);
        sweep = m_window->startSweep();
        QSignalSpy cancelled(sweep, &ui::SweepDialog::finished);
        QTest::mouseClick(sweep->findChild<QPushButton*>("sweepCancel"), Qt::LeftButton);
        QVERIFY(cancelled.wait(60000));
        QCOMPARE(cancelled.front().at(0).toBool(), false);
        QVERIFY2(sweep->resultText().contains("Cancelled"), qPrintable(sweep->resultText()));
        sweep->close();
    }

    void switchingPrecisionShowsTheHintOnlyWhereItMatters()
    {
        settledImage();
        auto* hint = panel()->findChild<QLabel*>("precisionHint");
        QVERIFY(!hint->isVisible());
        typeInto(spin("latMin"), "-90");
        typeInto(spin("latMax"), "90");
        typeInto(spin("lonMin"), "-180");
        typeInto(spin("lonMax"), "180");
        auto* refs = panel()->findChild<QTableWidget*>("references");
        refs->item(0, 0)->setText("0");
        refs->item(0, 1)->setText("0");
        settledImage();
        typeInto(spin("nx"), "4000");
        typeInto(spin("ny"), "4000");
        settledImage();
        QVERIFY2(hint->isVisible(), "a global float32 mesh with the antipode on it should warn");
    }
};

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName("WarpscopeTests"); // never the user's own settings
    MainWindowTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "MainWindowTest.moc"
