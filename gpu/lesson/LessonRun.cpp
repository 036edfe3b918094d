// The teaching kernel's entry points: each request is validated here, once, then run by the
// implementation for the context's device.
#include "distance/DistanceShared.h"
#include "lesson/LessonShared.h"

#include <algorithm>
#include <limits>
#include <string>

namespace warpscope::gpu {

Status checkLesson(const DistanceParams& params, const LessonLaunch& lesson,
                   const DeviceInfo& device, std::size_t fieldSize, std::size_t ownersSize)
{
    if (Status s = checkDistanceOutput(params, fieldSize); !s)
        return s;
    if (const auto errors = validateLaunch(lesson.launch, device); !errors.empty())
        return Status::failure(errors.front().message);
    const std::size_t nodes = std::size_t(params.nx) * std::size_t(params.ny);
    if (ownersSize < 2 * nodes)
        return Status::failure("The owner output holds " + std::to_string(ownersSize) +
                               " words; the mesh needs " + std::to_string(2 * nodes));
    return Status::success();
}

Status runLesson(Context& context, const DistanceParams& params, const LessonLaunch& lesson,
                 std::span<float> field, std::span<std::uint32_t> owners, double* kernelMs)
{
    if (Status s = checkLesson(params, lesson, context.info(), field.size(), owners.size()); !s)
        return s;
    double ms = 0.0;
    const Status status = context.isCuda()
                              ? runLessonCuda(context, params, lesson, field, owners, ms)
                              : runLessonCpu(context, params, lesson, field, owners, ms);
    if (status && kernelMs)
        *kernelMs = ms;
    return status;
}

Status launchLesson(Context& context, const DistanceParams& params, const LessonLaunch& lesson,
                    BufferView<float> field, BufferView<std::uint32_t> owners)
{
    if (Status s = checkLesson(params, lesson, context.info(), field.size, owners.size); !s)
        return s;
    if (field.space != owners.space)
        return Status::failure("The field and the owner record must be in the same memory");
    if (field.space == MemorySpace::Device) {
        if (!context.isCuda())
            return Status::failure("The CPU cannot write into device memory");
        return launchLessonCuda(context, params, lesson, field.data, owners.data);
    }
    const FieldLayout layout = layoutFor(params);
    std::fill(field.data, field.data + layout.elementCount(),
              std::numeric_limits<float>::quiet_NaN());
    double ms = 0.0;
    const std::span<float> values(field.data, field.size);
    const std::span<std::uint32_t> words(owners.data, owners.size);
    if (Status s = context.isCuda() ? runLessonCuda(context, params, lesson, values, words, ms)
                                    : runLessonCpu(context, params, lesson, values, words, ms);
        !s)
        return s;
    // The colour scale spans the nodes that were computed.
    const auto [lo, hi] =
        writeLessonStats(field.data, params.nx, params.ny, layout.pitch, layout.statsOffset());
    const FieldResult result{ms, {lo, hi}};
    if (context.isCuda())
        setFieldResultCuda(context, result);
    else
        context.state<CpuFieldResult>().last = result;
    return Status::success();
}

Status timeLesson(Context& context, const DistanceParams& params, const LessonLaunch& lesson,
                  int repetitions, double& medianMs)
{
    const std::size_t nodes = std::size_t(params.nx) * std::size_t(params.ny);
    if (Status s = checkLesson(params, lesson, context.info(), layoutFor(params).elementCount(),
                               2 * nodes);
        !s)
        return s;
    return context.isCuda() ? timeLessonCuda(context, params, lesson, repetitions, medianMs)
                            : timeLessonCpu(context, params, lesson, repetitions, medianMs);
}

KernelOccupancy lessonOccupancy(Context& context, Precision precision, long long blockThreads)
{
    return context.isCuda() ? lessonOccupancyCuda(context, precision, blockThreads)
                            : lessonOccupancyCpu(context, precision, blockThreads);
}

} // namespace warpscope::gpu
