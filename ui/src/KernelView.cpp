#include "warpscope/ui/KernelView.h"

#include "warpscope/render/Colormap.h"

#include <GL/gl.h>
#include <QOpenGLContext>

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
    render::GlWriteScope scope(*m_interop, m_surface.buffer, m_surface.bytes());
    gpu::KernelRun run;
    gpu::Status status = scope.status();
    if (status)
        status = gpu::runUserKernel(*m_context, m_build->gpu, m_build->cpu, m_args,
                                    scope.view<float>(), &run);
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
    m_renderer.draw(m_surface, rect, rect, viewport, {0.12f, 0.12f, 0.14f});
}

} // namespace warpscope::ui
