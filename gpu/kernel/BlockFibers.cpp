// A block's threads as fibers (BlockFibers.h), switched by Boost.Context's fcontext: a switch
// saves and restores a few registers, with no system call (ucontext's swapcontext makes one to
// save the signal mask, which made barrier-heavy kernels several times slower). The scheduler is
// round-robin in thread order: a thread runs until it waits at a barrier or ends, and the last
// thread to reach a barrier releases the others. Stacks are mapped once per runner thread and
// reused.
#include "kernel/BlockFibers.h"

#include "kernel/KernelPcLines.h"
#include "kernel/MemoryRecord.h"
#include "kernel/SharedMemoryCheck.h"

#include <algorithm>
#include <boost/context/detail/fcontext.hpp>
#include <deque>
#include <map>
#include <memory>
#include <sanitizer/asan_interface.h>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

namespace warpscope::gpu {
namespace {

namespace fcontext = boost::context::detail;

// A fiber's stack: a kernel's locals live there (CUDA's local memory). The whole of it is
// reserved, not committed, so a block of 1024 threads costs its touched pages only.
constexpr std::size_t kStackBytes = 128u << 10;

// Stacks with a guard page below each, so that an overflow is a crash of the runner, not a
// write into the next fiber's stack.
class StackPool
{
public:
    ~StackPool()
    {
        for (void* base : m_bases)
            ::munmap(base, kStackBytes + guard());
    }
    // The stack of fiber i, mapped on first use; null when the memory is refused.
    void* stack(std::size_t i)
    {
        while (m_bases.size() <= i) {
            void* base = ::mmap(nullptr, kStackBytes + guard(), PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
            if (base == MAP_FAILED)
                return nullptr;
            if (::mprotect(base, guard(), PROT_NONE) != 0) {
                ::munmap(base, kStackBytes + guard());
                return nullptr;
            }
            m_bases.push_back(base);
        }
        return static_cast<char*>(m_bases[i]) + guard();
    }

private:
    static std::size_t guard() { return std::size_t(::sysconf(_SC_PAGESIZE)); }
    std::vector<void*> m_bases;
};

enum class Wait
{
    None,
    Barrier,
    Warp,
    Ended
};

struct Fiber
{
    fcontext::fcontext_t context = nullptr; // where the suspended thread goes on
    Wait wait = Wait::None;
    unsigned line = 0;
    int predicate = 0;
    unsigned long long result = 0;
};

// Lanes of a warp waiting at one collective: those that named the same mask (disjoint masks,
// a warp's tiles say, meet apart).
struct WarpGroup
{
    WarpLane lanes[kWarpLanes];
    unsigned mask = 0;
    unsigned arrived = 0;
    WarpOp op = WarpOp::Sync;
    unsigned line = 0;
};

struct WarpState
{
    std::vector<WarpGroup> waiting;
    unsigned ended = 0;
};

class Block
{
public:
    Block(SimulatedRun& run, const unsigned block[3], const unsigned dim[3],
          void (*thread)(void*, unsigned), void* arg)
        : m_run(run), m_thread(thread), m_arg(arg)
    {
        std::copy(block, block + 3, m_block);
        std::copy(dim, dim + 3, m_dim);
        m_threads = dim[0] * dim[1] * dim[2];
        m_fibers.resize(m_threads);
        m_warps.resize((m_threads + kWarpLanes - 1) / kWarpLanes);
    }

    bool run(StackPool& stacks);
    int sync(BlockSync op, int predicate, unsigned line);
    unsigned long long warp(WarpOp op, unsigned mask, unsigned long long value, int arg, int width,
                            unsigned line);

private:
    static void entry(fcontext::transfer_t from);
    // Keeps where the fiber that switched here goes on, in the slot it named.
    static void keep(fcontext::transfer_t from)
    {
        if (from.data)
            *static_cast<fcontext::fcontext_t*>(from.data) = from.fctx;
    }
    void yield() { switchFrom(&m_fibers[m_current].context); }
    void switchFrom(fcontext::fcontext_t* from);
    void release(unsigned thread, unsigned long long result);
    void threadEnded();
    void checkBarrierSkipped();
    void completeWarp(WarpState& warp, std::size_t group, unsigned first);
    void failLanesEnded(const WarpGroup& group, unsigned first);
    unsigned existingLanes(unsigned first) const;
    void fail(const std::string& why);
    std::string threads(Wait wait, unsigned from = 0, unsigned to = ~0u) const;
    std::string describeWaits() const;

    SimulatedRun& m_run;
    void (*m_thread)(void*, unsigned);
    void* m_arg;
    unsigned m_block[3]{}, m_dim[3]{};
    unsigned m_threads = 0;
    std::vector<Fiber> m_fibers;
    std::vector<WarpState> m_warps;
    std::deque<unsigned> m_ready;
    fcontext::fcontext_t m_main = nullptr; // the block's loop
    unsigned m_current = 0;
    unsigned m_live = 0;
    unsigned m_atBarrier = 0;
    unsigned m_ended = 0;
    BlockSync m_barrierOp = BlockSync::Plain;
    unsigned m_barrierLine = 0;
    bool m_failed = false;
};

thread_local Block* t_block = nullptr;
thread_local std::unique_ptr<StackPool> t_stacks;

void Block::entry(fcontext::transfer_t from)
{
    keep(from);
    Block& block = *t_block;
    block.m_thread(block.m_arg, block.m_current);
    block.threadEnded();
    block.switchFrom(nullptr);
}

// To the next ready thread directly (half the switches of going through the block's loop),
// or back to the loop when none is ready or the run has failed. from: where the current
// thread goes on, or null when it has ended (the switch then never returns).
void Block::switchFrom(fcontext::fcontext_t* from)
{
    fcontext::fcontext_t to = m_main;
    if (!m_failed && !m_ready.empty() && !m_run.failed()) {
        m_current = m_ready.front();
        m_ready.pop_front();
        to = m_fibers[m_current].context;
        SharedMemoryCheck::beginThread(m_current);
        MemoryRecord::beginThread(m_current);
    }
    keep(fcontext::jump_fcontext(to, from));
}

bool Block::run(StackPool& stacks)
{
    for (unsigned i = 0; i < m_threads; ++i) {
        void* stack = stacks.stack(i);
        if (!stack) {
            fail("the simulator could not map a stack for each of the block's threads");
            return false;
        }
        // A fiber of an earlier block may have left frames that never returned (a failed run):
        // under AddressSanitizer their marks would poison this block's frames. A no-op
        // otherwise.
        ASAN_UNPOISON_MEMORY_REGION(stack, kStackBytes);
        // The stack grows down from its top.
        m_fibers[i].context = fcontext::make_fcontext(static_cast<char*>(stack) + kStackBytes,
                                                      kStackBytes, &Block::entry);
        m_ready.push_back(i);
    }
    m_live = m_threads;
    m_current = m_ready.front();
    m_ready.pop_front();
    SharedMemoryCheck::beginThread(m_current);
    MemoryRecord::beginThread(m_current);
    // Back here when no thread is ready: all ended, the run failed, or the rest wait for ever.
    keep(fcontext::jump_fcontext(m_fibers[m_current].context, &m_main));
    if (m_failed || m_run.failed())
        return false;
    if (m_live > 0) {
        fail("its threads wait for each other for ever: " + describeWaits());
        return false;
    }
    return true;
}

void Block::release(unsigned thread, unsigned long long result)
{
    m_fibers[thread].result = result;
    m_fibers[thread].wait = Wait::None;
    if (thread != m_current)
        m_ready.push_back(thread);
}

int Block::sync(BlockSync op, int predicate, unsigned line)
{
    Fiber& me = m_fibers[m_current];
    if (m_atBarrier == 0) {
        m_barrierOp = op;
        m_barrierLine = line;
    }
    me.wait = Wait::Barrier;
    me.line = line;
    me.predicate = predicate != 0;
    ++m_atBarrier;
    if (m_atBarrier == m_threads) {
        unsigned count = 0;
        for (const Fiber& f : m_fibers)
            count += unsigned(f.predicate);
        const int result = m_barrierOp == BlockSync::Count ? int(count)
                           : m_barrierOp == BlockSync::And ? int(count == m_threads)
                           : m_barrierOp == BlockSync::Or  ? int(count > 0)
                                                           : 0;
        m_atBarrier = 0;
        SharedMemoryCheck::barrier();
        MemoryRecord::barrier();
        for (unsigned t = 0; t < m_threads; ++t)
            release(t, (unsigned long long)result);
        return result;
    }
    checkBarrierSkipped();
    yield();
    return int(m_fibers[m_current].result);
}

unsigned Block::existingLanes(unsigned first) const
{
    const unsigned count = std::min(kWarpLanes, m_threads - first);
    return count == kWarpLanes ? ~0u : (1u << count) - 1u;
}

unsigned long long Block::warp(WarpOp op, unsigned mask, unsigned long long value, int arg,
                               int width, unsigned line)
{
    const unsigned first = m_current / kWarpLanes * kWarpLanes;
    const unsigned lane = m_current - first;
    WarpState& w = m_warps[m_current / kWarpLanes];
    if (op == WarpOp::Active)
        return existingLanes(first) & ~w.ended;
    // Lanes past the block's last thread do not exist: named, they are a finding, and the
    // lanes that exist meet. CUDA requires the caller in its mask.
    if (mask & ~existingLanes(first))
        SharedMemoryCheck::absentLanes(warpOpName(op), line, first / kWarpLanes, mask,
                                       existingLanes(first));
    mask = (mask & existingLanes(first)) | (1u << lane);
    std::size_t g = 0;
    while (g < w.waiting.size() && w.waiting[g].mask != mask)
        ++g;
    if (g == w.waiting.size()) {
        w.waiting.emplace_back();
        w.waiting[g].mask = mask;
        w.waiting[g].op = op;
        w.waiting[g].line = line;
    }
    WarpGroup& group = w.waiting[g];
    if (group.op != op) {
        fail("lanes of its warp " + std::to_string(first / kWarpLanes) + " met at different " +
             "warp operations with the same mask: " + warpOpName(group.op) + " at line " +
             std::to_string(group.line) + " and " + warpOpName(op) + " at line " +
             std::to_string(line));
        yield();
    }
    Fiber& me = m_fibers[m_current];
    me.wait = Wait::Warp;
    me.line = line;
    group.lanes[lane] = {mask, value, arg, width};
    group.arrived |= 1u << lane;
    if (group.mask & w.ended) {
        failLanesEnded(group, first);
        yield();
    }
    if (group.arrived == group.mask) {
        completeWarp(w, g, first);
        return me.result;
    }
    yield();
    return m_fibers[m_current].result;
}

void Block::completeWarp(WarpState& w, std::size_t g, unsigned first)
{
    const WarpGroup& group = w.waiting[g];
    const unsigned arrived = group.arrived;
    unsigned long long results[kWarpLanes] = {};
    for (unsigned l = 0; l < kWarpLanes; ++l)
        if (arrived >> l & 1u)
            results[l] = warpResult(group.op, l, arrived, group.lanes);
    w.waiting.erase(w.waiting.begin() + std::ptrdiff_t(g));
    SharedMemoryCheck::warpSynced(first / kWarpLanes);
    for (unsigned l = 0; l < kWarpLanes; ++l)
        if (arrived >> l & 1u)
            release(first + l, results[l]);
}

void Block::failLanesEnded(const WarpGroup& group, unsigned first)
{
    fail("threads " + threads(Wait::Ended, first, first + kWarpLanes) +
         " ended without reaching the " + warpOpName(group.op) + " at line " +
         std::to_string(group.line) + " that lanes of their warp wait at (the mask names them)");
}

void Block::threadEnded()
{
    Fiber& me = m_fibers[m_current];
    me.wait = Wait::Ended;
    MemoryRecord::threadEnded(m_current);
    --m_live;
    ++m_ended;
    WarpState& w = m_warps[m_current / kWarpLanes];
    w.ended |= 1u << (m_current % kWarpLanes);
    for (const WarpGroup& group : w.waiting)
        if (group.mask & w.ended) {
            failLanesEnded(group, m_current / kWarpLanes * kWarpLanes);
            return;
        }
    checkBarrierSkipped();
}

// Every thread that has not ended waits at the barrier: the ones that ended skipped it.
void Block::checkBarrierSkipped()
{
    if (m_failed || m_atBarrier == 0 || m_ended == 0 || m_atBarrier + m_ended != m_threads)
        return;
    fail("threads " + threads(Wait::Ended) + " ended without reaching the __syncthreads at line " +
         std::to_string(m_barrierLine) + " that threads " + threads(Wait::Barrier) +
         " wait at. CUDA leaves a barrier that some threads skip undefined: a GPU may hang or "
         "go on with wrong values");
}

// The threads in [from, to) that wait as wait does, as runs of linear indices.
std::string Block::threads(Wait wait, unsigned from, unsigned to) const
{
    constexpr int kRunsShown = 6;
    std::string text;
    int runs = 0;
    unsigned more = 0;
    to = std::min(to, m_threads);
    for (unsigned t = from; t < to;) {
        if (m_fibers[t].wait != wait) {
            ++t;
            continue;
        }
        unsigned end = t;
        while (end + 1 < to && m_fibers[end + 1].wait == wait)
            ++end;
        if (runs++ < kRunsShown)
            text += std::string(text.empty() ? "" : ", ") + threadCoordinates(t, m_dim) +
                    (end > t ? ".." + threadCoordinates(end, m_dim) : std::string());
        else
            more += end - t + 1;
        t = end + 1;
    }
    if (more > 0)
        text += " and " + std::to_string(more) + " more";
    return text.empty() ? "none" : text;
}

std::string Block::describeWaits() const
{
    std::string text;
    if (m_atBarrier > 0)
        text += "threads " + threads(Wait::Barrier) + " wait at the __syncthreads at line " +
                std::to_string(m_barrierLine);
    for (std::size_t w = 0; w < m_warps.size(); ++w)
        for (const WarpGroup& group : m_warps[w].waiting)
            text += std::string(text.empty() ? "" : "; ") + "threads " +
                    threads(Wait::Warp, unsigned(w * kWarpLanes), unsigned((w + 1) * kWarpLanes)) +
                    " wait at the " + warpOpName(group.op) + " at line " +
                    std::to_string(group.line);
    if (m_ended > 0)
        text += "; threads " + threads(Wait::Ended) + " have ended";
    return text;
}

void Block::fail(const std::string& why)
{
    m_failed = true;
    m_run.fail("Block (" + std::to_string(m_block[0]) + "," + std::to_string(m_block[1]) + "," +
               std::to_string(m_block[2]) + "): " + why);
}

bool abiRunBlock(void* run, const unsigned block[3], const unsigned dim[3],
                 void (*thread)(void*, unsigned), void* arg)
{
    return runSimulatedBlock(*static_cast<SimulatedRun*>(run), block, dim, thread, arg);
}

int abiSyncThreads(int op, int predicate, unsigned line)
{
    return syncSimulatedThreads(BlockSync(op), predicate, line);
}

unsigned long long abiWarpOp(int op, unsigned mask, unsigned long long value, int arg, int width,
                             unsigned line)
{
    if (op < 0 || op >= int(WarpOp::Count))
        return value;
    return simulatedWarpOp(WarpOp(op), mask, value, arg, width, line);
}

void abiPrint(void* run, const unsigned block[3], const unsigned thread[3], const char* text,
              unsigned long long length)
{
    static_cast<SimulatedRun*>(run)->print(block, thread, std::string(text, length));
}

void* abiSharedStatic(void* run, unsigned site, unsigned long long size, unsigned long long align,
                      const char* name, unsigned line)
{
    std::string why;
    if (void* at = SharedMemoryCheck::staticVariable(site, size, align, name, line, why))
        return at;
    // The run has failed; the thread gets memory that is there until its block stops.
    static_cast<SimulatedRun*>(run)->fail(why);
    return SharedMemoryCheck::scratch(size);
}

unsigned char* abiSharedDynamic(void*)
{
    return SharedMemoryCheck::dynamicMemory();
}

void abiBeginBlock(void* run, const unsigned block[3], const unsigned blockDim[3])
{
    auto* simulated = static_cast<SimulatedRun*>(run);
    SharedMemoryCheck::beginBlock(simulated->serial(), simulated->dynamicSharedBytes(), block,
                                  blockDim);
    MemoryRecord::beginBlock(simulated->memoryRecord(), block);
}

void abiBeginThread(unsigned thread)
{
    SharedMemoryCheck::beginThread(thread);
    MemoryRecord::beginThread(thread);
}

void abiSharedAccess(const void* address, unsigned size, int kind, const void* pc, unsigned line)
{
    if (kind >= 0 && kind <= int(SharedAccess::Atomic))
        SharedMemoryCheck::access(address, size, SharedAccess(kind), pc, line);
}

void abiMemoryAccess(const void* address, unsigned size, int kind, const void* pc, unsigned line)
{
    MemoryRecord::access(address, size, kind, pc, line);
}

std::atomic<std::uint64_t> g_runSerial{0};

} // namespace

SimulatedRun::~SimulatedRun() = default;

void SimulatedRun::recordMemory(const unsigned grid[3], const unsigned blockDim[3],
                                const Range (&global)[3])
{
    m_memory = std::make_unique<MemoryRecord>(grid, blockDim);
    for (int i = 0; i < 3; ++i) {
        m_runtime.globalLo[i] = global[i].lo;
        m_runtime.globalSpan[i] = global[i].span;
    }
}

KernelMemoryReport SimulatedRun::takeMemoryReport()
{
    if (!m_memory)
        return {};
    KernelPcLines lines;
    return m_memory->takeReport(lines);
}

SimulatedRun::SimulatedRun()
{
    m_runtime.run = this;
    m_runtime.runBlock = &abiRunBlock;
    m_runtime.syncThreads = &abiSyncThreads;
    m_runtime.warpOp = &abiWarpOp;
    m_runtime.print = &abiPrint;
    m_runtime.sharedStatic = &abiSharedStatic;
    m_runtime.sharedDynamic = &abiSharedDynamic;
    m_runtime.beginBlock = &abiBeginBlock;
    m_runtime.beginThread = &abiBeginThread;
    m_runtime.sharedAccess = &abiSharedAccess;
    m_runtime.memoryAccess = &abiMemoryAccess;
    const SharedRegion region = sharedRegion();
    m_runtime.sharedLo = region.lo;
    m_runtime.sharedSpan = region.span;
    m_serial = ++g_runSerial;
}

std::vector<KernelMessage> SimulatedRun::takeFindings()
{
    // A finding's instructions may be many at one line (an unrolled loop, say): one message a
    // line and kind, counting them all.
    struct Merged
    {
        KernelMessage message;
        std::uint64_t count = 0;
    };
    std::map<std::pair<int, int>, Merged> merged;
    KernelPcLines lines;
    for (SharedFinding& finding : SharedMemoryCheck::takeFindings(m_serial)) {
        const int line = int(finding.pc ? lines.userLine(finding.pc) : finding.line);
        Merged& m = merged[{line, int(finding.kind)}];
        m.count += finding.count;
        if (!m.message.text.empty())
            continue;
        const unsigned other =
            finding.otherPc ? lines.userLine(finding.otherPc) : finding.otherLine;
        std::string text = std::move(finding.text);
        if (const std::size_t at = text.find("{other}"); at != std::string::npos)
            text.replace(at, 7, other > 0 ? " at line " + std::to_string(other) : std::string());
        m.message = {Severity::Warning, line, 0, std::move(text)};
    }
    std::vector<KernelMessage> messages;
    for (auto& [key, m] : merged) {
        if (messages.size() == kMaxKernelFindings)
            break;
        if (m.count > 1)
            m.message.text += " (" + std::to_string(m.count) + " times)";
        messages.push_back(std::move(m.message));
    }
    return messages;
}

void SimulatedRun::print(const unsigned block[3], const unsigned thread[3], std::string text)
{
    std::lock_guard lock(m_mutex);
    if (m_lines.size() >= kMaxPrintLines || m_printBytes + text.size() > kMaxPrintedBytes) {
        ++m_dropped;
        return;
    }
    m_printBytes += text.size();
    KernelPrintLine& line = m_lines.emplace_back();
    std::copy(block, block + 3, line.block);
    std::copy(thread, thread + 3, line.thread);
    line.text = std::move(text);
}

std::vector<KernelPrintLine> SimulatedRun::takePrintLines(std::uint64_t& dropped)
{
    std::lock_guard lock(m_mutex);
    dropped = m_dropped;
    return std::move(m_lines);
}

std::string SimulatedRun::message() const
{
    std::lock_guard lock(m_mutex);
    return m_message;
}

void SimulatedRun::fail(std::string message)
{
    std::lock_guard lock(m_mutex);
    if (!m_failed.exchange(true))
        m_message = std::move(message);
}

bool runSimulatedBlock(SimulatedRun& run, const unsigned block[3], const unsigned blockDim[3],
                       void (*thread)(void*, unsigned), void* arg)
{
    if (run.failed())
        return false;
    if (!t_stacks)
        t_stacks = std::make_unique<StackPool>();
    Block b(run, block, blockDim, thread, arg);
    t_block = &b;
    MemoryRecord::blockRunsFibers();
    const bool ok = b.run(*t_stacks);
    t_block = nullptr;
    return ok;
}

int syncSimulatedThreads(BlockSync op, int predicate, unsigned line)
{
    // Outside a block's fibers (a library that ran its threads straight through) a thread is
    // its own block.
    if (!t_block)
        return op == BlockSync::Plain ? 0 : predicate != 0;
    return t_block->sync(op, predicate, line);
}

unsigned long long simulatedWarpOp(WarpOp op, unsigned mask, unsigned long long value, int arg,
                                   int width, unsigned line)
{
    if (!t_block) {
        WarpLane lanes[kWarpLanes];
        lanes[0] = {1u, value, arg, width};
        return warpResult(op, 0, 1u, lanes);
    }
    return t_block->warp(op, mask, value, arg, width, line);
}

} // namespace warpscope::gpu
