#pragma once

#include "warpscope/gpu/DevicePool.h"
#include "warpscope/gpu/KernelVariants.h"
#include "warpscope/scene/KernelScene.h"
#include "warpscope/ui/KernelView.h"
#include "warpscope/ui/Workspace.h"

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QWidget>
#include <memory>
#include <optional>

class QComboBox;
class QFormLayout;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QTabWidget;
class QTimer;
class QsciScintilla;

namespace warpscope::ui {

class FieldWorkspace;
class KernelVariantsPanel;
class MemcheckRerun;
class MemoryPanel;
class NotesBox;

// The Kernel workspace: a code editor for the user's kernel beside the picture it draws.
// Templates and examples to start from; compiled on a worker thread a moment after typing
// stops, or at once with Ctrl+Enter, while the last good kernel keeps drawing; messages at
// their lines; a slider per @param; what the compiler did (resources, occupancy, PTX, SASS).
class KernelWorkspace : public QWidget, public Workspace
{
    Q_OBJECT

public:
    explicit KernelWorkspace(std::shared_ptr<gpu::DevicePool> devices, QWidget* parent = nullptr);
    // In the main window: its messages in the status bar, drawing on the field's mesh with
    // the field's Launch panel's block and grid.
    KernelWorkspace(const WorkspaceServices& services, FieldWorkspace& field);
    ~KernelWorkspace() override;

    void setMesh(const gpu::DistanceParams& mesh) { m_view->setMesh(mesh); }
    void setLaunch(const gpu::LaunchConfig& launch, bool gridFitted)
    {
        m_view->setLaunch(launch, gridFitted);
    }
    // The Launch panel's teaching overlay, drawn over what the user's kernel wrote.
    void setTeaching(bool teaching, render::Overlay overlay)
    {
        m_view->setTeaching(teaching, overlay);
    }
    // Replaces the editor's text with the example of this index (kernelExamples()).
    void chooseExample(int index);
    QString source() const;
    void setSource(const QString& code, gpu::KernelShape shape);
    // Saves the source as a .cu file, its first line naming its shape; an empty string or
    // why it failed.
    QString saveFile(const QString& path) const;
    // Opens a .cu file saved so (or any source: one with a __global__ function is a whole
    // kernel) and compiles it; an empty string or why it failed, naming the file.
    QString openFile(const QString& path);
    // The scene's kernel section: the source, its template, the sliders' values and the
    // options. applyScene restores them (values by name, once the source has compiled).
    // A source other than the examples came from whoever wrote the scene's file (named by
    // file): it is shown but neither compiled nor run until the person says so, in the bar
    // above the editor (Run), by editing it or by compiling it.
    scene::KernelScene currentScene() const;
    void applyScene(const scene::KernelScene& kernel, const QString& file);
    // Whether a scene's kernel waits for the person's word.
    bool awaitingConsent() const { return m_awaitingConsent; }
    // The NVRTC options, space-separated as typed; an empty string or why they were refused
    // (the last good options stay).
    QString setOptions(const QString& text);
    // File dialogs for openFile and saveFile (the buttons and the File menu).
    void askToOpen();
    void askToSave();
    // Compiles now (Ctrl+Enter, Compile, the bar's Run, --trust-kernel): the person's word
    // for a scene's kernel.
    void compileNow();
    bool busy() const { return m_building || m_again; }
    // Why the latest build failed (its first error), empty when it compiled.
    QString buildProblem() const { return m_buildProblem; }
    KernelView* view() const { return m_view; }
    KernelVariantsPanel* variants() const { return m_variants; }
    MemoryPanel* memory() const { return m_memory; }
    // The messages shown, one line each ("Line 4: ..."), for tests.
    QStringList messages() const;

    QString key() const override { return "kernel"; }
    QString title() const override;
    QWidget* page() override { return this; }
    void addActions(const WorkspaceMenus& menus) override;
    bool writeScene(scene::Scene& scene, QString* problem) override;
    void readScene(const scene::Scene& scene, const QString& file) override;
    std::optional<scene::Workspace> sceneName() const override { return scene::Workspace::Kernel; }
    QString restoreSettings(const QSettings&) override { return {}; }
    void saveSettings(QSettings&) override {}
    QString failure(bool shown) const override;
    bool ready(bool shown) const override;
    QString failureAfterPicture(bool shown) const override;

signals:
    // For the status bar: compile times and run failures.
    void message(const QString& text);
    // A build finished with no other waiting (good or not).
    void settled();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QWidget* makeConsentBar();
    // The run's timeout and Stop, at the start of the bar below the editor.
    QHBoxLayout* makeRunBar();
    // Puts code in the editor as no typing does: it is not the person's word.
    void showSource(const QString& code, gpu::KernelShape shape);
    void showOrigin(const QString& origin);
    void giveReferences(const std::vector<gpu::GeoPoint>& across);
    // The editor's text changed: compiled after a pause, unless a scene put it there.
    void sourceEdited();
    // Compiles unless a scene's kernel waits for the person's word.
    void startBuild();
    void buildFinished();
    void showMessages(const std::vector<gpu::KernelMessage>& messages);
    void showRunProblem(const QString& problem);
    // What the run printed (printf), in the Messages tab: the simulator's lines with their
    // block and thread, a GPU run's text line by line (PrintedLines.h), and how many more.
    void showPrinted(const gpu::KernelRun& run);
    // The simulator's findings of the last run (races, shared memory out of bounds or never
    // written, warp masks), under its failure, at their editor lines.
    void showFindings(const gpu::KernelRun& run);
    // The Memory tab's figures of the last run, and the editor's marks at its worst lines.
    void showMemory(const gpu::KernelRun& run);
    // A run that left nodes NaN or infinite says how many, in the messages (until the next
    // run) and the status bar.
    void showNonFinite(const gpu::KernelRun& run);
    // The Messages tab: the memcheck rerun's bar above the messages.
    QWidget* makeMessagesTab();
    // A memcheck rerun's findings, at the run's failure and at their lines in the editor.
    void showMemcheck(const gpu::MemcheckReport& report, const QString& printed);
    void rebuildSliders(const std::vector<gpu::KernelParam>& params);
    void showCompilerReport(const KernelBuild& build);
    void sendValues();
    std::optional<gpu::KernelVariantsRequest> variantsRequest(QString& why) const;

    std::shared_ptr<gpu::DevicePool> m_devices;
    QsciScintilla* m_editor;
    QComboBox* m_examples;
    QLabel* m_status;
    QLineEdit* m_options;
    QString m_buildProblem;
    QListWidget* m_messages;
    QWidget* m_paramsBox;
    QFormLayout* m_paramsLayout;
    QLabel* m_resources;
    QPlainTextEdit* m_ptx;
    QPlainTextEdit* m_sass;
    KernelView* m_view;
    KernelVariantsPanel* m_variants;
    MemcheckRerun* m_memcheck = nullptr;
    MemoryPanel* m_memory;
    QLabel* m_notes;                  // a lesson's text, above its kernel
    NotesBox* m_notesBox;             // the text and its More button
    QTabWidget* m_infoTabs = nullptr; // Messages, Memory, Resources, PTX, SASS, Variants
    QTimer* m_pause;
    QWidget* m_consentBar;
    QLabel* m_consentText;
    bool m_awaitingConsent = false;
    bool m_showingSource = false;
    gpu::KernelShape m_shape = gpu::KernelShape::PerNode;
    std::vector<gpu::KernelParam> m_params;
    std::vector<double> m_values;
    // Values a scene gave, applied by name when the next build's sliders are made.
    std::vector<scene::KernelParamValue> m_pendingValues;
    std::vector<std::string> m_flags;
    QFutureWatcher<std::shared_ptr<KernelBuild>> m_job;
    bool m_again = false;
    // Edit to pixels: from the compile's start to the first frame of its build.
    QElapsedTimer m_compileClock;
    bool m_awaitingPicture = false;
    // From a build's start until its result is shown: the job's own state turns false before
    // its result reaches buildFinished.
    bool m_building = false;
    bool m_contextKnown = false;
    WorkspaceHost* m_host = nullptr;   // in the main window
    FieldWorkspace* m_field = nullptr; // whose mesh and references the kernels draw on
};

} // namespace warpscope::ui
