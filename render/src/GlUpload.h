#pragma once

#include "warpscope/gpu/Status.h"

#include <cstddef>

namespace warpscope::render {

// Copies host values into a GL buffer object with glBufferSubData. A GL context must be
// current. Uses the copy-write binding point so the caller's bindings stay untouched.
gpu::Status uploadToGlBuffer(unsigned int bufferId, const float* data, std::size_t count);
gpu::Status uploadBytesToGlBuffer(unsigned int bufferId, const void* data, std::size_t bytes);

// Size in bytes of a GL buffer object, or 0 when it cannot be queried.
std::size_t glBufferBytes(unsigned int bufferId);

} // namespace warpscope::render
