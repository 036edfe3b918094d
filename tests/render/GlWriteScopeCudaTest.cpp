// The one way into OpenGL under a CUDA error: built only where CUDA is, run where OpenGL is on
// a CUDA device.
#include "RenderTestSupport.h"

#define GL_GLEXT_PROTOTYPES
#include <GL/gl.h>
#include <GL/glext.h>
#include <cmath>
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <string>

using namespace warpscope;
using namespace warpscope::render::test;

namespace {

// A write that fails with a CUDA error in the middle of an interop scope: the scope closes
// without commit, and the buffer must be unmapped all the same. Were it still mapped, the
// next map would fail (cudaErrorAlreadyMapped) and OpenGL could not use the buffer.
TEST(GlWriteScopeCuda, UnmapsTheBufferAfterACudaError)
{
    std::string error;
    auto gl = render::HeadlessGl::create(64, 64, error);
    if (!gl)
        GTEST_SKIP() << "no headless OpenGL: " << error;
    Drawer cuda = cudaDrawer(true);
    if (!cuda.context || !cuda.interop->interop())
        GTEST_SKIP() << "OpenGL runs on no CUDA device";
    render::FieldRenderer renderer;
    ASSERT_TRUE(renderer.initialize().ok());
    gpu::DistanceParams p;
    p.nx = 257;
    p.ny = 129;
    render::FieldSurface surface;
    ASSERT_TRUE(renderer.createSurface(gpu::layoutFor(p), surface).ok());
    ASSERT_TRUE(fillField(cuda, p, surface).ok()); // registered and mapped once already
    for (int round = 0; round < 3; ++round) {
        render::GlWriteScope write(*cuda.interop, surface.buffer, surface.bytes());
        ASSERT_TRUE(write.status().ok()) << "round " << round << ": " << write.status().message();
        const gpu::BufferView<float> view = write.view<float>();
        ASSERT_EQ(view.space, gpu::MemorySpace::Device);
        // The injected error: a copy from a null host pointer, refused by the runtime
        // (cudaErrorInvalidValue, which does not poison the context).
        const cudaError_t e = cudaMemcpy(view.data, nullptr, view.bytes(), cudaMemcpyHostToDevice);
        ASSERT_NE(e, cudaSuccess);
        cudaGetLastError();
    } // each closed without commit
    // OpenGL can read the buffer, and a full write through it comes out right.
    std::vector<float> read(gpu::layoutFor(p).elementCount());
    glBindBuffer(GL_COPY_READ_BUFFER, surface.buffer);
    glGetBufferSubData(GL_COPY_READ_BUFFER, 0, GLsizeiptr(read.size() * 4), read.data());
    glBindBuffer(GL_COPY_READ_BUFFER, 0);
    EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
    ASSERT_TRUE(fillField(cuda, p, surface).ok());
    glBindBuffer(GL_COPY_READ_BUFFER, surface.buffer);
    glGetBufferSubData(GL_COPY_READ_BUFFER, 0, GLsizeiptr(read.size() * 4), read.data());
    glBindBuffer(GL_COPY_READ_BUFFER, 0);
    std::vector<float> host(read.size());
    Drawer cpu = cpuDrawer();
    ASSERT_TRUE(gpu::computeDistance(*cpu.context, p, std::span<float>(host)).ok());
    for (std::size_t k = 0; k < read.size(); ++k)
        ASSERT_NEAR(read[k], host[k], 1e-5 * p.radiusKm) << k;
    // A commit after the scope closed says so instead of unmapping twice.
    render::GlWriteScope once(*cuda.interop, surface.buffer, surface.bytes());
    ASSERT_TRUE(once.commit().ok());
    EXPECT_FALSE(once.commit().ok());
    cuda.interop->forget(surface.buffer);
    renderer.destroySurface(surface);
    renderer.release();
}

} // namespace
