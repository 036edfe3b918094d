#include "warpscope/render/HeadlessGl.h"

#include <EGL/egl.h>
#include <EGL/eglext.h>
#define GL_GLEXT_PROTOTYPES
#include <GL/gl.h>
#include <GL/glext.h>

namespace warpscope::render {
namespace {

#ifndef EGL_PLATFORM_SURFACELESS_MESA
#define EGL_PLATFORM_SURFACELESS_MESA 0x31DD
#endif

// Tries to make a 3.3 core context with a small pbuffer on one display.
bool makeContext(EGLDisplay display, EGLContext& context, EGLSurface& surface)
{
    EGLint major = 0, minor = 0;
    if (display == EGL_NO_DISPLAY || !eglInitialize(display, &major, &minor))
        return false;
    const EGLint configAttribs[] = {EGL_SURFACE_TYPE,
                                    EGL_PBUFFER_BIT,
                                    EGL_RENDERABLE_TYPE,
                                    EGL_OPENGL_BIT,
                                    EGL_RED_SIZE,
                                    8,
                                    EGL_GREEN_SIZE,
                                    8,
                                    EGL_BLUE_SIZE,
                                    8,
                                    EGL_NONE};
    EGLConfig config = nullptr;
    EGLint count = 0;
    if (!eglChooseConfig(display, configAttribs, &config, 1, &count) || count == 0)
        return false;
    const EGLint pbufferAttribs[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
    surface = eglCreatePbufferSurface(display, config, pbufferAttribs);
    if (!eglBindAPI(EGL_OPENGL_API))
        return false;
    const EGLint contextAttribs[] = {EGL_CONTEXT_MAJOR_VERSION,
                                     3,
                                     EGL_CONTEXT_MINOR_VERSION,
                                     3,
                                     EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                     EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                     EGL_NONE};
    context = eglCreateContext(display, config, EGL_NO_CONTEXT, contextAttribs);
    if (context == EGL_NO_CONTEXT)
        return false;
    return eglMakeCurrent(display, surface, surface, context) == EGL_TRUE;
}

} // namespace

std::unique_ptr<HeadlessGl> HeadlessGl::create(int width, int height, std::string& error)
{
    auto queryDevices =
        reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
    auto platformDisplay = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(
        eglGetProcAddress("eglGetPlatformDisplayEXT"));
    std::vector<EGLDisplay> candidates;
    if (queryDevices && platformDisplay) {
        EGLDeviceEXT devices[16];
        EGLint count = 0;
        if (queryDevices(16, devices, &count))
            for (EGLint i = 0; i < count; ++i)
                candidates.push_back(platformDisplay(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr));
    }
    if (platformDisplay)
        candidates.push_back(
            platformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr));

    std::unique_ptr<HeadlessGl> gl(new HeadlessGl);
    for (EGLDisplay display : candidates) {
        EGLContext context = EGL_NO_CONTEXT;
        EGLSurface surface = EGL_NO_SURFACE;
        if (makeContext(display, context, surface)) {
            gl->m_display = display;
            gl->m_context = context;
            gl->m_surface = surface;
            break;
        }
        if (display != EGL_NO_DISPLAY)
            eglTerminate(display);
    }
    if (!gl->m_context) {
        error = "No EGL device offers an OpenGL 3.3 core context";
        return nullptr;
    }
    gl->m_width = width;
    gl->m_height = height;
    glGenFramebuffers(1, &gl->m_fbo);
    glGenRenderbuffers(1, &gl->m_colour);
    glBindRenderbuffer(GL_RENDERBUFFER, gl->m_colour);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
    glBindFramebuffer(GL_FRAMEBUFFER, gl->m_fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, gl->m_colour);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
        error = "The offscreen framebuffer is incomplete";
        return nullptr;
    }
    return gl;
}

HeadlessGl::~HeadlessGl()
{
    if (!m_display)
        return;
    eglMakeCurrent(m_display, m_surface, m_surface, m_context);
    glDeleteFramebuffers(1, &m_fbo);
    glDeleteRenderbuffers(1, &m_colour);
    eglMakeCurrent(m_display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroySurface(m_display, m_surface);
    eglDestroyContext(m_display, m_context);
    eglTerminate(m_display);
}

std::string HeadlessGl::renderer() const
{
    const auto* text = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    return text ? text : "unknown";
}

bool HeadlessGl::makeCurrent()
{
    return eglMakeCurrent(m_display, m_surface, m_surface, m_context) == EGL_TRUE;
}

void HeadlessGl::bindFramebuffer()
{
    glBindFramebuffer(GL_FRAMEBUFFER, m_fbo);
}

std::vector<std::uint8_t> HeadlessGl::readPixels()
{
    std::vector<std::uint8_t> pixels(std::size_t(m_width) * m_height * 4);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, m_fbo);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, m_width, m_height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
    return pixels;
}

} // namespace warpscope::render
