#include "warpscope/ui/FieldView.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QPainter>
#include <QPainterPath>
#include <QWheelEvent>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <cmath>
#include <limits>

#define GL_GLEXT_PROTOTYPES
#include <GL/gl.h>

namespace warpscope::ui {
namespace {

constexpr int kMarginLeft = 58;
constexpr int kMarginBottom = 30;
constexpr int kMarginTop = 10;
constexpr int kColorbarWidth = 104;
constexpr double kDegree = 0.017453292519943295;
const QColor kBackground(38, 40, 46);

render::GeoRect meshRect(const gpu::DistanceParams& p)
{
    return {p.lonMin, p.latMin, p.lonMax, p.latMax};
}

bool sameMesh(const gpu::DistanceParams& a, const gpu::DistanceParams& b)
{
    return a.latMin == b.latMin && a.latMax == b.latMax && a.lonMin == b.lonMin &&
           a.lonMax == b.lonMax;
}

// A tick step of 1, 2 or 5 times a power of ten giving about `count` ticks over span.
double niceStep(double span, int count)
{
    const double raw = span / std::max(1, count);
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * power >= raw)
            return m * power;
    return 10.0 * power;
}

QString formatDistance(double value, const gpu::DistanceParams& p)
{
    // About four significant digits, never more than three decimals.
    const int decimals = value >= 100 ? 0 : value >= 10 ? 1 : value >= 1 ? 2 : 3;
    return QString::number(value, 'f', decimals) + " " + gpu::unitSymbol(p.unit);
}

} // namespace

// Axes, markers, hover label and colour bar are a transparent child widget: Qt composites
// it over the GL picture, so hovering repaints only the overlay, not the field.
class FieldView::Annotations : public QWidget
{
public:
    explicit Annotations(FieldView* view) : QWidget(view), m_view(view)
    {
        setAttribute(Qt::WA_TransparentForMouseEvents);
        setAttribute(Qt::WA_NoSystemBackground);
    }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter painter(this);
        m_view->drawOverlay(painter);
    }

private:
    FieldView* m_view;
};

FieldView::FieldView(QWidget* parent) : QOpenGLWidget(parent), m_annotations(new Annotations(this))
{
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(320, 240);
    setToolTip(tr("Wheel: zoom. Drag: pan. Click: move the selected reference point.\n"
                  "Ctrl+click: add a reference point. Drag a marker to move it.\n"
                  "Double-click or Home: fit the mesh."));
    setColormap("viridis");
    connect(&m_job, &QFutureWatcher<HostField>::finished, this, [this] {
        m_ready = m_job.result();
        update();
    });
    m_statsTimer.setSingleShot(true);
    m_statsTimer.setInterval(1);
    connect(&m_statsTimer, &QTimer::timeout, this, &FieldView::pollStats);
}

FieldView::~FieldView()
{
    if (context()) {
        // The members are gone by the time the base class destroys the context.
        disconnect(context(), nullptr, this, nullptr);
        makeCurrent();
        releaseGl();
        doneCurrent();
    }
    m_job.waitForFinished();
}

void FieldView::setBackendRequest(gpu::BackendKind kind, bool forceHostCopy)
{
    m_requested = kind;
    m_forceHostCopy = forceHostCopy;
}

void FieldView::setParams(const gpu::DistanceParams& params)
{
    if (params == m_params && !m_dirty)
        return;
    if (!sameMesh(params, m_params))
        m_viewFitted = false;
    m_params = params;
    m_dirty = true;
    update();
}

void FieldView::setLesson(const std::optional<gpu::LessonLaunch>& lesson, render::Overlay overlay)
{
    const bool rerun = lesson.has_value() != m_lesson.has_value() ||
                       (lesson && (lesson->launch != m_lesson->launch ||
                                   lesson->gridStride != m_lesson->gridStride));
    m_lesson = lesson;
    m_overlayMode = overlay;
    if (rerun)
        m_dirty = true;
    update();
}

void FieldView::setColormap(const QString& name)
{
    const auto map = render::loadColormap(name.toStdString());
    if (!map)
        return;
    m_colormap = *map;
    m_colorbar = QImage(1, 256, QImage::Format_RGB32);
    for (int i = 0; i < 256; ++i) {
        const auto& c = m_colormap.rgb[255 - i];
        m_colorbar.setPixel(
            0, i, qRgb(int(c[0] * 255 + 0.5), int(c[1] * 255 + 0.5), int(c[2] * 255 + 0.5)));
    }
    if (m_renderer.initialized()) {
        makeCurrent();
        m_renderer.setColormap(m_colormap);
        doneCurrent();
    }
    update();
}

QString FieldView::colormapName() const
{
    return QString::fromStdString(m_colormap.name);
}

std::optional<double> FieldView::lastKernelMs()
{
    if (m_hostJobs)
        return m_hostKernelMs; // the backend may be busy on the worker thread
    return m_backend ? m_backend->lastKernelMs() : std::nullopt;
}

void FieldView::initializeGL()
{
    connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, [this] {
        makeCurrent();
        releaseGl();
        doneCurrent();
    });
    if (gpu::Status s = m_renderer.initialize(); !s) {
        fail(QString::fromStdString(s.message()));
        return;
    }
    m_renderer.setColormap(m_colormap);
    createBackendNow();
    // A context can be destroyed and made again (the view moved to another window), and the
    // field went with the old one: compute it again, or the map would wait for ever.
    m_dirty = true;
}

void FieldView::setDevice(int index)
{
    if (index == m_device)
        return;
    m_device = index;
    if (!m_backend)
        return; // created with the GL context
    makeCurrent();
    m_job.waitForFinished();
    if (m_surface.valid())
        m_backend->forgetGlBuffer(m_surface.buffer);
    if (m_owners.valid())
        m_backend->forgetGlBuffer(m_owners.buffer);
    m_backend.reset();
    createBackendNow();
    doneCurrent();
    m_dirty = true;
    update();
}

// Creates the backend with the GL context current.
void FieldView::createBackendNow()
{
    gpu::BackendSelection selection =
        gpu::createBackend(m_requested, {/*glContextCurrent=*/true, m_forceHostCopy, m_device});
    QString reason = QString::fromStdString(selection.reason);
    if (!selection.backend) {
        // The explicit request cannot be met in this context; keep the app usable.
        selection = gpu::createBackend(gpu::BackendKind::Cpu);
        reason = tr("CPU: %1").arg(reason);
    }
    m_backend = std::move(selection.backend);
    m_hostJobs = m_backend->kind() == gpu::BackendKind::Cpu;
    if (m_timeline) {
        m_backend->setTimeline(m_timeline, "field");
        m_drawLane = m_timeline->lane("OpenGL: field view");
    }
    // CUDA's reason already names the GPU; the CPU's gets its thread count.
    if (m_hostJobs)
        reason += " · " + QString::fromStdString(m_backend->deviceName());
    m_backendDescription = reason;
    emit backendReady(reason, QString::fromStdString(m_backend->deviceName()));
}

void FieldView::releaseGl()
{
    m_job.waitForFinished();
    if (m_backend && m_surface.valid())
        m_backend->forgetGlBuffer(m_surface.buffer);
    if (m_surface.valid())
        m_renderer.destroySurface(m_surface);
    m_renderer.destroyOwners(m_owners);
    m_renderer.release();
    m_drawTimer.release();
    m_backend.reset();
}

bool FieldView::prepareSurface(const gpu::FieldLayout& layout, render::FieldSurface& target)
{
    target = m_surface;
    if (m_surface.valid() && m_surface.layout == layout)
        return true;
    if (gpu::Status s = m_renderer.createSurface(layout, target); !s) {
        fail(QString::fromStdString(s.message()));
        return false;
    }
    return true;
}

void FieldView::dropSurface(render::FieldSurface& surface)
{
    if (m_backend)
        m_backend->forgetGlBuffer(surface.buffer);
    m_renderer.destroySurface(surface);
}

// A failure can come before the first frame, even while the window is first shown, so it is
// kept for the map and for anyone who asks later, as well as signalled.
void FieldView::fail(const QString& message)
{
    m_failure = message;
    emit computeFailed(message);
    update();
}

void FieldView::showSurface(const render::FieldSurface& target, const gpu::DistanceParams& params)
{
    m_failure.clear();
    if (m_surface.valid() && target.buffer != m_surface.buffer)
        dropSurface(m_surface);
    m_surface = target;
    m_shown = params;
    emit fieldShown(params);
}

void FieldView::compute()
{
    m_dirty = false;
    if (!m_backend || !m_renderer.initialized())
        return;
    const gpu::DistanceParams params = m_params;
    if (!gpu::validate(params).empty())
        return; // the panel shows why; keep the last good picture
    // Memory needs change only with the mesh size, precision or reference count, so the
    // slider path skips the checks. Display limits first, so no field is computed that could
    // not be shown.
    const bool grows = !m_surface.valid() || gpu::layoutFor(params) != m_surface.layout ||
                       params.precision != m_shown.precision ||
                       params.references.size() != m_shown.references.size();
    if (grows) {
        gpu::Status capacity = m_renderer.checkCapacity(gpu::layoutFor(params));
        if (capacity)
            capacity = m_backend->checkCapacity(params);
        if (!capacity) {
            fail(QString::fromStdString(capacity.message()));
            return;
        }
    }
    if (m_lesson) {
        computeLesson(params);
        return;
    }
    if (m_hostJobs) {
        startHostJob(params);
        return;
    }
    render::FieldSurface target;
    if (!prepareSurface(gpu::layoutFor(params), target))
        return;
    if (gpu::Status s = m_backend->fillDistance(params, target.glBuffer()); !s) {
        if (target.buffer != m_surface.buffer)
            dropSurface(target);
        fail(QString::fromStdString(s.message()));
        return;
    }
    showSurface(target, params);
    m_statsPending = true;
    pollStats();
}

// The teaching kernel runs through host memory (it is for looking at, not for speed): the
// field and the owner record are uploaded, and uncovered nodes keep no value.
void FieldView::computeLesson(const gpu::DistanceParams& params)
{
    m_job.waitForFinished(); // the CPU backend's pool serves one computation at a time
    const gpu::FieldLayout layout = gpu::layoutFor(params);
    if (!m_hostJobs) {
        // CUDA writes the field and the owner record straight into their GL buffers.
        render::FieldSurface target;
        if (!prepareSurface(layout, target))
            return;
        const std::size_t nodes = std::size_t(params.nx) * std::size_t(params.ny);
        gpu::Status s = m_renderer.allocateOwners(nodes, m_owners);
        if (s)
            s = m_backend->fillLesson(params, *m_lesson, target.glBuffer(),
                                      {m_owners.buffer, nodes});
        if (!s) {
            if (target.buffer != m_surface.buffer)
                dropSurface(target);
            fail(QString::fromStdString(s.message()));
            return;
        }
        m_ownerWords.clear(); // the hover reads single nodes back from the GL buffer
        showSurface(target, params);
        m_statsPending = true;
        pollStats();
        return;
    }
    std::vector<float> field;
    try {
        field.assign(layout.elementCount(), std::numeric_limits<float>::quiet_NaN());
        m_ownerWords.resize(2 * std::size_t(params.nx) * params.ny);
    } catch (const std::bad_alloc&) {
        fail(tr("Out of host memory for the teaching kernel's record"));
        return;
    }
    if (gpu::Status s = m_backend->runLesson(params, *m_lesson, field, m_ownerWords); !s) {
        fail(QString::fromStdString(s.message()));
        return;
    }
    // The colour scale spans the nodes that were computed.
    const auto [lo, hi] = gpu::writeLessonStats(field.data(), params.nx, params.ny, layout.pitch,
                                                layout.statsOffset());
    render::FieldSurface target;
    if (!prepareSurface(layout, target))
        return;
    gpu::Status s = gpu::uploadField(target.glBuffer(), field);
    if (s)
        s = m_renderer.uploadOwners(m_ownerWords, m_owners);
    if (!s) {
        if (target.buffer != m_surface.buffer)
            dropSurface(target);
        fail(QString::fromStdString(s.message()));
        return;
    }
    m_stats = gpu::FieldStats{lo, hi};
    m_statsPending = false;
    m_hostKernelMs = m_backend->lastKernelMs();
    showSurface(target, params);
}

QString FieldView::ownerText(gpu::GeoPoint point)
{
    const gpu::DistanceParams& p = m_shown;
    const std::size_t nodes = std::size_t(p.nx) * std::size_t(p.ny);
    if (!m_lesson || (m_ownerWords.size() != 2 * nodes && m_owners.nodes != nodes))
        return {};
    const long long col = std::llround((point.lon - p.lonMin) / (p.lonMax - p.lonMin) * (p.nx - 1));
    const long long row = std::llround((point.lat - p.latMin) / (p.latMax - p.latMin) * (p.ny - 1));
    if (col < 0 || row < 0 || col >= p.nx || row >= p.ny)
        return {};
    const std::size_t node = std::size_t(row) * p.nx + col;
    std::uint32_t read[2] = {gpu::kUncovered, gpu::kUncovered};
    if (m_ownerWords.empty()) {
        makeCurrent();
        const bool ok = m_renderer.readOwner(m_owners, node, read);
        doneCurrent();
        if (!ok)
            return {};
    }
    const std::uint32_t* owner = m_ownerWords.empty() ? read : &m_ownerWords[2 * node];
    if (owner[0] == gpu::kUncovered)
        return tr("node (%1, %2): no thread").arg(col).arg(row);
    const gpu::Dim3& b = m_lesson->launch.block;
    const gpu::Dim3& g = m_lesson->launch.grid;
    const std::uint32_t thread = gpu::ownerThread(owner[1]);
    return tr("node (%1, %2): blockIdx (%3, %4), threadIdx (%5, %6), warp %7, SM %8%9")
        .arg(col)
        .arg(row)
        .arg(owner[0] % g.x)
        .arg(owner[0] / g.x)
        .arg(thread % b.x)
        .arg(thread / b.x)
        .arg(thread / 32)
        .arg(gpu::ownerSm(owner[1]))
        .arg(deviceInfo().simulated ? tr(" (simulated)") : QString());
}

// The CPU backend computes on a worker thread, so the window keeps answering while a large
// mesh is computed; the result is uploaded with the GL context current, in paintGL. One job
// runs at a time; parameters that change meanwhile start the next job when it ends.
void FieldView::startHostJob(const gpu::DistanceParams& params)
{
    if (m_job.isRunning()) {
        m_dirty = true; // picked up when the running job ends
        return;
    }
    gpu::Backend* backend = m_backend.get();
    std::vector<float> buffer = std::move(m_spare);
    m_job.setFuture(QtConcurrent::run([backend, params, buffer = std::move(buffer)]() mutable {
        HostField field{params, std::move(buffer), {}, {}, {}};
        try {
            field.values.resize(gpu::layoutFor(params).elementCount());
            field.status = backend->computeDistance(params, std::span<float>(field.values));
        } catch (const std::bad_alloc&) {
            field.status = gpu::Status::failure("Out of host memory for the field");
        }
        field.kernelMs = backend->lastKernelMs();
        field.stats = backend->lastStats();
        return field;
    }));
}

void FieldView::presentHostField(HostField field)
{
    if (m_lesson) { // the teaching kernel took over while this job ran
        m_spare = std::move(field.values);
        return;
    }
    if (!field.status) {
        fail(QString::fromStdString(field.status.message()));
        return;
    }
    render::FieldSurface target;
    if (!prepareSurface(gpu::layoutFor(field.params), target))
        return;
    if (gpu::Status s = gpu::uploadField(target.glBuffer(), field.values); !s) {
        if (target.buffer != m_surface.buffer)
            dropSurface(target);
        fail(QString::fromStdString(s.message()));
        return;
    }
    m_hostKernelMs = field.kernelMs;
    m_stats = field.stats;
    m_statsPending = false;
    m_spare = std::move(field.values);
    showSurface(target, field.params);
}

void FieldView::pollStats()
{
    if (!m_backend || !m_statsPending)
        return;
    if (const auto stats = m_backend->lastStats()) {
        m_stats = stats;
        m_statsPending = false;
        update();
    } else {
        m_statsTimer.start();
    }
}

QRect FieldView::mapArea() const
{
    return QRect(kMarginLeft, kMarginTop, std::max(1, width() - kMarginLeft - kColorbarWidth),
                 std::max(1, height() - kMarginTop - kMarginBottom));
}

void FieldView::fitView()
{
    const gpu::DistanceParams& p = m_dirty ? m_params : m_shown;
    const QRect area = mapArea();
    // Equirectangular view: a degree of longitude is cos(latitude) of a degree of latitude.
    const double kx = std::max(0.05, std::cos(0.5 * (p.latMin + p.latMax) * kDegree));
    const double lonSpan = p.lonMax - p.lonMin, latSpan = p.latMax - p.latMin;
    const double scale = std::min(area.width() / (lonSpan * kx), area.height() / latSpan);
    const double halfLon = 0.5 * area.width() / (scale * kx);
    const double halfLat = 0.5 * area.height() / scale;
    const double cLon = 0.5 * (p.lonMin + p.lonMax), cLat = 0.5 * (p.latMin + p.latMax);
    m_view = {cLon - halfLon, cLat - halfLat, cLon + halfLon, cLat + halfLat};
    m_viewFitted = true;
    update();
}

void FieldView::zoomBy(double factor)
{
    const double cLon = 0.5 * (m_view.lonMin + m_view.lonMax);
    const double cLat = 0.5 * (m_view.latMin + m_view.latMax);
    const double hLon = 0.5 * (m_view.lonMax - m_view.lonMin) / factor;
    const double hLat = 0.5 * (m_view.latMax - m_view.latMin) / factor;
    m_view = {cLon - hLon, cLat - hLat, cLon + hLon, cLat + hLat};
    update();
}

void FieldView::resizeGL(int, int)
{
    m_viewFitted = false;
    m_annotations->setGeometry(rect());
}

QString FieldView::collectTimeline()
{
    // The CPU backend adds its spans as it goes, from whichever thread runs it.
    if (!m_backend || !m_timeline)
        return {};
    if (context()) { // draws timed in earlier frames
        makeCurrent();
        m_drawTimer.collect();
        doneCurrent();
    }
    if (m_hostJobs)
        return {};
    const gpu::Status s = m_backend->collectTimeline();
    return s ? QString() : QString::fromStdString(s.message());
}

void FieldView::paintGL()
{
    if (m_timeline) {
        m_timeline->beginFrame();
        m_drawTimer.collect();
    }
    if (m_ready) {
        HostField field = std::move(*m_ready);
        m_ready.reset();
        presentHostField(std::move(field));
    }
    if (m_dirty)
        compute();
    if (!m_viewFitted)
        fitView();
    glClearColor(kBackground.redF(), kBackground.greenF(), kBackground.blueF(), 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    if (m_surface.valid()) {
        const QRect area = mapArea();
        const qreal dpr = devicePixelRatioF();
        const render::Viewport viewport{int(area.left() * dpr),
                                        int((height() - area.bottom() - 1) * dpr),
                                        int(area.width() * dpr), int(area.height() * dpr)};
        if (m_timeline)
            m_drawTimer.begin();
        m_renderer.draw(
            m_surface, meshRect(m_shown), m_view, viewport,
            {float(kBackground.redF()), float(kBackground.greenF()), float(kBackground.blueF())},
            m_overlayMode, m_lesson ? &m_owners : nullptr);
        if (m_timeline)
            m_drawTimer.end(*m_timeline, m_drawLane, "draw field");
    }
    m_annotations->update();
}

QPointF FieldView::toScreen(gpu::GeoPoint point) const
{
    const QRect a = mapArea();
    const double x =
        a.left() + (point.lon - m_view.lonMin) / (m_view.lonMax - m_view.lonMin) * a.width();
    const double y =
        a.top() + (m_view.latMax - point.lat) / (m_view.latMax - m_view.latMin) * a.height();
    return {x, y};
}

gpu::GeoPoint FieldView::toGeo(QPointF pos) const
{
    const QRect a = mapArea();
    return {m_view.latMax - (pos.y() - a.top()) / a.height() * (m_view.latMax - m_view.latMin),
            m_view.lonMin + (pos.x() - a.left()) / a.width() * (m_view.lonMax - m_view.lonMin)};
}

void FieldView::drawOverlay(QPainter& painter)
{
    painter.setRenderHint(QPainter::Antialiasing);
    const QRect area = mapArea();
    const QColor text(225, 228, 235);
    painter.setPen(text);

    if (!m_surface.valid()) {
        painter.drawText(area, Qt::AlignCenter | Qt::TextWordWrap,
                         m_failure.isEmpty() ? tr("Computing…") : m_failure);
        return;
    }

    // Axes: longitude below, latitude on the left.
    painter.setPen(QColor(110, 114, 124));
    painter.drawRect(area.adjusted(0, 0, -1, -1));
    painter.setPen(text);
    const QFontMetrics fm(painter.font());
    const double lonStep = niceStep(m_view.lonMax - m_view.lonMin, std::max(2, area.width() / 90));
    for (double lon = std::ceil(m_view.lonMin / lonStep) * lonStep; lon <= m_view.lonMax;
         lon += lonStep) {
        const double x = toScreen({0, lon}).x();
        painter.drawLine(QPointF(x, area.bottom()), QPointF(x, area.bottom() + 4));
        const QString label = QString::number(lon, 'g', 6) + "°";
        painter.drawText(
            QPointF(x - fm.horizontalAdvance(label) / 2.0, area.bottom() + 6 + fm.ascent()), label);
    }
    const double latStep = niceStep(m_view.latMax - m_view.latMin, std::max(2, area.height() / 60));
    for (double lat = std::ceil(m_view.latMin / latStep) * latStep; lat <= m_view.latMax;
         lat += latStep) {
        const double y = toScreen({lat, 0}).y();
        painter.drawLine(QPointF(area.left() - 4, y), QPointF(area.left(), y));
        const QString label = QString::number(lat, 'g', 6) + "°";
        painter.drawText(
            QPointF(area.left() - 6 - fm.horizontalAdvance(label), y + fm.ascent() / 2.0 - 1),
            label);
    }

    // Reference markers; the selected one is ringed.
    painter.setClipRect(area);
    for (int i = 0; i < int(m_shown.references.size()); ++i) {
        const QPointF c = toScreen(m_shown.references[i]);
        painter.setPen(QPen(Qt::black, 3));
        painter.drawEllipse(c, 5, 5);
        painter.setPen(QPen(Qt::white, 1.5));
        painter.setBrush(i == m_selected ? QColor(255, 80, 80) : QColor(255, 255, 255, 160));
        painter.drawEllipse(c, 5, 5);
        painter.setBrush(Qt::NoBrush);
        if (i == m_selected) {
            painter.setPen(QPen(QColor(255, 80, 80), 1.5));
            painter.drawEllipse(c, 9, 9);
        }
    }
    if (m_hover && area.contains(m_hover->toPoint())) {
        const gpu::GeoPoint g = toGeo(*m_hover);
        int nearest = -1;
        const double d = gpu::distanceToNearest(m_shown, g, &nearest);
        const QString label = QString("%1°, %2°  %3")
                                  .arg(g.lat, 0, 'f', 4)
                                  .arg(g.lon, 0, 'f', 4)
                                  .arg(formatDistance(d, m_shown));
        const QRectF box(*m_hover + QPointF(14, 8),
                         QSizeF(fm.horizontalAdvance(label) + 10, fm.height() + 6));
        painter.setPen(Qt::NoPen);
        painter.setBrush(QColor(0, 0, 0, 170));
        painter.drawRoundedRect(box, 3, 3);
        painter.setPen(Qt::white);
        painter.drawText(box, Qt::AlignCenter, label);
    }
    painter.setClipping(false);

    // Colour bar with five labels.
    const QRect bar(width() - kColorbarWidth + 12, area.top(), 16, area.height());
    painter.drawImage(bar, m_colorbar);
    painter.setPen(QColor(110, 114, 124));
    painter.drawRect(bar.adjusted(0, 0, -1, -1));
    painter.setPen(text);
    if (m_stats) {
        for (int k = 0; k <= 4; ++k) {
            const double v = m_stats->min + (m_stats->max - m_stats->min) * k / 4.0;
            const double y = bar.bottom() - (bar.height() - 1) * k / 4.0;
            painter.drawLine(QPointF(bar.right() + 1, y), QPointF(bar.right() + 4, y));
            painter.drawText(QPointF(bar.right() + 6, y + fm.ascent() / 2.0 - 1),
                             formatDistance(v, m_shown));
        }
    }
    if (!m_failure.isEmpty()) {
        // The last good field stays, but not as if it answered the new parameters.
        const QString message = tr("Not updated: %1").arg(m_failure);
        const QRect box = fm.boundingRect(area.adjusted(12, 8, -12, 0),
                                          Qt::AlignHCenter | Qt::TextWordWrap, message)
                              .adjusted(-8, -4, 8, 4);
        painter.fillRect(box, QColor(60, 14, 18, 225));
        painter.setPen(Qt::white);
        painter.drawText(box, Qt::AlignCenter | Qt::TextWordWrap, message);
    }
}

int FieldView::markerAt(QPointF pos) const
{
    for (int i = int(m_shown.references.size()) - 1; i >= 0; --i)
        if (QLineF(toScreen(m_shown.references[i]), pos).length() <= 8.0)
            return i;
    return -1;
}

void FieldView::updateHover(QPointF pos)
{
    m_hover = pos;
    if (m_surface.valid() && mapArea().contains(pos.toPoint())) {
        const gpu::GeoPoint g = toGeo(pos);
        int nearest = -1;
        const double d = gpu::distanceToNearest(m_shown, g, &nearest);
        QString text = tr("lat %1°, lon %2°: %3 to reference %4")
                           .arg(g.lat, 0, 'f', 5)
                           .arg(g.lon, 0, 'f', 5)
                           .arg(formatDistance(d, m_shown))
                           .arg(nearest + 1);
        if (const QString owner = ownerText(g); !owner.isEmpty())
            text += "   " + owner;
        emit hoverText(text);
    } else {
        emit hoverText(QString());
    }
    m_annotations->update();
}

void FieldView::mousePressEvent(QMouseEvent* event)
{
    m_pressPos = m_lastPos = event->position();
    m_moved = false;
    m_dragMarker = event->button() == Qt::LeftButton ? markerAt(event->position()) : -1;
    if (m_dragMarker >= 0) {
        m_selected = m_dragMarker;
        update();
    }
    m_panning = m_dragMarker < 0;
}

void FieldView::mouseMoveEvent(QMouseEvent* event)
{
    const QPointF pos = event->position();
    if (event->buttons() != Qt::NoButton) {
        if (QLineF(pos, m_pressPos).length() > 3.0)
            m_moved = true;
        if (m_dragMarker >= 0 && m_moved) {
            emit referenceMoved(m_dragMarker, toGeo(pos), false);
        } else if (m_panning && m_moved) {
            const QRect a = mapArea();
            const double dLon =
                (pos.x() - m_lastPos.x()) / a.width() * (m_view.lonMax - m_view.lonMin);
            const double dLat =
                (pos.y() - m_lastPos.y()) / a.height() * (m_view.latMax - m_view.latMin);
            m_view = {m_view.lonMin - dLon, m_view.latMin + dLat, m_view.lonMax - dLon,
                      m_view.latMax + dLat};
            update();
        }
    }
    m_lastPos = pos;
    updateHover(pos);
}

void FieldView::mouseReleaseEvent(QMouseEvent* event)
{
    const QPointF pos = event->position();
    if (event->button() == Qt::LeftButton && mapArea().contains(pos.toPoint())) {
        if (m_dragMarker >= 0 && m_moved)
            emit referenceMoved(m_dragMarker, toGeo(pos), true);
        else if (!m_moved && event->modifiers().testFlag(Qt::ControlModifier))
            emit referenceAdded(toGeo(pos));
        else if (!m_moved && m_dragMarker < 0)
            emit referenceMoved(m_selected, toGeo(pos), true);
    }
    m_dragMarker = -1;
    m_panning = false;
}

void FieldView::mouseDoubleClickEvent(QMouseEvent*)
{
    fitView();
}

void FieldView::wheelEvent(QWheelEvent* event)
{
    const double steps = event->angleDelta().y() / 120.0;
    if (steps == 0.0)
        return;
    const double factor = std::pow(1.25, steps);
    const gpu::GeoPoint anchor = toGeo(event->position());
    // Zoom about the cursor: the point under it stays put.
    m_view = {anchor.lon - (anchor.lon - m_view.lonMin) / factor,
              anchor.lat - (anchor.lat - m_view.latMin) / factor,
              anchor.lon + (m_view.lonMax - anchor.lon) / factor,
              anchor.lat + (m_view.latMax - anchor.lat) / factor};
    update();
    updateHover(event->position());
}

void FieldView::keyPressEvent(QKeyEvent* event)
{
    const double panLon = 0.1 * (m_view.lonMax - m_view.lonMin);
    const double panLat = 0.1 * (m_view.latMax - m_view.latMin);
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomBy(1.25);
        break;
    case Qt::Key_Minus:
        zoomBy(0.8);
        break;
    case Qt::Key_Home:
    case Qt::Key_0:
        fitView();
        break;
    case Qt::Key_Left:
        m_view = {m_view.lonMin - panLon, m_view.latMin, m_view.lonMax - panLon, m_view.latMax};
        break;
    case Qt::Key_Right:
        m_view = {m_view.lonMin + panLon, m_view.latMin, m_view.lonMax + panLon, m_view.latMax};
        break;
    case Qt::Key_Up:
        m_view = {m_view.lonMin, m_view.latMin + panLat, m_view.lonMax, m_view.latMax + panLat};
        break;
    case Qt::Key_Down:
        m_view = {m_view.lonMin, m_view.latMin - panLat, m_view.lonMax, m_view.latMax - panLat};
        break;
    default:
        QOpenGLWidget::keyPressEvent(event);
        return;
    }
    update();
}

void FieldView::leaveEvent(QEvent*)
{
    m_hover.reset();
    emit hoverText(QString());
    m_annotations->update();
}

} // namespace warpscope::ui
