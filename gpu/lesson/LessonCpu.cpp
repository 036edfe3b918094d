#include "distance/DistancePlan.h"
#include "lesson/LessonShared.h"
#include "runtime/CpuContext.h"

#include <algorithm>
#include <chrono>
#include <new>
#include <vector>

namespace warpscope::gpu {
namespace {

// The kernel simulated block by block with the GPU's indices; SM ids are simulated: the
// block's index modulo the simulated device's SM count.
template <typename T>
void simulateLesson(ThreadPool& pool, const DistanceParams& params, const LessonLaunch& lesson,
                    float* field, std::uint32_t* owners)
{
    const DistancePlan<T> plan = makePlan<T>(params);
    const FieldLayout layout = layoutFor(params);
    const Dim3& b = lesson.launch.block;
    const Dim3& g = lesson.launch.grid;
    const long long nx = params.nx, ny = params.ny;
    const long long activeX = std::min(g.x, (nx + b.x - 1) / b.x);
    const long long activeY = std::min(g.y, (ny + b.y - 1) / b.y);
    const int smCount = std::max(1, simulatedHopper().smCount);
    pool.parallelFor(
        std::size_t(activeX * activeY), [&](std::size_t begin, std::size_t end, unsigned) {
            for (std::size_t k = begin; k < end; ++k) {
                const long long bx = k % activeX, by = k / activeX;
                const auto block = static_cast<std::uint32_t>(by * g.x + bx);
                const std::uint32_t sm = block % std::uint32_t(smCount);
                for (long long ty = 0; ty < b.y; ++ty)
                    for (long long tx = 0; tx < b.x; ++tx) {
                        const auto thread = static_cast<std::uint32_t>(ty * b.x + tx);
                        const long long strideY = lesson.gridStride ? g.y * b.y : ny;
                        const long long strideX = lesson.gridStride ? g.x * b.x : nx;
                        for (long long row = by * b.y + ty; row < ny; row += strideY)
                            for (long long col = bx * b.x + tx; col < nx; col += strideX) {
                                field[layout.index(int(row), int(col))] =
                                    float(planNodeDistance(plan, int(row), int(col)));
                                std::uint32_t* owner = owners + 2 * (row * nx + col);
                                owner[0] = block;
                                owner[1] = thread | (sm << 16);
                            }
                    }
            }
        });
}
} // namespace

Status runLessonCpu(Context& context, const DistanceParams& params, const LessonLaunch& lesson,
                    std::span<float> field, std::span<std::uint32_t> owners, double& kernelMs)
{
    std::fill(owners.begin(), owners.begin() + 2 * std::size_t(params.nx) * params.ny, kUncovered);
    const auto start = std::chrono::steady_clock::now();
    ThreadPool& pool = context.hostPool();
    if (params.precision == Precision::Float64)
        simulateLesson<double>(pool, params, lesson, field.data(), owners.data());
    else
        simulateLesson<float>(pool, params, lesson, field.data(), owners.data());
    kernelMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return Status::success();
}

Status timeLessonCpu(Context& context, const DistanceParams& params, const LessonLaunch& lesson,
                     int repetitions, double& medianMs)
{
    std::vector<float> field;
    std::vector<std::uint32_t> owners;
    try {
        field.resize(layoutFor(params).elementCount());
        owners.resize(2 * std::size_t(params.nx) * std::size_t(params.ny));
    } catch (const std::bad_alloc&) {
        return Status::failure("Out of host memory for the teaching kernel");
    }
    std::vector<double> times;
    for (int k = 0; k < std::max(1, repetitions); ++k) {
        double ms = 0.0;
        if (Status s = runLessonCpu(context, params, lesson, field, owners, ms); !s)
            return s;
        times.push_back(ms);
    }
    std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
    medianMs = times[times.size() / 2];
    return Status::success();
}

// The kernel's resources as nvcc builds it for sm_90 (ptxas -v), on the simulated device.
KernelOccupancy lessonOccupancyCpu(Context& context, Precision precision, long long blockThreads)
{
    const bool f64 = precision == Precision::Float64;
    return presetOccupancy(context.info(), {f64 ? 46 : 40, 0, 1024}, blockThreads);
}

} // namespace warpscope::gpu
