#pragma once

#include "warpscope/gpu/BufferView.h"
#include "warpscope/gpu/Context.h"
#include "warpscope/gpu/Status.h"

#include <cstddef>
#include <span>

// The device side of writing results into a display's buffer, with no graphics API here:
// the display layer (render/GlWriteScope) registers its buffers and is the only caller.
namespace warpscope::gpu {

// Maps a graphics resource registered with context's CUDA device (a cudaGraphicsResource_t,
// passed opaque) on the context's stream and returns its memory as a device view; each step
// is a span of the timeline. Fails on a CPU context.
Status mapGraphicsBuffer(Context& context, void* resource, BufferView<std::byte>& view);
// Unmaps it after the work queued on the context's stream, so the display can read it.
Status unmapGraphicsBuffer(Context& context, void* resource);

// Memory of bytes on context's device (host memory on the CPU) for results on their way to
// the host, for a display on another device: one buffer per key (a display buffer's name),
// kept and grown by the context from call to call.
Status stagingBuffer(Context& context, unsigned key, std::size_t bytes,
                     BufferView<std::byte>& view);
// Waits for the work queued on the context and returns the first bytes of key's staging
// buffer in host memory (on the CPU, the buffer itself), valid until key's next use.
Status readStaging(Context& context, unsigned key, std::size_t bytes,
                   std::span<const std::byte>& host);
// Frees key's staging buffer (its display buffer is gone).
void releaseStaging(Context& context, unsigned key);

} // namespace warpscope::gpu
