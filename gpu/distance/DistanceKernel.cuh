#pragma once

#include "distance/DistancePlan.h"

#include <cuda_runtime.h>
#include <string>

namespace warpscope::gpu {

// Device state the kernel keeps between launches: the running minimum and maximum of the
// field as ordered 64-bit keys, a count of finished blocks, and the last field's final
// minimum and maximum (as doubles, for the host to read). It must be zeroed once when
// allocated; the last block of every launch leaves it zeroed again, so no launch or memset
// is needed to reset it. The host copies the stats from here, never from the output, and
// only once the GL buffer is unmapped: on the H100 a copy out of a mapped GL buffer costs
// about 0.3 ms, and any copy queued while the buffer is mapped made the frame 0.3 ms slower.
struct DistanceStatsState
{
    unsigned long long minKey;
    unsigned long long maxKey;
    unsigned int blocksDone;
    unsigned int padding;
    double finalMin;
    double finalMax;
};

// Scratch memory for the term tables used with more than two references: per-row and
// per-column haversine terms of every reference, computed once per frame.
template <typename T> std::size_t distanceScratchBytes(const DistancePlan<T>& plan)
{
    return sizeof(T) * std::size_t(plan.refCount) *
           (std::size_t(plan.nx) + 2 * std::size_t(plan.ny));
}

// Writes the field for plan into out (layout FieldLayout::forMesh(nx, ny), stats included)
// on stream: one launch for up to two references, two above. out must be 16-byte aligned;
// state is the zeroed (or previously used) DistanceStatsState; scratch holds
// distanceScratchBytes(plan). Returns the first launch error, if any.
// The launch configuration launchDistanceKernel uses, for the timeline, for example
// "grid 32 x 64, block 32 x 8".
std::string distanceLaunchText(int pitch, int ny, int refCount);

template <typename T, typename Out>
cudaError_t launchDistanceKernel(const DistancePlan<T>& plan, Out* out, DistanceStatsState* state,
                                 void* scratch, cudaStream_t stream);

} // namespace warpscope::gpu
