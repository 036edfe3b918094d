#include "GlCudaRegistry.h"

#include <GL/gl.h>
#include <cuda_gl_interop.h>
#include <string>

namespace warpscope::render {

std::vector<int> cudaDevicesOfGl()
{
    unsigned int count = 0;
    int devices[8] = {};
    if (cudaGLGetDevices(&count, devices, 8, cudaGLDeviceListAll) != cudaSuccess) {
        cudaGetLastError(); // no CUDA device, or GL runs on none: not sticky
        return {};
    }
    return std::vector<int>(devices, devices + std::min(count, 8u));
}

gpu::Status registerGlBuffer(int cudaDevice, unsigned int buffer, void*& resource)
{
    cudaError_t e = cudaSetDevice(cudaDevice);
    cudaGraphicsResource_t graphics = nullptr;
    if (e == cudaSuccess)
        e = cudaGraphicsGLRegisterBuffer(&graphics, buffer, cudaGraphicsRegisterFlagsWriteDiscard);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return gpu::Status::failure(std::string("cudaGraphicsGLRegisterBuffer failed: ") +
                                    cudaGetErrorString(e));
    }
    resource = graphics;
    return gpu::Status::success();
}

void unregisterGlBuffer(int cudaDevice, void* resource)
{
    cudaSetDevice(cudaDevice);
    cudaGraphicsUnregisterResource(static_cast<cudaGraphicsResource_t>(resource));
}

} // namespace warpscope::render
