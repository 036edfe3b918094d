#include "GlProgram.h"

#include "Resources.h"

#define GL_GLEXT_PROTOTYPES
#include <GL/gl.h>
#include <GL/glext.h>

namespace warpscope::render {
namespace {

gpu::Status compile(GLenum type, std::string_view name, GLuint& shader)
{
    const std::string_view source = embeddedResource(name);
    if (source.empty())
        return gpu::Status::failure("The shader " + std::string(name) +
                                    " is missing from this build");
    shader = glCreateShader(type);
    const char* text = source.data();
    const GLint length = GLint(source.size());
    glShaderSource(shader, 1, &text, &length);
    glCompileShader(shader);
    GLint ok = 0;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (ok)
        return gpu::Status::success();
    char log[2048] = {};
    glGetShaderInfoLog(shader, sizeof log, nullptr, log);
    glDeleteShader(shader);
    shader = 0;
    return gpu::Status::failure("Compiling " + std::string(name) + " failed: " + log);
}

} // namespace

gpu::Status buildProgram(std::string_view vertexFile, std::string_view fragmentFile,
                         unsigned int& program)
{
    GLuint vs = 0, fs = 0;
    if (gpu::Status s = compile(GL_VERTEX_SHADER, vertexFile, vs); !s)
        return s;
    if (gpu::Status s = compile(GL_FRAGMENT_SHADER, fragmentFile, fs); !s) {
        glDeleteShader(vs);
        return s;
    }
    program = glCreateProgram();
    glAttachShader(program, vs);
    glAttachShader(program, fs);
    glLinkProgram(program);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint linked = 0;
    glGetProgramiv(program, GL_LINK_STATUS, &linked);
    if (linked)
        return gpu::Status::success();
    char log[2048] = {};
    glGetProgramInfoLog(program, sizeof log, nullptr, log);
    glDeleteProgram(program);
    program = 0;
    return gpu::Status::failure(std::string("Shader linking failed: ") + log);
}

std::string glErrorText(unsigned int error)
{
    switch (error) {
    case GL_OUT_OF_MEMORY:
        return "out of memory";
    case GL_INVALID_VALUE:
        return "invalid value";
    case GL_INVALID_OPERATION:
        return "invalid operation";
    default:
        return "error " + std::to_string(error);
    }
}

} // namespace warpscope::render
