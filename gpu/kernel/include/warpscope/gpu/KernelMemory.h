#pragma once

// What a simulated launch did to memory, warp by warp, as a GPU's memory pipeline sees it: the
// simulator records each lane's loads, stores and atomics (global memory: the kernel's output;
// shared memory) and the branches each lane took, groups the lanes of a warp that ran the same
// instruction the same time, and counts what the hardware would serve:
//   - global memory: requests (one per warp instruction) and the 32-byte sectors they touch,
//     beside the fewest sectors those bytes could fill;
//   - shared memory: wavefronts (32 banks of 4 bytes; 8- and 16-byte accesses served by half
//     and quarter warps), beside the fewest the bytes need;
//   - branches: the active lanes of each basic block a warp ran (SIMT efficiency), counted per
//     block of the simulator's code, not per GPU instruction.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace warpscope::gpu {

enum class MemoryOp : std::uint8_t
{
    GlobalLoad,
    GlobalStore,
    GlobalAtomic,
    SharedLoad,
    SharedStore,
    SharedAtomic,
    Branch,
    Count
};

// "global load", "shared store", "branch".
const char* memoryOpName(MemoryOp op);
inline bool isGlobal(MemoryOp op)
{
    return op == MemoryOp::GlobalLoad || op == MemoryOp::GlobalStore ||
           op == MemoryOp::GlobalAtomic;
}
inline bool isShared(MemoryOp op)
{
    return op == MemoryOp::SharedLoad || op == MemoryOp::SharedStore ||
           op == MemoryOp::SharedAtomic;
}

// One kind of operation at one line of the user's code (line 0: the launcher's own code, such
// as the per-node template's store of each value), summed over the launch.
struct MemoryLineStats
{
    int line = 0;
    MemoryOp op = MemoryOp::GlobalLoad;
    std::uint64_t instructions = 0; // warp instructions (global: requests)
    std::uint64_t lanes = 0;        // active lanes, summed over them
    std::uint64_t units = 0;        // global: sectors; shared: wavefronts; branch: 0
    std::uint64_t ideal = 0;        // the fewest units the same bytes need
    // Why, in one sentence, from the first warp that ran it ("a stride of 32 floats between
    // lanes: each lane touches its own sector").
    std::string cause;
};

// Per warp of the launch (block-linear * warpsPerBlock + warp), for painting nodes: global
// sectors per request and the fewest those requests' bytes need, shared wavefronts per
// instruction over the ideal (conflict ways), and active lanes per branch block. NaN where the
// warp did no such thing.
struct MemoryWarpStats
{
    std::uint32_t warpsPerBlock = 0;
    std::vector<float> sectorsPerRequest;
    std::vector<float> idealSectorsPerRequest;
    std::vector<float> conflictWays;
    std::vector<float> activeLanes;
};

struct KernelMemoryReport
{
    bool recorded = false;
    std::vector<MemoryLineStats> lines; // by line, then operation
    MemoryWarpStats warps;              // empty when the launch has too many warps to keep
    // Blocks that made more accesses between two barriers than a runner thread keeps
    // (kMaxRecordedAccesses): the figures hold what their warps did before.
    std::uint64_t blocksInPart = 0;
    std::uint64_t blocks = 0;
};

// Accesses a runner thread keeps between two barriers of a block (24 bytes each: 24 MiB a
// thread at most).
inline constexpr std::uint64_t kMaxRecordedAccesses = 1ull << 20;
// Warps whose figures a report keeps for painting (64 bytes each while recording, 4 floats in
// the report): a 4096 x 4096 launch of one thread a node has 512 Ki.
inline constexpr std::uint64_t kMaxRecordedWarps = 1ull << 20;

// The sum of every line's figures for op.
MemoryLineStats memoryTotal(const KernelMemoryReport& report, MemoryOp op);
// A launch's memory behaviour in four figures, for comparing versions of a kernel (the
// Variants tab): global sectors per request and the fewest its bytes need, shared-memory
// wavefronts over the fewest (conflict ways), and active lanes per branch block. Each is empty
// where the launch did no such thing.
struct MemorySummary
{
    std::optional<double> sectorsPerRequest;
    std::optional<double> idealSectorsPerRequest;
    std::optional<double> conflictWays;
    std::optional<double> activeLanes;
};
MemorySummary summarizeMemory(const KernelMemoryReport& report);

// How many times its ideal a line costs (sectors or wavefronts), or for a branch 32 over its
// average active lanes: 1 is as good as it gets.
double memoryExcessRatio(const MemoryLineStats& line);

} // namespace warpscope::gpu
