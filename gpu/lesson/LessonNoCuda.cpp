#include "lesson/LessonShared.h"

namespace warpscope::gpu {

// Builds without nvcc open no CUDA context, so these are never reached.
Status runLessonCuda(Context&, const DistanceParams&, const LessonLaunch&, std::span<float>,
                     std::span<std::uint32_t>, double&)
{
    return Status::failure("This build has no CUDA backend");
}

Status launchLessonCuda(Context&, const DistanceParams&, const LessonLaunch&, float*,
                        std::uint32_t*)
{
    return Status::failure("This build has no CUDA backend");
}

Status timeLessonCuda(Context&, const DistanceParams&, const LessonLaunch&, int, double&)
{
    return Status::failure("This build has no CUDA backend");
}

KernelOccupancy lessonOccupancyCuda(Context&, Precision, long long)
{
    return {};
}

} // namespace warpscope::gpu
