#include "GlUpload.h"

#define GL_GLEXT_PROTOTYPES
#include <GL/gl.h>
#include <GL/glext.h>
#include <cstdio>
#include <string>

namespace warpscope::render {

std::size_t glBufferBytes(unsigned int bufferId)
{
    GLint previous = 0;
    glGetIntegerv(GL_COPY_WRITE_BUFFER_BINDING, &previous);
    glBindBuffer(GL_COPY_WRITE_BUFFER, bufferId);
    GLint64 bytes = 0;
    glGetBufferParameteri64v(GL_COPY_WRITE_BUFFER, GL_BUFFER_SIZE, &bytes);
    glBindBuffer(GL_COPY_WRITE_BUFFER, GLuint(previous));
    return glGetError() == GL_NO_ERROR ? std::size_t(bytes) : 0;
}

gpu::Status uploadBytesToGlBuffer(unsigned int bufferId, const void* data, std::size_t bytes)
{
    if (glBufferBytes(bufferId) < bytes)
        return gpu::Status::failure("The OpenGL buffer is smaller than its data (" +
                                    std::to_string(bytes) + " bytes)");
    GLint previous = 0;
    glGetIntegerv(GL_COPY_WRITE_BUFFER_BINDING, &previous);
    glBindBuffer(GL_COPY_WRITE_BUFFER, bufferId);
    glBufferSubData(GL_COPY_WRITE_BUFFER, 0, GLsizeiptr(bytes), data);
    glBindBuffer(GL_COPY_WRITE_BUFFER, GLuint(previous));
    if (const GLenum error = glGetError(); error != GL_NO_ERROR) {
        char code[16];
        std::snprintf(code, sizeof code, "%04X", error);
        return gpu::Status::failure(std::string("glBufferSubData failed with OpenGL error 0x") +
                                    code);
    }
    return gpu::Status::success();
}

gpu::Status uploadToGlBuffer(unsigned int bufferId, const float* data, std::size_t count)
{
    return uploadBytesToGlBuffer(bufferId, data, count * sizeof(float));
}

} // namespace warpscope::render
