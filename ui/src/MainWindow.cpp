#include "warpscope/ui/MainWindow.h"

#include "warpscope/render/Colormap.h"
#include "warpscope/scene/SceneFile.h"
#include "warpscope/ui/BatchResultsDialog.h"
#include "warpscope/ui/DevicePanel.h"
#include "warpscope/ui/FieldView.h"
#include "warpscope/ui/KernelWorkspace.h"
#include "warpscope/ui/LaunchPanel.h"
#include "warpscope/ui/ParametersPanel.h"
#include "warpscope/ui/PeriodogramWorkspace.h"
#include "warpscope/ui/StreamsLabPanel.h"
#include "warpscope/ui/SweepDialog.h"
#include "warpscope/ui/TimelinePanel.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QUndoCommand>
#include <QUndoGroup>
#include <QUndoStack>
#include <malloc.h>

namespace warpscope::ui {
namespace {

// One parameter change. Consecutive changes with the same merge id (a slider drag, the
// moves of one marker drag) become one step; QUndoStack merges only equal ids other than -1.
class ParamsCommand : public QUndoCommand
{
public:
    ParamsCommand(MainWindow* window, gpu::DistanceParams before, gpu::DistanceParams after,
                  int mergeId, const QString& text)
        : QUndoCommand(text), m_window(window), m_before(std::move(before)),
          m_after(std::move(after)), m_mergeId(mergeId)
    {}
    int id() const override { return m_mergeId; }
    bool mergeWith(const QUndoCommand* other) override
    {
        m_after = static_cast<const ParamsCommand*>(other)->m_after;
        return true;
    }
    void undo() override { m_window->applyParams(m_before); }
    void redo() override { m_window->applyParams(m_after); }

private:
    MainWindow* m_window;
    gpu::DistanceParams m_before, m_after;
    int m_mergeId;
};

QString fieldName(gpu::ParamField field)
{
    switch (field) {
    case gpu::ParamField::LatMin:
        return QObject::tr("minimum latitude");
    case gpu::ParamField::LatMax:
        return QObject::tr("maximum latitude");
    case gpu::ParamField::LonMin:
        return QObject::tr("minimum longitude");
    case gpu::ParamField::LonMax:
        return QObject::tr("maximum longitude");
    case gpu::ParamField::Nx:
        return QObject::tr("columns");
    case gpu::ParamField::Ny:
        return QObject::tr("rows");
    case gpu::ParamField::Precision:
        return QObject::tr("precision");
    case gpu::ParamField::Unit:
        return QObject::tr("units");
    case gpu::ParamField::Radius:
        return QObject::tr("radius");
    case gpu::ParamField::References:
        break;
    }
    return QObject::tr("reference points");
}

// Undo merge ids: a parameter's field, or one id per marker drag above this.
constexpr int kMarkerDragControl = 1000;
// Each step keeps its parameters or controls twice; without a limit, hours of changes grow
// memory by kilobytes a step.
constexpr int kUndoLimit = 1000;

// Every dock, by object name; each tab remembers which of them it shows.
constexpr std::array kDocks{"parametersDock", "deviceDock", "launchDock", "streamsLabDock",
                            "timelineDock"};
// The tabs' names in the settings.
constexpr std::array kTabKeys{"field", "periodogram"};

} // namespace

MainWindow::MainWindow(const WindowOptions& options, QWidget* parent)
    : QMainWindow(parent), m_options(options), m_timeline(std::make_shared<gpu::Timeline>()),
      m_devices(std::make_shared<gpu::DevicePool>(options.backend, options.device, m_timeline)),
      m_multiGpu(gpu::cudaDeviceNames().size() > 1), m_view(new FieldView(this)),
      m_panel(new ParametersPanel(this)), m_device(new DevicePanel(this)),
      m_launch(new LaunchPanel(this)), m_timelinePanel(new TimelinePanel(m_timeline, this)),
      m_lab(new StreamsLabPanel(m_devices, this)),
      m_periodogram(new PeriodogramWorkspace(m_devices, this)), m_workspaces(new QTabWidget(this)),
      m_undo(new QUndoStack(this)), m_backendLabel(new QLabel(this)), m_meshLabel(new QLabel(this)),
      m_timeLabel(new QLabel(this))
{
    setWindowTitle(tr("Warpscope"));
    m_view->setDevices(m_devices, !options.forceHostCopy);
    m_workspaces->setObjectName("workspaces");
    m_workspaces->addTab(m_view, tr("Distance field"));
    m_workspaces->addTab(m_periodogram, tr("Periodogram"));
    m_kernel = new KernelWorkspace(m_devices, this);
    m_workspaces->addTab(m_kernel, tr("Kernel"));
    // A whole kernel runs with the Launch panel's block and grid.
    connect(m_launch, &LaunchPanel::changed, m_kernel, [this] {
        if (const auto lesson = m_launch->settings()) {
            m_kernel->setLaunch(lesson->launch, lesson->gridFitted);
            m_kernel->setTeaching(lesson->teaching, render::Overlay(lesson->overlay));
        }
    });
    connect(m_kernel, &KernelWorkspace::message, this,
            [this](const QString& text) { statusBar()->showMessage(text, 10000); });
    m_workspaces->setDocumentMode(true);
    setCentralWidget(m_workspaces);
    // The mesh's panels and status (its backend, size and kernel time) mean nothing to the
    // periodogram, which states its own: they step aside while it is shown and come back as
    // they were.
    const auto sizeFromShown = [this](int index) {
        // Only the workspace shown sets the window's smallest size: the periodogram's plots
        // would otherwise squeeze the field's timeline, and the field's panels the plots.
        for (int i = 0; i < m_workspaces->count(); ++i)
            m_workspaces->widget(i)->setSizePolicy(
                i == index ? QSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred)
                           : QSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored));
    };
    sizeFromShown(0);
    connect(m_workspaces, &QTabWidget::currentChanged, this, [this, sizeFromShown](int index) {
        for (QLabel* label : {m_meshLabel, m_timeLabel, m_backendLabel})
            label->setVisible(index != 1);
        sizeFromShown(index);
        switchDocks(index);
    });
    connect(m_periodogram, &PeriodogramWorkspace::message, this,
            [this](const QString& text) { statusBar()->showMessage(text, 10000); });

    auto* dock = new QDockWidget(tr("Parameters"), this);
    dock->setObjectName("parametersDock");
    auto* scroll = new QScrollArea(dock);
    scroll->setWidget(m_panel);
    scroll->setWidgetResizable(true);
    scroll->setMinimumWidth(300);
    dock->setWidget(scroll);
    addDockWidget(Qt::LeftDockWidgetArea, dock);
    auto* deviceDock = new QDockWidget(tr("Device"), this);
    deviceDock->setObjectName("deviceDock");
    deviceDock->setWidget(m_device);
    addDockWidget(Qt::LeftDockWidgetArea, deviceDock);
    tabifyDockWidget(dock, deviceDock);
    auto* launchDock = new QDockWidget(tr("Launch"), this);
    launchDock->setObjectName("launchDock");
    launchDock->setWidget(m_launch);
    addDockWidget(Qt::LeftDockWidgetArea, launchDock);
    tabifyDockWidget(dock, launchDock);
    auto* labDock = new QDockWidget(tr("Streams lab"), this);
    labDock->setObjectName("streamsLabDock");
    labDock->setWidget(m_lab);
    addDockWidget(Qt::LeftDockWidgetArea, labDock);
    tabifyDockWidget(dock, labDock);
    dock->raise();
    auto* timelineDock = new QDockWidget(tr("Timeline"), this);
    timelineDock->setObjectName("timelineDock");
    timelineDock->setWidget(m_timelinePanel);
    addDockWidget(Qt::BottomDockWidgetArea, timelineDock);
    resizeDocks({timelineDock}, {300}, Qt::Vertical);
    connect(m_timelinePanel, &TimelinePanel::message, this,
            [this](const QString& text) { statusBar()->showMessage(text, 10000); });
    connect(m_lab, &StreamsLabPanel::timelineProblem, m_timelinePanel, &TimelinePanel::setProblem);
    connect(m_lab, &StreamsLabPanel::finished, this, [this](bool, const QString& summary) {
        statusBar()->showMessage(tr("Streams lab: %1").arg(summary), 15000);
        m_timelinePanel->refresh();
        const auto [from, to] = m_lab->lastRunUs();
        if (to > from)
            m_timelinePanel->fitWithin(from, to);
    });
    m_launch->setOccupancySource(
        [this](long long threads) { return m_view->lessonOccupancy(threads); });
    connect(m_launch, &LaunchPanel::sweepRequested, this, &MainWindow::startSweep);
    connect(m_device, &DevicePanel::deviceChosen, this, [this](int index) {
        m_devices->setOrdinal(index);
        m_view->update(); // the field reopens its context on the next frame
    });
    connect(m_launch, &LaunchPanel::changed, this, [this] {
        // An invalid launch leaves the last valid one in place; the panel says why.
        if (!m_launch->teachingChosen())
            m_view->setLesson(std::nullopt, m_launch->overlay());
        else if (const auto lesson = m_launch->lesson())
            m_view->setLesson(lesson, m_launch->overlay());
    });

    m_backendLabel->setObjectName("backendLabel");
    m_timeLabel->setObjectName("timeLabel");
    statusBar()->addPermanentWidget(m_meshLabel);
    statusBar()->addPermanentWidget(m_timeLabel);
    statusBar()->addPermanentWidget(m_backendLabel);
    m_backendLabel->setText(tr("Starting…"));

    m_committed = m_panel->params();
    m_view->setParams(m_committed);
    m_kernel->setMesh(m_committed);
    updatePrecisionHint(m_committed);

    connect(m_panel, &ParametersPanel::edited, this, &MainWindow::onEdited);
    connect(m_panel, &ParametersPanel::colormapChanged, m_view, &FieldView::setColormap);
    connect(m_panel, &ParametersPanel::selectedReferenceChanged, m_view,
            &FieldView::setSelectedReference);
    connect(m_view, &FieldView::referenceMoved, this, &MainWindow::onReferenceMoved);
    connect(m_view, &FieldView::referenceAdded, this, &MainWindow::onReferenceAdded);
    connect(m_view, &FieldView::hoverText, this, [this](const QString& text) {
        if (text.isEmpty())
            statusBar()->clearMessage();
        else
            statusBar()->showMessage(text);
    });
    connect(m_view, &FieldView::backendReady, this,
            [this](const QString& description, const QString& device) {
                m_backendLabel->setText(description);
                m_device->setDevice(m_view->deviceInfo());
                m_device->setDevices(gpu::cudaDeviceNames(), m_view->deviceInfo().ordinal);
                m_launch->setDevice(m_view->deviceInfo());
                m_backendLabel->setToolTip(tr("Backend device: %1").arg(device));
            });
    // The field starts its backend when first shown; until then, as when the app opens on the
    // periodogram, the panel describes the periodogram's device rather than stay empty.
    connect(m_periodogram, &PeriodogramWorkspace::deviceKnown, this,
            [this](const gpu::DeviceInfo& device) {
                if (m_device->value(tr("Device")).isEmpty())
                    m_device->setDevice(device);
            });
    connect(m_view, &FieldView::computeFailed, this, [this](const QString& message) {
        m_panel->showComputeError(message);
        statusBar()->showMessage(message, 10000);
    });
    connect(m_view, &FieldView::fieldShown, this, [this](const gpu::DistanceParams& p) {
        m_panel->showComputeError(QString());
        m_meshLabel->setText(
            tr("%1 x %2 %3").arg(p.nx).arg(p.ny).arg(gpu::precisionName(p.precision)));
        refreshStatus();
    });
    connect(m_view, &FieldView::resultReady, this, [this](const gpu::FieldResult& result) {
        const double ms = result.kernelMs;
        m_timeLabel->setText(tr("kernel %1 ms").arg(ms, 0, 'f', ms < 1 ? 3 : 1));
    });
    // GPU spans resolve once the device has finished them; gathered a few times a second.
    m_statusTimer.setInterval(250);
    connect(&m_statusTimer, &QTimer::timeout, this, &MainWindow::refreshStatus);
    m_statusTimer.start();
    // Each frame, periodogram and lab run frees what it allocated, but the C library keeps
    // freed pages in its per-thread arenas (one per pool thread that ever allocated), so
    // resident memory would creep up over hours although nothing is held. Handing them back
    // every half minute keeps what the system sees equal to what the app uses.
    m_trimTimer.setInterval(30000);
    connect(&m_trimTimer, &QTimer::timeout, this, [] { malloc_trim(0); });
    m_trimTimer.start();
    createMenus();
    resize(1400, 900);
}

MainWindow::~MainWindow() = default;

void MainWindow::createMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* shot = file->addAction(tr("Save &Screenshot…"), this, &MainWindow::saveScreenshot);
    shot->setShortcut(QKeySequence::Save);
    QAction* openSeries = file->addAction(tr("&Open Time Series…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open time series"), QString(),
            tr("Time series (*.csv *.tsv *.txt *.dat);;All files (*)"));
        if (path.isEmpty())
            return;
        showPeriodogram();
        m_periodogram->openFile(path);
    });
    openSeries->setShortcut(QKeySequence::Open);
    QAction* openSceneAction = file->addAction(tr("Open S&cene…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open scene"), QString(), tr("Warpscope scenes (*.json);;All files (*)"));
        if (path.isEmpty())
            return;
        if (const QString error = openScene(path); !error.isEmpty())
            QMessageBox::warning(this, tr("Open Scene"), error);
    });
    openSceneAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    QAction* saveSceneAction = file->addAction(tr("Save Sc&ene…"), this, [this] {
        const QString path =
            QFileDialog::getSaveFileName(this, tr("Save scene"), "scene.warpscope.json",
                                         tr("Warpscope scenes (*.json);;All files (*)"));
        if (path.isEmpty())
            return;
        if (const QString error = saveScene(path); !error.isEmpty())
            QMessageBox::warning(this, tr("Save Scene"), error);
        else
            statusBar()->showMessage(tr("Saved %1").arg(path), 5000);
    });
    saveSceneAction->setShortcut(QKeySequence::SaveAs);
    file->addAction(tr("Open &Kernel .cu…"), this, [this] {
        showKernel();
        m_kernel->askToOpen();
    });
    file->addAction(tr("Save Kernel as .c&u…"), this, [this] {
        showKernel();
        m_kernel->askToSave();
    });
    file->addAction(tr("Open &Batch Results…"), this, [this] {
        const QString path =
            QFileDialog::getOpenFileName(this, tr("Open batch results"), QString(),
                                         tr("warpscope-batch results (*.csv);;All files (*)"));
        if (path.isEmpty())
            return;
        if (const QString error = openBatchResults(path); !error.isEmpty())
            QMessageBox::warning(this, tr("Open Batch Results"), error);
    });
    file->addAction(tr("Export &Trace…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export trace"), "warpscope-trace.json", tr("Chrome trace (*.json)"));
        if (path.isEmpty())
            return;
        if (const QString error = m_timelinePanel->exportTrace(path); !error.isEmpty())
            QMessageBox::warning(this, tr("Export failed"), error);
        else
            statusBar()->showMessage(tr("Saved %1").arg(path), 5000);
    });
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    // Undo follows the workspace shown: the map's parameters or the periodogram's controls.
    auto* undoGroup = new QUndoGroup(this);
    m_undo->setUndoLimit(kUndoLimit);
    m_periodogram->undoStack()->setUndoLimit(kUndoLimit);
    undoGroup->addStack(m_undo);
    undoGroup->addStack(m_periodogram->undoStack());
    undoGroup->setActiveStack(m_undo);
    connect(m_workspaces, &QTabWidget::currentChanged, undoGroup, [this, undoGroup] {
        undoGroup->setActiveStack(periodogramShown() ? m_periodogram->undoStack() : m_undo);
    });
    QAction* undo = undoGroup->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = undoGroup->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addSeparator();
    edit->addAction(tr("Reset to &Defaults"), this,
                    [this] { commit(gpu::DistanceParams{}, -1, tr("Reset to defaults")); });

    QMenu* view = menuBar()->addMenu(tr("&View"));
    QAction* fit = view->addAction(tr("&Fit Mesh"), m_view, &FieldView::fitView);
    fit->setShortcut(Qt::Key_Home);
    QAction* zoomIn = view->addAction(tr("Zoom &In"), m_view, [this] { m_view->zoomBy(1.25); });
    zoomIn->setShortcut(QKeySequence::ZoomIn);
    QAction* zoomOut = view->addAction(tr("Zoom &Out"), m_view, [this] { m_view->zoomBy(0.8); });
    zoomOut->setShortcut(QKeySequence::ZoomOut);
    view->addSeparator();
    for (const char* name : kDocks)
        if (auto* dock = findChild<QDockWidget*>(name))
            view->addAction(dock->toggleViewAction());
    if (auto* dock = findChild<QDockWidget*>("timelineDock"))
        dock->toggleViewAction()->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T));

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Warpscope"), this, [this] {
        QMessageBox::about(
            this, tr("About Warpscope"),
            tr("<b>Warpscope %1</b><p>Interactive GPU kernel explorer: distance "
               "fields computed by CUDA straight into OpenGL.</p><p>Backend: %2</p>")
                .arg(QApplication::applicationVersion(), m_view->backendDescription()));
    });
}

void MainWindow::showPeriodogram(bool show)
{
    m_workspaces->setCurrentWidget(show ? static_cast<QWidget*>(m_periodogram) : m_view);
}

bool MainWindow::periodogramShown() const
{
    return m_workspaces->currentWidget() == m_periodogram;
}

void MainWindow::showKernel()
{
    m_workspaces->setCurrentWidget(m_kernel);
}

bool MainWindow::kernelShown() const
{
    return m_workspaces->currentWidget() == m_kernel;
}

SweepDialog* MainWindow::startSweep()
{
    auto* dialog = new SweepDialog(m_committed, m_devices, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
    dialog->start();
    return dialog;
}

void MainWindow::switchDocks(int to)
{
    if (to < 0 || to >= int(m_docksShown.size()) || to == m_docksTab)
        return;
    for (const char* name : kDocks)
        if (auto* dock = findChild<QDockWidget*>(name))
            m_docksShown[std::size_t(m_docksTab)][name] = dock->toggleViewAction()->isChecked();
    m_docksTab = to;
    // The field's docks stay as they are until a person changes them on the field's tab; the
    // periodogram shows its plots alone until a person shows a dock there.
    const QMap<QString, bool>& shown = m_docksShown[std::size_t(to)];
    for (const char* name : kDocks)
        if (auto* dock = findChild<QDockWidget*>(name))
            if (shown.contains(name) || to == 1)
                dock->setVisible(shown.value(name, false));
}

void MainWindow::showDevicePanel()
{
    if (auto* dock = findChild<QDockWidget*>("deviceDock")) {
        dock->show();
        dock->raise();
    }
}

void MainWindow::showStreamsLab()
{
    if (auto* dock = findChild<QDockWidget*>("streamsLabDock")) {
        dock->show();
        dock->raise();
    }
}

void MainWindow::showLaunchPanel()
{
    if (auto* dock = findChild<QDockWidget*>("launchDock")) {
        dock->show();
        dock->raise();
    }
}

void MainWindow::setParams(const gpu::DistanceParams& params)
{
    m_launch->setMeshSize(params.nx, params.ny);
    m_committed = params;
    m_panel->setParams(params);
    m_panel->showErrors(gpu::validate(params));
    m_view->setParams(params);
    m_kernel->setMesh(params);
    updatePrecisionHint(params);
}

void MainWindow::setColormap(const QString& name)
{
    m_panel->setColormap(name);
    m_view->setColormap(name);
}

void MainWindow::applyParams(const gpu::DistanceParams& params)
{
    m_launch->setMeshSize(params.nx, params.ny);
    m_committed = params;
    m_panel->setParams(params);
    m_panel->showErrors({});
    m_view->setParams(params);
    m_kernel->setMesh(params);
    updatePrecisionHint(params);
}

std::optional<scene::Scene> MainWindow::currentScene(QString* problem)
{
    scene::Scene s;
    s.field.params = m_committed; // the mesh shown; the panel may hold a value it refused
    s.field.colormap = m_view->colormapName();
    const auto lesson = m_launch->settings(problem);
    const auto periodogram = m_periodogram->currentScene(problem);
    if (!lesson || !periodogram)
        return std::nullopt;
    s.field.lesson = *lesson;
    s.periodogram = *periodogram;
    const auto lab = m_lab->config();
    if (!lab) {
        if (problem)
            *problem = tr("The streams lab: %1").arg(m_lab->resultText());
        return std::nullopt;
    }
    s.lab = scene::LabScene::from(*lab);
    s.kernel = m_kernel->currentScene();
    s.workspace = periodogramShown() ? scene::Workspace::Periodogram
                  : kernelShown()    ? scene::Workspace::Kernel
                                     : scene::Workspace::Field;
    return s;
}

void MainWindow::applyScene(const scene::Scene& s, const QString& file)
{
    setColormap(s.field.colormap);
    // The mesh first: a fitted launch grid fits the new mesh.
    if (s.field.params == m_committed)
        applyParams(s.field.params); // no step, but a value the panel refused goes
    else
        commit(s.field.params, -1, tr("Open scene"));
    m_launch->setSettings(s.field.lesson);
    m_periodogram->applyScene(s.periodogram, tr("Open scene"));
    m_lab->setConfig(s.lab.config());
    m_kernel->applyScene(s.kernel, file);
    if (s.workspace == scene::Workspace::Kernel)
        showKernel();
    else
        showPeriodogram(s.workspace == scene::Workspace::Periodogram);
}

QString MainWindow::saveScene(const QString& path)
{
    QString problem;
    const auto s = currentScene(&problem);
    if (!s)
        return tr("%1: not saved. %2").arg(path, problem);
    return scene::saveScene(*s, path);
}

QString MainWindow::openBatchResults(const QString& path)
{
    auto* dialog = findChild<BatchResultsDialog*>();
    if (!dialog) {
        dialog = new BatchResultsDialog(this);
        connect(
            dialog, &BatchResultsDialog::objectChosen, this,
            [this, dialog](const QString& id, const QString& lightCurve) {
                const std::optional<scene::BatchSource>& source = dialog->source();
                const bool table = source && source->table;
                const QString input = source ? QString::fromStdString(source->input) : QString();
                if (table && !QFileInfo(input).isFile()) {
                    statusBar()->showMessage(tr("%1: the batch's table %2 is missing or was moved")
                                                 .arg(id, QDir::toNativeSeparators(input)),
                                             10000);
                    return;
                }
                if (!table && lightCurve.isEmpty()) {
                    statusBar()->showMessage(
                        source ? tr("%1: its light curve is in neither %2 nor beside the "
                                    "results (moved?)")
                                     .arg(id, QDir::toNativeSeparators(input))
                               : tr("%1: its light curve is not a file beside the results").arg(id),
                        10000);
                    return;
                }
                showPeriodogram();
                // The batch's preparation and periodogram, so the object looks as it did
                // in the results (one undo step).
                if (source)
                    m_periodogram->applyScene(source->scene, tr("Batch settings"));
                if (table)
                    m_periodogram->openTableObject(input, source->columns, source->timeFormat, id);
                else
                    m_periodogram->openFile(lightCurve);
            });
    }
    if (const QString error = dialog->open(path); !error.isEmpty())
        return error;
    dialog->show();
    dialog->raise();
    return {};
}

QString MainWindow::openScene(const QString& path)
{
    const scene::SceneRead read = scene::loadScene(path);
    if (!read.scene)
        return read.error;
    // The scene checks the name's form; only the renderer knows its colormaps.
    if (!render::loadColormap(read.scene->field.colormap.toStdString()))
        return tr("%1: field.colormap: unknown colormap '%2'")
            .arg(path, read.scene->field.colormap);
    applyScene(*read.scene, path);
    statusBar()->showMessage(read.warnings.isEmpty()
                                 ? tr("Opened %1").arg(path)
                                 : tr("Opened %1; %2").arg(path, read.warnings.join("; ")),
                             10000);
    return {};
}

void MainWindow::commit(const gpu::DistanceParams& params, int mergeId, const QString& text)
{
    if (params == m_committed)
        return;
    m_undo->push(new ParamsCommand(this, m_committed, params, mergeId, text));
}

void MainWindow::onEdited(gpu::ParamField field)
{
    const gpu::DistanceParams p = m_panel->params();
    const auto errors = gpu::validate(p);
    m_panel->showErrors(errors);
    if (errors.empty())
        commit(p, int(field), tr("Change %1").arg(fieldName(field)));
}

void MainWindow::onReferenceMoved(int index, gpu::GeoPoint point, bool finished)
{
    gpu::DistanceParams p = m_committed;
    if (index < 0 || index >= int(p.references.size()))
        return;
    point.lat = std::clamp(point.lat, -90.0, 90.0);
    point.lon = std::clamp(point.lon, -180.0, 360.0);
    p.references[index] = point;
    // One drag is one undo step: its moves share an id, and the next drag gets a new one.
    commit(p, kMarkerDragControl + m_dragSerial * gpu::kMaxReferencePoints + index,
           tr("Move reference point %1").arg(index + 1));
    if (finished)
        m_dragSerial = (m_dragSerial + 1) % 1000;
}

void MainWindow::onReferenceAdded(gpu::GeoPoint point)
{
    gpu::DistanceParams p = m_committed;
    if (int(p.references.size()) >= gpu::kMaxReferencePoints) {
        statusBar()->showMessage(
            tr("At most %1 reference points are supported").arg(gpu::kMaxReferencePoints), 5000);
        return;
    }
    p.references.push_back(point);
    commit(p, int(gpu::ParamField::References), tr("Add reference point"));
    m_panel->selectReference(int(p.references.size()) - 1);
}

void MainWindow::updatePrecisionHint(const gpu::DistanceParams& params)
{
    if (params.precision != gpu::Precision::Float32) {
        m_panel->setPrecisionHint(QString());
        return;
    }
    const gpu::PrecisionEstimate e = gpu::estimateFloat32Error(params);
    // It matters once float32's error reaches a quarter of a cell.
    if (e.maxFloat32Error > 0.25 * e.cellSize) {
        const char* unit = gpu::unitSymbol(params.unit);
        m_panel->setPrecisionHint(
            tr("float32 is off by up to %1 %2 on this mesh, %3 of a cell (%4 %2). "
               "Choose float64 for exact values.")
                .arg(e.maxFloat32Error, 0, 'g', 3)
                .arg(unit)
                .arg(e.maxFloat32Error >= e.cellSize ? tr("more than the size")
                                                     : tr("a large part"))
                .arg(e.cellSize, 0, 'g', 3));
    } else {
        m_panel->setPrecisionHint(QString());
    }
}

void MainWindow::refreshStatus()
{
    if (const QString problem = m_view->collectTimeline(); !problem.isEmpty())
        m_timelinePanel->setProblem(problem);
    // With several GPUs the parts of the app may compute on different ones: say which.
    const QString where = QString::fromStdString(m_devices->summary());
    if (where == m_where)
        return;
    m_where = where;
    m_backendLabel->setToolTip(where);
    m_device->setUse(where);
    if (m_multiGpu && !where.isEmpty())
        m_backendLabel->setText(where);
}

void MainWindow::saveScreenshot()
{
    QSettings settings;
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save Screenshot"), settings.value("lastScreenshot", "warpscope.png").toString(),
        tr("PNG images (*.png)"));
    if (path.isEmpty())
        return;
    if (!grab().save(path, "PNG")) {
        QMessageBox::warning(this, tr("Save Screenshot"), tr("Could not write %1").arg(path));
        return;
    }
    settings.setValue("lastScreenshot", path);
    statusBar()->showMessage(tr("Saved %1").arg(path), 5000);
}

QString MainWindow::restoreSettings()
{
    {
        QSettings shared;
        m_lab->restoreSettings(shared);
        m_periodogram->restoreSettings(shared);
        m_timelinePanel->setKeptFrames(shared.value("timeline/keptFrames", 120).toInt());
        m_timelinePanel->setCupti(shared.value("timeline/cupti", false).toBool());
    }
    QSettings s;
    restoreGeometry(s.value("window/geometry").toByteArray());
    restoreState(s.value("window/state").toByteArray());
    // The saved state has the docks of the tab shown at closing; each tab's own come back.
    for (std::size_t tab = 0; tab < m_docksShown.size(); ++tab)
        for (const char* name : kDocks) {
            const QString key = QString("window/docks/%1/%2").arg(kTabKeys[tab], name);
            if (s.contains(key))
                m_docksShown[tab][name] = s.value(key).toBool();
        }
    const QMap<QString, bool>& shown = m_docksShown[std::size_t(m_docksTab)];
    for (const char* name : kDocks)
        if (auto* dock = findChild<QDockWidget*>(name); dock && shown.contains(name))
            dock->setVisible(shown.value(name));
    if (!s.contains("scene/latMin"))
        return {};
    gpu::DistanceParams p;
    p.latMin = s.value("scene/latMin", p.latMin).toDouble();
    p.latMax = s.value("scene/latMax", p.latMax).toDouble();
    p.lonMin = s.value("scene/lonMin", p.lonMin).toDouble();
    p.lonMax = s.value("scene/lonMax", p.lonMax).toDouble();
    p.nx = s.value("scene/nx", p.nx).toInt();
    p.ny = s.value("scene/ny", p.ny).toInt();
    p.precision = s.value("scene/precision").toString() == "float64" ? gpu::Precision::Float64
                                                                     : gpu::Precision::Float32;
    p.unit = gpu::DistanceUnit(std::clamp(s.value("scene/unit", 0).toInt(), 0, 2));
    p.radiusKm = s.value("scene/radiusKm", p.radiusKm).toDouble();
    const QVariantList refs = s.value("scene/references").toList();
    if (!refs.isEmpty()) {
        p.references.clear();
        for (const QVariant& r : refs) {
            const QStringList parts = r.toString().split(',');
            p.references.push_back({parts.value(0).toDouble(), parts.value(1).toDouble()});
        }
    }
    setColormap(s.value("scene/colormap", "viridis").toString());
    if (!gpu::validate(p).empty())
        return tr("The saved scene was not valid; the default scene is shown instead.");
    setParams(p);
    return {};
}

void MainWindow::saveSettings()
{
    {
        QSettings shared;
        m_lab->saveSettings(shared);
        m_periodogram->saveSettings(shared);
        shared.setValue("timeline/keptFrames", m_timeline->keptFrames());
        shared.setValue("timeline/cupti", m_timelinePanel->cupti());
    }
    QSettings s;
    s.setValue("window/geometry", saveGeometry());
    s.setValue("window/state", saveState());
    for (const char* name : kDocks)
        if (auto* dock = findChild<QDockWidget*>(name))
            m_docksShown[std::size_t(m_docksTab)][name] = dock->toggleViewAction()->isChecked();
    for (std::size_t tab = 0; tab < m_docksShown.size(); ++tab)
        for (auto it = m_docksShown[tab].cbegin(); it != m_docksShown[tab].cend(); ++it)
            s.setValue(QString("window/docks/%1/%2").arg(kTabKeys[tab], it.key()), it.value());
    const gpu::DistanceParams& p = m_committed;
    s.setValue("scene/latMin", p.latMin);
    s.setValue("scene/latMax", p.latMax);
    s.setValue("scene/lonMin", p.lonMin);
    s.setValue("scene/lonMax", p.lonMax);
    s.setValue("scene/nx", p.nx);
    s.setValue("scene/ny", p.ny);
    s.setValue("scene/precision", gpu::precisionName(p.precision));
    s.setValue("scene/unit", int(p.unit));
    s.setValue("scene/radiusKm", p.radiusKm);
    QVariantList refs;
    for (const gpu::GeoPoint& r : p.references)
        refs << QString("%1,%2").arg(r.lat, 0, 'g', 17).arg(r.lon, 0, 'g', 17);
    s.setValue("scene/references", refs);
    s.setValue("scene/colormap", m_view->colormapName());
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (m_options.useSettings)
        saveSettings();
    event->accept();
}

} // namespace warpscope::ui
