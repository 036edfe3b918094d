#pragma once

#include "DistancePlan.h"
#include "warpscope/gpu/LaunchLesson.h"

#include <cuda_runtime.h>

namespace warpscope::gpu {

// Launches the teaching kernel with the lesson's configuration on stream: field laid out as
// FieldLayout::forMesh(nx, ny) (covered nodes only), owners as LaunchLesson.h describes
// (the caller fills them with kUncovered first). Returns the launch error, if any.
template <typename T>
cudaError_t launchLesson(const DistancePlan<T>& plan, const LessonLaunch& lesson, float* field,
                         std::uint32_t* owners, cudaStream_t stream);

} // namespace warpscope::gpu
