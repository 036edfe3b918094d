#include "BackendInternal.h"
#include "runtime/ContextBacking.h"

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

int cudaDeviceCount()
{
    return 0;
}

Status makeCudaBacking(int, std::unique_ptr<ContextBacking>&)
{
    return Status::failure("This build has no CUDA backend (nvcc was not found when it was built)");
}

} // namespace warpscope::gpu
