#include "WindowTest.h"
#include "warpscope/scene/FieldScene.h"
#include "warpscope/ui/DevicePanel.h"
#include "warpscope/ui/FoldView.h"
#include "warpscope/ui/KernelWorkspace.h"
#include "warpscope/ui/LaunchPanel.h"
#include "warpscope/ui/SpectrumView.h"
#include "warpscope/ui/StreamsLabPanel.h"
#include "warpscope/ui/SweepDialog.h"
#include "warpscope/ui/TimelinePanel.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QCommandLinkButton>
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
#include <QMenuBar>
#include <QMouseEvent>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>
#include <QUndoStack>
#include <cmath>
#include <numbers>
#include <optional>
#include <qcustomplot.h>
#include <random>

using namespace warpscope;
using test::differingPixels;

namespace {

// A workspace made for the test alone: a page, a dock, a File action, a status label and a
// failure it reports while shown. Registering it is one line (MainWindow::addWorkspace).
class TinyWorkspace : public QObject, public ui::Workspace
{
public:
    explicit TinyWorkspace(QWidget* window)
        : QObject(window), m_page(new QLabel("tiny page", window)),
          m_dock(new QDockWidget("Tiny", window)), m_status(new QLabel("tiny status", window))
    {
        m_dock->setObjectName("tinyDock");
        m_dock->setWidget(new QLabel("tiny dock", m_dock));
    }

    QString key() const override { return "tiny"; }
    QString title() const override { return "Tiny"; }
    QWidget* page() override { return m_page; }
    QList<ui::WorkspaceDock> docks() override { return {{m_dock}}; }
    QList<QWidget*> statusWidgets() override { return {m_status}; }
    bool statesItsOwnStatus() const override { return true; }
    void addActions(const ui::WorkspaceMenus& menus) override
    {
        connect(menus.addFileAction("Tiny Action"), &QAction::triggered, this,
                [this] { ++triggered; });
    }
    bool writeScene(scene::Scene&, QString*) override { return true; }
    void readScene(const scene::Scene&, const QString&) override {}
    QString restoreSettings(const QSettings&) override { return {}; }
    void saveSettings(QSettings&) override {}
    QString failure(bool shown) const override { return shown ? "tiny failed" : QString(); }

    int triggered = 0;

private:
    QLabel* m_page;
    QDockWidget* m_dock;
    QLabel* m_status;
};

// The action of the menu named menu with this text, or the menu's own action for no text.
QAction* menuAction(const ui::MainWindow& window, const QString& menu, const QString& text)
{
    for (QAction* top : window.menuBar()->actions())
        if (top->text() == menu) {
            if (text.isEmpty())
                return top;
            for (QAction* action : top->menu()->actions())
                if (action->text() == text)
                    return action;
        }
    return nullptr;
}

} // namespace

// The main window as the shell of its workspaces: docks per page, settings, scene files,
// the timeline and the device choice that every workspace shares. Runs under Xvfb (or any X
// server) with the CPU backend.
class MainWindowTest : public test::WindowTest
{
    Q_OBJECT

private:
    // Whether a dock is shown, as its View menu entry says (a dock behind another's tab is
    // shown, not raised).
    bool docked(const ui::MainWindow& window, const char* name) const
    {
        return window.findChild<QDockWidget*>(name)->toggleViewAction()->isChecked();
    }

private slots:
    void init() { QVERIFY(openWindow()); }
    void cleanup() { closeWindow(); }

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

    // Each page keeps its own docks: closed on the Kernel page, the Launch dock comes back on
    // the field's and is closed again on the Kernel's, also after the periodogram.
    void everyPageRemembersItsOwnDocks()
    {
        QVERIFY(docked(*m_window, "launchDock"));
        m_window->showKernel();
        QVERIFY(docked(*m_window, "launchDock")); // the field's docks, until changed here
        m_window->findChild<QDockWidget*>("launchDock")->toggleViewAction()->trigger();
        QVERIFY(!docked(*m_window, "launchDock"));
        m_window->showPeriodogram(false);
        QVERIFY(docked(*m_window, "launchDock"));
        QVERIFY(docked(*m_window, "parametersDock"));
        m_window->showKernel();
        QVERIFY(!docked(*m_window, "launchDock"));
        QVERIFY(docked(*m_window, "parametersDock"));
        m_window->showPeriodogram();
        QVERIFY(!docked(*m_window, "parametersDock"));
        m_window->showKernel();
        QVERIFY(!docked(*m_window, "launchDock"));
        QVERIFY(docked(*m_window, "parametersDock"));
    }

    // A workspace registered with one line gets its tab, its dock and View entry, its File
    // action before the window's own, its status (the field's stepping aside while it is
    // shown), undo falls back to the field's steps, and the command line hears its failure
    // only while it is shown.
    void aWorkspaceJoinsWithOneRegistration()
    {
        auto* tiny = new TinyWorkspace(m_window.get());
        m_window->addWorkspace(*tiny);
        auto* tabs = m_window->findChild<QTabWidget*>("workspaces");
        QCOMPARE(tabs->count(), 4);
        QCOMPARE(tabs->tabText(3), QString("Tiny"));
        QVERIFY(m_window->findChild<QDockWidget*>("tinyDock"));
        QVERIFY(menuAction(*m_window, "&View", "Tiny"));
        QAction* action = menuAction(*m_window, "&File", "Tiny Action");
        QVERIFY(action);
        const QList<QAction*> file = menuAction(*m_window, "&File", QString())->menu()->actions();
        QVERIFY(file.indexOf(action) <
                file.indexOf(menuAction(*m_window, "&File", "Export &Trace…")));
        action->trigger();
        QCOMPARE(tiny->triggered, 1);

        QVERIFY(m_window->failureText().isEmpty());
        auto* timeLabel = m_window->findChild<QLabel*>("timeLabel");
        QVERIFY(timeLabel->isVisible());
        m_window->showWorkspace(*tiny);
        QCOMPARE(m_window->shownWorkspace(), static_cast<ui::Workspace*>(tiny));
        QVERIFY(tiny->page()->isVisible());
        QCOMPARE(m_window->failureText(), QString("tiny failed"));
        QVERIFY(!timeLabel->isVisible());
        QVERIFY(tiny->statusWidgets().front()->isVisible());
        typeInto(spin("latMin"), "10");
        QVERIFY(m_window->undoStack()->canUndo());
        QAction* undo = nullptr;
        for (QAction* a : m_window->findChildren<QAction*>())
            if (a->shortcut() == QKeySequence(QKeySequence::Undo))
                undo = a;
        QVERIFY(undo && undo->isEnabled());
        undo->trigger();
        QCOMPARE(m_window->fieldView()->params().latMin, gpu::DistanceParams{}.latMin);
        m_window->showPeriodogram(false);
        QVERIFY(timeLabel->isVisible());
        QVERIFY(!tiny->statusWidgets().front()->isVisible());
        QVERIFY(m_window->failureText().isEmpty());
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

    // The newest span of this name the timeline shows that starts after fromUs, once it
    // shows one.
    std::optional<gpu::Span> waitForShownSpan(const std::string& name, double fromUs = 0.0)
    {
        ui::TimelinePanel* timeline = m_window->timelinePanel();
        std::optional<gpu::Span> found;
        QTest::qWaitFor(
            [&] {
                timeline->refresh();
                for (const gpu::Span& s : timeline->shown().spans)
                    if (s.name == name && s.startUs > fromUs)
                        found = s;
                return found.has_value();
            },
            20000);
        return found;
    }

    // Shown at first, the timeline had followed the newest span at 20 ms wide, so the CPU's
    // lanes were empty in view: it fits the last frame, the field's computing, upload and draw.
    void timelineFitsTheLastFrameWhenFirstShown()
    {
        // Nothing asks the field to paint again: the frames are the window's first ones.
        ui::TimelinePanel* timeline = m_window->timelinePanel();
        const std::optional<gpu::Span> upload = waitForShownSpan("glBufferSubData");
        QVERIFY(upload);
        QVERIFY(waitForShownSpan("draw field", upload->startUs)); // the field drawn
        QTest::qWait(500); // the panel's refreshes take what else the frame recorded
        timeline->setFrozen(true);
        const gpu::TimelineSnapshot& shown = timeline->shown();
        QVERIFY(!shown.spans.empty());
        std::uint64_t newest = 0;
        const gpu::Span* field = nullptr;
        for (const gpu::Span& s : shown.spans) {
            newest = std::max(newest, s.frame);
            if (s.name == "distance field")
                field = &s;
        }
        QVERIFY(field);
        const QCPRange range = timeline->plot()->xAxis->range();
        auto inView = [&](const gpu::Span& s) {
            return range.lower <= s.startUs / 1000.0 && s.endUs / 1000.0 <= range.upper;
        };
        const QString where = QString(" outside %1-%2 ms").arg(range.lower).arg(range.upper);
        QVERIFY2(inView(*field), qPrintable("the field's computing" + where));
        for (const gpu::Span& s : shown.spans)
            if (s.frame == newest)
                QVERIFY2(inView(s), qPrintable(QString::fromStdString(s.name) + where));
        // Following the newest spans keeps the fitted width.
        QVERIFY(timeline->findChild<QCheckBox*>("follow")->isChecked());
        QVERIFY(range.size() > field->durationUs() / 1000.0);
    }

    // A workspace's first work refits the timeline: zoomed to a microsecond at the field's
    // start, it shows the periodogram's whole line once the periodogram is first shown, where
    // following the newest span alone would keep the microsecond's width.
    void timelineFitsAWorkspacesFirstWork()
    {
        ui::TimelinePanel* timeline = m_window->timelinePanel();
        const std::optional<gpu::Span> field = waitForShownSpan("distance field");
        QVERIFY(field);
        timeline->plot()->xAxis->setRange(field->startUs / 1000.0, field->startUs / 1000.0 + 1e-3);
        m_window->showPeriodogram();
        QVERIFY(QTest::qWaitFor([&] { return !m_window->periodogramWorkspace()->busy(); }, 30000));
        const std::optional<gpu::Span> line = waitForShownSpan("periodogram line");
        QVERIFY(line);
        QTest::qWait(500); // the panel's refreshes take what else the frame recorded
        timeline->setFrozen(true);
        const QCPRange range = timeline->plot()->xAxis->range();
        QVERIFY2(range.lower <= line->startUs / 1000.0 && line->endUs / 1000.0 <= range.upper,
                 qPrintable(QString("the periodogram's line at %1-%2 ms, the view %3-%4 ms")
                                .arg(line->startUs / 1000.0)
                                .arg(line->endUs / 1000.0)
                                .arg(range.lower)
                                .arg(range.upper)));
    }

    // On the CPU the field's computing is its kernel: drawn in the legend's kernel colour,
    // not the host's grey.
    void theCpuKernelSpanHasTheKernelColour()
    {
        settledImage();
        ui::TimelinePanel* timeline = m_window->timelinePanel();
        timeline->setLanesShown(true); // a window under 800 px high opens with them hidden
        QVERIFY(waitForShownSpan("distance field"));
        timeline->setFrozen(true);
        const gpu::Span* field = nullptr;
        for (const gpu::Span& s : timeline->shown().spans)
            if (s.name == "distance field")
                field = &s;
        QCOMPARE(field->kind, gpu::SpanKind::Kernel);
        QCustomPlot* plot = timeline->plot();
        plot->xAxis->setRange(field->startUs / 1000.0, field->endUs / 1000.0);
        plot->replot(QCustomPlot::rpImmediateRefresh);
        const QImage image = plot->grab().toImage();
        QCPPlottableLegendItem* kernel = nullptr;
        for (int i = 0; i < plot->legend->itemCount(); ++i)
            if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot->legend->item(i));
                item && item->plottable()->name() == "kernel")
                kernel = item;
        QVERIFY(kernel);
        const QRect swatch = kernel->rect();
        const QColor legendColour = image.pixelColor(
            swatch.left() + plot->legend->iconSize().width() / 2, swatch.center().y());
        // The field's span is drawn under its threads' nested, darker spans: its own colour
        // shows at the edge of its bar, between a nested bar's edge and its own.
        const QString lane = "CPU thread 0: field";
        int row = -1;
        for (std::size_t l = 0, r = 0; l < timeline->shown().lanes.size(); ++l) {
            bool used = false;
            for (const gpu::Span& s : timeline->shown().spans)
                used = used || s.lane == int(l);
            if (used && QString::fromStdString(timeline->shown().lanes[l]) == lane)
                row = int(r);
            r += used;
        }
        QVERIFY(row >= 0);
        const int x = int(plot->xAxis->coordToPixel((field->startUs + field->endUs) / 2000.0));
        const int y = int(plot->yAxis->coordToPixel(row - 0.33));
        // The kernel's green, or the darker shade of it its nested spans are drawn in (the
        // row's height decides which the point falls on): the hue of the legend's swatch,
        // never the host's grey.
        const QColor bar = image.pixelColor(x, y);
        QVERIFY2(std::abs(bar.hsvHue() - legendColour.hsvHue()) <= 3 && bar.hsvSaturation() > 100,
                 qPrintable(bar.name() + " against the legend's " + legendColour.name()));
    }

    // The CPU copies nothing between host and device and has no CUPTI: the legend lists the
    // kinds it records and nothing else.
    void theLegendListsOnlyWhatTheCpuRecords()
    {
        settledImage();
        ui::TimelinePanel* timeline = m_window->timelinePanel();
        QVERIFY(waitForShownSpan("distance field"));
        QCustomPlot* plot = timeline->plot();
        QStringList names;
        for (int i = 0; i < plot->legend->itemCount(); ++i)
            if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot->legend->item(i)))
                names << item->plottable()->name();
        QCOMPARE(names, QStringList({"kernel", "interop", "GL draw", "host"}));
        QVERIFY(!timeline->findChild<QCheckBox*>("cupti")->isVisibleTo(timeline));
    }

    // Hovering a bar of the timeline names the work, its lane and its duration.
    void timelineShowsTheFieldWorkAndExplainsABarOnHover()
    {
        settledImage();
        ui::TimelinePanel* timeline = m_window->timelinePanel();
        timeline->setLanesShown(true); // a window under 800 px high opens with them hidden
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
        // The lanes laid out before their pixels are read, and the window active: Qt shows
        // no tooltip over a window that is not.
        QCustomPlot* plot = timeline->plot();
        QTRY_VERIFY(plot->isVisible() && plot->height() > 40);
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        const gpu::TimelineSnapshot& shown = timeline->shown();
        const gpu::Span* field = nullptr;
        for (const gpu::Span& s : shown.spans)
            if (s.name == "distance field")
                field = &s;
        QVERIFY(field);
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
            if (described.contains("kernel on CPU thread 0: field")) {
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
        timeline->fitWithin(2e9, 2e9 + 20000.0); // 20 ms, without the field's spans
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

    // A scene saved through the window comes back whole after everything has changed: the
    // field's mesh, colormap and launch, the periodogram's controls, the lab and the workspace
    // shown, as one undo step on each workspace's stack. A bad file changes nothing.
    // Help > Getting started offers three ways in, each a ready scene; turned off, it is not
    // offered at start again.
    void gettingStartedOpensReadyScenes()
    {
        QSettings().remove("gettingStarted/showAtStart");
        const auto open = [&]() -> QDialog* {
            // The last one closed is deleted once the events run.
            QTest::qWaitFor([&] { return !m_window->findChild<QDialog*>("gettingStarted"); });
            for (QAction* menu : m_window->menuBar()->actions())
                if (menu->text() == "&Help")
                    for (QAction* item : menu->menu()->actions())
                        if (item->text().startsWith("&Getting Started"))
                            item->trigger();
            return m_window->findChild<QDialog*>("gettingStarted");
        };
        QDialog* dialog = open();
        QVERIFY(dialog && dialog->isVisible());
        QTest::mouseClick(dialog->findChild<QAbstractButton*>("startBlocks"), Qt::LeftButton);
        QTRY_VERIFY(!m_window->findChild<QDialog*>("gettingStarted"));
        QVERIFY(!m_window->periodogramShown() && !m_window->kernelShown());
        const ui::LaunchPanel* launch = m_window->launchPanel();
        QVERIFY(launch->teachingChosen());
        QCOMPARE(launch->overlay(), render::Overlay::Block);
        QCOMPARE(panel()->params().nx, 120);

        dialog = open();
        QTest::mouseClick(dialog->findChild<QAbstractButton*>("startLightCurve"), Qt::LeftButton);
        QVERIFY(m_window->periodogramShown());
        QVERIFY(periodogram()->findChild<QCheckBox*>("logX")->isChecked());
        QVERIFY(waitForPeriodogram());
        QVERIFY(!periodogram()->peaks().empty());

        dialog = open();
        QTest::mouseClick(dialog->findChild<QAbstractButton*>("startKernel"), Qt::LeftButton);
        QVERIFY(m_window->kernelShown());
        QVERIFY(m_window->kernelWorkspace()->source().contains("Ripples spreading"));

        // Turned off, the welcome is not offered at start.
        dialog = open();
        QVERIFY(dialog->findChild<QCheckBox*>("showAtStart")->isChecked());
        dialog->findChild<QCheckBox*>("showAtStart")->setChecked(false);
        dialog->reject();
        QTRY_VERIFY(!m_window->findChild<QDialog*>("gettingStarted"));
        m_window->offerGettingStarted();
        QVERIFY(!m_window->findChild<QDialog*>("gettingStarted"));
        QSettings().remove("gettingStarted/showAtStart");
        m_window->offerGettingStarted();
        QVERIFY(m_window->findChild<QDialog*>("gettingStarted"));
    }

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
};

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName("WarpscopeTests"); // never the user's own settings
    MainWindowTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "MainWindowTest.moc"
