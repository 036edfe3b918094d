#pragma once

#include "warpscope/gpu/Backend.h"
#include "warpscope/gpu/DistanceParams.h"
#include "warpscope/render/FieldRenderer.h"
#include "warpscope/render/GlSpanTimer.h"

#include <QFutureWatcher>
#include <QImage>
#include <QOpenGLWidget>
#include <QPainter>
#include <QTimer>
#include <memory>
#include <optional>
#include <vector>

namespace warpscope::ui {

// Shows the distance field as a heat map with a colour bar, axes and reference markers.
// Owns the GL buffer the backend fills (through interop, or glBufferSubData on the CPU
// path). Wheel zooms, dragging pans, a click moves the selected reference point there,
// Ctrl+click adds one, and a marker can be dragged.
class FieldView : public QOpenGLWidget
{
    Q_OBJECT

public:
    explicit FieldView(QWidget* parent = nullptr);
    ~FieldView() override;

    // The backend is created with the GL context, on first show.
    void setBackendRequest(gpu::BackendKind kind, bool forceHostCopy);
    // Moves the view's computations to CUDA device `index` (-1: the one OpenGL runs on),
    // recreating the backend when it already exists.
    void setDevice(int index);
    int deviceIndex() const { return m_device; }
    // Records the backend's work and the view's draws in timeline (set before first show).
    void setTimeline(std::shared_ptr<gpu::Timeline> timeline) { m_timeline = std::move(timeline); }
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
    const std::optional<gpu::LessonLaunch>& lesson() const { return m_lesson; }

    QString backendDescription() const { return m_backendDescription; }
    gpu::DeviceInfo deviceInfo() const
    {
        return m_backend ? m_backend->deviceInfo() : gpu::DeviceInfo{};
    }
    std::optional<double> lastKernelMs();
    // The teaching kernel's occupancy on this view's backend, once it exists.
    std::optional<gpu::Backend::KernelOccupancy> lessonOccupancy(long long blockThreads)
    {
        if (!m_backend)
            return std::nullopt;
        return m_backend->lessonOccupancy(m_params.precision, blockThreads);
    }
    // Why the last computation failed, until a field is shown again.
    QString failureText() const { return m_failure; }
    // True once the requested field is drawn and its colour scale is known.
    bool frameSettled() const
    {
        return !m_dirty && !m_job.isRunning() && !m_ready && m_stats.has_value() && !m_statsPending;
    }

public slots:
    void fitView();
    void zoomBy(double factor);

signals:
    void backendReady(const QString& description, const QString& device);
    // The field for these parameters was computed and is being shown.
    void fieldShown(const gpu::DistanceParams& params);
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
    // A field computed into host memory on a worker thread (CPU backend).
    struct HostField
    {
        gpu::DistanceParams params;
        std::vector<float> values;
        gpu::Status status;
        std::optional<double> kernelMs;
        std::optional<gpu::FieldStats> stats;
    };

    void compute();
    void computeLesson(const gpu::DistanceParams& params);
    QString ownerText(gpu::GeoPoint point);
    void startHostJob(const gpu::DistanceParams& params);
    void presentHostField(HostField field);
    // Makes target hold a surface for layout: the current one, or a new one so that the
    // current picture survives a failure. Returns false (and reports) when it cannot.
    bool prepareSurface(const gpu::FieldLayout& layout, render::FieldSurface& target);
    void fail(const QString& message);
    void showSurface(const render::FieldSurface& target, const gpu::DistanceParams& params);
    void dropSurface(render::FieldSurface& surface);
    void releaseGl();
    void createBackendNow();
    void pollStats();
    class Annotations;
    void drawOverlay(QPainter& painter);
    QRect mapArea() const;
    QPointF toScreen(gpu::GeoPoint point) const;
    gpu::GeoPoint toGeo(QPointF pos) const;
    int markerAt(QPointF pos) const;
    void updateHover(QPointF pos);

    gpu::BackendKind m_requested = gpu::BackendKind::Auto;
    bool m_forceHostCopy = false;
    int m_device = -1;
    std::unique_ptr<gpu::Backend> m_backend;
    QString m_backendDescription;
    std::shared_ptr<gpu::Timeline> m_timeline;
    render::GlSpanTimer m_drawTimer;
    int m_drawLane = -1;
    Annotations* m_annotations;
    render::FieldRenderer m_renderer;
    render::FieldSurface m_surface;
    // Why the requested field is not shown; empty once a field for the parameters is shown.
    QString m_failure;
    // CPU backend only: the backend is used from the worker thread while a job runs.
    bool m_hostJobs = false;
    QFutureWatcher<HostField> m_job;
    std::optional<HostField> m_ready;
    std::vector<float> m_spare; // reused between jobs
    std::optional<double> m_hostKernelMs;

    // Teaching kernel: its launch, the overlay, and what it recorded (kept for the hover).
    std::optional<gpu::LessonLaunch> m_lesson;
    render::Overlay m_overlayMode = render::Overlay::Distance;
    render::OwnerSurface m_owners;
    std::vector<std::uint32_t> m_ownerWords;

    gpu::DistanceParams m_params;
    gpu::DistanceParams m_shown;
    bool m_dirty = true;
    render::GeoRect m_view;
    bool m_viewFitted = false;

    render::Colormap m_colormap;
    QImage m_colorbar;
    std::optional<gpu::FieldStats> m_stats;
    bool m_statsPending = false;
    QTimer m_statsTimer;

    int m_selected = 0;
    int m_dragMarker = -1;
    bool m_panning = false;
    bool m_moved = false;
    QPointF m_pressPos;
    QPointF m_lastPos;
    std::optional<QPointF> m_hover;
};

} // namespace warpscope::ui
