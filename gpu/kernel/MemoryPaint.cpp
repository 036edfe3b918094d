#include "warpscope/gpu/MemoryPaint.h"

#include "warpscope/gpu/LaunchLesson.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace warpscope::gpu {

const std::vector<float>& warpFigures(const MemoryWarpStats& warps, MemoryFigure figure)
{
    switch (figure) {
    case MemoryFigure::SectorsPerRequest:
        return warps.sectorsPerRequest;
    case MemoryFigure::ConflictWays:
        return warps.conflictWays;
    case MemoryFigure::ActiveLanes:
        break;
    }
    return warps.activeLanes;
}

bool nodeWarp(const MemoryWarpStats& warps, const std::uint32_t (&owner)[2], std::size_t& warp)
{
    if (owner[0] == kUncovered || warps.warpsPerBlock == 0)
        return false;
    const std::uint32_t inBlock = ownerThread(owner[1]) / 32;
    if (inBlock >= warps.warpsPerBlock)
        return false;
    warp = std::size_t(owner[0]) * warps.warpsPerBlock + inBlock;
    return warp < warps.sectorsPerRequest.size();
}

MemoryScale memoryScale(MemoryFigure figure, std::span<const float> values)
{
    // Sectors: 1 (a lane or a broadcast) to 32 (a sector a lane); conflicts: 1 to 32 ways;
    // lanes: 0 to a whole warp. 8- and 16-byte accesses can pass 32 sectors a request.
    MemoryScale scale{figure == MemoryFigure::ActiveLanes ? 0.0f : 1.0f, 32.0f};
    for (float v : values)
        if (std::isfinite(v))
            scale.hi = std::max(scale.hi, v);
    return scale;
}

std::size_t paintMemoryFigure(const MemoryWarpStats& warps, MemoryFigure figure,
                              std::span<const std::uint32_t> owners, const FieldLayout& layout,
                              std::span<float> field)
{
    const std::vector<float>& figures = warpFigures(warps, figure);
    const std::size_t nodes = std::size_t(layout.nx) * std::size_t(layout.ny);
    if (field.size() < layout.elementCount() || owners.size() < 2 * nodes)
        return 0;
    std::fill(field.begin(), field.end(), std::numeric_limits<float>::quiet_NaN());
    std::size_t painted = 0;
    for (int row = 0; row < layout.ny; ++row)
        for (int col = 0; col < layout.nx; ++col) {
            const std::size_t node = std::size_t(row) * layout.nx + col;
            const std::uint32_t owner[2] = {owners[2 * node], owners[2 * node + 1]};
            std::size_t warp = 0;
            if (!nodeWarp(warps, owner, warp) || warp >= figures.size() ||
                !std::isfinite(figures[warp]))
                continue;
            field[layout.index(row, col)] = figures[warp];
            ++painted;
        }
    const MemoryScale scale = memoryScale(figure, figures);
    field[layout.statsOffset()] = scale.lo;
    field[layout.statsOffset() + 1] = scale.hi;
    return painted;
}

} // namespace warpscope::gpu
