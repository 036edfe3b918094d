#pragma once

#include "warpscope/gpu/DevicePool.h"
#include "warpscope/gpu/DistanceParams.h"
#include "warpscope/scene/Scene.h"
#include "warpscope/ui/Workspace.h"

#include <QMainWindow>
#include <QMap>
#include <QPixmap>
#include <QTimer>
#include <optional>
#include <vector>

class QDockWidget;
class QTabWidget;
class QUndoGroup;
class QUndoStack;

namespace warpscope::ui {

class BatchResultsWorkspace;
class DevicePanel;
class FieldView;
class FieldWorkspace;
class KernelWorkspace;
class LaunchPanel;
class ParametersPanel;
class PeriodogramWorkspace;
class PeriodogramWorkspaceAdapter;
class StreamsLabPanel;
class StreamsLabWorkspace;
class SweepDialog;
class TimelinePanel;

struct WindowOptions
{
    gpu::BackendKind backend = gpu::BackendKind::Auto;
    bool forceHostCopy = false;
    int device = -1;         // a CUDA device index; -1: the one OpenGL runs on
    bool useSettings = true; // restore and save parameters and layout between runs
};

class MainWindow : public QMainWindow, public WorkspaceHost
{
    Q_OBJECT

public:
    explicit MainWindow(const WindowOptions& options, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Registers a workspace: its page becomes a tab, its docks, status widgets and actions
    // join the window's, and it takes part in scenes, settings and the command line. The
    // workspace's QObject (or its page) must be a child of the window.
    void addWorkspace(Workspace& workspace);
    const std::vector<Workspace*>& workspaces() const { return m_workspaces; }
    // The workspace whose page is shown.
    Workspace* shownWorkspace() const;

    // Starting parameters, before any saved settings are applied on top by restoreSettings().
    void setParams(const gpu::DistanceParams& params);
    void setColormap(const QString& name);
    // Loads the remembered scene and layout. Returns a message when the saved values were
    // unusable.
    QString restoreSettings();

    FieldWorkspace* fieldWorkspace() const { return m_field; }
    FieldView* fieldView() const;
    ParametersPanel* parametersPanel() const;
    DevicePanel* devicePanel() const;
    LaunchPanel* launchPanel() const;
    TimelinePanel* timelinePanel() const { return m_timelinePanel; }
    StreamsLabPanel* streamsLabPanel() const;
    PeriodogramWorkspace* periodogramWorkspace() const;
    // Brings the periodogram workspace (or the distance field) to the front.
    void showPeriodogram(bool show = true);
    bool periodogramShown() const;
    KernelWorkspace* kernelWorkspace() const { return m_kernel; }
    void showKernel();
    bool kernelShown() const;
    const std::shared_ptr<gpu::Timeline>& timeline() const { return m_timeline; }
    // The device policy every workspace computes through.
    const std::shared_ptr<gpu::DevicePool>& devicePool() const { return m_devices; }
    // Shows the Launch dock and brings it to the front.
    void showLaunchPanel();
    void showStreamsLab();
    void showDevicePanel();
    // Opens the block-size sweep on the current mesh and starts it.
    SweepDialog* startSweep();
    // The field's parameter steps.
    QUndoStack* undoStack() const;

    // Applies parameters to the panel and the view; used by undo and redo.
    void applyParams(const gpu::DistanceParams& params);

    // What every workspace shows; std::nullopt, with the reason in problem, while a field
    // holds text that is not a number.
    std::optional<scene::Scene> currentScene(QString* problem = nullptr);
    // Sets every workspace to a scene: the field's mesh and the periodogram's controls as
    // one undo step each. The kernel of another than the examples waits for the person's word
    // (KernelWorkspace::applyScene), in a bar that names the scene's file.
    void applyScene(const scene::Scene& scene, const QString& file);
    // Scene files, without the dialogs of File > Save Scene… and Open Scene…. Each returns
    // an error message naming the file, or an empty string.
    QString saveScene(const QString& path);
    QString openScene(const QString& path);
    // Help > Getting started: three ways into the app, each opening a ready scene. offer shows
    // it only when the settings have not turned it off (the welcome at start).
    void showGettingStarted();
    void offerGettingStarted();
    // Shows a warpscope-batch results table (File > Open Batch Results); choosing an object
    // there opens its light curve on the periodogram, where its file is known. Returns an
    // error message, or an empty string.
    QString openBatchResults(const QString& path);

    // The command line's --screenshot, from every workspace (Workspace::failure, ready and
    // failureAfterPicture): why it cannot succeed, whether the picture is ready, and why it
    // failed once taken.
    QString failureText() const;
    bool readyForPicture() const;
    // The window as it is drawn now, its widgets laid out for the texts they were last given
    // (the status bar's labels among them), for --screenshot and Save Screenshot.
    QPixmap picture();
    QString failureAfterPicture() const;

    void showWorkspace(Workspace& workspace) override;
    void showMessage(const QString& text, int timeoutMs = 0) override;
    void announceDevice(const gpu::DeviceInfo& device) override;

protected:
    void showEvent(QShowEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

private:
    // Makes a workspace and registers it: one line each.
    template <class T, class... Args> T* add(Args&&... args);
    void createMenus();
    void addDock(const WorkspaceDock& place);
    void showDock(const char* name);
    // The status bar's room for a message, left of the labels shown.
    int messageWidth();
    void onTabChanged(int index);
    void saveScreenshot();
    void saveSettings();
    void restoreDocks(const QSettings& settings);
    void saveDocks(QSettings& settings);
    // Each workspace's page has its own docks: those shown on the page left are remembered
    // for it, and the page shown gets back its own (at first none where it starts without).
    void switchDocks(Workspace* to);
    void rememberDocks();
    // Whether each dock is shown, by object name, as a person left them on each page, by
    // the workspace's key.
    QMap<QString, QMap<QString, bool>> m_docksShown;
    Workspace* m_docksOf = nullptr; // the workspace whose docks are shown

    WindowOptions m_options;
    std::shared_ptr<gpu::Timeline> m_timeline;
    std::shared_ptr<gpu::DevicePool> m_devices;
    TimelinePanel* m_timelinePanel;
    QTabWidget* m_tabs;
    QUndoGroup* m_undoGroup;
    WorkspaceMenus m_menus;
    std::vector<Workspace*> m_workspaces;
    std::vector<QDockWidget*> m_docks; // in the order they were added
    QDockWidget* m_firstLeftDock = nullptr;
    FieldWorkspace* m_field;
    PeriodogramWorkspaceAdapter* m_periodogram;
    KernelWorkspace* m_kernel;
    StreamsLabWorkspace* m_lab;
    BatchResultsWorkspace* m_batch;
    QTimer m_trimTimer;
    bool m_firstShown = false; // the timeline's first height is decided at the first show
};

} // namespace warpscope::ui
