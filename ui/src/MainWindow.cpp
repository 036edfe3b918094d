#include "warpscope/ui/MainWindow.h"

#include "batch/BatchResultsWorkspace.h"
#include "common/GettingStartedDialog.h"
#include "lab/StreamsLabWorkspace.h"
#include "periodogram/PeriodogramWorkspaceAdapter.h"
#include "warpscope/render/Colormap.h"
#include "warpscope/scene/SceneFile.h"
#include "warpscope/ui/FieldView.h"
#include "warpscope/ui/FieldWorkspace.h"
#include "warpscope/ui/KernelWorkspace.h"
#include "warpscope/ui/TimelinePanel.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QSettings>
#include <QShowEvent>
#include <QStatusBar>
#include <QTabWidget>
#include <QUndoGroup>
#include <QUndoStack>
#include <algorithm>
#include <malloc.h>

namespace warpscope::ui {
namespace {

// Each step keeps its parameters or controls twice; without a limit, hours of changes grow
// memory by kilobytes a step.
constexpr int kUndoLimit = 1000;

// The first window is as large as a desktop monitor allows, but never larger than the screen it
// opens on, less room for the desktop's panels and the window's frame: at 1280x720 a fixed size
// would put the colour bar, the export buttons and the status bar off screen.
constexpr QSize kPreferredSize(1400, 900);
constexpr int kScreenMargin = 48;

QSize firstWindowSize(const QScreen* screen)
{
    if (!screen)
        return kPreferredSize;
    const QSize available = screen->availableGeometry().size();
    return kPreferredSize.boundedTo(available - QSize(kScreenMargin, kScreenMargin));
}

// Under this height (a laptop's screen) the timeline starts as its one-line header: a strip of
// lanes there had its legend cut and its lanes' names written over each other.
constexpr int kShortWindow = 800;
constexpr int kTimelineHeight = 300;

QString docksKey(const Workspace& workspace, const QString& dock)
{
    return QString("window/docks/%1/%2").arg(workspace.key(), dock);
}

} // namespace

template <class T, class... Args> T* MainWindow::add(Args&&... args)
{
    auto* workspace = new T(std::forward<Args>(args)...);
    addWorkspace(*workspace);
    return workspace;
}

MainWindow::MainWindow(const WindowOptions& options, QWidget* parent)
    : QMainWindow(parent), m_options(options), m_timeline(std::make_shared<gpu::Timeline>()),
      m_devices(std::make_shared<gpu::DevicePool>(options.backend, options.device, m_timeline)),
      m_timelinePanel(new TimelinePanel(m_timeline, this)), m_tabs(new QTabWidget(this)),
      m_undoGroup(new QUndoGroup(this))
{
    setWindowTitle(tr("Warpscope"));
    m_tabs->setObjectName("workspaces");
    m_tabs->setDocumentMode(true);
    setCentralWidget(m_tabs);
    createMenus();

    // The workspaces, in the order of their tabs, docks and actions.
    const WorkspaceServices services{m_devices, m_timeline, m_timelinePanel, this, this};
    m_field = add<FieldWorkspace>(services, !options.forceHostCopy);
    m_periodogram = add<PeriodogramWorkspaceAdapter>(services);
    m_kernel = add<KernelWorkspace>(services, *m_field);
    m_lab = add<StreamsLabWorkspace>(services);
    m_batch = add<BatchResultsWorkspace>(services, *m_periodogram);

    auto* timelineDock = new QDockWidget(tr("Timeline"), this);
    timelineDock->setObjectName("timelineDock");
    timelineDock->setWidget(m_timelinePanel);
    addDock({timelineDock, true});
    resize(firstWindowSize(screen()));
    // Opened, the lanes get the rows their names need, at most half the window.
    connect(m_timelinePanel, &TimelinePanel::lanesShownChanged, this,
            [this, timelineDock](bool on) {
                if (on) // once the layout has taken the panel's new limits
                    QTimer::singleShot(0, this, [this, timelineDock] {
                        resizeDocks({timelineDock},
                                    {std::min(m_timelinePanel->lanesHeight(), height() / 2)},
                                    Qt::Vertical);
                    });
            });
    // A short window's timeline collapses to its header when first shown (showEvent); settings
    // restored later replace this height.
    resizeDocks({timelineDock}, {kTimelineHeight}, Qt::Vertical);
    timelineDock->toggleViewAction()->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T));
    if (m_firstLeftDock)
        m_firstLeftDock->raise();
    connect(m_timelinePanel, &TimelinePanel::message, this,
            [this](const QString& text) { showMessage(text, 10000); });
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::onTabChanged);

    // Each frame, periodogram and lab run frees what it allocated, but the C library keeps
    // freed pages in its per-thread arenas (one per pool thread that ever allocated), so
    // resident memory would creep up over hours although nothing is held. Handing them back
    // every half minute keeps what the system sees equal to what the app uses.
    m_trimTimer.setInterval(30000);
    connect(&m_trimTimer, &QTimer::timeout, this, [] { malloc_trim(0); });
    m_trimTimer.start();
}

MainWindow::~MainWindow()
{
    // Pages go before the window's members do: their tabs' changes are no longer followed.
    disconnect(m_tabs, nullptr, this, nullptr);
}

void MainWindow::addWorkspace(Workspace& workspace)
{
    m_workspaces.push_back(&workspace);
    if (QWidget* page = workspace.page())
        m_tabs->addTab(page, workspace.title());
    for (const WorkspaceDock& place : workspace.docks())
        addDock(place);
    for (QWidget* widget : workspace.statusWidgets())
        statusBar()->addPermanentWidget(widget);
    workspace.addActions(m_menus);
    if (QUndoStack* steps = workspace.undoStack()) {
        steps->setUndoLimit(kUndoLimit);
        m_undoGroup->addStack(steps);
    }
    onTabChanged(m_tabs->currentIndex());
}

void MainWindow::addDock(const WorkspaceDock& place)
{
    QDockWidget* dock = place.dock;
    if (place.bottom) {
        addDockWidget(Qt::BottomDockWidgetArea, dock);
    } else {
        addDockWidget(Qt::LeftDockWidgetArea, dock);
        if (m_firstLeftDock)
            tabifyDockWidget(m_firstLeftDock, dock);
        else
            m_firstLeftDock = dock;
    }
    m_docks.push_back(dock);
    m_menus.view->addAction(dock->toggleViewAction());
}

void MainWindow::createMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* shot = file->addAction(tr("Save &Screenshot…"), this, &MainWindow::saveScreenshot);
    shot->setShortcut(QKeySequence::Save);
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
            showMessage(tr("Saved %1").arg(path), 5000);
    });
    saveSceneAction->setShortcut(QKeySequence::SaveAs);
    m_menus.file = file;
    m_menus.fileEnd = file->addAction(tr("Export &Trace…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export trace"), "warpscope-trace.json", tr("Chrome trace (*.json)"));
        if (path.isEmpty())
            return;
        if (const QString error = m_timelinePanel->exportTrace(path); !error.isEmpty())
            QMessageBox::warning(this, tr("Export failed"), error);
        else
            showMessage(tr("Saved %1").arg(path), 5000);
    });
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    // Undo follows the workspace shown (Workspace::undoStack).
    m_menus.edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = m_undoGroup->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = m_undoGroup->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    m_menus.edit->addAction(undo);
    m_menus.edit->addAction(redo);
    m_menus.edit->addSeparator();

    m_menus.view = menuBar()->addMenu(tr("&View"));
    m_menus.viewEnd = m_menus.view->addSeparator(); // the docks' toggles follow

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Getting Started…"), this, &MainWindow::showGettingStarted);
    help->addAction(tr("&About Warpscope"), this, [this] {
        QMessageBox::about(
            this, tr("About Warpscope"),
            tr("<b>Warpscope %1</b><p>Interactive GPU kernel explorer: distance "
               "fields computed by CUDA straight into OpenGL.</p><p>Backend: %2</p>")
                .arg(QApplication::applicationVersion(), fieldView()->backendDescription()));
    });
}

Workspace* MainWindow::shownWorkspace() const
{
    QWidget* page = m_tabs->currentWidget();
    for (Workspace* workspace : m_workspaces)
        if (page && workspace->page() == page)
            return workspace;
    return nullptr;
}

void MainWindow::onTabChanged(int)
{
    Workspace* shown = shownWorkspace();
    if (!shown)
        return;
    for (Workspace* workspace : m_workspaces) {
        // Only the page shown sets the window's smallest size: the periodogram's plots
        // would otherwise squeeze the field's timeline, and the field's panels the plots.
        if (QWidget* page = workspace->page())
            page->setSizePolicy(workspace == shown
                                    ? QSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred)
                                    : QSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored));
        // A workspace that states its own status has the status bar to itself while it is
        // shown, and keeps its status to itself; the others' is shared by the pages that do
        // not state their own.
        const bool shared = !shown->statesItsOwnStatus() && !workspace->statesItsOwnStatus();
        for (QWidget* widget : workspace->statusWidgets())
            widget->setVisible(workspace == shown || shared);
    }
    switchDocks(shown);
    // A workspace without undo steps of its own (the Kernel's, drawn on the field's mesh)
    // undoes the first registered workspace's.
    QUndoStack* steps = shown->undoStack();
    for (auto it = m_workspaces.begin(); !steps && it != m_workspaces.end(); ++it)
        steps = (*it)->undoStack();
    m_undoGroup->setActiveStack(steps);
}

void MainWindow::rememberDocks()
{
    for (QDockWidget* dock : m_docks)
        m_docksShown[m_docksOf->key()][dock->objectName()] = dock->toggleViewAction()->isChecked();
}

void MainWindow::switchDocks(Workspace* to)
{
    if (to == m_docksOf)
        return;
    if (!m_docksOf) { // the window's first page keeps the docks as they are
        m_docksOf = to;
        return;
    }
    rememberDocks();
    m_docksOf = to;
    // A page's docks stay as they are until a person changes them there; a page that starts
    // without docks shows itself alone until a person shows a dock there.
    const QMap<QString, bool> shown = m_docksShown.value(to->key());
    for (QDockWidget* dock : m_docks)
        if (shown.contains(dock->objectName()) || to->startsWithoutDocks())
            dock->setVisible(shown.value(dock->objectName(), false));
}

void MainWindow::showWorkspace(Workspace& workspace)
{
    if (QWidget* page = workspace.page()) {
        m_tabs->setCurrentWidget(page);
        return;
    }
    if (const QList<WorkspaceDock> docks = workspace.docks(); !docks.isEmpty()) {
        docks.front().dock->show();
        docks.front().dock->raise();
    }
}

void MainWindow::showMessage(const QString& text, int timeoutMs)
{
    if (text.isEmpty()) {
        statusBar()->clearMessage();
        return;
    }
    // The status bar cuts its message where the permanent labels start, mid-word and against
    // the first label's text: a long one (the streams lab's summary at 1280 px) ends in "…"
    // a gap short of them instead, and the whole of it is the bar's tooltip.
    statusBar()->setToolTip(text);
    statusBar()->showMessage(
        statusBar()->fontMetrics().elidedText(text, Qt::ElideRight, messageWidth()), timeoutMs);
}

int MainWindow::messageWidth()
{
    constexpr int kLeftMargin = 6, kGap = 16; // QStatusBar's margin; a gap before the labels
    int right = statusBar()->width();
    for (Workspace* workspace : m_workspaces)
        for (const QWidget* label : workspace->statusWidgets())
            if (label->isVisible())
                right = std::min(right, label->x());
    return right - kLeftMargin - kGap;
}

void MainWindow::announceDevice(const gpu::DeviceInfo& device)
{
    for (Workspace* workspace : m_workspaces)
        workspace->deviceKnown(device);
}

QString MainWindow::failureText() const
{
    const Workspace* shown = shownWorkspace();
    for (const Workspace* workspace : m_workspaces)
        if (QString failure = workspace->failure(workspace == shown); !failure.isEmpty())
            return failure;
    return {};
}

bool MainWindow::readyForPicture() const
{
    const Workspace* shown = shownWorkspace();
    return std::all_of(m_workspaces.begin(), m_workspaces.end(),
                       [shown](const Workspace* w) { return w->ready(w == shown); });
}

QPixmap MainWindow::picture()
{
    // A label given a new text asks for a new layout through a posted event; a picture taken
    // before it is handled showed the status bar's labels a few pixels wide.
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    return grab();
}

QString MainWindow::failureAfterPicture() const
{
    const Workspace* shown = shownWorkspace();
    for (const Workspace* workspace : m_workspaces)
        if (QString failure = workspace->failureAfterPicture(workspace == shown);
            !failure.isEmpty())
            return failure;
    return {};
}

FieldView* MainWindow::fieldView() const
{
    return m_field->view();
}

ParametersPanel* MainWindow::parametersPanel() const
{
    return m_field->parametersPanel();
}

DevicePanel* MainWindow::devicePanel() const
{
    return m_field->devicePanel();
}

LaunchPanel* MainWindow::launchPanel() const
{
    return m_field->launchPanel();
}

StreamsLabPanel* MainWindow::streamsLabPanel() const
{
    return m_lab->panel();
}

PeriodogramWorkspace* MainWindow::periodogramWorkspace() const
{
    return m_periodogram->periodogram();
}

QUndoStack* MainWindow::undoStack() const
{
    return m_field->parameterSteps();
}

void MainWindow::showPeriodogram(bool show)
{
    if (show)
        showWorkspace(*m_periodogram);
    else
        showWorkspace(*m_field);
}

bool MainWindow::periodogramShown() const
{
    return shownWorkspace() == m_periodogram;
}

void MainWindow::showKernel()
{
    showWorkspace(*m_kernel);
}

bool MainWindow::kernelShown() const
{
    return shownWorkspace() == m_kernel;
}

SweepDialog* MainWindow::startSweep()
{
    return m_field->startSweep();
}

void MainWindow::showDock(const char* name)
{
    if (auto* dock = findChild<QDockWidget*>(name)) {
        dock->show();
        dock->raise();
    }
}

void MainWindow::showDevicePanel()
{
    showDock("deviceDock");
}

void MainWindow::showStreamsLab()
{
    showWorkspace(*m_lab);
}

void MainWindow::showLaunchPanel()
{
    showDock("launchDock");
}

void MainWindow::setParams(const gpu::DistanceParams& params)
{
    m_field->setParams(params);
}

void MainWindow::setColormap(const QString& name)
{
    m_field->setColormap(name);
}

void MainWindow::applyParams(const gpu::DistanceParams& params)
{
    m_field->applyParams(params);
}

std::optional<scene::Scene> MainWindow::currentScene(QString* problem)
{
    scene::Scene s;
    for (Workspace* workspace : m_workspaces)
        if (!workspace->writeScene(s, problem))
            return std::nullopt;
    const Workspace* shown = shownWorkspace();
    s.workspace =
        shown ? shown->sceneName().value_or(scene::Workspace::Field) : scene::Workspace::Field;
    return s;
}

void MainWindow::applyScene(const scene::Scene& s, const QString& file)
{
    for (Workspace* workspace : m_workspaces)
        workspace->readScene(s, file);
    for (Workspace* workspace : m_workspaces)
        if (workspace->sceneName() == s.workspace)
            showWorkspace(*workspace);
}

QString MainWindow::saveScene(const QString& path)
{
    QString problem;
    const auto s = currentScene(&problem);
    if (!s)
        return tr("%1: not saved. %2").arg(path, problem);
    return scene::saveScene(*s, path);
}

void MainWindow::showGettingStarted()
{
    auto* dialog = new GettingStartedDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &GettingStartedDialog::chosen, this, [this](scene::StartingPath path) {
        applyScene(scene::startingScene(path), QString());
    });
    dialog->open();
}

void MainWindow::offerGettingStarted()
{
    if (GettingStartedDialog::showAtStart())
        showGettingStarted();
}

QString MainWindow::openBatchResults(const QString& path)
{
    return m_batch->openResults(path);
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
    showMessage(read.warnings.isEmpty() ? tr("Opened %1").arg(path)
                                        : tr("Opened %1; %2").arg(path, read.warnings.join("; ")),
                10000);
    return {};
}

void MainWindow::saveScreenshot()
{
    QSettings settings;
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save Screenshot"), settings.value("lastScreenshot", "warpscope.png").toString(),
        tr("PNG images (*.png)"));
    if (path.isEmpty())
        return;
    if (!picture().save(path, "PNG")) {
        QMessageBox::warning(this, tr("Save Screenshot"), tr("Could not write %1").arg(path));
        return;
    }
    settings.setValue("lastScreenshot", path);
    showMessage(tr("Saved %1").arg(path), 5000);
}

void MainWindow::restoreDocks(const QSettings& s)
{
    // The saved state has the docks of the page shown at closing; each page's own come back.
    for (const Workspace* workspace : m_workspaces)
        for (const QDockWidget* dock : m_docks)
            if (const QString key = docksKey(*workspace, dock->objectName()); s.contains(key))
                m_docksShown[workspace->key()][dock->objectName()] = s.value(key).toBool();
    if (!m_docksOf)
        return;
    const QMap<QString, bool> shown = m_docksShown.value(m_docksOf->key());
    for (QDockWidget* dock : m_docks)
        if (shown.contains(dock->objectName()))
            dock->setVisible(shown.value(dock->objectName()));
}

void MainWindow::saveDocks(QSettings& s)
{
    if (m_docksOf)
        rememberDocks();
    for (const Workspace* workspace : m_workspaces) {
        const QMap<QString, bool> shown = m_docksShown.value(workspace->key());
        for (auto it = shown.cbegin(); it != shown.cend(); ++it)
            s.setValue(docksKey(*workspace, it.key()), it.value());
    }
}

QString MainWindow::restoreSettings()
{
    QSettings s;
    m_timelinePanel->setKeptFrames(s.value("timeline/keptFrames", 120).toInt());
    m_timelinePanel->setCupti(s.value("timeline/cupti", false).toBool());
    restoreGeometry(s.value("window/geometry").toByteArray());
    restoreState(s.value("window/state").toByteArray());
    restoreDocks(s);
    QString notice;
    for (Workspace* workspace : m_workspaces)
        if (QString problem = workspace->restoreSettings(s); notice.isEmpty())
            notice = problem;
    return notice;
}

void MainWindow::saveSettings()
{
    QSettings s;
    s.setValue("timeline/keptFrames", m_timeline->keptFrames());
    s.setValue("timeline/cupti", m_timelinePanel->cupti());
    s.setValue("window/geometry", saveGeometry());
    s.setValue("window/state", saveState());
    saveDocks(s);
    for (Workspace* workspace : m_workspaces)
        workspace->saveSettings(s);
}

void MainWindow::showEvent(QShowEvent* event)
{
    // Decided from the size the window opens at, once the command line's --size, the saved
    // geometry or the screen's limit has set it: in the constructor it was not known yet.
    if (!m_firstShown && height() < kShortWindow)
        m_timelinePanel->setLanesShown(false);
    m_firstShown = true;
    QMainWindow::showEvent(event);
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (m_options.useSettings)
        saveSettings();
    event->accept();
}

} // namespace warpscope::ui
