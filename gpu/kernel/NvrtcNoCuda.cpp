// Linked in builds without the CUDA toolkit: there is no NVRTC to compile with.
#include "kernel/KernelShared.h"

namespace warpscope::gpu {

bool nvrtcAvailable()
{
    return false;
}

std::string nvrtcVersion()
{
    return {};
}

Status nvrtcBuild(const std::string&, const std::vector<std::string>&, const std::string&,
                  NvrtcOutput&)
{
    return Status::failure("NVRTC is not available: this build has no CUDA toolkit, so kernels "
                           "compile for the CPU simulator only");
}

} // namespace warpscope::gpu
