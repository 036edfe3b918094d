#include "warpscope/render/SpectrumRenderer.h"

#include "GlProgram.h"

#define GL_GLEXT_PROTOTYPES
#include <GL/gl.h>
#include <GL/glext.h>

namespace warpscope::render {

gpu::Status SpectrumRenderer::initialize()
{
    if (gpu::Status s = buildProgram("spectrum.vert", "spectrum.frag", m_program); !s)
        return s;
    m_locColumns = glGetUniformLocation(m_program, "u_columns");
    m_locYRange = glGetUniformLocation(m_program, "u_yRange");
    m_locColor = glGetUniformLocation(m_program, "u_color");
    glGenVertexArrays(1, &m_vao);
    return gpu::Status::success();
}

void SpectrumRenderer::release()
{
    if (m_program)
        glDeleteProgram(m_program);
    if (m_vao)
        glDeleteVertexArrays(1, &m_vao);
    if (m_buffer)
        glDeleteBuffers(1, &m_buffer);
    m_program = m_vao = m_buffer = 0;
    m_floats = 0;
}

gpu::Status SpectrumRenderer::reserve(int columns)
{
    const std::size_t floats = std::size_t(columns) * gpu::kSpectrumFloatsPerColumn;
    if (m_buffer && floats <= m_floats)
        return gpu::Status::success();
    while (glGetError() != GL_NO_ERROR) {
    }
    if (!m_buffer)
        glGenBuffers(1, &m_buffer);
    glBindBuffer(GL_ARRAY_BUFFER, m_buffer);
    glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(floats * sizeof(float)), nullptr, GL_DYNAMIC_DRAW);
    glBindVertexArray(m_vao);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 2 * sizeof(float), nullptr);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    if (const GLenum error = glGetError(); error != GL_NO_ERROR) {
        m_floats = 0;
        return gpu::Status::failure("Could not allocate the periodogram's vertex buffer: OpenGL " +
                                    glErrorText(error));
    }
    m_floats = floats;
    return gpu::Status::success();
}

bool SpectrumRenderer::readColumn(int column,
                                  float (&vertices)[gpu::kSpectrumFloatsPerColumn]) const
{
    const std::size_t at = std::size_t(column) * gpu::kSpectrumFloatsPerColumn;
    if (!m_buffer || column < 0 || at + gpu::kSpectrumFloatsPerColumn > m_floats)
        return false;
    glBindBuffer(GL_COPY_READ_BUFFER, m_buffer);
    glGetBufferSubData(GL_COPY_READ_BUFFER, GLintptr(at * sizeof(float)), sizeof vertices,
                       vertices);
    glBindBuffer(GL_COPY_READ_BUFFER, 0);
    return glGetError() == GL_NO_ERROR;
}

void SpectrumRenderer::draw(int columns, double yMin, double yMax, const Viewport& viewport,
                            const std::array<float, 4>& rgba)
{
    if (!m_program || !m_buffer || columns < 1 ||
        std::size_t(columns) * gpu::kSpectrumFloatsPerColumn > m_floats || !(yMax > yMin))
        return;
    glViewport(viewport.x, viewport.y, viewport.width, viewport.height);
    glDisable(GL_DEPTH_TEST);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glUseProgram(m_program);
    glUniform1f(m_locColumns, float(columns));
    glUniform2f(m_locYRange, float(yMin), float(yMax));
    glUniform4f(m_locColor, rgba[0], rgba[1], rgba[2], rgba[3]);
    glBindVertexArray(m_vao);
    glDrawArrays(GL_LINE_STRIP, 0, 2 * columns);
    // Leave the state as found, so QPainter can draw the axes afterwards.
    glBindVertexArray(0);
    glUseProgram(0);
    glDisable(GL_BLEND);
}

} // namespace warpscope::render
