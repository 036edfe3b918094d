#include "GlCudaRegistry.h"

// Builds without CUDA: OpenGL runs on no CUDA device, so nothing is ever registered.
namespace warpscope::render {

std::vector<int> cudaDevicesOfGl()
{
    return {};
}

gpu::Status registerGlBuffer(int, unsigned int, void*&)
{
    return gpu::Status::failure("This build has no CUDA interop");
}

void unregisterGlBuffer(int, void*) {}

} // namespace warpscope::render
