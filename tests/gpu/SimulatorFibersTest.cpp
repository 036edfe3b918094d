// The simulator's scheduler (BlockFibers.h) and warp collectives (WarpOps.h) on their own, with
// plain C++ threads of a block.
#include "kernel/BlockFibers.h"
#include "kernel/WarpOps.h"

#include <gtest/gtest.h>
#include <vector>

namespace warpscope::gpu::test {
namespace {

WarpLane lane(unsigned long long value, int arg = 0, int width = 32)
{
    return {0xffffffffu, value, arg, width};
}

TEST(WarpOps, ShufflesFollowCudasSegmentsAndBounds)
{
    WarpLane lanes[kWarpLanes];
    for (unsigned l = 0; l < kWarpLanes; ++l)
        lanes[l] = lane(100 + l, 3, 8);
    // Up by 3 in segments of 8: lanes 0..2 of each segment keep their own value.
    EXPECT_EQ(warpResult(WarpOp::ShflUp, 11, ~0u, lanes), 108u);
    EXPECT_EQ(warpResult(WarpOp::ShflUp, 9, ~0u, lanes), 109u);
    // Down by 3: lanes 5..7 of each segment keep theirs.
    EXPECT_EQ(warpResult(WarpOp::ShflDown, 8, ~0u, lanes), 111u);
    EXPECT_EQ(warpResult(WarpOp::ShflDown, 13, ~0u, lanes), 113u);
    // Index 3 within each segment, and xor 3 within it.
    EXPECT_EQ(warpResult(WarpOp::ShflIdx, 22, ~0u, lanes), 119u);
    EXPECT_EQ(warpResult(WarpOp::ShflXor, 22, ~0u, lanes), 121u);
    // A source lane that did not take part gives the lane's own value.
    EXPECT_EQ(warpResult(WarpOp::ShflIdx, 22, ~0u & ~(1u << 19), lanes), 122u);
}

TEST(WarpOps, VotesMatchesAndReductionsTakeTheLanesThatArrived)
{
    WarpLane lanes[kWarpLanes];
    for (unsigned l = 0; l < kWarpLanes; ++l)
        lanes[l] = lane(l % 3 == 0 ? 0 : l);
    const unsigned arrived = 0x0000ffffu;
    for (unsigned l = 0; l < 16; ++l)
        lanes[l].mask = arrived;
    EXPECT_EQ(warpResult(WarpOp::Ballot, 1, arrived, lanes), 0xffffu & ~0x9249u);
    EXPECT_EQ(warpResult(WarpOp::Any, 1, arrived, lanes), 1u);
    EXPECT_EQ(warpResult(WarpOp::All, 1, arrived, lanes), 0u);
    EXPECT_EQ(warpResult(WarpOp::MatchAny, 3, arrived, lanes), 0x9249u);
    EXPECT_EQ(warpResult(WarpOp::MatchAll, 3, arrived, lanes), 0u);
    EXPECT_EQ(warpResult(WarpOp::ReduceAdd, 0, arrived, lanes),
              1u + 2 + 4 + 5 + 7 + 8 + 10 + 11 + 13 + 14);
    EXPECT_EQ(warpResult(WarpOp::ReduceMaxUnsigned, 0, arrived, lanes), 14u);
    EXPECT_EQ(warpResult(WarpOp::ReduceMinUnsigned, 0, arrived, lanes), 0u);
    lanes[4].value = (unsigned)-7;
    EXPECT_EQ(warpResult(WarpOp::ReduceMinSigned, 0, arrived, lanes), (unsigned)-7);
    EXPECT_EQ(warpResult(WarpOp::ReduceMaxUnsigned, 0, arrived, lanes), (unsigned)-7);
}

// A block whose threads meet at barriers: each writes, syncs, then reads its neighbour's
// write, which only a real barrier makes visible in thread order.
struct Exchange
{
    std::vector<int> written, seen, counts;
};

void exchangeThread(void* arg, unsigned t)
{
    auto& e = *static_cast<Exchange*>(arg);
    e.written[t] = int(t) * 10;
    syncSimulatedThreads(BlockSync::Plain, 0, 1);
    e.seen[t] = e.written[(t + 1) % e.written.size()];
    e.counts[t] = syncSimulatedThreads(BlockSync::Count, t % 3 == 0, 2);
    const unsigned long long down = simulatedWarpOp(WarpOp::ShflDown, 0xffffffffu, t, 1, 32, 3);
    e.seen[t] += int(down) * 1000;
}

TEST(BlockFibers, ThreadsMeetAtBarriersAndWarpOperations)
{
    SimulatedRun run;
    Exchange e;
    const unsigned threads = 100;
    e.written.assign(threads, -1);
    e.seen.assign(threads, -1);
    e.counts.assign(threads, -1);
    const unsigned block[3] = {0, 0, 0}, dim[3] = {threads, 1, 1};
    ASSERT_TRUE(runSimulatedBlock(run, block, dim, &exchangeThread, &e)) << run.message();
    for (unsigned t = 0; t < threads; ++t) {
        // The last warp has 4 lanes: lane 3's source (lane 4) does not exist.
        const unsigned down = (t % 32 == 31 || t == threads - 1) ? t : t + 1;
        EXPECT_EQ(e.seen[t], int((t + 1) % threads) * 10 + int(down) * 1000) << t;
        EXPECT_EQ(e.counts[t], 34) << t;
    }
}

void skipThread(void*, unsigned t)
{
    if (t >= 40)
        return;
    syncSimulatedThreads(BlockSync::Plain, 0, 7);
}

TEST(BlockFibers, ThreadsThatEndBeforeABarrierFailTheRunAndStopOtherBlocks)
{
    SimulatedRun run;
    const unsigned block[3] = {2, 1, 0}, dim[3] = {8, 8, 1};
    EXPECT_FALSE(runSimulatedBlock(run, block, dim, &skipThread, nullptr));
    EXPECT_EQ(run.message(), "Block (2,1,0): threads (0,5,0)..(7,7,0) ended without reaching the "
                             "__syncthreads at line 7 that threads (0,0,0)..(7,4,0) wait at. CUDA "
                             "leaves a barrier that some threads skip undefined: a GPU may hang "
                             "or go on with wrong values");
    bool ran = false;
    EXPECT_FALSE(runSimulatedBlock(
        run, block, dim, [](void* arg, unsigned) { *static_cast<bool*>(arg) = true; }, &ran));
    EXPECT_FALSE(ran);
}

// Fibers' stacks are reused: many blocks in a row on one thread do not grow the memory.
TEST(BlockFibers, ManyBlocksReuseTheirStacks)
{
    SimulatedRun run;
    const unsigned dim[3] = {1024, 1, 1};
    int done = 0;
    for (unsigned b = 0; b < 200; ++b) {
        const unsigned block[3] = {b, 0, 0};
        ASSERT_TRUE(runSimulatedBlock(
            run, block, dim,
            [](void* arg, unsigned t) {
                syncSimulatedThreads(BlockSync::Plain, 0, 1);
                if (t == 0)
                    ++*static_cast<int*>(arg);
            },
            &done));
    }
    EXPECT_EQ(done, 200);
}

} // namespace
} // namespace warpscope::gpu::test
