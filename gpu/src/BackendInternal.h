#pragma once

#include "warpscope/gpu/Backend.h"

#include <memory>
#include <string>

// Seam between the factory and the CUDA backend. Both sides are plain C++, so the factory
// compiles without CUDA; the build links CudaBackend.cu or CudaUnavailable.cpp behind it.
namespace warpscope::gpu {

struct CudaProbe
{
    bool available = false;  // a usable CUDA device exists
    bool glOnDevice = false; // the current GL context runs on a CUDA device
    int device = 0;
    std::string deviceName;
    std::string reason; // why CUDA, or interop, cannot be used
};

// wantedDevice: a CUDA device index, or -1 for the one OpenGL runs on (else the first).
CudaProbe probeCuda(bool glContextCurrent, int wantedDevice);

// Validates parameters and that a host output of outputSize values can hold their field.
Status checkHostOutput(const DistanceParams& params, std::size_t outputSize);

// Returns null and sets error when the backend cannot be created.
std::unique_ptr<Backend> makeCudaBackend(int device, DisplayPath path, std::string& error);

} // namespace warpscope::gpu
