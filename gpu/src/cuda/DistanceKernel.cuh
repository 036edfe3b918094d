#pragma once

#include "DistancePlan.h"

#include <cuda_runtime.h>

namespace warpscope::gpu {

// Device memory the kernels need besides the output: the per-column and per-row haversine
// terms of every reference, computed once per frame.
template <typename T> std::size_t distanceScratchBytes(const DistancePlan<T>& plan)
{
    return sizeof(T) * std::size_t(plan.refCount) *
           (std::size_t(plan.nx) + 2 * std::size_t(plan.ny));
}

// Writes the field for plan into out (layout FieldLayout::forMesh(nx, ny), stats included)
// on stream, using scratch (distanceScratchBytes). out must be 16-byte aligned. Two
// launches: the term tables (which also reset the stats), then the field. Returns the first
// launch error, if any.
template <typename T, typename Out>
cudaError_t launchDistance(const DistancePlan<T>& plan, Out* out, void* scratch,
                           cudaStream_t stream);

} // namespace warpscope::gpu
