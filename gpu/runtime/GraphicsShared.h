#pragma once

#include "warpscope/gpu/GraphicsBuffer.h"

// The CUDA side of GraphicsBuffer.h: CudaGraphics.cu, or CudaUnavailable.cpp without nvcc.
namespace warpscope::gpu {

Status mapGraphicsBufferCuda(Context& context, void* resource, BufferView<std::byte>& view);
Status unmapGraphicsBufferCuda(Context& context, void* resource);
Status stagingBufferCuda(Context& context, unsigned key, std::size_t bytes,
                         BufferView<std::byte>& view);
Status readStagingCuda(Context& context, unsigned key, std::size_t bytes,
                       std::span<const std::byte>& host);
void releaseStagingCuda(Context& context, unsigned key);

} // namespace warpscope::gpu
