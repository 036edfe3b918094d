#pragma once

// CUDA's execution model on the CPU: a block's threads run as cooperative fibers on one
// thread of the runner, each until it meets a barrier (__syncthreads, a warp collective) or
// ends; a barrier that every thread it waits for has reached lets them all go on. Blocks run
// in parallel on the runner's threads, each with its own fibers. A barrier that can never be
// passed (threads that ended without it, lanes at different warp operations) ends the run
// with a message naming the block, the threads and the line, where a GPU would hang or go on
// with wrong values.
#include "kernel/KernelShared.h"
#include "kernel/WarpOps.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace warpscope::gpu {

// One run of a simulated kernel: the table its library calls, and the first failure of any of
// its blocks (which stops the others at their next block).
class MemoryRecord;

class SimulatedRun
{
public:
    SimulatedRun();
    ~SimulatedRun();
    SimulatedRun(const SimulatedRun&) = delete;
    SimulatedRun& operator=(const SimulatedRun&) = delete;

    const KernelAbiRuntime* runtime() const { return &m_runtime; }
    bool failed() const { return m_failed.load(std::memory_order_relaxed); }
    std::string message() const;
    // Keeps the first message.
    void fail(std::string message);
    // Keeps a thread's printf while there is room (kMaxPrintLines, kMaxPrintedBytes); counts it
    // otherwise.
    void print(const unsigned block[3], const unsigned thread[3], std::string text);
    // The lines kept, and how many were not.
    std::vector<KernelPrintLine> takePrintLines(std::uint64_t& dropped);
    // The dynamic shared memory the launch gives each block.
    void setDynamicSharedBytes(std::uint64_t bytes) { m_dynamicSharedBytes = bytes; }
    std::uint64_t dynamicSharedBytes() const { return m_dynamicSharedBytes; }
    // This run among the process's runs.
    std::uint64_t serial() const { return m_serial; }
    // What shared memory's checks and the warps found (SharedMemoryCheck.h), as warnings at the
    // user's lines, once each; called once the blocks are done.
    std::vector<KernelMessage> takeFindings();
    // Records the launch's memory behaviour (a recording build's calls; MemoryRecord.h), global
    // memory being the field's bytes, the buffers' and the library's data (its __device__
    // variables), each a start and a length; called before the blocks run.
    struct Range
    {
        const void* lo;
        std::uint64_t span;
    };
    void recordMemory(const unsigned grid[3], const unsigned blockDim[3], const Range (&global)[3]);
    MemoryRecord* memoryRecord() { return m_memory.get(); }
    // What was recorded, at the user's lines; called once the blocks are done.
    KernelMemoryReport takeMemoryReport();

private:
    KernelAbiRuntime m_runtime{};
    std::atomic<bool> m_failed{false};
    mutable std::mutex m_mutex;
    std::string m_message;
    std::vector<KernelPrintLine> m_lines;
    std::uint64_t m_printBytes = 0;
    std::uint64_t m_dropped = 0;
    std::uint64_t m_dynamicSharedBytes = 0;
    std::uint64_t m_serial = 0;
    std::unique_ptr<MemoryRecord> m_memory;
};

// Runs the block's blockDim threads, thread(arg, linear index), as fibers on the calling
// thread; false when the run failed (here or in another block).
bool runSimulatedBlock(SimulatedRun& run, const unsigned block[3], const unsigned blockDim[3],
                       void (*thread)(void* arg, unsigned linear), void* arg);

// From inside a thread of runSimulatedBlock: __syncthreads and its count/and/or forms, and a
// warp collective (WarpOps.h) of the thread's warp. line: the user's line, for messages.
int syncSimulatedThreads(BlockSync op, int predicate, unsigned line);
unsigned long long simulatedWarpOp(WarpOp op, unsigned mask, unsigned long long value, int arg,
                                   int width, unsigned line);

} // namespace warpscope::gpu
