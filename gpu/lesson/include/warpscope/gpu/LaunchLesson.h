#pragma once

#include "warpscope/gpu/BufferView.h"
#include "warpscope/gpu/Context.h"
#include "warpscope/gpu/DistanceParams.h"
#include "warpscope/gpu/LaunchConfig.h"
#include "warpscope/gpu/Status.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

namespace warpscope::gpu {

// The teaching variant of the distance kernel: one thread per mesh node, launched with any
// configuration the user chooses, so that the mapping of blocks and threads onto data can be
// seen. Thread (x, y) of block (x, y) computes node (column, row) =
// (blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y); threads with
// threadIdx.z or blockIdx.z above 0 have no node on this two-dimensional mesh. With gridStride,
// each thread also takes every node a whole grid's width or height further on.
struct LessonLaunch
{
    LaunchConfig launch;
    bool gridStride = false;
};

// Which thread computed a node, two 32-bit words per node, row-major without padding:
// word 0 is the block's linear index (blockIdx.y * gridDim.x + blockIdx.x), word 1 the
// thread's index in the block (threadIdx.y * blockDim.x + threadIdx.x) in its low 16 bits
// and the SM that ran the block in its high 16 bits. Nodes no thread reached keep
// kUncovered in both words.
inline constexpr std::uint32_t kUncovered = 0xffffffffu;

inline std::uint32_t ownerThread(std::uint32_t word1)
{
    return word1 & 0xffffu;
}
inline std::uint32_t ownerSm(std::uint32_t word1)
{
    return word1 >> 16;
}

// The node each thread owns follows from its coordinates and the launch alone; this is
// that rule, for the simulator's and the tests' use. Returns false when no thread covers
// the node.
bool expectedOwner(const LessonLaunch& lesson, int row, int col, std::uint32_t& block,
                   std::uint32_t& thread);

// Runs the teaching kernel with the user's launch on context's device, after checking it
// against the device's limits. field is laid out as layoutFor(params); only the nodes a thread
// reached are written, and the stats are not. owners holds 2 * nx * ny words. On the CPU the
// kernel is simulated block by block with the same indices, and SM ids are simulated: block
// index modulo the SM count. kernelMs, when given, receives the kernel's time (CUDA events;
// the simulator's clock).
Status runLesson(Context& context, const DistanceParams& params, const LessonLaunch& lesson,
                 std::span<float> field, std::span<std::uint32_t> owners,
                 double* kernelMs = nullptr);

// Runs the teaching kernel into views of memory (the context's device's, such as mapped
// OpenGL buffers, or the host's): nodes no thread reaches hold NaN in field and kUncovered in
// owners, and the field's stats slots hold the minimum and maximum of the nodes reached.
// Returns without waiting on a GPU; fieldResult() (Distance.h) has the kernel's time and the
// stats once the device has finished.
Status launchLesson(Context& context, const DistanceParams& params, const LessonLaunch& lesson,
                    BufferView<float> field, BufferView<std::uint32_t> owners);

// Median time of the teaching kernel over repeated launches (CUDA events; the simulator's
// clock on the CPU), for the block-size sweep.
Status timeLesson(Context& context, const DistanceParams& params, const LessonLaunch& lesson,
                  int repetitions, double& medianMs);

// The teaching kernel's occupancy on context's device at a block size (on the CPU, the sm_90
// build's resources on the simulated device).
KernelOccupancy lessonOccupancy(Context& context, Precision precision, long long blockThreads);

// Writes the minimum and maximum of the nodes a lesson reached (NaN elsewhere) into the
// field's stats slots and returns them; both 0 when it reached none. For a field laid out
// as layout.
std::pair<float, float> writeLessonStats(float* field, int nx, int ny, int pitch,
                                         std::size_t statsOffset);

} // namespace warpscope::gpu
