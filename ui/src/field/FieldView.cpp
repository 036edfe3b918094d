#include "warpscope/ui/FieldView.h"

#include "common/AfterFrame.h"
#include "common/ColourBar.h"
#include "common/OwnerLegend.h"

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

// 1000000 as "1 000 000": a teacher reads the counts aloud.
QString groupDigits(long long value)
{
    QString digits = QString::number(value);
    for (int i = int(digits.size()) - 3; i > 0; i -= 3)
        digits.insert(i, ' ');
    return digits;
}

QString dimsText(const gpu::Dim3& d)
{
    QString text = QString("%1 x %2").arg(d.x).arg(d.y);
    return d.z > 1 ? text + QString(" x %1").arg(d.z) : text;
}

// A text on a dark box, centred on centre, kept inside area.
void drawLabel(QPainter& painter, const QRect& area, QPointF centre, const QString& text)
{
    const QFontMetrics fm(painter.font());
    QRectF box(0, 0, fm.horizontalAdvance(text) + 10, fm.height() + 4);
    box.moveCenter(centre);
    box.moveLeft(std::clamp(box.left(), qreal(area.left()), area.right() - box.width()));
    box.moveTop(std::clamp(box.top(), qreal(area.top()), area.bottom() - box.height()));
    painter.setPen(Qt::NoPen);
    painter.setBrush(QColor(0, 0, 0, 190));
    painter.drawRoundedRect(box, 3, 3);
    painter.setBrush(Qt::NoBrush);
    painter.setPen(Qt::white);
    painter.drawText(box, Qt::AlignCenter, text);
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
    // A frame on screen means the field's buffer was handed back, so its figures can be
    // asked for (the first ask queues their copy; a later frame's finds them).
    connect(this, &QOpenGLWidget::frameSwapped, this, &FieldView::takeResult);
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

void FieldView::setDevices(std::shared_ptr<gpu::DevicePool> devices, bool allowInterop)
{
    m_devices = std::move(devices);
    m_allowInterop = allowInterop;
    m_timeline = m_devices ? m_devices->timeline() : nullptr;
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
    // The built-in kernel's memory is not recorded (the Launch tab says so): drawn by distance.
    m_overlayMode = render::isMemoryOverlay(overlay) ? render::Overlay::Distance : overlay;
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
    m_colorbar = colourBarImage(m_colormap);
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
    openContext();
    // A context can be destroyed and made again (the view moved to another window), and the
    // field went with the old one: compute it again, or the map would wait for ever.
    m_dirty = true;
}

// Opens the compute context with the GL context current: the pool decides the device from
// where OpenGL runs.
void FieldView::openContext()
{
    m_job.waitForFinished();
    m_ready.reset();
    m_jobWrite.reset();
    if (m_jobTarget.valid() && m_jobTarget.buffer != m_surface.buffer)
        m_renderer.destroySurface(m_jobTarget);
    m_jobTarget = {};
    m_interop.reset();
    m_context.reset();
    if (!m_devices) // a view nobody configured computes on the CPU
        m_devices = std::make_shared<gpu::DevicePool>(gpu::BackendKind::Cpu, -1, nullptr);
    m_generation = m_devices->generation();
    std::string why;
    if (gpu::Status s = m_devices->openDisplay("field", render::glCudaDevices(), m_allowInterop,
                                               m_context, why);
        !s) {
        // The explicit request cannot be met in this context; keep the app usable.
        why = "CPU: " + s.message();
        if (gpu::Status cpu = gpu::Context::open({gpu::DeviceKind::Cpu, 0}, m_context); !cpu) {
            fail(QString::fromStdString(cpu.message()));
            return;
        }
        if (m_timeline)
            m_context->setTimeline(m_timeline, "field");
        m_devices->note("field", "CPU");
    }
    m_interop = std::make_unique<render::GlInterop>(*m_context, m_allowInterop);
    m_hostJobs = !m_context->isCuda();
    if (m_timeline)
        m_drawLane = m_timeline->lane("OpenGL: field view");
    QString reason = QString::fromStdString(why);
    // CUDA's reason already names the GPU; the CPU's gets its thread count.
    if (m_hostJobs)
        reason += " · " + QString::fromStdString(m_context->name());
    m_backendDescription = reason;
    m_result.reset();
    m_pending = false;
    afterFrame(this, [this, reason, device = QString::fromStdString(m_context->name())] {
        emit backendReady(reason, device);
    });
}

void FieldView::releaseGl()
{
    m_job.waitForFinished();
    m_ready.reset();
    m_jobWrite.reset();
    if (m_jobTarget.valid() && m_jobTarget.buffer != m_surface.buffer)
        m_renderer.destroySurface(m_jobTarget);
    m_jobTarget = {};
    m_interop.reset(); // its registrations go before the buffers they name
    if (m_surface.valid())
        m_renderer.destroySurface(m_surface);
    m_renderer.destroyOwners(m_owners);
    m_renderer.release();
    m_drawTimer.release();
    m_context.reset();
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
    if (m_interop)
        m_interop->forget(surface.buffer);
    m_renderer.destroySurface(surface);
}

// A failure can come before the first frame, even while the window is first shown, so it is
// kept for the map and for anyone who asks later, as well as signalled once the frame is done.
void FieldView::fail(const QString& message)
{
    m_failure = message;
    afterFrame(this, [this, message] { emit computeFailed(message); });
    update();
}

void FieldView::showSurface(const render::FieldSurface& target, const gpu::DistanceParams& params)
{
    m_failure.clear();
    if (m_surface.valid() && target.buffer != m_surface.buffer)
        dropSurface(m_surface);
    m_surface = target;
    m_shown = params;
    afterFrame(this, [this, params] { emit fieldShown(params); }); // drawn first
}

void FieldView::takeResult()
{
    if (!m_pending || !m_context || m_job.isRunning())
        return;
    if (const auto result = gpu::fieldResult(*m_context)) {
        m_result = result;
        m_pending = false;
        emit resultReady(*result);
        m_annotations->update(); // the colour bar's labels
    } else {
        update(); // checked again once the next frame is on screen
    }
}

void FieldView::compute()
{
    m_dirty = false;
    if (!m_context || !m_renderer.initialized())
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
            capacity = gpu::checkDistanceCapacity(*m_context, params, !m_interop->interop());
        if (!capacity) {
            fail(QString::fromStdString(capacity.message()));
            return;
        }
    }
    if (m_hostJobs && m_job.isRunning()) {
        m_dirty = true; // picked up when the running job ends
        return;
    }
    if (m_lesson) {
        computeLesson(params);
        return;
    }
    render::FieldSurface target;
    if (!prepareSurface(gpu::layoutFor(params), target))
        return;
    if (m_hostJobs) {
        startHostJob(params, target);
        return;
    }
    gpu::Status s;
    {
        render::GlWriteScope write(*m_interop, target.buffer, target.bytes());
        s = write.status();
        if (s)
            s = gpu::launchDistance(*m_context, params, write.view<float>());
        if (s)
            s = write.commit();
    }
    if (!s) {
        if (target.buffer != m_surface.buffer)
            dropSurface(target);
        fail(QString::fromStdString(s.message()));
        return;
    }
    m_pending = true;
    showSurface(target, params);
}

// The teaching kernel writes the field and the owner record into their GL buffers: on a GPU
// straight through interop, on the CPU by simulating the launch block by block.
void FieldView::computeLesson(const gpu::DistanceParams& params)
{
    const gpu::FieldLayout layout = gpu::layoutFor(params);
    render::FieldSurface target;
    if (!prepareSurface(layout, target))
        return;
    const std::size_t nodes = std::size_t(params.nx) * std::size_t(params.ny);
    const unsigned int ownersBefore = m_owners.buffer;
    gpu::Status s = m_renderer.allocateOwners(nodes, m_owners);
    if (s && ownersBefore && ownersBefore != m_owners.buffer)
        m_interop->forget(ownersBefore);
    if (s) {
        render::GlWriteScope field(*m_interop, target.buffer, target.bytes());
        render::GlWriteScope owners(*m_interop, m_owners.buffer, m_owners.bytes());
        s = field.status();
        if (s)
            s = owners.status();
        if (s)
            s = gpu::launchLesson(*m_context, params, *m_lesson, field.view<float>(),
                                  owners.view<std::uint32_t>());
        if (s)
            s = owners.commit();
        if (s)
            s = field.commit();
    }
    if (!s) {
        if (target.buffer != m_surface.buffer)
            dropSurface(target);
        fail(QString::fromStdString(s.message()));
        return;
    }
    m_pending = true;
    showSurface(target, params);
}

QString FieldView::ownerText(gpu::GeoPoint point)
{
    const gpu::DistanceParams& p = m_shown;
    const std::size_t nodes = std::size_t(p.nx) * std::size_t(p.ny);
    if (!m_lesson || m_owners.nodes != nodes)
        return {};
    const long long col = std::llround((point.lon - p.lonMin) / (p.lonMax - p.lonMin) * (p.nx - 1));
    const long long row = std::llround((point.lat - p.latMin) / (p.latMax - p.latMin) * (p.ny - 1));
    if (col < 0 || row < 0 || col >= p.nx || row >= p.ny)
        return {};
    const std::size_t node = std::size_t(row) * p.nx + col;
    std::uint32_t owner[2] = {gpu::kUncovered, gpu::kUncovered};
    makeCurrent();
    const bool ok = m_renderer.readOwner(m_owners, node, owner);
    doneCurrent();
    if (!ok)
        return {};
    if (owner[0] == gpu::kUncovered)
        return tr("node (%1, %2): no thread").arg(col).arg(row);
    const gpu::Dim3& b = m_lesson->launch.block;
    const gpu::Dim3& g = m_lesson->launch.grid;
    const std::uint32_t thread = gpu::ownerThread(owner[1]);
    const long long warpsPerBlock = (b.volume() + 31) / 32;
    return tr("node (%1, %2): blockIdx (%3, %4), threadIdx (%5, %6), warp %7 (%8 of its block), "
              "SM %9%10")
        .arg(col)
        .arg(row)
        .arg(owner[0] % g.x)
        .arg(owner[0] / g.x)
        .arg(thread % b.x)
        .arg(thread / b.x)
        .arg(owner[0] * warpsPerBlock + thread / 32)
        .arg(thread / 32)
        .arg(gpu::ownerSm(owner[1]))
        .arg(deviceInfo().simulated ? tr(" (simulated)") : QString());
}

// The CPU computes on a worker thread, so the window keeps answering while a large mesh is
// computed, straight into the staging memory of the target's write; the write is handed to
// OpenGL with the GL context current, in paintGL. One job runs at a time; parameters that
// change meanwhile start the next job when it ends.
void FieldView::startHostJob(const gpu::DistanceParams& params, render::FieldSurface target)
{
    m_jobWrite = std::make_unique<render::GlWriteScope>(*m_interop, target.buffer, target.bytes());
    if (gpu::Status s = m_jobWrite->status(); !s) {
        m_jobWrite.reset();
        if (target.buffer != m_surface.buffer)
            dropSurface(target);
        fail(QString::fromStdString(s.message()));
        return;
    }
    m_jobTarget = target;
    gpu::Context* context = m_context.get();
    const gpu::BufferView<float> out = m_jobWrite->view<float>();
    m_job.setFuture(QtConcurrent::run([context, params, out] {
        HostField field{params, {}, {}};
        field.status = gpu::launchDistance(*context, params, out);
        if (field.status)
            field.result = gpu::fieldResult(*context);
        return field;
    }));
}

void FieldView::presentHostField(const HostField& field)
{
    std::unique_ptr<render::GlWriteScope> write = std::move(m_jobWrite);
    render::FieldSurface target = std::exchange(m_jobTarget, {});
    gpu::Status s = field.status;
    if (s && !m_lesson) // else the teaching kernel took over while this job ran
        s = write->commit();
    write.reset();
    if (!s || m_lesson) {
        if (target.buffer != m_surface.buffer)
            dropSurface(target);
        if (!s)
            fail(QString::fromStdString(s.message()));
        return;
    }
    m_result = field.result;
    m_pending = false;
    showSurface(target, field.params);
    if (const std::optional<gpu::FieldResult> result = m_result)
        afterFrame(this, [this, result] { emit resultReady(*result); });
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
    // The CPU adds its spans as it goes, from whichever thread runs it.
    if (!m_context || !m_timeline)
        return {};
    if (context()) { // draws timed in earlier frames
        makeCurrent();
        m_drawTimer.collect();
        doneCurrent();
    }
    if (m_hostJobs)
        return {};
    const gpu::Status s = m_context->collectTimeline();
    return s ? QString() : QString::fromStdString(s.message());
}

void FieldView::paintGL()
{
    if (m_timeline) {
        m_timeline->beginFrame();
        m_drawTimer.collect();
    }
    if (m_context && m_devices->generation() != m_generation) {
        openContext(); // the person chose another device
        m_dirty = true;
    }
    if (m_ready) {
        const HostField field = std::move(*m_ready);
        m_ready.reset();
        presentHostField(field);
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
            m_overlayMode, m_lesson ? &m_owners : nullptr, m_lesson ? &m_lesson->launch : nullptr);
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

QPointF FieldView::nodePosition(int row, int col) const
{
    const gpu::DistanceParams& p = m_shown;
    return toScreen({p.latMin + (p.latMax - p.latMin) * row / std::max(1, p.ny - 1),
                     p.lonMin + (p.lonMax - p.lonMin) * col / std::max(1, p.nx - 1)});
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

    // Colour bar with five labels, in the text's colour (the markers leave the pen red); the
    // teaching overlays' colours are categories, so a legend instead.
    painter.setPen(text);
    const QRect bar(width() - kColorbarWidth + 12, area.top(), 16, area.height());
    if (showsOwners()) {
        paintOwnerLegend(painter,
                         QRect(bar.left() - 4, area.top(), kColorbarWidth - 14, area.height()),
                         m_overlayMode, coverageCaption());
        drawOwnerMarks(painter, area);
    } else {
        paintColourBar(painter, bar, m_colorbar, m_result ? &m_result->stats : nullptr,
                       [this](double v) { return formatDistance(v, m_shown); });
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

bool FieldView::showsOwners() const
{
    return m_lesson && m_overlayMode != render::Overlay::Distance;
}

QString FieldView::coverageCaption() const
{
    if (!m_lesson)
        return {};
    const gpu::LaunchConfig& l = m_lesson->launch;
    const long long nx = m_shown.nx, ny = m_shown.ny;
    // Threads with a z above 0 have no node; a grid-stride loop takes every node.
    const long long columns = m_lesson->gridStride ? nx : std::min(nx, l.grid.x * l.block.x);
    const long long rows = m_lesson->gridStride ? ny : std::min(ny, l.grid.y * l.block.y);
    QString caption = tr("grid %1 of %2 threads: %3 of %4 nodes reached")
                          .arg(dimsText(l.grid), dimsText(l.block), groupDigits(columns * rows),
                               groupDigits(nx * ny));
    if (columns * rows < nx * ny)
        caption += tr(": tick Grid-stride loop or fit the grid");
    return caption;
}

void FieldView::drawOwnerMarks(QPainter& painter, const QRect& area)
{
    painter.save();
    painter.setClipRect(area);
    const gpu::Dim3& b = m_lesson->launch.block;
    // Block (0, 0) holds nodes 0 to blockDim - 1 of the first row and column.
    const int lastCol = int(std::min<long long>(b.x, m_shown.nx) - 1);
    const int lastRow = int(std::min<long long>(b.y, m_shown.ny) - 1);
    if (const QPointF centre = (nodePosition(0, 0) + nodePosition(lastRow, lastCol)) / 2.0;
        area.contains(centre.toPoint()))
        drawLabel(painter, area, centre, "(0,0)");
    drawBlockRulers(painter, area);
    painter.restore();
}

// blockIdx.x at block edges along the top of the picture and blockIdx.y along its right edge,
// at a step of 1, 2 or 5 times a power of ten blocks that keeps their labels apart; with a
// grid-stride loop a block's index repeats every grid.
void FieldView::drawBlockRulers(QPainter& painter, const QRect& area)
{
    const gpu::LaunchConfig& l = m_lesson->launch;
    const QFontMetrics fm(painter.font());
    const QPointF origin = nodePosition(0, 0);
    const QPointF last = nodePosition(m_shown.ny - 1, m_shown.nx - 1);
    const QPointF perNode((last.x() - origin.x()) / std::max(1, m_shown.nx - 1),
                          (last.y() - origin.y()) / std::max(1, m_shown.ny - 1));
    // Along the mesh's top and right edges, where the view shows them.
    const double top = std::max(double(area.top()), last.y() + perNode.y() / 2.0);
    const double right = std::min(double(area.right()), last.x() + perNode.x() / 2.0);
    for (const bool across : {true, false}) {
        const long long block = across ? l.block.x : l.block.y;
        const long long grid = across ? l.grid.x : l.grid.y;
        const long long nodes = across ? m_shown.nx : m_shown.ny;
        const double pixels = std::abs(across ? perNode.x() : perNode.y()) * block;
        const long long step =
            std::max(1LL, std::llround(niceStep((across ? 70.0 : 30.0) / pixels, 1)));
        const long long tiles = m_lesson->gridStride ? (nodes + block - 1) / block : grid;
        for (long long t = 0; t < tiles && t * block < nodes; t += step) {
            const QString label = (t == 0 ? (across ? "blockIdx.x " : "blockIdx.y ") : QString()) +
                                  QString::number(t % grid);
            // A block's edge lies half a node before its first node.
            const QPointF edge = origin + perNode * (t * block - 0.5);
            painter.setPen(Qt::white);
            if (across && edge.x() >= area.left() - 1 && edge.x() <= area.right()) {
                painter.drawLine(QPointF(edge.x(), top), QPointF(edge.x(), top + 6));
                drawLabel(
                    painter, area,
                    {edge.x() + fm.horizontalAdvance(label) / 2.0 + 6, top + fm.height() / 2.0 + 4},
                    label);
            } else if (!across && edge.y() >= top + fm.height() + 12 &&
                       edge.y() <= area.bottom() + 2) { // below the blockIdx.x ruler
                painter.drawLine(QPointF(right - 6, edge.y()), QPointF(right, edge.y()));
                drawLabel(painter, area,
                          {right - fm.horizontalAdvance(label) / 2.0 - 14,
                           edge.y() - fm.height() / 2.0 - 3},
                          label);
            }
        }
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
