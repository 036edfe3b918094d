#include "runtime/ContextBacking.h"
#include "runtime/GraphicsShared.h"

#include <string>
#include <vector>

// Linked when the build found no nvcc. No context is ever a CUDA one then, so the CUDA
// entry points below are never reached; they fail plainly all the same.
namespace warpscope::gpu {
namespace {

Status noCuda()
{
    return Status::failure("This build has no CUDA backend (nvcc was not found when it was built)");
}

} // namespace

std::vector<std::string> cudaDeviceNames()
{
    return {};
}

int cudaDeviceCount()
{
    return 0;
}

Status makeCudaBacking(int, unsigned, int, std::unique_ptr<ContextBacking>&)
{
    return noCuda();
}

Status mapGraphicsBufferCuda(Context&, void*, BufferView<std::byte>&)
{
    return noCuda();
}

Status unmapGraphicsBufferCuda(Context&, void*)
{
    return noCuda();
}

Status stagingBufferCuda(Context&, unsigned, std::size_t, BufferView<std::byte>&)
{
    return noCuda();
}

Status readStagingCuda(Context&, unsigned, std::size_t, std::span<const std::byte>&)
{
    return noCuda();
}

void releaseStagingCuda(Context&, unsigned) {}

} // namespace warpscope::gpu
