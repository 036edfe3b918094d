#include "BackendInternal.h"

// Linked when the build found no nvcc.
namespace warpscope::gpu {

bool cudaCompiledIn()
{
    return false;
}

CudaProbe probeCuda(bool)
{
    CudaProbe probe;
    probe.reason = "this build has no CUDA backend (nvcc was not found when it was built)";
    return probe;
}

std::unique_ptr<Backend> makeCudaBackend(int, DisplayPath, std::string& error)
{
    error = "this build has no CUDA backend";
    return nullptr;
}

} // namespace warpscope::gpu
