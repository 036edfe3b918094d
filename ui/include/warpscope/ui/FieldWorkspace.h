#pragma once

#include "warpscope/gpu/DistanceParams.h"
#include "warpscope/ui/Workspace.h"

#include <QObject>
#include <QTimer>

class QLabel;
class QUndoStack;

namespace warpscope::ui {

class DevicePanel;
class FieldView;
class LaunchPanel;
class ParametersPanel;
class SweepDialog;

// The distance field's controller: its view (the page), the Parameters, Device and Launch
// docks, the undo steps of its parameters, its status (mesh, kernel time, backend) and its
// settings. Controls and marker drags are validated here and become undo steps whose redo
// hands the parameters to the panel and the view.
class FieldWorkspace : public QObject, public Workspace
{
    Q_OBJECT

public:
    FieldWorkspace(const WorkspaceServices& services, bool allowInterop);
    ~FieldWorkspace() override;

    FieldView* view() const { return m_view; }
    ParametersPanel* parametersPanel() const { return m_panel; }
    DevicePanel* devicePanel() const { return m_device; }
    LaunchPanel* launchPanel() const { return m_launch; }
    QUndoStack* parameterSteps() const { return m_undo; }
    // The mesh shown; the panel may hold a value it refused.
    const gpu::DistanceParams& params() const { return m_committed; }

    // Starting parameters, with their errors shown; no undo step.
    void setParams(const gpu::DistanceParams& params);
    void setColormap(const QString& name);
    // Applies parameters to the panel and the view; used by undo and redo.
    void applyParams(const gpu::DistanceParams& params);
    // Opens the block-size sweep on the current mesh and starts it.
    SweepDialog* startSweep();

    QString key() const override { return "field"; }
    QString title() const override;
    QWidget* page() override;
    QList<WorkspaceDock> docks() override;
    QList<QWidget*> statusWidgets() override;
    void addActions(const WorkspaceMenus& menus) override;
    QUndoStack* undoStack() override { return m_undo; }
    bool writeScene(scene::Scene& scene, QString* problem) override;
    void readScene(const scene::Scene& scene, const QString& file) override;
    std::optional<scene::Workspace> sceneName() const override { return scene::Workspace::Field; }
    QString restoreSettings(const QSettings& settings) override;
    void saveSettings(QSettings& settings) override;
    QString failure(bool shown) const override;
    bool ready(bool shown) const override;
    void deviceKnown(const gpu::DeviceInfo& device) override;

signals:
    // The mesh shown changed (the Kernel workspace draws on it).
    void meshChanged(const gpu::DistanceParams& params);

private:
    QDockWidget* makeDock(const QString& title, const char* name, QWidget* content);
    void connectView();
    void connectPanels();
    void onEdited(gpu::ParamField field);
    void onReferenceMoved(int index, gpu::GeoPoint point, bool finished);
    void onReferenceAdded(gpu::GeoPoint point);
    // Records a change for undo; changes with the same mergeId in a row merge into one step.
    void commit(const gpu::DistanceParams& params, int mergeId, const QString& text);
    void updatePrecisionHint(const gpu::DistanceParams& params);
    void refreshStatus();

    WorkspaceServices m_services;
    bool m_multiGpu; // the status bar then says which GPU computes what
    FieldView* m_view;
    ParametersPanel* m_panel;
    DevicePanel* m_device;
    LaunchPanel* m_launch;
    QUndoStack* m_undo;
    QLabel* m_backendLabel;
    QLabel* m_meshLabel;
    QLabel* m_timeLabel;
    QList<WorkspaceDock> m_docks;
    QTimer m_statusTimer;
    QString m_where; // who computes where, as last shown
    gpu::DistanceParams m_committed;
    int m_dragSerial = 0;
};

} // namespace warpscope::ui
