#pragma once

// The recorder of a simulated launch's memory behaviour (KernelMemory.h). A recording build of
// the user's code reports every access in shared memory or in the kernel's global memory, and
// every basic block a thread enters, here, from whichever runner thread runs the block. Each
// runner thread keeps its block's accesses per warp, in each lane's order; when the warp's
// lanes can no longer run the same instruction together (they ended, or met a block barrier),
// the lanes' k-th executions of one instruction are taken as one warp instruction, as a GPU's
// lanes run it in step, and costed (MemoryModel.h). A lane that took the other side of a branch
// runs other instructions, so each side counts its own lanes: that is the divergence.
#include "warpscope/gpu/KernelMemory.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace warpscope::gpu {

class KernelPcLines;

class MemoryRecord
{
public:
    // A launch of grid blocks of blockDim threads.
    MemoryRecord(const unsigned grid[3], const unsigned blockDim[3]);
    ~MemoryRecord();
    MemoryRecord(const MemoryRecord&) = delete;
    MemoryRecord& operator=(const MemoryRecord&) = delete;

    // From the runner threads, as the scheduler and the library's callbacks call them: a block
    // starts (and the last one of this thread is done), runs as fibers (or its threads one after
    // another), a thread runs from now on or has ended, a barrier all threads passed, an access
    // (kind: 0 read, 1 write, 2 atomic, 3 a basic block; pc, or 0 and the line of the user's
    // code).
    // record: the run's, or null when the run records nothing (the hooks then do nothing).
    static void beginBlock(MemoryRecord* record, const unsigned block[3]);
    static void blockRunsFibers();
    static void beginThread(unsigned thread);
    static void threadEnded(unsigned thread);
    static void barrier();
    static void access(const void* address, unsigned size, int kind, const void* pc, unsigned line);

    // Once the blocks are done: every figure, at the user's lines.
    KernelMemoryReport takeReport(KernelPcLines& lines);

    struct Recorder;

private:
    Recorder& recorder();

    std::uint64_t m_serial;
    unsigned m_grid[3];
    unsigned m_threads;
    unsigned m_warpsPerBlock;
    std::uint64_t m_blocks;
    // Shared memory's region, read once: an access in it is shared, any other global.
    std::uintptr_t m_sharedLo = 0;
    std::uint64_t m_sharedSpan = 0;
    std::mutex m_mutex;
    std::vector<std::unique_ptr<Recorder>> m_recorders;
    // Per warp of the launch: requests, sectors, shared instructions, wavefronts, their ideal,
    // branch blocks and their lanes (empty past kMaxRecordedWarps).
    std::vector<std::uint64_t> m_warpFigures;
};

} // namespace warpscope::gpu
