#include "RenderTestSupport.h"

#define GL_GLEXT_PROTOTYPES
#include <GL/gl.h>
#include <GL/glext.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <gtest/gtest.h>

using namespace warpscope;
using namespace warpscope::render::test;

namespace {

// Headless EGL context with the renderer: Mesa on CI, the NVIDIA driver on a GPU machine.
class RendererTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        std::string error;
        m_gl = render::HeadlessGl::create(320, 200, error);
        if (!m_gl)
            GTEST_SKIP() << "no headless OpenGL: " << error;
        ASSERT_TRUE(m_renderer.initialize().ok());
        std::printf("OpenGL renderer: %s\n", m_gl->renderer().c_str());
    }
    void TearDown() override
    {
        if (!m_gl)
            return;
        m_renderer.destroySurface(m_surface);
        m_renderer.release();
    }

    std::vector<float> readBuffer(const render::FieldSurface& surface)
    {
        std::vector<float> values(surface.layout.elementCount());
        glBindBuffer(GL_COPY_READ_BUFFER, surface.buffer);
        glGetBufferSubData(GL_COPY_READ_BUFFER, 0, GLsizeiptr(values.size() * sizeof(float)),
                           values.data());
        glBindBuffer(GL_COPY_READ_BUFFER, 0);
        return values;
    }

    // Fills the surface with NaN so unwritten elements show.
    void poison(const render::FieldSurface& surface)
    {
        std::vector<float> nan(surface.layout.elementCount(), std::nanf(""));
        glBindBuffer(GL_COPY_WRITE_BUFFER, surface.buffer);
        glBufferSubData(GL_COPY_WRITE_BUFFER, 0, GLsizeiptr(nan.size() * sizeof(float)),
                        nan.data());
        glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
    }

    std::vector<std::uint8_t> render(const gpu::DistanceParams& p)
    {
        m_gl->bindFramebuffer();
        glClearColor(0, 0, 0, 1);
        glClear(GL_COLOR_BUFFER_BIT);
        const render::GeoRect mesh{p.lonMin, p.latMin, p.lonMax, p.latMax};
        m_renderer.draw(m_surface, mesh, mesh, {0, 0, m_gl->width(), m_gl->height()}, {0, 0, 0});
        return m_gl->readPixels();
    }

    // Writes the field into the GL buffer through `drawer` and checks it against the CPU's
    // host result.
    void expectGlBufferMatchesCpu(Drawer& drawer, const gpu::DistanceParams& p)
    {
        if (m_surface.valid())
            drawer.interop->forget(m_surface.buffer); // before GL may reuse the name
        m_renderer.destroySurface(m_surface);
        ASSERT_TRUE(m_renderer.createSurface(gpu::layoutFor(p), m_surface).ok());
        poison(m_surface);
        const gpu::Status s = fillField(drawer, p, m_surface);
        ASSERT_TRUE(s.ok()) << s.message();
        glFinish();
        const std::vector<float> gl = readBuffer(m_surface);
        Drawer cpu = cpuDrawer();
        std::vector<float> host(gpu::layoutFor(p).elementCount());
        ASSERT_TRUE(gpu::computeDistance(*cpu.context, p, std::span<float>(host)).ok());
        const double radius = p.radiusKm;
        for (std::size_t k = 0; k < gl.size(); ++k) {
            ASSERT_FALSE(std::isnan(gl[k])) << "element " << k << " was not written";
            // float32 kernels on two devices: a few metres, except near antipodes (none here).
            ASSERT_NEAR(gl[k], host[k], drawer.context->isCuda() ? 1e-5 * radius : 0.0) << k;
        }
    }

    std::unique_ptr<render::HeadlessGl> m_gl;
    render::FieldRenderer m_renderer;
    render::FieldSurface m_surface;
};

TEST_F(RendererTest, CpuFillsTheGlBufferWithGlBufferSubData)
{
    Drawer cpu = cpuDrawer();
    EXPECT_FALSE(cpu.interop->interop());
    gpu::DistanceParams p;
    p.nx = 301;
    p.ny = 200;
    expectGlBufferMatchesCpu(cpu, p);
}

// A write that fails hands nothing to OpenGL: the buffer keeps its last contents, and the
// next write goes through.
TEST_F(RendererTest, StagedWriteThatFailsLeavesTheBufferAsItWas)
{
    Drawer cpu = cpuDrawer();
    gpu::DistanceParams p;
    p.nx = 64;
    p.ny = 32;
    ASSERT_TRUE(m_renderer.createSurface(gpu::layoutFor(p), m_surface).ok());
    poison(m_surface);
    {
        render::GlWriteScope write(*cpu.interop, m_surface.buffer, m_surface.bytes());
        ASSERT_TRUE(write.status().ok());
        gpu::DistanceParams bad = p;
        bad.latMin = NAN; // the slice refuses it: the write fails
        EXPECT_FALSE(gpu::launchDistance(*cpu.context, bad, write.view<float>()).ok());
    } // closed without commit
    for (float v : readBuffer(m_surface))
        ASSERT_TRUE(std::isnan(v)) << "a failed write reached the buffer";
    expectGlBufferMatchesCpu(cpu, p);
    // A scope larger than its buffer is refused before anything is written.
    render::GlWriteScope tooLarge(*cpu.interop, m_surface.buffer, m_surface.bytes() + 4);
    EXPECT_FALSE(tooLarge.status().ok());
    EXPECT_FALSE(tooLarge.commit().ok());
}

TEST_F(RendererTest, DrawnPixelsFollowTheField)
{
    Drawer cpu = cpuDrawer();
    gpu::DistanceParams p;
    p.nx = 320;
    p.ny = 200;
    ASSERT_TRUE(m_renderer.createSurface(gpu::layoutFor(p), m_surface).ok());
    ASSERT_TRUE(fillField(cpu, p, m_surface).ok());
    const auto before = render(p);
    std::size_t coloured = 0;
    for (std::size_t k = 0; k < before.size(); k += 4)
        coloured += (before[k] | before[k + 1] | before[k + 2]) != 0;
    EXPECT_GT(coloured, before.size() / 4 * 9 / 10) << "the field should cover the view";

    p.references = {{29.0, 99.0}};
    ASSERT_TRUE(fillField(cpu, p, m_surface).ok());
    const auto after = render(p);
    std::size_t changed = 0;
    for (std::size_t k = 0; k < after.size(); ++k)
        changed += after[k] != before[k];
    EXPECT_GT(changed, after.size() / 4);
}

// The colour at a fraction of the framebuffer's width and height (origin lower left).
std::array<int, 3> pixelAt(const std::vector<std::uint8_t>& pixels, int width, int height,
                           double fx, double fy)
{
    const std::size_t k = 4 * (std::size_t(fy * height) * width + std::size_t(fx * width));
    return {pixels[k], pixels[k + 1], pixels[k + 2]};
}

std::array<int, 3> bytes(const std::array<float, 3>& rgb)
{
    return {int(rgb[0] * 255.0f + 0.5f), int(rgb[1] * 255.0f + 0.5f), int(rgb[2] * 255.0f + 0.5f)};
}

bool near(const std::array<int, 3>& a, const std::array<int, 3>& b)
{
    return std::abs(a[0] - b[0]) <= 2 && std::abs(a[1] - b[1]) <= 2 && std::abs(a[2] - b[2]) <= 2;
}

TEST(NonFiniteColours, LieFarFromEveryColormapEntry)
{
    for (const std::string& name : render::colormapNames()) {
        const auto colormap = render::loadColormap(name);
        ASSERT_TRUE(colormap) << name;
        for (const auto& stripe : render::kNonFiniteStripes)
            for (const auto& entry : colormap->rgb) {
                const double d =
                    std::hypot(entry[0] - stripe[0], entry[1] - stripe[1], entry[2] - stripe[2]);
                EXPECT_GT(d, 0.4) << name;
            }
    }
}

TEST_F(RendererTest, NonFiniteNodesAreStripedNotPaintedAsTheMinimum)
{
    // Four columns, two rows: the bottom row holds 0, NaN, +inf and -inf, the top 0 to 1.
    gpu::DistanceParams p;
    p.nx = 4;
    p.ny = 2;
    const gpu::FieldLayout layout = gpu::layoutFor(p);
    ASSERT_TRUE(m_renderer.createSurface(layout, m_surface).ok());
    std::vector<float> values(layout.elementCount(), 0.0f);
    const float bottom[4] = {0.0f, std::nanf(""), INFINITY, -INFINITY};
    const float top[4] = {0.0f, 0.25f, 0.5f, 1.0f};
    for (int col = 0; col < 4; ++col) {
        values[layout.index(0, col)] = bottom[col];
        values[layout.index(1, col)] = top[col];
    }
    values[layout.statsOffset()] = 0.0f;
    values[layout.statsOffset() + 1] = 1.0f;
    glBindBuffer(GL_COPY_WRITE_BUFFER, m_surface.buffer);
    glBufferSubData(GL_COPY_WRITE_BUFFER, 0, GLsizeiptr(values.size() * sizeof(float)),
                    values.data());
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
    const auto pixels = render(p);
    const int w = m_gl->width(), h = m_gl->height();
    const auto minimum = bytes(render::loadColormap("viridis")->rgb[0]);
    const auto magenta = bytes(render::kNonFiniteStripes[0]);
    const auto pink = bytes(render::kNonFiniteStripes[1]);
    EXPECT_TRUE(near(pixelAt(pixels, w, h, 0.05, 0.25), minimum));
    EXPECT_TRUE(near(pixelAt(pixels, w, h, 0.05, 0.75), minimum));
    // Each non-finite node's cell shows both stripes and nothing else.
    for (const double fx : {0.33, 0.67, 0.95}) {
        int magentas = 0, pinks = 0, others = 0;
        for (int dy = 0; dy < 8; ++dy)
            for (int dx = 0; dx < 8; ++dx) {
                const auto c = pixelAt(pixels, w, h, fx + dx / double(w), 0.25 + dy / double(h));
                magentas += near(c, magenta);
                pinks += near(c, pink);
                others += !near(c, magenta) && !near(c, pink);
            }
        EXPECT_GT(magentas, 0) << "column at " << fx;
        EXPECT_GT(pinks, 0) << "column at " << fx;
        EXPECT_EQ(others, 0) << "column at " << fx;
    }
    // The finite nodes above keep the scale.
    EXPECT_FALSE(near(pixelAt(pixels, w, h, 0.95, 0.75), minimum));
    float value = 0.0f;
    ASSERT_TRUE(m_renderer.readValue(m_surface, 0, 2, value));
    EXPECT_TRUE(std::isinf(value) && value > 0);
    ASSERT_TRUE(m_renderer.readValue(m_surface, 1, 1, value));
    EXPECT_EQ(value, 0.25f);
    EXPECT_FALSE(m_renderer.readValue(m_surface, 2, 0, value));
}

TEST_F(RendererTest, OversizedMeshIsRefusedWithAMessage)
{
    const gpu::FieldLayout huge = gpu::FieldLayout::forMesh(gpu::kMaxMeshAxis, gpu::kMaxMeshAxis);
    render::FieldSurface surface;
    const gpu::Status s = m_renderer.createSurface(huge, surface);
    if (m_renderer.maxTextureBufferTexels() >= static_cast<long long>(huge.elementCount()))
        GTEST_SKIP() << "this driver can address the largest mesh";
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find("at most"), std::string::npos) << s.message();
    EXPECT_FALSE(surface.valid());
}

// The teaching kernel's field and owner record, written into GL buffers by a device, match
// the host path: the same nodes reached, blocks and threads word for word, SM ids in range,
// distances within float32 rounding, and the stats slots the range of the nodes reached.
void expectLessonInGlMatchesHost(Drawer& drawer, render::FieldRenderer& renderer,
                                 render::FieldSurface& surface, const gpu::DistanceParams& p,
                                 const gpu::LessonLaunch& lesson)
{
    const gpu::FieldLayout layout = gpu::layoutFor(p);
    const std::size_t nodes = std::size_t(p.nx) * std::size_t(p.ny);
    renderer.destroySurface(surface);
    ASSERT_TRUE(renderer.createSurface(layout, surface).ok());
    render::OwnerSurface owners;
    ASSERT_TRUE(renderer.allocateOwners(nodes, owners).ok());
    // Zero words: a node left unwritten would read as block 0, thread 0, and be caught.
    const std::vector<std::uint32_t> zeros(2 * nodes, 0u);
    glBindBuffer(GL_COPY_WRITE_BUFFER, owners.buffer);
    glBufferSubData(GL_COPY_WRITE_BUFFER, 0, GLsizeiptr(zeros.size() * 4), zeros.data());
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
    const gpu::Status s = fillLesson(drawer, p, lesson, surface, owners);
    ASSERT_TRUE(s.ok()) << s.message();
    glFinish();
    std::vector<float> field(layout.elementCount());
    glBindBuffer(GL_COPY_READ_BUFFER, surface.buffer);
    glGetBufferSubData(GL_COPY_READ_BUFFER, 0, GLsizeiptr(field.size() * 4), field.data());
    std::vector<std::uint32_t> words(2 * nodes);
    glBindBuffer(GL_COPY_READ_BUFFER, owners.buffer);
    glGetBufferSubData(GL_COPY_READ_BUFFER, 0, GLsizeiptr(words.size() * 4), words.data());
    glBindBuffer(GL_COPY_READ_BUFFER, 0);

    Drawer cpu = cpuDrawer();
    std::vector<float> hostField(layout.elementCount(), std::nanf(""));
    std::vector<std::uint32_t> hostWords(2 * nodes);
    ASSERT_TRUE(gpu::runLesson(*cpu.context, p, lesson, hostField, hostWords).ok());
    const int smCount = drawer.context->info().smCount;
    float lo = INFINITY, hi = 0.0f;
    int reached = 0;
    for (int row = 0; row < p.ny; ++row)
        for (int col = 0; col < p.nx; ++col) {
            const std::size_t n = std::size_t(row) * p.nx + col;
            const float v = field[layout.index(row, col)], h = hostField[layout.index(row, col)];
            ASSERT_EQ(std::isnan(v), std::isnan(h)) << row << "," << col;
            ASSERT_EQ(words[2 * n], hostWords[2 * n]) << "block at " << row << "," << col;
            ASSERT_EQ(gpu::ownerThread(words[2 * n + 1]), gpu::ownerThread(hostWords[2 * n + 1]));
            if (std::isnan(v)) {
                ASSERT_EQ(words[2 * n], gpu::kUncovered);
                continue;
            }
            ++reached;
            ASSERT_LT(int(gpu::ownerSm(words[2 * n + 1])), smCount);
            ASSERT_NEAR(v, h, 1e-3f * h + 1e-3f);
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    EXPECT_GT(reached, 0);
    EXPECT_EQ(field[layout.statsOffset()], lo);
    EXPECT_EQ(field[layout.statsOffset() + 1], hi);
    const std::optional<gpu::FieldResult> result = awaitResult(*drawer.context);
    ASSERT_TRUE(result.has_value());
    EXPECT_EQ(float(result->stats.min), lo);
    EXPECT_EQ(float(result->stats.max), hi);
    drawer.interop->forget(surface.buffer);
    drawer.interop->forget(owners.buffer);
    renderer.destroyOwners(owners);
}

// A grid too small for the mesh leaves nodes unreached: they must stay NaN and uncovered.
gpu::LessonLaunch partialLesson()
{
    return {{{16, 8, 1}, {5, 4, 1}}, false};
}

TEST_F(RendererTest, CpuLessonFillsTheGlBuffers)
{
    Drawer cpu = cpuDrawer();
    gpu::DistanceParams p;
    p.nx = 120;
    p.ny = 45;
    expectLessonInGlMatchesHost(cpu, m_renderer, m_surface, p, partialLesson());
}

// Hue in degrees of an 8-bit colour.
double hueOf(const std::array<int, 3>& c)
{
    const int hi = std::max({c[0], c[1], c[2]}), lo = std::min({c[0], c[1], c[2]});
    if (hi == lo)
        return 0.0;
    const double d = hi - lo;
    const double h = hi == c[0]   ? std::fmod((c[1] - c[2]) / d + 6.0, 6.0)
                     : hi == c[1] ? (c[2] - c[0]) / d + 2.0
                                  : (c[0] - c[1]) / d + 4.0;
    return 60.0 * h;
}

double hueApart(const std::array<int, 3>& a, const std::array<int, 3>& b)
{
    const double d = std::fmod(std::abs(hueOf(a) - hueOf(b)), 360.0);
    return std::min(d, 360.0 - d);
}

// Warps are told apart from their neighbours in the next block as well as in their own, and a
// thread's colour follows its (x, y) in the block: on a 128 x 64 mesh, nodes several pixels
// wide, so each sample lies inside its node.
TEST_F(RendererTest, WarpsAndThreadsAreColouredByTheirPlace)
{
    Drawer cpu = cpuDrawer();
    gpu::DistanceParams p;
    p.nx = 128;
    p.ny = 64;
    ASSERT_TRUE(m_renderer.createSurface(gpu::layoutFor(p), m_surface).ok());
    render::OwnerSurface owners;
    ASSERT_TRUE(m_renderer.allocateOwners(std::size_t(p.nx) * p.ny, owners).ok());
    const render::GeoRect mesh{p.lonMin, p.latMin, p.lonMax, p.latMax};
    const int w = m_gl->width(), h = m_gl->height();
    auto draw = [&](const gpu::LessonLaunch& lesson, render::Overlay overlay) {
        EXPECT_TRUE(fillLesson(cpu, p, lesson, m_surface, owners).ok());
        m_gl->bindFramebuffer();
        glClearColor(0, 0, 0, 1);
        glClear(GL_COLOR_BUFFER_BIT);
        m_renderer.draw(m_surface, mesh, mesh, {0, 0, w, h}, {0, 0, 0}, overlay, &owners,
                        &lesson.launch);
        return m_gl->readPixels();
    };
    auto node = [&](const std::vector<std::uint8_t>& pixels, int row, int col) {
        // A third of a node past its centre: clear of the outline on a block's first node.
        return pixelAt(pixels, w, h, (col + 0.3) / (p.nx - 1), (row + 0.3) / (p.ny - 1));
    };
    // Blocks of 32 x 8: a warp is a row of a block; block (1, 1) is columns 32 to 63, rows 8 to 15.
    const auto warps = draw({{{32, 8, 1}, {4, 8, 1}}, false}, render::Overlay::Warp);
    EXPECT_GE(hueApart(node(warps, 12, 48), node(warps, 12, 80)), 30.0); // warp 4 of (1,1), (2,1)
    EXPECT_GE(hueApart(node(warps, 15, 48), node(warps, 16, 48)),
              30.0); // (1,1)'s last, (1,2)'s first
    EXPECT_GE(hueApart(node(warps, 12, 48), node(warps, 13, 48)), 30.0); // warps 4 and 5 of (1,1)
    // Blocks of 16 x 16: block (2, 1) is columns 32 to 47, rows 16 to 31.
    const auto threads = draw({{{16, 16, 1}, {8, 4, 1}}, false}, render::Overlay::Thread);
    const auto origin = node(threads, 16, 32), lastX = node(threads, 16, 47);
    const auto lastY = node(threads, 31, 32);
    EXPECT_GT(lastX[0] - origin[0], 150);
    EXPECT_NEAR(lastX[1], origin[1], 8);
    EXPECT_GT(lastY[1] - origin[1], 150);
    EXPECT_NEAR(lastY[0], origin[0], 8);
    EXPECT_TRUE(near(origin, node(threads, 48, 96))); // threadIdx (0, 0) of block (6, 3)
    cpu.interop->forget(m_surface.buffer);
    cpu.interop->forget(owners.buffer);
    m_renderer.destroyOwners(owners);
}

TEST_F(RendererTest, CudaLessonWritesItsGlBuffersThroughInterop)
{
    Drawer cuda = cudaDrawer(true);
    if (!cuda.context)
        GTEST_SKIP() << "OpenGL runs on no CUDA device";
    EXPECT_TRUE(cuda.interop->interop());
    gpu::DistanceParams p;
    p.nx = 301;
    p.ny = 203;
    expectLessonInGlMatchesHost(cuda, m_renderer, m_surface, p, partialLesson());
    p.precision = gpu::Precision::Float64;
    expectLessonInGlMatchesHost(cuda, m_renderer, m_surface, p,
                                {{{32, 8, 1}, {3, 2, 1}}, true}); // grid-stride covers all
}

TEST_F(RendererTest, CudaStagedLessonFillsTheGlBuffers)
{
    Drawer cuda = cudaDrawer(false);
    if (!cuda.context)
        GTEST_SKIP() << "OpenGL runs on no CUDA device";
    gpu::DistanceParams p;
    p.nx = 150;
    p.ny = 61;
    expectLessonInGlMatchesHost(cuda, m_renderer, m_surface, p, partialLesson());
}

TEST_F(RendererTest, CudaInteropFillsTheGlBuffer)
{
    Drawer cuda = cudaDrawer(true);
    if (!cuda.context)
        GTEST_SKIP() << "OpenGL runs on no CUDA device";
    EXPECT_TRUE(cuda.interop->interop());
    gpu::DistanceParams p;
    p.nx = 1001;
    p.ny = 777;
    p.references = {{30.0, 101.0}, {29.2, 99.7}};
    expectGlBufferMatchesCpu(cuda, p);
    // A second fill of a new size re-registers, and a third of the same size reuses it.
    p.nx = 515;
    expectGlBufferMatchesCpu(cuda, p);
    ASSERT_TRUE(fillField(cuda, p, m_surface).ok());
    const std::optional<gpu::FieldResult> result = awaitResult(*cuda.context);
    ASSERT_TRUE(result.has_value());
    EXPECT_GT(result->kernelMs, 0.0);
    cuda.interop->forget(m_surface.buffer);
}

TEST_F(RendererTest, CudaHostCopyFillsTheGlBuffer)
{
    Drawer cuda = cudaDrawer(false);
    if (!cuda.context)
        GTEST_SKIP() << "OpenGL runs on no CUDA device";
    EXPECT_FALSE(cuda.interop->interop());
    gpu::DistanceParams p;
    p.nx = 640;
    p.ny = 480;
    expectGlBufferMatchesCpu(cuda, p);
}

// The periodogram's line, computed on one context and written by another into the renderer's
// vertex buffer: poisoned first, then every float must equal the spectrum's own decimation,
// and the drawn line shows.
void expectSpectrumLineInGl(gpu::Context& computing, Drawer& drawer, render::HeadlessGl& gl)
{
    const gpu::TimeSeries series = gpu::syntheticSeries({});
    gpu::PeriodogramOptions options;
    options.grid = gpu::autoFrequencyGrid(series);
    options.grid.count = 200003;
    options.grid.df /= 40.0;
    std::shared_ptr<const gpu::Spectrum> spectrum;
    const gpu::Status computed = gpu::computeSpectrum(computing, series, options, spectrum);
    ASSERT_TRUE(computed.ok()) << computed.message();
    render::SpectrumRenderer renderer;
    ASSERT_TRUE(renderer.initialize().ok());
    for (const int columns : {gl.width(), 77, gl.width()}) {
        ASSERT_TRUE(renderer.reserve(columns).ok());
        std::vector<float> poison(renderer.floats(), -12345.0f);
        glBindBuffer(GL_COPY_WRITE_BUFFER, renderer.buffer());
        glBufferSubData(GL_COPY_WRITE_BUFFER, 0, GLsizeiptr(poison.size() * 4), poison.data());
        const gpu::SpectrumAxis axis{
            options.grid.fmin, options.grid.fmax(), false, false, 1.0, columns};
        const gpu::Status filled = fillLine(drawer, *spectrum, axis, renderer.buffer());
        ASSERT_TRUE(filled.ok()) << filled.message();
        glFinish();
        const std::size_t floats = std::size_t(columns) * gpu::kSpectrumFloatsPerColumn;
        std::vector<float> line(floats);
        glBindBuffer(GL_COPY_READ_BUFFER, renderer.buffer());
        glGetBufferSubData(GL_COPY_READ_BUFFER, 0, GLsizeiptr(floats * 4), line.data());
        glBindBuffer(GL_COPY_READ_BUFFER, 0);
        std::vector<float> expected(floats);
        ASSERT_TRUE(spectrum->decimate(axis, expected).ok());
        for (std::size_t i = 0; i < floats; ++i)
            ASSERT_EQ(line[i], expected[i]) << "float " << i << " of " << columns << " columns";

        gl.bindFramebuffer();
        glClearColor(0, 0, 0, 1);
        glClear(GL_COLOR_BUFFER_BIT);
        renderer.draw(columns, 0.0, spectrum->maxPower(), {0, 0, columns, gl.height()},
                      {1, 1, 1, 1});
        const std::vector<std::uint8_t> pixels = gl.readPixels();
        std::size_t lit = 0;
        for (std::size_t i = 0; i < pixels.size(); i += 4)
            lit += pixels[i] > 128;
        EXPECT_GT(lit, std::size_t(columns)) << "the line is not drawn";
    }
    drawer.interop->forget(renderer.buffer());
    renderer.release();
}

TEST_F(RendererTest, CpuSpectrumLineIsUploaded)
{
    Drawer cpu = cpuDrawer();
    expectSpectrumLineInGl(*cpu.context, cpu, *m_gl);
}

TEST_F(RendererTest, CudaSpectrumLineIsWrittenThroughInterop)
{
    Drawer cuda = cudaDrawer(true);
    if (!cuda.context)
        GTEST_SKIP() << "OpenGL runs on no CUDA device";
    EXPECT_TRUE(cuda.interop->interop());
    expectSpectrumLineInGl(*cuda.context, cuda, *m_gl);
}

TEST_F(RendererTest, CudaSpectrumFromTheWorkersContextIsDrawnThroughInterop)
{
    // The workspace computes on a worker thread's context (no GL) and draws with the view's.
    Drawer view = cudaDrawer(true);
    if (!view.context)
        GTEST_SKIP() << "OpenGL runs on no CUDA device";
    std::unique_ptr<gpu::Context> worker;
    ASSERT_TRUE(gpu::Context::open(view.context->device(), worker).ok());
    expectSpectrumLineInGl(*worker, view, *m_gl);
    // A CPU spectrum reaches the same buffer by a copy, and a CUDA one a CPU view draws.
    Drawer cpu = cpuDrawer();
    expectSpectrumLineInGl(*cpu.context, view, *m_gl);
    expectSpectrumLineInGl(*worker, cpu, *m_gl);
    // And a staged view, as for a display on another GPU.
    Drawer staged = cudaDrawer(false);
    expectSpectrumLineInGl(*worker, staged, *m_gl);
}

} // namespace
