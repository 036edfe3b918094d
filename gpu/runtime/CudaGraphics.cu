#include "runtime/CudaContext.h"
#include "runtime/GraphicsShared.h"

#include <map>
#include <memory>

namespace warpscope::gpu {
namespace {

// The staging memory of a CUDA context: device memory the results are written to, and the
// pinned host memory they are copied into.
struct CudaStagingBuffers
{
    CudaBuffer device{"results on their way to the host", false};
    CudaBuffer host{"results on the host", true};
};

struct CudaStaging : SliceState
{
    std::map<unsigned, std::unique_ptr<CudaStagingBuffers>> buffers;

    CudaStagingBuffers& operator[](unsigned key)
    {
        std::unique_ptr<CudaStagingBuffers>& b = buffers[key];
        if (!b)
            b = std::make_unique<CudaStagingBuffers>();
        return *b;
    }
};

} // namespace

Status mapGraphicsBufferCuda(Context& context, void* resource, BufferView<std::byte>& view)
{
    CudaBacking& cuda = cudaBacking(context);
    if (Status s = cuda.activate(); !s)
        return s;
    auto graphics = static_cast<cudaGraphicsResource_t>(resource);
    {
        // The map is a span of the host only: a timing event queued on the stream just before
        // it made every frame 0.3 ms slower on an H100 (warpscope-interop-floor measures it),
        // while events after it, around the kernels and around the unmap cost nothing.
        const ScopedHostSpan span(cuda.recorder().timeline(), cuda.hostLane(),
                                  "cudaGraphicsMapResources");
        if (Status s = cudaStatus(cudaGraphicsMapResources(1, &graphics, cuda.stream()),
                                  "cudaGraphicsMapResources");
            !s)
            return s;
    }
    // The pointer can change between maps, so it is fetched after every map.
    void* pointer = nullptr;
    std::size_t bytes = 0;
    if (Status s = cudaStatus(cudaGraphicsResourceGetMappedPointer(&pointer, &bytes, graphics),
                              "cudaGraphicsResourceGetMappedPointer");
        !s) {
        unmapGraphicsBufferCuda(context, resource);
        return s;
    }
    view = BufferView<std::byte>::device(static_cast<std::byte*>(pointer), bytes);
    return Status::success();
}

Status unmapGraphicsBufferCuda(Context& context, void* resource)
{
    CudaBacking& cuda = cudaBacking(context);
    if (Status s = cuda.activate(); !s)
        return s;
    auto graphics = static_cast<cudaGraphicsResource_t>(resource);
    const ScopedHostSpan span(cuda.recorder().timeline(), cuda.hostLane(),
                              "cudaGraphicsUnmapResources");
    return cuda.recorded(
        cuda.stream(), cuda.streamLane(), SpanKind::Interop, "unmap GL buffer", 0, [&] {
            return cudaStatus(cudaGraphicsUnmapResources(1, &graphics, cuda.stream()),
                              "cudaGraphicsUnmapResources");
        });
}

Status stagingBufferCuda(Context& context, unsigned key, std::size_t bytes,
                         BufferView<std::byte>& view)
{
    CudaBacking& cuda = cudaBacking(context);
    if (Status s = cuda.activate(); !s)
        return s;
    CudaStagingBuffers& staging = context.state<CudaStaging>()[key];
    if (Status s = staging.device.grow(bytes, cuda.stream()); !s)
        return s;
    view = BufferView<std::byte>::device(staging.device.as<std::byte>(), bytes);
    return Status::success();
}

Status readStagingCuda(Context& context, unsigned key, std::size_t bytes,
                       std::span<const std::byte>& host)
{
    CudaBacking& cuda = cudaBacking(context);
    if (Status s = cuda.activate(); !s)
        return s;
    CudaStagingBuffers& staging = context.state<CudaStaging>()[key];
    if (bytes > staging.device.bytes())
        return Status::failure("The staging memory holds fewer bytes than were asked for");
    if (Status s = staging.host.grow(bytes, cuda.stream()); !s)
        return s;
    if (Status s = cuda.recorded(
            cuda.stream(), cuda.streamLane(), SpanKind::CopyDeviceToHost, "results to host", bytes,
            [&] {
                return cudaStatus(cudaMemcpyAsync(staging.host.get(), staging.device.get(), bytes,
                                                  cudaMemcpyDeviceToHost, cuda.stream()),
                                  "Copying the results to the host");
            });
        !s)
        return s;
    WS_CUDA_TRY(cudaStreamSynchronize(cuda.stream()));
    host = std::span<const std::byte>(staging.host.as<const std::byte>(), bytes);
    return Status::success();
}

void releaseStagingCuda(Context& context, unsigned key)
{
    CudaBacking& cuda = cudaBacking(context);
    if (!cuda.activate())
        return;
    cudaStreamSynchronize(cuda.stream()); // queued work may still use the memory
    context.state<CudaStaging>().buffers.erase(key);
}

} // namespace warpscope::gpu
