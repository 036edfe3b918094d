#pragma once

#include "distance/DistanceKernel.cuh"
#include "distance/DistancePlan.h"
#include "warpscope/gpu/LaunchLesson.h"

#include <cuda_runtime.h>

namespace warpscope::gpu {

// Launches the teaching kernel with the lesson's configuration on stream: field laid out as
// FieldLayout::forMesh(nx, ny) (covered nodes only), owners as LaunchLesson.h describes
// (the caller fills them with kUncovered first). Returns the launch error, if any.
template <typename T>
cudaError_t launchLessonKernel(const DistancePlan<T>& plan, const LessonLaunch& lesson,
                               float* field, std::uint32_t* owners, cudaStream_t stream);

// Reduces the nodes a lesson reached (NaN elsewhere) to their minimum and maximum, written to
// the field's stats slots and to state->finalMin/finalMax (for the host). keys: 2 words of
// scratch.
cudaError_t launchLessonStats(float* field, int nx, int ny, int pitch, std::size_t statsOffset,
                              unsigned int* keys, DistanceStatsState* state, cudaStream_t stream);

// The teaching kernel in one precision, for the occupancy API.
const void* lessonKernelSymbol(bool float64);

} // namespace warpscope::gpu
