#include "warpscope/ui/KernelView.h"

#include "warpscope/render/Colormap.h"

#include <GL/gl.h>
#include <QOpenGLContext>
#include <optional>

namespace warpscope::ui {

KernelView::KernelView(std::shared_ptr<gpu::DevicePool> devices, QWidget* parent)
    : QOpenGLWidget(parent), m_devices(std::move(devices))
{
    setObjectName("kernelView");
    m_args.launch.block = {16, 16, 1}; // the Launch panel's default, until it sends its own
    setMinimumSize(160, 120);
}

KernelView::~KernelView()
{
    if (context()) {
        makeCurrent();
        release();
        doneCurrent();
    }
}

void KernelView::release()
{
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

void KernelView::setMesh(const gpu::DistanceParams& mesh)
{
    m_args.mesh = mesh;
    m_dirty = true;
    update();
}

void KernelView::setValues(const std::vector<float>& values)
{
    m_args.values = values;
    m_dirty = true;
    update();
}

void KernelView::setLaunch(const gpu::LaunchConfig& launch, bool gridFitted)
{
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
    update();
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
        makeCurrent();
        release();
        doneCurrent();
    });
    if (gpu::Status s = m_renderer.initialize(); !s) {
        emit ran(QString::fromStdString(s.message()), {});
        return;
    }
    std::string why;
    if (gpu::Status s =
            m_devices->openDisplay("kernel", render::glCudaDevices(), true, m_context, why);
        !s) {
        emit ran(QString::fromStdString(s.message()), {});
        return;
    }
    m_interop = std::make_unique<render::GlInterop>(*m_context);
    if (const auto colormap = render::loadColormap("viridis"))
        m_renderer.setColormap(*colormap);
    emit contextReady(m_context->isCuda());
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
            emit ran(QString::fromStdString(s.message()), {});
            return;
        }
    }
    m_args.launch = launch();
    gpu::Status status = gpu::Status::success();
    if (m_teaching) {
        const unsigned int ownersBefore = m_owners.buffer;
        status =
            m_renderer.allocateOwners(std::size_t(layout.nx) * std::size_t(layout.ny), m_owners);
        if (status && ownersBefore && ownersBefore != m_owners.buffer)
            m_interop->forget(ownersBefore);
        if (!status) {
            emit ran(QString::fromStdString(status.message()), {});
            return;
        }
    }
    render::GlWriteScope scope(*m_interop, m_surface.buffer, m_surface.bytes());
    // The teaching record, written beside the field when the overlay is on.
    std::optional<render::GlWriteScope> owners;
    if (m_teaching)
        owners.emplace(*m_interop, m_owners.buffer, m_owners.bytes());
    gpu::KernelRun run;
    status = scope.status();
    if (status && owners)
        status = owners->status();
    gpu::KernelArgs args = m_args;
    if (owners)
        args.owners = owners->view<std::uint32_t>();
    if (status)
        status = gpu::runUserKernel(*m_context, m_build->gpu, m_build->cpu, args,
                                    scope.view<float>(), &run);
    if (owners && (status || run.outOfBoundsWrites > 0))
        if (gpu::Status committed = owners->commit(); !committed && status)
            status = committed;
    // A run that only lost writes outside its output still drew the rest.
    if (status || run.outOfBoundsWrites > 0) {
        if (gpu::Status committed = scope.commit(); !committed && status)
            status = committed;
        else {
            m_hasPicture = true;
            ++m_framesDrawn;
        }
    }
    emit ran(status ? QString() : QString::fromStdString(status.message()), run);
}

void KernelView::paintGL()
{
    const qreal ratio = devicePixelRatioF();
    glClearColor(0.12f, 0.12f, 0.14f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    if (m_dirty)
        runKernel();
    if (!m_hasPicture)
        return;
    const render::GeoRect rect{m_args.mesh.lonMin, m_args.mesh.latMin, m_args.mesh.lonMax,
                               m_args.mesh.latMax};
    const render::Viewport viewport{0, 0, int(width() * ratio), int(height() * ratio)};
    m_renderer.draw(m_surface, rect, rect, viewport, {0.12f, 0.12f, 0.14f},
                    m_teaching ? m_overlay : render::Overlay::Distance,
                    m_teaching && m_owners.valid() ? &m_owners : nullptr);
}

} // namespace warpscope::ui
