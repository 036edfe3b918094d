#include "warpscope/render/FieldRenderer.h"

#include "GlProgram.h"
#include "GlUpload.h"

#define GL_GLEXT_PROTOTYPES
#include <GL/gl.h>
#include <GL/glext.h>
#include <string>
#include <vector>

namespace warpscope::render {
namespace {

static_assert(sizeof(kNonFiniteStripes) == 6 * sizeof(float),
              "glUniform3fv reads the stripes as six floats");
static_assert(sizeof(kUncoveredStripes) == 6 * sizeof(float) &&
                  sizeof(kThreadRamp) == 9 * sizeof(float),
              "glUniform3fv reads the teaching colours as packed floats");

// A buffer object of `bytes` (filled from data, if given) and a buffer texture that reads it
// as format. Returns the GL error, if any.
GLenum createBufferTexture(GLsizeiptr bytes, const void* data, GLenum format, unsigned& buffer,
                           unsigned& texture)
{
    while (glGetError() != GL_NO_ERROR) {
    }
    glGenBuffers(1, &buffer);
    glBindBuffer(GL_TEXTURE_BUFFER, buffer);
    glBufferData(GL_TEXTURE_BUFFER, bytes, data, GL_DYNAMIC_DRAW);
    glGenTextures(1, &texture);
    glBindTexture(GL_TEXTURE_BUFFER, texture);
    glTexBuffer(GL_TEXTURE_BUFFER, format, buffer);
    glBindTexture(GL_TEXTURE_BUFFER, 0);
    glBindBuffer(GL_TEXTURE_BUFFER, 0);
    return glGetError();
}

void deleteBufferTexture(unsigned& buffer, unsigned& texture)
{
    if (texture)
        glDeleteTextures(1, &texture);
    if (buffer)
        glDeleteBuffers(1, &buffer);
    buffer = texture = 0;
}

} // namespace

gpu::Status FieldRenderer::initialize()
{
    if (gpu::Status s = buildProgram("field.vert", "field.frag", m_program); !s)
        return s;
    m_locField = glGetUniformLocation(m_program, "u_field");
    m_locColormap = glGetUniformLocation(m_program, "u_colormap");
    m_locDims = glGetUniformLocation(m_program, "u_dims");
    m_locViewport = glGetUniformLocation(m_program, "u_viewport");
    m_locView = glGetUniformLocation(m_program, "u_view");
    m_locMesh = glGetUniformLocation(m_program, "u_mesh");
    m_locBackground = glGetUniformLocation(m_program, "u_background");
    m_locOwners = glGetUniformLocation(m_program, "u_owners");
    m_locOverlay = glGetUniformLocation(m_program, "u_overlay");
    m_locLesson = glGetUniformLocation(m_program, "u_lesson");
    m_locNonFinite = glGetUniformLocation(m_program, "u_nonFinite");
    m_locLaunch = glGetUniformLocation(m_program, "u_launch");
    m_locUncovered = glGetUniformLocation(m_program, "u_uncovered");
    m_locThreadRamp = glGetUniformLocation(m_program, "u_threadRamp");
    glGenVertexArrays(1, &m_vao);
    glGenTextures(1, &m_colormapTexture);
    GLint maxTexels = 0;
    glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &maxTexels);
    m_maxTexels = maxTexels;
    if (const auto viridis = loadColormap("viridis"))
        setColormap(*viridis);
    if (const GLenum error = glGetError(); error != GL_NO_ERROR) {
        release();
        return gpu::Status::failure("Setting up the renderer failed: OpenGL " + glErrorText(error));
    }
    return gpu::Status::success();
}

void FieldRenderer::release()
{
    if (m_program)
        glDeleteProgram(m_program);
    if (m_vao)
        glDeleteVertexArrays(1, &m_vao);
    if (m_colormapTexture)
        glDeleteTextures(1, &m_colormapTexture);
    m_program = m_vao = m_colormapTexture = 0;
}

std::string FieldRenderer::glRenderer() const
{
    const auto* text = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    return text ? text : "unknown";
}

gpu::Status FieldRenderer::checkCapacity(const gpu::FieldLayout& layout) const
{
    const long long texels = static_cast<long long>(layout.elementCount());
    if (m_maxTexels > 0 && texels > m_maxTexels)
        return gpu::Status::failure(
            "The mesh has " + std::to_string(layout.nx) + " x " + std::to_string(layout.ny) +
            " nodes; this OpenGL driver can display at most " + std::to_string(m_maxTexels - 2) +
            " values (" + glRenderer() + ")");
    return gpu::Status::success();
}

gpu::Status FieldRenderer::createSurface(const gpu::FieldLayout& layout, FieldSurface& surface)
{
    if (gpu::Status s = checkCapacity(layout); !s)
        return s;
    const auto bytes = GLsizeiptr(layout.elementCount() * sizeof(float));
    FieldSurface s;
    s.layout = layout;
    if (const GLenum error = createBufferTexture(bytes, nullptr, GL_R32F, s.buffer, s.texture);
        error != GL_NO_ERROR) {
        destroySurface(s);
        return gpu::Status::failure("Could not allocate " + std::to_string(bytes >> 20) +
                                    " MiB for the field on the GPU: OpenGL " + glErrorText(error));
    }
    surface = s;
    return gpu::Status::success();
}

void FieldRenderer::destroySurface(FieldSurface& surface)
{
    deleteBufferTexture(surface.buffer, surface.texture);
    surface = {};
}

void FieldRenderer::setColormap(const Colormap& colormap)
{
    // RGBA8 is the format every driver samples fastest; 8 bits per channel is what the
    // framebuffer shows anyway.
    std::vector<unsigned char> rgba(colormap.rgb.size() * 4);
    for (std::size_t i = 0; i < colormap.rgb.size(); ++i) {
        for (int c = 0; c < 3; ++c)
            rgba[4 * i + c] = static_cast<unsigned char>(colormap.rgb[i][c] * 255.0f + 0.5f);
        rgba[4 * i + 3] = 255;
    }
    glBindTexture(GL_TEXTURE_1D, m_colormapTexture);
    glTexImage1D(GL_TEXTURE_1D, 0, GL_RGBA8, GLsizei(colormap.rgb.size()), 0, GL_RGBA,
                 GL_UNSIGNED_BYTE, rgba.data());
    glTexParameteri(GL_TEXTURE_1D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_1D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_1D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glBindTexture(GL_TEXTURE_1D, 0);
}

gpu::Status FieldRenderer::allocateOwners(std::size_t nodes, OwnerSurface& surface)
{
    if (surface.valid() && surface.nodes == nodes)
        return gpu::Status::success();
    destroyOwners(surface);
    surface.nodes = nodes;
    if (const GLenum error =
            createBufferTexture(GLsizeiptr(2 * nodes * sizeof(std::uint32_t)), nullptr, GL_RG32UI,
                                surface.buffer, surface.texture);
        error != GL_NO_ERROR) {
        destroyOwners(surface);
        return gpu::Status::failure("Could not allocate the thread owners: OpenGL " +
                                    glErrorText(error));
    }
    return gpu::Status::success();
}

bool FieldRenderer::readValue(const FieldSurface& surface, int row, int col, float& value) const
{
    const gpu::FieldLayout& layout = surface.layout;
    if (!surface.valid() || row < 0 || col < 0 || row >= layout.ny || col >= layout.nx)
        return false;
    glBindBuffer(GL_COPY_READ_BUFFER, surface.buffer);
    glGetBufferSubData(GL_COPY_READ_BUFFER, GLintptr(layout.index(row, col) * sizeof(float)),
                       GLsizeiptr(sizeof value), &value);
    glBindBuffer(GL_COPY_READ_BUFFER, 0);
    return glGetError() == GL_NO_ERROR;
}

bool FieldRenderer::readOwner(const OwnerSurface& surface, std::size_t node,
                              std::uint32_t (&words)[2]) const
{
    if (!surface.valid() || node >= surface.nodes)
        return false;
    glBindBuffer(GL_COPY_READ_BUFFER, surface.buffer);
    glGetBufferSubData(GL_COPY_READ_BUFFER, GLintptr(2 * node * sizeof(std::uint32_t)),
                       GLsizeiptr(sizeof words), words);
    glBindBuffer(GL_COPY_READ_BUFFER, 0);
    return glGetError() == GL_NO_ERROR;
}

bool FieldRenderer::readOwners(const OwnerSurface& surface, std::vector<std::uint32_t>& words) const
{
    if (!surface.valid())
        return false;
    words.resize(2 * surface.nodes);
    glBindBuffer(GL_COPY_READ_BUFFER, surface.buffer);
    glGetBufferSubData(GL_COPY_READ_BUFFER, 0, GLsizeiptr(surface.bytes()), words.data());
    glBindBuffer(GL_COPY_READ_BUFFER, 0);
    return glGetError() == GL_NO_ERROR;
}

gpu::Status FieldRenderer::uploadField(std::span<const float> values, FieldSurface& surface)
{
    if (!surface.valid() || values.size() != surface.layout.elementCount())
        return gpu::Status::failure("The picture's values do not fit its surface");
    return uploadToGlBuffer(surface.buffer, values.data(), values.size());
}

gpu::Status FieldRenderer::uploadOwners(std::span<const std::uint32_t> owners,
                                        OwnerSurface& surface)
{
    const std::size_t nodes = owners.size() / 2;
    GLenum error = GL_NO_ERROR;
    if (!surface.valid() || surface.nodes != nodes) {
        destroyOwners(surface);
        surface.nodes = nodes;
        error = createBufferTexture(GLsizeiptr(owners.size_bytes()), owners.data(), GL_RG32UI,
                                    surface.buffer, surface.texture);
    } else {
        while (glGetError() != GL_NO_ERROR) {
        }
        glBindBuffer(GL_TEXTURE_BUFFER, surface.buffer);
        glBufferSubData(GL_TEXTURE_BUFFER, 0, GLsizeiptr(owners.size_bytes()), owners.data());
        glBindBuffer(GL_TEXTURE_BUFFER, 0);
        error = glGetError();
    }
    if (error != GL_NO_ERROR) {
        destroyOwners(surface);
        return gpu::Status::failure("Could not upload the thread owners: OpenGL " +
                                    glErrorText(error));
    }
    return gpu::Status::success();
}

void FieldRenderer::destroyOwners(OwnerSurface& surface)
{
    deleteBufferTexture(surface.buffer, surface.texture);
    surface = {};
}

void FieldRenderer::draw(const FieldSurface& surface, const GeoRect& mesh, const GeoRect& view,
                         const Viewport& viewport, const std::array<float, 3>& background,
                         Overlay overlay, const OwnerSurface* owners,
                         const gpu::LaunchConfig* launch)
{
    if (!m_program || !surface.valid())
        return;
    glViewport(viewport.x, viewport.y, viewport.width, viewport.height);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_BLEND);
    glUseProgram(m_program);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_BUFFER, surface.texture);
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_1D, m_colormapTexture);
    const bool lesson = owners && owners->valid();
    glActiveTexture(GL_TEXTURE2);
    glBindTexture(GL_TEXTURE_BUFFER, lesson ? owners->texture : 0);
    glUniform1i(m_locField, 0);
    glUniform1i(m_locColormap, 1);
    glUniform1i(m_locOwners, 2);
    glUniform1i(m_locLesson, lesson ? 1 : 0);
    glUniform1i(m_locOverlay, lesson ? int(overlay) : 0);
    glUniform3i(m_locDims, surface.layout.nx, surface.layout.ny, surface.layout.pitch);
    glUniform4f(m_locViewport, float(viewport.x), float(viewport.y), float(viewport.width),
                float(viewport.height));
    glUniform4f(m_locView, float(view.lonMin), float(view.latMin), float(view.lonMax),
                float(view.latMax));
    glUniform4f(m_locMesh, float(mesh.lonMin), float(mesh.latMin), float(mesh.lonMax),
                float(mesh.latMax));
    glUniform3f(m_locBackground, background[0], background[1], background[2]);
    glUniform3fv(m_locNonFinite, 2, kNonFiniteStripes[0].data());
    if (launch)
        glUniform3i(m_locLaunch, GLint(launch->block.x), GLint(launch->block.y),
                    GLint(launch->grid.x));
    else
        glUniform3i(m_locLaunch, 0, 0, 0);
    glUniform3fv(m_locUncovered, 2, kUncoveredStripes[0].data());
    glUniform3fv(m_locThreadRamp, 3, kThreadRamp[0].data());
    glBindVertexArray(m_vao);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    // Leave the state as found, so QPainter can draw over the field afterwards.
    glBindVertexArray(0);
    glBindTexture(GL_TEXTURE_BUFFER, 0);
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_1D, 0);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_BUFFER, 0);
    glUseProgram(0);
}

} // namespace warpscope::render
