#include "kernel/KernelRunner.h"

namespace warpscope::gpu {

// Builds without nvcc open no CUDA context, so these are never reached.
KernelRunner& cudaKernelRunner(Context& context)
{
    return cpuKernelRunner(context);
}

std::string cudaRunnerBusId(Context&)
{
    return {};
}

Status prepareUserKernelCuda(Context&, const CompiledKernel&, BufferView<float>, RunnerRequest&,
                             int&)
{
    return Status::failure("This build has no CUDA backend");
}

Status finishUserKernelCuda(Context&, const PendingUserKernel&, BufferView<float>,
                            BufferView<std::uint32_t>)
{
    return Status::failure("This build has no CUDA backend");
}

KernelUsage driverUsage(const CompiledKernel&)
{
    return {};
}

} // namespace warpscope::gpu
