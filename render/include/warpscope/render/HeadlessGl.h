#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace warpscope::render {

// An OpenGL 3.3 core context with no window, made with EGL on a GPU device
// (EGL_PLATFORM_DEVICE_EXT with a pbuffer), falling back to Mesa's surfaceless platform.
// Rendering goes into an offscreen framebuffer of the requested size. For tests and the
// benchmark; the context is current after create().
class HeadlessGl
{
public:
    static std::unique_ptr<HeadlessGl> create(int width, int height, std::string& error);
    ~HeadlessGl();

    int width() const { return m_width; }
    int height() const { return m_height; }
    std::string renderer() const;
    bool makeCurrent();
    // Binds the offscreen framebuffer for drawing.
    void bindFramebuffer();
    // RGBA8 pixels of the framebuffer, bottom row first.
    std::vector<std::uint8_t> readPixels();

private:
    HeadlessGl() = default;
    void* m_display = nullptr;
    void* m_context = nullptr;
    void* m_surface = nullptr;
    unsigned int m_fbo = 0, m_colour = 0;
    int m_width = 0, m_height = 0;
};

} // namespace warpscope::render
