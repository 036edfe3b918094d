#pragma once

#include "warpscope/gpu/Spectrum.h"
#include "warpscope/render/FieldRenderer.h"

#include <array>

namespace warpscope::render {

// Draws a periodogram's line (gpu/Spectrum.h) from a GL vertex buffer written through a
// GlWriteScope: two vertices per pixel column. Plain OpenGL 3.3 core and no Qt, like FieldRenderer,
// so it also runs headless. All methods need the context current.
class SpectrumRenderer
{
public:
    SpectrumRenderer() = default;
    SpectrumRenderer(const SpectrumRenderer&) = delete;
    SpectrumRenderer& operator=(const SpectrumRenderer&) = delete;

    gpu::Status initialize();
    // Deletes the GL objects; make the GlInterop forget buffer() first.
    void release();
    bool initialized() const { return m_program != 0; }

    // Makes the vertex buffer hold `columns` columns, reallocating only when that grows.
    gpu::Status reserve(int columns);
    unsigned int buffer() const { return m_buffer; }
    // Room in the vertex buffer, in floats (kSpectrumFloatsPerColumn a column).
    std::size_t floats() const { return m_floats; }

    // Reads one column's two vertices back from the buffer (for a hover readout).
    bool readColumn(int column, float (&vertices)[gpu::kSpectrumFloatsPerColumn]) const;

    // Draws the first `columns` columns across viewport, power yMin to yMax bottom to top.
    void draw(int columns, double yMin, double yMax, const Viewport& viewport,
              const std::array<float, 4>& rgba);

private:
    unsigned int m_program = 0;
    unsigned int m_vao = 0;
    unsigned int m_buffer = 0;
    std::size_t m_floats = 0;
    int m_locColumns = -1, m_locYRange = -1, m_locColor = -1;
};

} // namespace warpscope::render
