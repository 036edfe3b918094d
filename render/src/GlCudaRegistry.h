#pragma once

#include "warpscope/gpu/Status.h"

#include <vector>

// The GL side of CUDA interop: which CUDA devices run the current GL context, and the
// registration of GL buffers with CUDA. GlCudaRegistry.cpp in CUDA builds,
// GlCudaRegistryNone.cpp otherwise. A GL context must be current.
namespace warpscope::render {

std::vector<int> cudaDevicesOfGl();
// resource receives a cudaGraphicsResource_t, opaque here.
gpu::Status registerGlBuffer(int cudaDevice, unsigned int buffer, void*& resource);
void unregisterGlBuffer(int cudaDevice, void* resource);

} // namespace warpscope::render
