#include "warpscope/gpu/LaunchLesson.h"

#include <algorithm>
#include <cmath>
#include <limits>

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

std::pair<float, float> writeLessonStats(float* field, int nx, int ny, int pitch,
                                         std::size_t statsOffset)
{
    float lo = std::numeric_limits<float>::max(), hi = 0.0f;
    for (int row = 0; row < ny; ++row)
        for (int col = 0; col < nx; ++col)
            if (const float v = field[std::size_t(row) * pitch + col]; !std::isnan(v)) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
    if (lo > hi)
        lo = hi = 0.0f;
    field[statsOffset] = lo;
    field[statsOffset + 1] = hi;
    return {lo, hi};
}

} // namespace warpscope::gpu
