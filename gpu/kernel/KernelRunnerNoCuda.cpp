#include "kernel/KernelRunner.h"

namespace warpscope::gpu {

// Builds without nvcc open no CUDA context, so the app never asks for these.
Status openRunnerCuda(const std::string&)
{
    return Status::failure("This build has no CUDA backend");
}

RunnerReply runOnRunnerCuda(const RunnerRequest&, void*)
{
    RunnerReply reply;
    reply.message = "This build has no CUDA backend";
    return reply;
}

} // namespace warpscope::gpu
