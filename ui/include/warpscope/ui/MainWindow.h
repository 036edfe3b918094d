#pragma once

#include "warpscope/gpu/DevicePool.h"
#include "warpscope/gpu/DistanceParams.h"
#include "warpscope/scene/Scene.h"

#include <QMainWindow>
#include <QMap>
#include <QTimer>
#include <array>
#include <optional>

class QLabel;
class QTabWidget;
class QUndoStack;

namespace warpscope::ui {

class DevicePanel;
class FieldView;
class KernelWorkspace;
class LaunchPanel;
class ParametersPanel;
class PeriodogramWorkspace;
class StreamsLabPanel;
class SweepDialog;
class TimelinePanel;

struct WindowOptions
{
    gpu::BackendKind backend = gpu::BackendKind::Auto;
    bool forceHostCopy = false;
    int device = -1;         // a CUDA device index; -1: the one OpenGL runs on
    bool useSettings = true; // restore and save parameters and layout between runs
};

class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    explicit MainWindow(const WindowOptions& options, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Starting parameters, before any saved settings are applied on top by restoreSettings().
    void setParams(const gpu::DistanceParams& params);
    void setColormap(const QString& name);
    // Loads the remembered scene. Returns a message when the saved values were unusable.
    QString restoreSettings();

    FieldView* fieldView() const { return m_view; }
    ParametersPanel* parametersPanel() const { return m_panel; }
    DevicePanel* devicePanel() const { return m_device; }
    LaunchPanel* launchPanel() const { return m_launch; }
    TimelinePanel* timelinePanel() const { return m_timelinePanel; }
    StreamsLabPanel* streamsLabPanel() const { return m_lab; }
    PeriodogramWorkspace* periodogramWorkspace() const { return m_periodogram; }
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
    QUndoStack* undoStack() const { return m_undo; }

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
    // Shows a warpscope-batch results table (File > Open Batch Results); choosing an object
    // there opens its light curve on the periodogram, where its file is known. Returns an
    // error message, or an empty string.
    QString openBatchResults(const QString& path);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void onEdited(gpu::ParamField field);
    void onReferenceMoved(int index, gpu::GeoPoint point, bool finished);
    void onReferenceAdded(gpu::GeoPoint point);
    // Records a change for undo; changes with the same mergeId in a row merge into one step.
    void commit(const gpu::DistanceParams& params, int mergeId, const QString& text);
    void updatePrecisionHint(const gpu::DistanceParams& params);
    void refreshStatus();
    void saveScreenshot();
    void saveSettings();
    void createMenus();
    // Each workspace has its own docks: those shown on the tab left are remembered for it, and
    // the tab shown gets back its own (on the periodogram, none at first: its plots need room).
    void switchDocks(int to);
    // Whether each dock is shown, by object name, as a person left them on each tab.
    std::array<QMap<QString, bool>, 2> m_docksShown;
    int m_docksTab = 0; // the tab whose docks are shown

    WindowOptions m_options;
    std::shared_ptr<gpu::Timeline> m_timeline;
    std::shared_ptr<gpu::DevicePool> m_devices;
    bool m_multiGpu; // the status bar then says which GPU computes what
    FieldView* m_view;
    ParametersPanel* m_panel;
    DevicePanel* m_device;
    LaunchPanel* m_launch;
    TimelinePanel* m_timelinePanel;
    StreamsLabPanel* m_lab;
    PeriodogramWorkspace* m_periodogram;
    KernelWorkspace* m_kernel;
    QTabWidget* m_workspaces;
    QUndoStack* m_undo;
    QLabel* m_backendLabel;
    QLabel* m_meshLabel;
    QLabel* m_timeLabel;
    QTimer m_statusTimer;
    QString m_where; // who computes where, as last shown
    QTimer m_trimTimer;
    gpu::DistanceParams m_committed;
    int m_dragSerial = 0;
};

} // namespace warpscope::ui
