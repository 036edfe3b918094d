#include "BackendInternal.h"

#include <string>
#include <vector>

// Linked when the build found no nvcc.
namespace warpscope::gpu {

bool cudaCompiledIn()
{
    return false;
}

std::vector<std::string> cudaDeviceNames()
{
    return {};
}

CudaProbe probeCuda(bool, int)
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
