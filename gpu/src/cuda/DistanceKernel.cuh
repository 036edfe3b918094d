#pragma once

#include "DistancePlan.h"

#include <cuda_runtime.h>

namespace warpscope::gpu {

// Device memory the kernels need besides the output: a copy of the field's minimum and
// maximum at its start (kStatsMirrorBytes), then the per-row and per-column haversine terms
// of every reference, computed once per frame.
inline constexpr std::size_t kStatsMirrorBytes = 32;

template <typename T> std::size_t distanceScratchBytes(const DistancePlan<T>& plan)
{
    return kStatsMirrorBytes + sizeof(T) * std::size_t(plan.refCount) *
                                   (std::size_t(plan.nx) + 2 * std::size_t(plan.ny));
}

// Writes the field for plan into out (layout FieldLayout::forMesh(nx, ny), stats included)
// on stream, using scratch (distanceScratchBytes). out must be 16-byte aligned. Two
// launches: the term tables (which also reset the stats), then the field. The stats are
// also left, as two Out values, at the start of scratch: reading them back from there
// rather than from out avoids copying out of a mapped GL buffer, which costs about 0.3 ms.
// Returns the first launch error, if any.
template <typename T, typename Out>
cudaError_t launchDistance(const DistancePlan<T>& plan, Out* out, void* scratch,
                           cudaStream_t stream);

} // namespace warpscope::gpu
