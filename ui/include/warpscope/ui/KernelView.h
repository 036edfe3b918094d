#pragma once

#include "warpscope/gpu/DevicePool.h"
#include "warpscope/gpu/KernelMemcheck.h"
#include "warpscope/gpu/UserKernel.h"
#include "warpscope/render/FieldRenderer.h"
#include "warpscope/render/GlWriteScope.h"

#include <QOpenGLWidget>
#include <QTimer>
#include <memory>

class QPainter;
class QSocketNotifier;

namespace warpscope::ui {

// A kernel's two builds: NVRTC's for a GPU context, the simulator's for the CPU.
struct KernelBuild
{
    gpu::CompiledKernel gpu;
    gpu::SimulatorBuild cpu;
    gpu::Status gpuStatus; // why a build failed, where its messages do not say
    gpu::Status cpuStatus;
};

// Draws what a user's kernel writes over the mesh, through the same GL path as the field
// (GlWriteScope into a FieldRenderer surface). Each frame runs the last good build with the
// current parameter values; a failed run keeps the last picture. A run that answers within a
// few milliseconds is drawn in the frame that started it; a longer one is waited for in the
// event loop, where stopRun() can end it, until its timeout.
class KernelView : public QOpenGLWidget
{
    Q_OBJECT

public:
    explicit KernelView(std::shared_ptr<gpu::DevicePool> devices, QWidget* parent = nullptr);
    ~KernelView() override;

    void setBuild(std::shared_ptr<const KernelBuild> build);
    void setMesh(const gpu::DistanceParams& mesh);
    void setValues(const std::vector<double>& values);
    // The whole kernel's launch; gridFitted: the fewest blocks that cover the mesh.
    void setLaunch(const gpu::LaunchConfig& launch, bool gridFitted);
    const gpu::DistanceParams& mesh() const { return m_args.mesh; }
    // The whole kernel's block (the Launch panel's).
    gpu::Dim3 block() const { return m_args.launch.block; }
    // The Launch panel's teaching overlay: when on, each run records which block, thread and
    // SM wrote each node, drawn coloured by overlay with unwritten nodes striped.
    void setTeaching(bool teaching, render::Overlay overlay);
    bool teaching() const { return m_teaching; }
    // The hover readout at a point of the view: the node there and the block, thread, warp
    // and SM that wrote it; empty when the overlay is off or the point is outside the mesh.
    QString ownerAt(QPointF pos);
    // The printf lines of the thread that wrote the node at a point of the view, in the run
    // drawn (the simulator's: a GPU run's output has no threads), one a line under a heading:
    // the first few and how many more. Without the teaching overlay, where no record names the
    // thread, a line says how to get one. Empty where the run printed nothing by thread.
    QString printsAt(QPointF pos);
    // With a memory overlay (sectors, conflicts, lanes): the figures of the warp that wrote the
    // node at a point, from the simulator's record ("warp 3 of block (1, 0): 32 sectors a
    // request where 4 would do, 8x"); empty elsewhere.
    QString memoryAt(QPointF pos) const;
    // The nodes the memory overlay painted with a figure in the picture shown, and its scale.
    long long memoryNodesPainted() const { return m_memoryPainted; }
    const gpu::FieldStats& memoryStats() const { return m_memoryStats; }
    // The hover readout of the value at a point of the view: "node (col, row): value", the
    // value being "NaN", "+inf" or "-inf" where it is not finite; empty outside the picture.
    QString valueAt(QPointF pos);
    // The figures of the picture shown: its finite range, for the colour bar, and how many of
    // its nodes are not finite (the bar's "NaN/inf" swatch is shown when there are any).
    const gpu::FieldStats& shownStats() const { return m_stats; }
    // The whole kernel's launch, its grid fitted to the mesh where the Launch panel asks.
    gpu::LaunchConfig launch() const;
    // Whether kernels run on a CUDA device here, and its properties (the CPU's simulated
    // device otherwise); known once the view has been shown.
    bool cuda() const { return m_context && m_context->isCuda(); }
    gpu::DeviceInfo deviceInfo() const
    {
        return m_context ? m_context->info() : gpu::simulatedHopper();
    }
    // How many frames ran a kernel successfully (for tests and the screenshot's wait).
    int framesDrawn() const { return m_framesDrawn; }
    // Nothing waits to be run or drawn: the picture is the latest build's on the latest mesh.
    bool frameSettled() const { return !m_dirty && !m_running; }
    // The longest a run may take before it is stopped (Options, default 2000 ms).
    void setTimeoutMs(double timeoutMs);
    double timeoutMs() const { return m_args.timeoutMs; }
    // Whether a run is in flight, waited for in the event loop.
    bool running() const { return m_running; }
    // Why the last run failed (empty when it succeeded).
    QString lastProblem() const { return m_lastProblem; }
    // A sentence written over the picture, such as why the CPU cannot run a kernel that
    // compiled for the GPU; empty removes it.
    void setNotice(const QString& notice);
    QString notice() const { return m_notice; }
    // Ends the run in flight, and the process running it; the picture keeps the last good run.
    void stopRun();
    // The last run's kernel, launch and values, to run again under memcheck.
    gpu::Status memcheckJob(gpu::MemcheckJob& job);
    // Starts the process that runs kernels, so that a build's first run need not wait for it;
    // only for a kernel the person means to run (no process exists before the first build).
    void prepareRuns();

signals:
    // After every run: its status (empty when it succeeded) and figures.
    void ran(const QString& problem, const gpu::KernelRun& run);
    void contextReady(bool cuda);
    void runningChanged(bool running);

protected:
    void initializeGL() override;
    // Hovering a node gives its value and, with the teaching overlay on, names its block,
    // thread, warp and SM and lists what that thread printed, in a monospaced font.
    void mouseMoveEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void paintGL() override;

private:
    class Legend;

    void release();
    // The mesh node under a point of the view, when there is a picture there.
    bool nodeAt(QPointF pos, int& row, int& col) const;
    // The teaching record's words for the node at a point (kUncovered where no thread wrote
    // it); false with no record there.
    bool ownerWordsAt(QPointF pos, int& row, int& col, std::uint32_t (&owner)[2]);
    void drawLegend(QPainter& painter);
    // The memory overlay's bar, its title and what the stripes mean; or why nothing is painted.
    void drawMemoryLegend(QPainter& painter);
    bool showsMemory() const { return m_teaching && render::isMemoryOverlay(m_overlay); }
    // Paints the last run's warp figures onto its nodes (GL current).
    void paintMemory();
    void drawNotice(QPainter& painter);
    void runKernel();
    // Copies a run's answer into the GL buffers and says how it went (GL current).
    void finishRun();
    void report(const QString& problem, const gpu::KernelRun& run);

    std::shared_ptr<gpu::DevicePool> m_devices;
    std::unique_ptr<gpu::Context> m_context;
    std::unique_ptr<render::GlInterop> m_interop;
    render::FieldRenderer m_renderer;
    render::FieldSurface m_surface;
    render::OwnerSurface m_owners;
    bool m_teaching = false;
    render::Overlay m_overlay = render::Overlay::Distance;
    gpu::LaunchConfig m_ranWith; // the launch of the last run, for the hover readout
    // The printf lines of the run drawn, by thread, for the hover.
    std::vector<gpu::KernelPrintLine> m_printLines;
    long long m_printLinesDropped = 0;
    std::shared_ptr<const KernelBuild> m_build;
    gpu::KernelArgs m_args;
    bool m_gridFitted = true;
    bool m_dirty = true;
    bool m_hasPicture = false;
    int m_framesDrawn = 0;
    bool m_running = false;
    bool m_painting = false; // inside paintGL: what the view says waits for the frame
    std::unique_ptr<QSocketNotifier> m_answer; // the runner's socket, while a run is waited for
    QTimer m_deadline;                         // the run's timeout, single shot
    QString m_lastProblem;
    QString m_notice;
    gpu::FieldStats m_stats;
    // The memory overlay: the last run's record, the owner words it is painted through (read
    // back once a run), and the picture made of them.
    gpu::KernelMemoryReport m_memory;
    std::vector<std::uint32_t> m_ownerWords;
    render::FieldSurface m_memorySurface;
    bool m_memoryStale = true;
    long long m_memoryPainted = 0;
    gpu::FieldStats m_memoryStats;
    QImage m_colourBar;
    Legend* m_legend;
};

} // namespace warpscope::ui
