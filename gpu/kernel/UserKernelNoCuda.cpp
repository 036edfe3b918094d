#include "kernel/KernelShared.h"

namespace warpscope::gpu {

// Builds without nvcc open no CUDA context, so this is never reached.
Status runUserKernelCuda(Context&, const CompiledKernel&, const KernelArgs&, BufferView<float>,
                         KernelRun&)
{
    return Status::failure("This build has no CUDA backend");
}

Status prepareUserKernelsCuda(Context&)
{
    return Status::failure("This build has no CUDA backend");
}

KernelUsage driverUsage(const CompiledKernel&)
{
    return {};
}

} // namespace warpscope::gpu
