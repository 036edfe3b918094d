#include "runtime/GraphicsShared.h"

#include <map>
#include <new>
#include <string>
#include <vector>

namespace warpscope::gpu {
namespace {

// The CPU's staging memory: the results are computed straight into it.
struct CpuStaging : SliceState
{
    std::map<unsigned, std::vector<std::byte>> buffers;
};

} // namespace

Status mapGraphicsBuffer(Context& context, void* resource, BufferView<std::byte>& view)
{
    if (!context.isCuda())
        return Status::failure("Only a CUDA device can map a graphics buffer");
    return mapGraphicsBufferCuda(context, resource, view);
}

Status unmapGraphicsBuffer(Context& context, void* resource)
{
    if (!context.isCuda())
        return Status::failure("Only a CUDA device can map a graphics buffer");
    return unmapGraphicsBufferCuda(context, resource);
}

Status stagingBuffer(Context& context, unsigned key, std::size_t bytes, BufferView<std::byte>& view)
{
    if (context.isCuda())
        return stagingBufferCuda(context, key, bytes, view);
    std::vector<std::byte>& staging = context.state<CpuStaging>().buffers[key];
    try {
        if (staging.size() < bytes)
            staging.resize(bytes);
    } catch (const std::bad_alloc&) {
        return Status::failure("Out of host memory for " + std::to_string(bytes >> 20) +
                               " MiB of results");
    }
    view = BufferView<std::byte>::host(std::span<std::byte>(staging.data(), bytes));
    return Status::success();
}

Status readStaging(Context& context, unsigned key, std::size_t bytes,
                   std::span<const std::byte>& host)
{
    if (context.isCuda())
        return readStagingCuda(context, key, bytes, host);
    const std::vector<std::byte>& staging = context.state<CpuStaging>().buffers[key];
    if (bytes > staging.size())
        return Status::failure("The staging memory holds fewer bytes than were asked for");
    host = std::span<const std::byte>(staging.data(), bytes);
    return Status::success();
}

void releaseStaging(Context& context, unsigned key)
{
    if (context.isCuda())
        releaseStagingCuda(context, key);
    else
        context.state<CpuStaging>().buffers.erase(key);
}

} // namespace warpscope::gpu
