#pragma once

// Paints a recorded launch's memory figures onto the nodes its threads wrote: each node takes
// the figure of the warp whose thread wrote it, so a picture shows where the kernel's memory
// behaviour is good or bad (the Launch tab's "Colour by" choices for a user kernel).
#include "warpscope/gpu/DistanceParams.h"
#include "warpscope/gpu/KernelMemory.h"

#include <cstdint>
#include <span>
#include <vector>

namespace warpscope::gpu {

enum class MemoryFigure
{
    SectorsPerRequest, // global memory: 32-byte sectors a request (4 for 32 coalesced floats)
    ConflictWays,      // shared memory: wavefronts over the fewest needed (1: no conflict)
    ActiveLanes        // branches: active lanes per basic block (32: no divergence)
};

// The per-warp figures for figure (empty when the report kept none).
const std::vector<float>& warpFigures(const MemoryWarpStats& warps, MemoryFigure figure);

// The warp that wrote a node, from the teaching record's two words (LaunchLesson.h), as an
// index into warpFigures' vectors; false where no thread wrote the node or the record names a
// warp the report does not hold. Threads are numbered as the record numbers them (x and y of a
// block); a launch whose blocks have a z extent above 1 cannot be told apart by the record.
bool nodeWarp(const MemoryWarpStats& warps, const std::uint32_t (&owner)[2], std::size_t& warp);

// The colour scale of a figure: from its best value to its worst, widened to the largest
// figure present, so that pictures of two versions of a kernel share one scale.
struct MemoryScale
{
    float lo = 0.0f;
    float hi = 1.0f;
};
MemoryScale memoryScale(MemoryFigure figure, std::span<const float> values);

// Fills field (laid out as layout, its two stats slots after the nodes) with each node's warp
// figure, NaN where no thread wrote the node or its warp made no access of that kind; the
// stats slots hold memoryScale's ends. owners holds two words per node, row-major without
// padding, layout.nx * layout.ny nodes. Returns the number of nodes given a figure.
std::size_t paintMemoryFigure(const MemoryWarpStats& warps, MemoryFigure figure,
                              std::span<const std::uint32_t> owners, const FieldLayout& layout,
                              std::span<float> field);

} // namespace warpscope::gpu
