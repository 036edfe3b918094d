#include "lesson/LessonKernel.cuh"
#include "runtime/WarpReduce.cuh"

#include <algorithm>

namespace warpscope::gpu {
namespace {

// One node per thread, straight from the indices, so that what each thread did can be seen;
// see LaunchLesson.h. Deliberately plain: the fast kernel is DistanceKernel.cu.
//
// Only the blocks that can reach a node are launched; the user's grid (gridX, gridY) still
// defines block numbers and grid-stride steps, so every node gets the owner the full launch
// would give it, while a grid of 2^31 blocks does not keep the GPU busy with empty ones.
template <typename T>
__global__ void lessonKernel(const DistancePlan<T> plan, bool gridStride, long long gridX,
                             long long gridY, float* field, std::uint32_t* owners)
{
    if (threadIdx.z != 0 || blockIdx.z != 0)
        return; // no node on a two-dimensional mesh
    std::uint32_t sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    const auto block = static_cast<std::uint32_t>(blockIdx.y * gridX + blockIdx.x);
    const std::uint32_t thread = threadIdx.y * blockDim.x + threadIdx.x;
    const long long nx = plan.nx, ny = plan.ny;
    const long long strideY = gridStride ? gridY * blockDim.y : ny;
    const long long strideX = gridStride ? gridX * blockDim.x : nx;
    for (long long row = static_cast<long long>(blockIdx.y) * blockDim.y + threadIdx.y; row < ny;
         row += strideY)
        for (long long col = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
             col < nx; col += strideX) {
            field[row * plan.pitch + col] = float(planNodeDistance(plan, int(row), int(col)));
            owners[2 * (row * nx + col)] = block;
            owners[2 * (row * nx + col) + 1] = thread | (sm << 16);
        }
}

} // namespace

template <typename T>
cudaError_t launchLessonKernel(const DistancePlan<T>& plan, const LessonLaunch& lesson,
                               float* field, std::uint32_t* owners, cudaStream_t stream)
{
    const Dim3& b = lesson.launch.block;
    const Dim3& g = lesson.launch.grid;
    const int shared = static_cast<int>(lesson.launch.sharedBytes);
    if (const cudaError_t e = cudaFuncSetAttribute(
            lessonKernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, shared);
        e != cudaSuccess)
        return e;
    const long long activeX = std::min(g.x, (plan.nx + b.x - 1) / b.x);
    const long long activeY = std::min(g.y, (plan.ny + b.y - 1) / b.y);
    lessonKernel<T><<<dim3(unsigned(activeX), unsigned(activeY), 1),
                      dim3(unsigned(b.x), unsigned(b.y), unsigned(b.z)), shared, stream>>>(
        plan, lesson.gridStride, g.x, g.y, field, owners);
    return cudaGetLastError();
}

template cudaError_t launchLessonKernel(const DistancePlan<float>&, const LessonLaunch&, float*,
                                        std::uint32_t*, cudaStream_t);
template cudaError_t launchLessonKernel(const DistancePlan<double>&, const LessonLaunch&, float*,
                                        std::uint32_t*, cudaStream_t);

const void* lessonKernelSymbol(bool float64)
{
    return float64 ? reinterpret_cast<const void*>(lessonKernel<double>)
                   : reinterpret_cast<const void*>(lessonKernel<float>);
}

namespace {

// Non-negative floats order like their bit patterns, so the keys are the bits.
__global__ void lessonStatsKernel(const float* field, int nx, int ny, int pitch, unsigned int* keys)
{
    unsigned int lo = 0xffffffffu, hi = 0u;
    const long long nodes = (long long)nx * ny;
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < nodes;
         k += (long long)gridDim.x * blockDim.x) {
        const float v = field[(k / nx) * pitch + k % nx];
        if (!isnan(v)) {
            lo = min(lo, __float_as_uint(v));
            hi = max(hi, __float_as_uint(v));
        }
    }
    lo = warpReduce(lo, [](unsigned a, unsigned b) { return min(a, b); });
    hi = warpReduce(hi, [](unsigned a, unsigned b) { return max(a, b); });
    if (threadIdx.x % 32 == 0) {
        atomicMin(&keys[0], lo);
        atomicMax(&keys[1], hi);
    }
}

__global__ void lessonStatsFinal(const unsigned int* keys, float* stats, DistanceStatsState* state)
{
    const bool none = keys[0] == 0xffffffffu;
    const float lo = none ? 0.0f : __uint_as_float(keys[0]);
    const float hi = none ? 0.0f : __uint_as_float(keys[1]);
    stats[0] = lo;
    stats[1] = hi;
    state->finalMin = lo;
    state->finalMax = hi;
}

} // namespace

cudaError_t launchLessonStats(float* field, int nx, int ny, int pitch, std::size_t statsOffset,
                              unsigned int* keys, DistanceStatsState* state, cudaStream_t stream)
{
    // keys[0] starts above every float's bits, keys[1] at 0.
    if (const cudaError_t e = cudaMemsetAsync(keys, 0xff, sizeof(unsigned int), stream);
        e != cudaSuccess)
        return e;
    if (const cudaError_t e = cudaMemsetAsync(keys + 1, 0, sizeof(unsigned int), stream);
        e != cudaSuccess)
        return e;
    constexpr int kThreads = 256;
    const long long nodes = (long long)nx * ny;
    const int blocks = int(std::min<long long>((nodes + kThreads - 1) / kThreads, 1024));
    lessonStatsKernel<<<blocks, kThreads, 0, stream>>>(field, nx, ny, pitch, keys);
    if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess)
        return e;
    lessonStatsFinal<<<1, 1, 0, stream>>>(keys, field + statsOffset, state);
    return cudaGetLastError();
}

} // namespace warpscope::gpu
