#pragma once

#include "warpscope/gpu/Status.h"

#include <string>
#include <string_view>

namespace warpscope::render {

// Compiles and links the embedded shaders (resources/shaders) into program.
gpu::Status buildProgram(std::string_view vertexFile, std::string_view fragmentFile,
                         unsigned int& program);

// A GL error code in words.
std::string glErrorText(unsigned int error);

} // namespace warpscope::render
