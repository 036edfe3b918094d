#pragma once

#include "DistancePlan.h"

#include <cuda_runtime.h>

namespace warpscope::gpu {

// Writes the field for plan into out (layout FieldLayout::forMesh(nx, ny), stats included)
// on stream. out must be 16-byte aligned. Returns the launch's error, if any.
template <typename T, typename Out>
cudaError_t launchDistance(const DistancePlan<T>& plan, Out* out, cudaStream_t stream);

} // namespace warpscope::gpu
