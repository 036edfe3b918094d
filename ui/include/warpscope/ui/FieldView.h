#pragma once

#include "warpscope/gpu/DevicePool.h"
#include "warpscope/gpu/Distance.h"
#include "warpscope/gpu/DistanceParams.h"
#include "warpscope/gpu/LaunchLesson.h"
#include "warpscope/render/FieldRenderer.h"
#include "warpscope/render/GlSpanTimer.h"
#include "warpscope/render/GlWriteScope.h"

#include <QFutureWatcher>
#include <QImage>
#include <QOpenGLWidget>
#include <QPainter>
#include <memory>
#include <optional>
#include <vector>

namespace warpscope::ui {

// Shows the distance field as a heat map with a colour bar, axes and reference markers.
// Owns the GL buffer the field is written into (a GlWriteScope: through interop, or staged
// and uploaded). Wheel zooms, dragging pans, a click moves the selected reference point
// there, Ctrl+click adds one, and a marker can be dragged.
class FieldView : public QOpenGLWidget
{
    Q_OBJECT

public:
    explicit FieldView(QWidget* parent = nullptr);
    ~FieldView() override;

    // Where the field computes, from the app's device policy, and whether it may write
    // through interop (set before first show). The context is opened with the GL context,
    // and again when the pool's device changes.
    void setDevices(std::shared_ptr<gpu::DevicePool> devices, bool allowInterop);
    // Moves finished GPU timings into the timeline without waiting. Returns a problem
    // recording them, or an empty string.
    QString collectTimeline();
    // Asks for a new field; the picture keeps the last good one until it succeeds.
    void setParams(const gpu::DistanceParams& params);
    const gpu::DistanceParams& params() const { return m_params; }
    // The parameters of the field currently shown.
    const gpu::DistanceParams& shownParams() const { return m_shown; }
    void setColormap(const QString& name);
    QString colormapName() const;
    void setSelectedReference(int index)
    {
        m_selected = index;
        update();
    }
    // Runs the teaching kernel with this launch instead of the optimised one (std::nullopt
    // goes back), and colours nodes by overlay. The launch must be valid for deviceInfo().
    void setLesson(const std::optional<gpu::LessonLaunch>& lesson, render::Overlay overlay);
    bool lessonActive() const { return m_lesson.has_value(); }
    // What the teaching kernel's launch reaches of the mesh shown, as the caption under its
    // overlays says it ("grid 63 x 63 of 16 x 16 threads: 1 000 000 of 1 000 000 nodes
    // reached"); empty without the teaching kernel.
    QString coverageCaption() const;
    // Where node (row, col) of the mesh shown lies in the widget.
    QPointF nodePosition(int row, int col) const;
    const std::optional<gpu::LessonLaunch>& lesson() const { return m_lesson; }

    QString backendDescription() const { return m_backendDescription; }
    gpu::DeviceInfo deviceInfo() const { return m_context ? m_context->info() : gpu::DeviceInfo{}; }
    // The figures of the field shown: kernel time and range.
    const std::optional<gpu::FieldResult>& lastResult() const { return m_result; }
    // The teaching kernel's occupancy on this view's device, once it is open.
    std::optional<gpu::KernelOccupancy> lessonOccupancy(long long blockThreads)
    {
        if (!m_context || m_job.isRunning())
            return std::nullopt;
        return gpu::lessonOccupancy(*m_context, m_params.precision, blockThreads);
    }
    // Why the last computation failed, until a field is shown again.
    QString failureText() const { return m_failure; }
    // True once the requested field is drawn and its colour scale is known.
    bool frameSettled() const
    {
        return !m_dirty && !m_job.isRunning() && !m_ready && m_result.has_value() && !m_pending;
    }

public slots:
    void fitView();
    void zoomBy(double factor);

signals:
    // Sent once the frame that raised them is drawn, never from inside paintGL (AfterFrame.h).
    void backendReady(const QString& description, const QString& device);
    // The field for these parameters was computed and is being shown.
    void fieldShown(const gpu::DistanceParams& params);
    // Its figures arrived from the device: the frame is settled.
    void resultReady(const gpu::FieldResult& result);
    void computeFailed(const QString& message);
    void hoverText(const QString& text);
    void referenceMoved(int index, gpu::GeoPoint point, bool finished);
    void referenceAdded(gpu::GeoPoint point);

protected:
    void initializeGL() override;
    void paintGL() override;
    void resizeGL(int w, int h) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    // A field the CPU computes on a worker thread, into the staging memory of its target.
    struct HostField
    {
        gpu::DistanceParams params;
        gpu::Status status;
        std::optional<gpu::FieldResult> result;
    };

    void compute();
    void computeLesson(const gpu::DistanceParams& params);
    QString ownerText(gpu::GeoPoint point);
    void startHostJob(const gpu::DistanceParams& params, render::FieldSurface target);
    void presentHostField(const HostField& field);
    // Makes target hold a surface for layout: the current one, or a new one so that the
    // current picture survives a failure. Returns false (and reports) when it cannot.
    bool prepareSurface(const gpu::FieldLayout& layout, render::FieldSurface& target);
    void fail(const QString& message);
    void showSurface(const render::FieldSurface& target, const gpu::DistanceParams& params);
    void dropSurface(render::FieldSurface& surface);
    void releaseGl();
    void openContext();
    // Takes the field's figures once the device has them: asked for (an event, checked
    // without blocking) when a frame is on screen, and again after the next one until in.
    void takeResult();
    class Annotations;
    void drawOverlay(QPainter& painter);
    // Under the block, thread, warp and SM colourings: block (0, 0) named on the picture and
    // blockIdx rulers along the mesh's top and right edges.
    bool showsOwners() const;
    void drawOwnerMarks(QPainter& painter, const QRect& area);
    void drawBlockRulers(QPainter& painter, const QRect& area);
    QRect mapArea() const;
    QPointF toScreen(gpu::GeoPoint point) const;
    gpu::GeoPoint toGeo(QPointF pos) const;
    int markerAt(QPointF pos) const;
    void updateHover(QPointF pos);

    std::shared_ptr<gpu::DevicePool> m_devices;
    bool m_allowInterop = true;
    std::uint64_t m_generation = 0;
    std::unique_ptr<gpu::Context> m_context; // opened with the GL context
    std::unique_ptr<render::GlInterop> m_interop;
    QString m_backendDescription;
    std::shared_ptr<gpu::Timeline> m_timeline;
    render::GlSpanTimer m_drawTimer;
    int m_drawLane = -1;
    Annotations* m_annotations;
    render::FieldRenderer m_renderer;
    render::FieldSurface m_surface;
    // Why the requested field is not shown; empty once a field for the parameters is shown.
    QString m_failure;
    // CPU only: the context is used from the worker thread while a job runs, which writes
    // into m_jobWrite's staging memory for m_jobTarget.
    bool m_hostJobs = false;
    QFutureWatcher<HostField> m_job;
    std::optional<HostField> m_ready;
    std::unique_ptr<render::GlWriteScope> m_jobWrite;
    render::FieldSurface m_jobTarget;

    // Teaching kernel: its launch, the overlay, and what it recorded (read back for the hover).
    std::optional<gpu::LessonLaunch> m_lesson;
    render::Overlay m_overlayMode = render::Overlay::Distance;
    render::OwnerSurface m_owners;

    gpu::DistanceParams m_params;
    gpu::DistanceParams m_shown;
    bool m_dirty = true;
    render::GeoRect m_view;
    bool m_viewFitted = false;

    render::Colormap m_colormap;
    QImage m_colorbar;
    std::optional<gpu::FieldResult> m_result;
    bool m_pending = false; // the shown field's figures are on their way

    int m_selected = 0;
    int m_dragMarker = -1;
    bool m_panning = false;
    bool m_moved = false;
    QPointF m_pressPos;
    QPointF m_lastPos;
    std::optional<QPointF> m_hover;
};

} // namespace warpscope::ui
