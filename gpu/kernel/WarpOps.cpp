// CUDA's warp collectives for one lane (WarpOps.h), as the CUDA C++ Programming Guide defines
// them: a shuffle whose source lies outside the lane's width segment returns the lane's own
// value; votes and reductions take the lanes that took part.
#include "kernel/WarpOps.h"

#include <algorithm>
#include <cstdint>

namespace warpscope::gpu {
namespace {

// A power of two from 1 to 32; CUDA leaves other widths undefined, the simulator uses 32.
unsigned segmentWidth(int width)
{
    return width >= 1 && width <= 32 && (width & (width - 1)) == 0 ? unsigned(width) : 32u;
}

unsigned long long shuffle(WarpOp op, unsigned lane, unsigned arrived,
                           const WarpLane (&lanes)[kWarpLanes])
{
    const WarpLane& me = lanes[lane];
    const unsigned width = segmentWidth(me.width);
    const unsigned start = lane & ~(width - 1);
    long long source = lane;
    switch (op) {
    case WarpOp::ShflIdx:
        source = start + (unsigned(me.arg) & (width - 1));
        break;
    case WarpOp::ShflUp:
        source = (long long)lane - (unsigned)me.arg;
        break;
    case WarpOp::ShflDown:
        source = (long long)lane + (unsigned)me.arg;
        break;
    default: // ShflXor
        source = lane ^ unsigned(me.arg);
        break;
    }
    if (source < (long long)start || source >= (long long)(start + width) ||
        !(arrived >> source & 1u))
        return me.value;
    return lanes[source].value;
}

template <typename T, typename Combine>
unsigned long long reduce(unsigned arrived, const WarpLane (&lanes)[kWarpLanes], Combine combine)
{
    bool first = true;
    T total{};
    for (unsigned l = 0; l < kWarpLanes; ++l)
        if (arrived >> l & 1u) {
            const T v = T(lanes[l].value);
            total = first ? v : combine(total, v);
            first = false;
        }
    return (unsigned long long)(std::uint32_t)total;
}

} // namespace

unsigned long long warpResult(WarpOp op, unsigned lane, unsigned arrived,
                              const WarpLane (&lanes)[kWarpLanes])
{
    const unsigned mask = lanes[lane].mask & arrived;
    unsigned votes = 0;
    for (unsigned l = 0; l < kWarpLanes; ++l)
        if ((mask >> l & 1u) && lanes[l].value != 0)
            votes |= 1u << l;
    switch (op) {
    case WarpOp::Sync:
    case WarpOp::Active:
    case WarpOp::Count:
        return arrived;
    case WarpOp::ShflIdx:
    case WarpOp::ShflUp:
    case WarpOp::ShflDown:
    case WarpOp::ShflXor:
        return shuffle(op, lane, arrived, lanes);
    case WarpOp::Ballot:
        return votes;
    case WarpOp::Any:
        return votes != 0;
    case WarpOp::All:
        return votes == mask;
    case WarpOp::MatchAny:
    case WarpOp::MatchAll: {
        unsigned same = 0;
        for (unsigned l = 0; l < kWarpLanes; ++l)
            if ((mask >> l & 1u) && lanes[l].value == lanes[lane].value)
                same |= 1u << l;
        if (op == WarpOp::MatchAny)
            return same;
        return same == mask ? (1ull << 32) | mask : 0ull;
    }
    case WarpOp::ReduceAdd:
        return reduce<std::uint32_t>(mask, lanes, [](auto a, auto b) { return a + b; });
    case WarpOp::ReduceMinSigned:
        return reduce<std::int32_t>(mask, lanes, [](auto a, auto b) { return std::min(a, b); });
    case WarpOp::ReduceMaxSigned:
        return reduce<std::int32_t>(mask, lanes, [](auto a, auto b) { return std::max(a, b); });
    case WarpOp::ReduceMinUnsigned:
        return reduce<std::uint32_t>(mask, lanes, [](auto a, auto b) { return std::min(a, b); });
    case WarpOp::ReduceMaxUnsigned:
        return reduce<std::uint32_t>(mask, lanes, [](auto a, auto b) { return std::max(a, b); });
    case WarpOp::ReduceAnd:
        return reduce<std::uint32_t>(mask, lanes, [](auto a, auto b) { return a & b; });
    case WarpOp::ReduceOr:
        return reduce<std::uint32_t>(mask, lanes, [](auto a, auto b) { return a | b; });
    case WarpOp::ReduceXor:
        return reduce<std::uint32_t>(mask, lanes, [](auto a, auto b) { return a ^ b; });
    }
    return 0;
}

const char* warpOpName(WarpOp op)
{
    static const char* const names[] = {
        "__syncwarp",        "__activemask",      "__shfl_sync",       "__shfl_up_sync",
        "__shfl_down_sync",  "__shfl_xor_sync",   "__ballot_sync",     "__any_sync",
        "__all_sync",        "__match_any_sync",  "__match_all_sync",  "__reduce_add_sync",
        "__reduce_min_sync", "__reduce_max_sync", "__reduce_min_sync", "__reduce_max_sync",
        "__reduce_and_sync", "__reduce_or_sync",  "__reduce_xor_sync"};
    const int index = int(op);
    return index >= 0 && index < int(WarpOp::Count) ? names[index] : "a warp operation";
}

} // namespace warpscope::gpu
