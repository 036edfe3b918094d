#include "warpscope/ui/KernelView.h"

#include "PrintedLines.h"
#include "common/AfterFrame.h"
#include "common/ColourBar.h"
#include "common/ValueText.h"
#include "warpscope/gpu/LaunchLesson.h"
#include "warpscope/gpu/MemoryPaint.h"
#include "warpscope/render/Colormap.h"

#include <GL/gl.h>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QPainter>
#include <QScopedValueRollback>
#include <QSocketNotifier>
#include <QToolTip>
#include <cmath>
#include <optional>

namespace warpscope::ui {

// The colour bar is a transparent child widget over the picture, as the field's overlay is,
// so that it is painted by QPainter without touching the GL state.
class KernelView::Legend : public QWidget
{
public:
    explicit Legend(KernelView* view) : QWidget(view), m_view(view)
    {
        setObjectName("kernelLegend");
        setAttribute(Qt::WA_TransparentForMouseEvents);
        setAttribute(Qt::WA_NoSystemBackground);
    }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter painter(this);
        m_view->drawLegend(painter);
        m_view->drawNotice(painter);
    }

private:
    KernelView* m_view;
};

KernelView::KernelView(std::shared_ptr<gpu::DevicePool> devices, QWidget* parent)
    : QOpenGLWidget(parent), m_devices(std::move(devices)), m_legend(new Legend(this))
{
    setObjectName("kernelView");
    m_args.launch.block = {16, 16, 1}; // the Launch panel's default, until it sends its own
    setMinimumSize(160, 120);
    setMouseTracking(true);
    m_deadline.setSingleShot(true);
    connect(&m_deadline, &QTimer::timeout, this, qOverload<>(&KernelView::update));
    if (const auto colormap = render::loadColormap("viridis"))
        m_colourBar = colourBarImage(*colormap);
}

namespace {

// How long a frame waits for a run before leaving it to the event loop: a slider's kernel of a
// few milliseconds is drawn in the frame that started it.
constexpr double kSameFrameMs = 50.0;

} // namespace

KernelView::~KernelView()
{
    if (context()) {
        // The members are gone by the time the base class destroys the context.
        disconnect(context(), nullptr, this, nullptr);
        makeCurrent();
        release();
        doneCurrent();
    }
}

void KernelView::release()
{
    m_answer.reset(); // before the runner's socket closes with the context
    m_deadline.stop();
    m_running = false;
    if (m_owners.valid()) {
        if (m_interop)
            m_interop->forget(m_owners.buffer);
        m_renderer.destroyOwners(m_owners);
    }
    if (m_surface.valid()) {
        if (m_interop)
            m_interop->forget(m_surface.buffer);
        m_renderer.destroySurface(m_surface);
    }
    m_renderer.destroySurface(m_memorySurface); // filled from the host, never mapped
    m_memoryStale = true;
    m_interop.reset();
    m_context.reset();
    m_renderer.release();
}

void KernelView::setBuild(std::shared_ptr<const KernelBuild> build)
{
    m_build = std::move(build);
    m_dirty = true;
    update();
}

// A setter that changes nothing starts no run: a kernel that failed (or never ends) runs
// again only when the person changes something.
void KernelView::setMesh(const gpu::DistanceParams& mesh)
{
    if (mesh == m_args.mesh)
        return;
    m_args.mesh = mesh;
    m_dirty = true;
    update();
}

void KernelView::setValues(const std::vector<double>& values)
{
    if (values == m_args.values)
        return;
    m_args.values = values;
    m_dirty = true;
    update();
}

void KernelView::setLaunch(const gpu::LaunchConfig& launch, bool gridFitted)
{
    if (launch == m_args.launch && gridFitted == m_gridFitted)
        return;
    m_args.launch = launch;
    m_gridFitted = gridFitted;
    m_dirty = true;
    update();
}

void KernelView::setTeaching(bool teaching, render::Overlay overlay)
{
    if (teaching == m_teaching && overlay == m_overlay)
        return;
    m_dirty = m_dirty || teaching != m_teaching;
    m_teaching = teaching;
    m_overlay = overlay;
    m_memoryStale = true;
    update();
    m_legend->update(); // its bar is hidden while the overlay colours ids
}

gpu::LaunchConfig KernelView::launch() const
{
    gpu::LaunchConfig launch = m_args.launch;
    if (m_gridFitted) {
        const gpu::Dim3 block = launch.block;
        launch.grid = {(m_args.mesh.nx + block.x - 1) / block.x,
                       (m_args.mesh.ny + block.y - 1) / block.y, 1};
    }
    return launch;
}

void KernelView::initializeGL()
{
    connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, [this] {
        // Qt makes a new context when the view moves to another window; a run in flight
        // ends with this one and runs again in the next.
        if (m_running) {
            m_running = false;
            m_dirty = true;
            emit runningChanged(false);
        }
        makeCurrent();
        release();
        doneCurrent();
    });
    if (gpu::Status s = m_renderer.initialize(); !s) {
        report(QString::fromStdString(s.message()), {});
        return;
    }
    std::string why;
    if (gpu::Status s =
            m_devices->openDisplay("kernel", render::glCudaDevices(), true, m_context, why);
        !s) {
        report(QString::fromStdString(s.message()), {});
        return;
    }
    m_interop = std::make_unique<render::GlInterop>(*m_context);
    if (const auto colormap = render::loadColormap("viridis"))
        m_renderer.setColormap(*colormap);
    emit contextReady(m_context->isCuda());
}

void KernelView::prepareRuns()
{
    // A failure to start is said at the first run.
    if (m_context)
        gpu::prepareUserKernels(*m_context);
}

void KernelView::runKernel()
{
    m_dirty = false;
    if (!m_build || !m_context || !m_interop)
        return;
    const gpu::FieldLayout layout = gpu::layoutFor(m_args.mesh);
    if (!(m_surface.layout == layout)) {
        if (m_surface.valid()) {
            m_interop->forget(m_surface.buffer);
            m_renderer.destroySurface(m_surface);
        }
        m_hasPicture = false;
        if (gpu::Status s = m_renderer.createSurface(layout, m_surface); !s) {
            report(QString::fromStdString(s.message()), {});
            return;
        }
    }
    gpu::KernelArgs args = m_args;
    args.launch = launch();
    if (m_teaching) {
        const unsigned int ownersBefore = m_owners.buffer;
        const gpu::Status status =
            m_renderer.allocateOwners(std::size_t(layout.nx) * std::size_t(layout.ny), m_owners);
        if (status && ownersBefore && ownersBefore != m_owners.buffer)
            m_interop->forget(ownersBefore);
        if (!status) {
            report(QString::fromStdString(status.message()), {});
            return;
        }
    }
    if (const gpu::Status s =
            gpu::startUserKernel(*m_context, m_build->gpu, m_build->cpu, args, m_teaching);
        !s) {
        gpu::KernelRun run;
        run.launch = args.launch;
        report(QString::fromStdString(s.message()), run);
        return;
    }
    if (gpu::userKernelAnswered(*m_context, std::min(kSameFrameMs, m_args.timeoutMs))) {
        finishRun();
        return;
    }
    m_running = true;
    m_answer =
        std::make_unique<QSocketNotifier>(gpu::userKernelSocket(*m_context), QSocketNotifier::Read);
    connect(m_answer.get(), &QSocketNotifier::activated, this, [this] {
        m_answer->setEnabled(false); // the answer is read in the next frame
        update();
    });
    m_deadline.start(int(std::ceil(m_args.timeoutMs)) + 1);
    afterFrame(this, [this] { emit runningChanged(true); });
}

void KernelView::finishRun()
{
    const bool wasRunning = m_running;
    m_running = false;
    m_answer.reset();
    m_deadline.stop();
    render::GlWriteScope scope(*m_interop, m_surface.buffer, m_surface.bytes());
    // The teaching record, written beside the field when the overlay is on.
    std::optional<render::GlWriteScope> owners;
    if (m_teaching)
        owners.emplace(*m_interop, m_owners.buffer, m_owners.bytes());
    gpu::KernelRun run;
    gpu::Status status = scope.status();
    if (status && owners)
        status = owners->status();
    if (status)
        status = gpu::finishUserKernel(
            *m_context, scope.view<float>(),
            owners ? owners->view<std::uint32_t>() : gpu::BufferView<std::uint32_t>{}, run);
    else
        gpu::stopUserKernel(*m_context);
    m_ranWith = run.launch;
    // A run that only lost accesses outside its output or buffers still drew the rest.
    const bool refusedOnly = run.outOfBoundsWrites > 0 || run.bufferOutOfBounds > 0;
    if (owners && (status || refusedOnly))
        if (gpu::Status committed = owners->commit(); !committed && status)
            status = committed;
    if (status || refusedOnly) {
        if (gpu::Status committed = scope.commit(); !committed && status)
            status = committed;
        else {
            m_hasPicture = true;
            m_stats = run.stats;
            m_printLines = run.printLines;
            m_printLinesDropped = run.printLinesDropped;
            m_memory = run.memory;
            m_ownerWords.clear(); // read back when the memory overlay paints this run
            m_memoryStale = true;
            ++m_framesDrawn;
            m_legend->update();
        }
    }
    if (wasRunning)
        afterFrame(this, [this] { emit runningChanged(false); });
    report(status ? QString() : QString::fromStdString(status.message()), run);
    if (m_dirty)
        update(); // what changed while it ran
}

void KernelView::report(const QString& problem, const gpu::KernelRun& run)
{
    m_lastProblem = problem;
    if (m_painting) // the run's picture is drawn first
        afterFrame(this, [this, problem, run] { emit ran(problem, run); });
    else
        emit ran(problem, run);
}

gpu::Status KernelView::memcheckJob(gpu::MemcheckJob& job)
{
    if (!m_build || !m_context)
        return gpu::Status::failure("No kernel has run yet");
    gpu::KernelArgs args = m_args;
    args.launch = launch();
    return gpu::prepareMemcheck(*m_context, m_build->gpu, args, job);
}

void KernelView::stopRun()
{
    if (!m_running || !m_context)
        return;
    m_running = false;
    m_answer.reset();
    m_deadline.stop();
    gpu::stopUserKernel(*m_context);
    emit runningChanged(false);
    gpu::KernelRun run;
    run.launch = launch();
    report(tr("Stopped: the kernel's process was ended. The picture keeps the last good run"), run);
}

void KernelView::setTimeoutMs(double timeoutMs)
{
    m_args.timeoutMs = timeoutMs;
}

bool KernelView::nodeAt(QPointF pos, int& row, int& col) const
{
    const gpu::DistanceParams& p = m_args.mesh;
    if (!m_hasPicture || width() < 2 || height() < 2)
        return false;
    // The mesh fills the view, latitude upwards.
    const long long x = std::llround(pos.x() / (width() - 1) * (p.nx - 1));
    const long long y = std::llround((1.0 - pos.y() / (height() - 1)) * (p.ny - 1));
    if (x < 0 || y < 0 || x >= p.nx || y >= p.ny)
        return false;
    row = int(y);
    col = int(x);
    return true;
}

QString KernelView::valueAt(QPointF pos)
{
    int row = 0, col = 0;
    if (!nodeAt(pos, row, col))
        return {};
    float value = 0.0f;
    makeCurrent();
    const bool ok = m_renderer.readValue(m_surface, row, col, value);
    doneCurrent();
    if (!ok)
        return {};
    return tr("node (%1, %2): %3").arg(col).arg(row).arg(valueText(value, [](double v) {
        return QString::number(v, 'g', 7);
    }));
}

bool KernelView::ownerWordsAt(QPointF pos, int& row, int& col, std::uint32_t (&owner)[2])
{
    const gpu::DistanceParams& p = m_args.mesh;
    const std::size_t nodes = std::size_t(p.nx) * std::size_t(p.ny);
    if (!m_teaching || m_owners.nodes != nodes || !nodeAt(pos, row, col))
        return false;
    makeCurrent();
    const bool ok = m_renderer.readOwner(m_owners, std::size_t(row) * p.nx + col, owner);
    doneCurrent();
    return ok;
}

QString KernelView::ownerAt(QPointF pos)
{
    int row = 0, col = 0;
    std::uint32_t owner[2] = {gpu::kUncovered, gpu::kUncovered};
    if (!ownerWordsAt(pos, row, col, owner))
        return {};
    if (owner[0] == gpu::kUncovered)
        return tr("node (%1, %2): no thread wrote it").arg(col).arg(row);
    const gpu::Dim3& b = m_ranWith.block;
    const gpu::Dim3& g = m_ranWith.grid;
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
        .arg(cuda() ? QString() : tr(" (simulated)"));
}

QString KernelView::printsAt(QPointF pos)
{
    int row = 0, col = 0;
    if ((m_printLines.empty() && m_printLinesDropped == 0) || !nodeAt(pos, row, col))
        return {};
    if (!m_teaching)
        return tr("printf: choose the Launch tab's teaching kernel to see the lines of the "
                  "thread that wrote this node");
    std::uint32_t owner[2] = {gpu::kUncovered, gpu::kUncovered};
    if (!ownerWordsAt(pos, row, col, owner) || owner[0] == gpu::kUncovered)
        return {};
    return threadPrintRows(m_printLines, m_printLinesDropped, owner[0], gpu::ownerThread(owner[1]),
                           m_ranWith)
        .join('\n');
}

void KernelView::mouseMoveEvent(QMouseEvent* event)
{
    QStringList lines{valueAt(event->position()), ownerAt(event->position()),
                      memoryAt(event->position())};
    lines.removeAll(QString());
    const QString prints = printsAt(event->position());
    if (lines.isEmpty() && prints.isEmpty()) {
        QToolTip::hideText();
    } else {
        // Rich text, so that the printed lines keep their columns in a monospaced font; the
        // kernel's text is escaped, never read as markup.
        QString html = "<p style='white-space:pre'>" + lines.join("\n").toHtmlEscaped() + "</p>";
        if (!prints.isEmpty())
            html += "<pre>" + prints.toHtmlEscaped() + "</pre>";
        QToolTip::showText(event->globalPosition().toPoint(), html, this);
    }
    QOpenGLWidget::mouseMoveEvent(event);
}

void KernelView::resizeEvent(QResizeEvent* event)
{
    m_legend->setGeometry(rect());
    QOpenGLWidget::resizeEvent(event);
}

void KernelView::drawLegend(QPainter& painter)
{
    if (m_hasPicture && showsMemory()) {
        drawMemoryLegend(painter);
        return;
    }
    if (!m_hasPicture || (m_teaching && m_overlay != render::Overlay::Distance))
        return; // the overlay's colours are ids, not values
    const int swatch = m_stats.nonFinite > 0 ? kNonFiniteSwatchHeight : 0;
    const int barHeight = std::min(220, height() - 24 - swatch);
    if (barHeight < 40 || width() < 200)
        return;
    // Wide enough for a label such as "-3.874e-07" beside the bar.
    const QRect box(width() - 118, 6, 112, barHeight + swatch + 12);
    painter.setPen(Qt::NoPen);
    painter.setBrush(QColor(0, 0, 0, 150));
    painter.drawRoundedRect(box, 4, 4);
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QColor(225, 228, 235));
    const QRect bar(box.left() + 8, box.top() + 6, 14, barHeight);
    paintColourBar(painter, bar, m_colourBar, &m_stats,
                   [](double v) { return QString::number(v, 'g', 4); });
}

void KernelView::setNotice(const QString& notice)
{
    m_notice = notice;
    m_legend->update();
}

void KernelView::drawNotice(QPainter& painter)
{
    if (m_notice.isEmpty())
        return;
    // Light text on a near-opaque dark box: readable over any picture, or none.
    const QRect area = rect().adjusted(16, 16, -16, -16);
    const int flags = Qt::AlignCenter | Qt::TextWordWrap;
    const QRect text = painter.fontMetrics().boundingRect(area, flags, m_notice);
    painter.setPen(Qt::NoPen);
    painter.setBrush(QColor(0, 0, 0, 220));
    painter.drawRoundedRect(text.adjusted(-10, -8, 10, 8), 4, 4);
    painter.setPen(QColor(245, 245, 245));
    painter.drawText(area, flags, m_notice);
}

void KernelView::paintGL()
{
    const QScopedValueRollback<bool> painting(m_painting, true);
    const qreal ratio = devicePixelRatioF();
    glClearColor(0.12f, 0.12f, 0.14f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    if (m_running) {
        if (gpu::userKernelAnswered(*m_context, 0.0) || !m_deadline.isActive())
            finishRun();
    } else if (m_dirty) {
        runKernel();
    }
    if (!m_hasPicture)
        return;
    if (showsMemory() && m_memoryStale) {
        paintMemory();
        m_legend->update();
    }
    const render::GeoRect rect{m_args.mesh.lonMin, m_args.mesh.latMin, m_args.mesh.lonMax,
                               m_args.mesh.latMax};
    const render::Viewport viewport{0, 0, int(width() * ratio), int(height() * ratio)};
    // A memory overlay draws its figures as values; one with nothing to paint, the output.
    const bool memory = showsMemory() && m_memoryPainted > 0;
    const render::Overlay overlay =
        m_teaching && !render::isMemoryOverlay(m_overlay) ? m_overlay : render::Overlay::Distance;
    m_renderer.draw(memory ? m_memorySurface : m_surface, rect, rect, viewport,
                    {0.12f, 0.12f, 0.14f}, overlay,
                    m_teaching && m_owners.valid() ? &m_owners : nullptr);
}

} // namespace warpscope::ui
