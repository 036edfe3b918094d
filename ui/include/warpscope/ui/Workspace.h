#pragma once

#include "warpscope/gpu/DevicePool.h"
#include "warpscope/gpu/Timeline.h"
#include "warpscope/scene/Scene.h"

#include <QList>
#include <QString>
#include <optional>

class QAction;
class QDockWidget;
class QMenu;
class QSettings;
class QUndoStack;
class QWidget;

namespace warpscope::ui {

class TimelinePanel;
class Workspace;

// What the main window does for its workspaces.
class WorkspaceHost
{
public:
    virtual ~WorkspaceHost() = default;
    // Brings the workspace's page (or its first dock) to the front.
    virtual void showWorkspace(Workspace& workspace) = 0;
    // The status bar's message; an empty text clears it, a timeout of 0 keeps it.
    virtual void showMessage(const QString& text, int timeoutMs = 0) = 0;
    // A device a workspace computes on, passed to every workspace (deviceKnown).
    virtual void announceDevice(const gpu::DeviceInfo& device) = 0;
};

// What every workspace shares: the device policy, the timeline and its panel, the window.
struct WorkspaceServices
{
    std::shared_ptr<gpu::DevicePool> devices;
    std::shared_ptr<gpu::Timeline> timeline;
    TimelinePanel* timelinePanel = nullptr;
    WorkspaceHost* host = nullptr;
    QWidget* window = nullptr; // the parent of docks and dialogs
};

// A dock a workspace brings, and where it first goes.
struct WorkspaceDock
{
    QDockWidget* dock = nullptr;
    bool bottom = false; // left, tabbed with the other left docks, unless at the bottom
};

// The main window's menus. A workspace's actions go before the window's own closing ones
// (File's Export Trace and Quit, View's dock toggles).
struct WorkspaceMenus
{
    QMenu* file = nullptr;
    QAction* fileEnd = nullptr;
    QMenu* edit = nullptr;
    QMenu* view = nullptr;
    QAction* viewEnd = nullptr;

    QAction* addFileAction(const QString& text) const;
    QAction* addEditAction(const QString& text) const;
    QAction* addViewAction(const QString& text) const;
};

// One workspace of the main window: a page of its own (a tab) and/or docks, its section of
// the scene, its actions, its settings, its status and its readiness for the command line.
// The window iterates the workspaces it registered and never knows which is which; adding
// one is its folder and one registration line (MainWindow::addWorkspace).
class Workspace
{
public:
    virtual ~Workspace() = default;

    // Its name in the settings ("field"); unique.
    virtual QString key() const = 0;
    // Its tab's title and page; a workspace of docks alone (the streams lab) has none.
    virtual QString title() const { return {}; }
    virtual QWidget* page() { return nullptr; }
    virtual QList<WorkspaceDock> docks() { return {}; }
    // Whether its page is first shown with no dock: its plots need the room.
    virtual bool startsWithoutDocks() const { return false; }
    // Its permanent widgets in the status bar.
    virtual QList<QWidget*> statusWidgets() { return {}; }
    // Whether it states its own status on its page: the others' status widgets then step
    // aside while it is shown.
    virtual bool statesItsOwnStatus() const { return false; }
    virtual void addActions(const WorkspaceMenus& /*menus*/) {}
    // Its undo steps; a workspace with none undoes the first registered workspace's.
    virtual QUndoStack* undoStack() { return nullptr; }

    // Its section of a scene: written into scene (false, with the reason in problem, while a
    // control holds something unusable), and set from one; file names where the scene came
    // from, for what needs the person's word.
    virtual bool writeScene(scene::Scene& scene, QString* problem) = 0;
    virtual void readScene(const scene::Scene& scene, const QString& file) = 0;
    // The scene's name for its page shown, if it has one.
    virtual std::optional<scene::Workspace> sceneName() const { return std::nullopt; }

    // Settings between runs. restoreSettings returns a message when the saved values were
    // unusable.
    virtual QString restoreSettings(const QSettings& settings) = 0;
    virtual void saveSettings(QSettings& settings) = 0;

    // The command line's --screenshot: why it cannot succeed (shown says whether this
    // workspace's page is the one shown), whether the picture is ready, and why it failed
    // once the picture is taken. Empty strings when all is well.
    virtual QString failure(bool /*shown*/) const { return {}; }
    virtual bool ready(bool /*shown*/) const { return true; }
    virtual QString failureAfterPicture(bool /*shown*/) const { return {}; }

    // A device another workspace computes on.
    virtual void deviceKnown(const gpu::DeviceInfo& /*device*/) {}
};

} // namespace warpscope::ui
