#pragma once

#include "warpscope/gpu/Context.h"
#include "warpscope/gpu/LaunchLesson.h"

#include <span>

// The teaching kernel's implementations on each kind of device, reached through the public
// functions (LaunchLesson.h) once the request is validated, and the check they share.
namespace warpscope::gpu {

// Validates a teaching launch against a device and the sizes of its host outputs.
Status checkLesson(const DistanceParams& params, const LessonLaunch& lesson,
                   const DeviceInfo& device, std::size_t fieldSize, std::size_t ownersSize);

Status runLessonCpu(Context& context, const DistanceParams& params, const LessonLaunch& lesson,
                    std::span<float> field, std::span<std::uint32_t> owners, double& kernelMs);
Status timeLessonCpu(Context& context, const DistanceParams& params, const LessonLaunch& lesson,
                     int repetitions, double& medianMs);
KernelOccupancy lessonOccupancyCpu(Context& context, Precision precision, long long blockThreads);

Status runLessonCuda(Context& context, const DistanceParams& params, const LessonLaunch& lesson,
                     std::span<float> field, std::span<std::uint32_t> owners, double& kernelMs);
// field and owners are device memory of the context's device.
Status launchLessonCuda(Context& context, const DistanceParams& params, const LessonLaunch& lesson,
                        float* field, std::uint32_t* owners);
Status timeLessonCuda(Context& context, const DistanceParams& params, const LessonLaunch& lesson,
                      int repetitions, double& medianMs);
KernelOccupancy lessonOccupancyCuda(Context& context, Precision precision, long long blockThreads);

} // namespace warpscope::gpu
