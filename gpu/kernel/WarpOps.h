#pragma once

// CUDA's warp collectives, computed for one lane from what every lane of its warp brought:
// shuffles, votes, matches and reductions. Lanes are numbered as CUDA numbers them (threadIdx
// linearised x, then y, then z, 32 to a warp). Plain functions, so that the simulator's
// scheduler (BlockFibers.h) only has to gather the lanes.
#include <string>

namespace warpscope::gpu {

// The simulator's library passes these numbers (KernelWrap.cpp writes them into its prelude).
enum class WarpOp : int
{
    Sync,
    Active,
    ShflIdx,
    ShflUp,
    ShflDown,
    ShflXor,
    Ballot,
    Any,
    All,
    MatchAny,
    MatchAll, // the result's bit 32 is the predicate
    ReduceAdd,
    ReduceMinSigned,
    ReduceMaxSigned,
    ReduceMinUnsigned,
    ReduceMaxUnsigned,
    ReduceAnd,
    ReduceOr,
    ReduceXor,
    Count
};
enum class BlockSync : int
{
    Plain,
    Count, // __syncthreads_count
    And,
    Or
};

inline constexpr unsigned kWarpLanes = 32;

// What one lane brought to a collective: its mask, value (the bits of any 32- or 64-bit type)
// and, for shuffles, the lane or offset and the width.
struct WarpLane
{
    unsigned mask = 0;
    unsigned long long value = 0;
    int arg = 0;
    int width = 32;
};

// The result for lane, of op, over the lanes in arrived (bit i: lane i took part).
unsigned long long warpResult(WarpOp op, unsigned lane, unsigned arrived,
                              const WarpLane (&lanes)[kWarpLanes]);

// The name users wrote for op, for messages ("__shfl_down_sync").
const char* warpOpName(WarpOp op);

} // namespace warpscope::gpu
