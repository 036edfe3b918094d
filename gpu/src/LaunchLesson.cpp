#include "warpscope/gpu/LaunchLesson.h"

namespace warpscope::gpu {

bool expectedOwner(const LessonLaunch& lesson, int row, int col, std::uint32_t& block,
                   std::uint32_t& thread)
{
    const Dim3& b = lesson.launch.block;
    const Dim3& g = lesson.launch.grid;
    const long long spanX = g.x * b.x;
    const long long spanY = g.y * b.y;
    if (!lesson.gridStride && (col >= spanX || row >= spanY))
        return false;
    // With a grid-stride loop the node is taken by the thread at its position modulo the grid.
    const long long x = col % spanX;
    const long long y = row % spanY;
    block = static_cast<std::uint32_t>((y / b.y) * g.x + x / b.x); // modulo 2^32, as on the GPU
    thread = static_cast<std::uint32_t>((y % b.y) * b.x + x % b.x);
    return true;
}

} // namespace warpscope::gpu
