// The simulator's shared memory (SharedMemoryCheck.h). A byte's cell says which thread last
// wrote it and which read it, in which barrier interval (epoch) and after how many collectives
// of their warp, so that a later access by another thread is a race unless a barrier or, for
// lanes of one warp, a warp collective came between them.
#include "kernel/SharedMemoryCheck.h"

#include "kernel/KernelShared.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <sys/mman.h>
#include <tuple>

namespace warpscope::gpu {
namespace {

// CUDA's limit on a block's static shared memory, and the slot's layout: the static variables
// with red zones between them, then the dynamic memory and a red zone after the most a launch
// may ask for.
constexpr std::uint64_t kStaticLimit = 48u << 10;
constexpr std::uint64_t kStaticArea = 64u << 10;
constexpr std::uint64_t kRedZone = 64;
constexpr std::uint64_t kDynamicStart = kStaticArea;
constexpr std::uint64_t kSlotBytes = kStaticArea + kSimulatorMaxDynamicShared + (5u << 10);
constexpr std::size_t kSharedSlots = 64;
// Distinct findings a slot keeps per run; the rest are counted with the first ones.
constexpr std::size_t kMaxFindingsPerSlot = 256;

struct Cell
{
    const void* writePc;
    const void* readPc;
    std::uint32_t writeEpoch, readEpoch;
    std::uint32_t writeWarpSerial, readWarpSerial;
    std::uint32_t writtenBlock;
    std::uint32_t writeLine, readLine;
    std::uint16_t writer, reader;
    std::uint8_t atomicWrite, manyReaders, addressable;
};

struct Variable
{
    unsigned site;
    std::uint64_t offset, size;
    std::string name;
    unsigned line;
};

using FindingKey = std::tuple<int, const void*, unsigned>;

struct Slot
{
    unsigned char* memory = nullptr;
    Cell* cells = nullptr;
    std::uint64_t run = 0;
    std::uint64_t dynamicBytes = 0;
    std::uint32_t epoch = 0;
    std::uint32_t blockSerial = 0;
    std::vector<std::uint32_t> warpSerial;
    unsigned block[3] = {0, 0, 0};
    unsigned blockDim[3] = {1, 1, 1};
    unsigned thread = 0;
    std::vector<Variable> variables;
    std::uint64_t staticEnd = 0, staticBytes = 0;
    std::map<FindingKey, SharedFinding> findings;
    std::vector<unsigned char> scratch;
};

std::mutex g_mutex;
unsigned char* g_region = nullptr;
std::vector<std::unique_ptr<Slot>> g_slots;
thread_local Slot* t_slot = nullptr;

unsigned char* region()
{
    std::lock_guard lock(g_mutex);
    if (!g_region) {
        void* memory = ::mmap(nullptr, kSlotBytes * kSharedSlots, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (memory != MAP_FAILED)
            g_region = static_cast<unsigned char*>(memory);
    }
    return g_region;
}

// The calling thread's slot; null when the region or its cells could not be mapped, or all
// slots are taken.
Slot* mySlot()
{
    if (t_slot)
        return t_slot;
    unsigned char* base = region();
    std::lock_guard lock(g_mutex);
    if (!base || g_slots.size() >= kSharedSlots)
        return nullptr;
    void* cells = ::mmap(nullptr, kSlotBytes * sizeof(Cell), PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (cells == MAP_FAILED)
        return nullptr;
    auto slot = std::make_unique<Slot>();
    slot->memory = base + kSlotBytes * g_slots.size();
    slot->cells = static_cast<Cell*>(cells);
    t_slot = slot.get();
    g_slots.push_back(std::move(slot));
    return t_slot;
}

void setAddressable(Slot& slot, std::uint64_t from, std::uint64_t bytes, bool addressable)
{
    for (std::uint64_t b = from; b < from + bytes; ++b)
        slot.cells[b].addressable = addressable;
}

std::string blockName(const Slot& slot)
{
    return "block (" + std::to_string(slot.block[0]) + "," + std::to_string(slot.block[1]) + "," +
           std::to_string(slot.block[2]) + ")";
}

// "byte 20 of `tile`" or "byte 20 of the dynamic shared memory".
std::string byteName(const Slot& slot, std::uint64_t offset)
{
    if (offset >= kDynamicStart)
        return "byte " + std::to_string(offset - kDynamicStart) + " of the dynamic shared memory";
    for (const Variable& v : slot.variables)
        if (offset >= v.offset && offset < v.offset + v.size)
            return "byte " + std::to_string(offset - v.offset) + " of `" + v.name + "`";
    return "byte " + std::to_string(offset) + " of shared memory";
}

// Where an access outside every variable went, by the variable nearest below it.
std::string outsideName(const Slot& slot, std::uint64_t offset)
{
    if (offset >= kDynamicStart)
        return std::to_string(offset - kDynamicStart - slot.dynamicBytes) +
               " bytes past the end of the " + std::to_string(slot.dynamicBytes) +
               " bytes of dynamic shared memory the launch gives";
    const Variable* below = nullptr;
    for (const Variable& v : slot.variables)
        if (v.offset <= offset && (!below || v.offset > below->offset))
            below = &v;
    if (!below)
        return "before the block's first shared variable";
    return std::to_string(offset - below->offset - below->size) + " bytes past the end of `" +
           below->name + "` (" + std::to_string(below->size) + " bytes, declared at line " +
           std::to_string(below->line) + ")";
}

void record(Slot& slot, SharedFinding::Kind kind, const void* pc, unsigned line,
            const std::function<std::string()>& text, const void* otherPc = nullptr,
            unsigned otherLine = 0)
{
    const FindingKey key{int(kind), pc, pc ? 0u : line};
    auto found = slot.findings.find(key);
    if (found == slot.findings.end()) {
        if (slot.findings.size() >= kMaxFindingsPerSlot)
            return;
        SharedFinding finding;
        finding.kind = kind;
        finding.pc = pc;
        finding.line = line;
        finding.otherPc = otherPc;
        finding.otherLine = otherLine;
        finding.text = text();
        std::copy(slot.block, slot.block + 3, finding.block);
        found = slot.findings.emplace(key, std::move(finding)).first;
    }
    ++found->second.count;
}

const char* verb(SharedAccess kind)
{
    return kind == SharedAccess::Read    ? "reads"
           : kind == SharedAccess::Write ? "writes"
                                         : "updates atomically";
}

class Access
{
public:
    Access(Slot& slot, std::uint64_t offset, SharedAccess kind, const void* pc, unsigned line,
           unsigned thread)
        : m_slot(slot), m_offset(offset), m_kind(kind), m_pc(pc), m_line(line), m_thread(thread),
          m_warp(thread / 32u)
    {}

    // The byte's cell after this access; reports the first conflict.
    void apply(Cell& c)
    {
        if (m_kind != SharedAccess::Write && c.writtenBlock != m_slot.blockSerial)
            uninitialised();
        const bool atomic = m_kind == SharedAccess::Atomic;
        if (c.writeEpoch == m_slot.epoch && c.writer != m_thread && !(atomic && c.atomicWrite) &&
            !ordered(c.writer, c.writeWarpSerial))
            race(c.writer, c.atomicWrite ? "updated atomically" : "wrote", c.writePc, c.writeLine);
        if (m_kind == SharedAccess::Read) {
            read(c);
            return;
        }
        if (c.readEpoch == m_slot.epoch && (c.reader != m_thread || c.manyReaders) &&
            !ordered(c.reader, c.readWarpSerial))
            race(c.reader, "read", c.readPc, c.readLine);
        c.writer = std::uint16_t(m_thread);
        c.writeEpoch = m_slot.epoch;
        c.atomicWrite = atomic;
        c.writeWarpSerial = m_slot.warpSerial[m_warp];
        c.writePc = m_pc;
        c.writeLine = m_line;
        c.writtenBlock = m_slot.blockSerial;
    }

private:
    bool ordered(unsigned other, std::uint32_t serial) const
    {
        return other / 32u == m_warp && m_slot.warpSerial[m_warp] != serial;
    }

    void read(Cell& c)
    {
        if (c.readEpoch == m_slot.epoch && c.reader != m_thread) {
            c.manyReaders = 1;
            return;
        }
        c.reader = std::uint16_t(m_thread);
        c.readEpoch = m_slot.epoch;
        c.manyReaders = 0;
        c.readWarpSerial = m_slot.warpSerial[m_warp];
        c.readPc = m_pc;
        c.readLine = m_line;
    }

    void race(unsigned other, const char* what, const void* otherPc, unsigned otherLine)
    {
        if (m_reported)
            return;
        m_reported = true;
        const bool sameWarp = other / 32u == m_warp;
        record(
            m_slot, SharedFinding::Kind::Race, m_pc, m_line,
            [&] {
                return "shared-memory race in " + blockName(m_slot) + ": thread " +
                       threadCoordinates(m_thread, m_slot.blockDim) + " " + verb(m_kind) + " " +
                       byteName(m_slot, m_offset) + ", which thread " +
                       threadCoordinates(other, m_slot.blockDim) + " " + what + "{other}" +
                       " with no __syncthreads() between them: a GPU may run the two in either "
                       "order" +
                       (sameWarp ? " (they are lanes of one warp: __syncwarp() orders them)" : "");
            },
            otherPc, otherLine);
    }

    void uninitialised()
    {
        if (m_uninitialisedReported)
            return;
        m_uninitialisedReported = true;
        record(m_slot, SharedFinding::Kind::Uninitialised, m_pc, m_line, [&] {
            return "thread " + threadCoordinates(m_thread, m_slot.blockDim) + " of " +
                   blockName(m_slot) + " " + verb(m_kind) + " " + byteName(m_slot, m_offset) +
                   ", which no thread of the block has written: shared memory starts with what "
                   "the block before left there";
        });
    }

    Slot& m_slot;
    std::uint64_t m_offset;
    SharedAccess m_kind;
    const void* m_pc;
    unsigned m_line;
    unsigned m_thread;
    unsigned m_warp;
    bool m_reported = false;
    bool m_uninitialisedReported = false;
};

} // namespace

std::string threadCoordinates(unsigned linear, const unsigned blockDim[3])
{
    return "(" + std::to_string(linear % blockDim[0]) + "," +
           std::to_string(linear / blockDim[0] % blockDim[1]) + "," +
           std::to_string(linear / (blockDim[0] * blockDim[1])) + ")";
}

SharedRegion sharedRegion()
{
    unsigned char* base = region();
    return base ? SharedRegion{base, kSlotBytes * kSharedSlots} : SharedRegion{};
}

void SharedMemoryCheck::beginBlock(std::uint64_t run, std::uint64_t dynamicBytes,
                                   const unsigned block[3], const unsigned blockDim[3])
{
    Slot* slot = mySlot();
    if (!slot)
        return;
    if (slot->run != run) {
        for (const Variable& v : slot->variables)
            setAddressable(*slot, v.offset, v.size, false);
        setAddressable(*slot, kDynamicStart, slot->dynamicBytes, false);
        slot->variables.clear();
        slot->findings.clear();
        slot->staticEnd = kRedZone;
        slot->staticBytes = 0;
        slot->run = run;
        slot->dynamicBytes = std::min<std::uint64_t>(dynamicBytes, kSimulatorMaxDynamicShared);
        setAddressable(*slot, kDynamicStart, slot->dynamicBytes, true);
    }
    ++slot->epoch;
    ++slot->blockSerial;
    std::copy(block, block + 3, slot->block);
    std::copy(blockDim, blockDim + 3, slot->blockDim);
    const std::uint64_t threads = std::uint64_t(blockDim[0]) * blockDim[1] * blockDim[2];
    slot->warpSerial.assign((threads + 31) / 32, 0);
}

void* SharedMemoryCheck::staticVariable(unsigned site, std::uint64_t size, std::uint64_t align,
                                        const char* name, unsigned line, std::string& why)
{
    Slot* slot = mySlot();
    if (!slot) {
        why = "the simulator could not map its shared memory";
        return nullptr;
    }
    for (const Variable& v : slot->variables)
        if (v.site == site)
            return slot->memory + v.offset;
    align = std::max<std::uint64_t>(align, 16);
    const std::uint64_t offset = (slot->staticEnd + align - 1) / align * align;
    if (slot->staticBytes + size > kStaticLimit || offset + size + kRedZone > kStaticArea) {
        why = "the __shared__ variable `" + std::string(name) + "` at line " +
              std::to_string(line) + " brings the block's static shared memory to " +
              std::to_string(slot->staticBytes + size) +
              " bytes; CUDA allows 48 KiB (49152 bytes): ask for more as dynamic shared memory";
        return nullptr;
    }
    slot->variables.push_back({site, offset, size, name, line});
    slot->staticEnd = offset + size + kRedZone;
    slot->staticBytes += size;
    setAddressable(*slot, offset, size, true);
    return slot->memory + offset;
}

unsigned char* SharedMemoryCheck::dynamicMemory()
{
    Slot* slot = mySlot();
    return slot ? slot->memory + kDynamicStart : nullptr;
}

void* SharedMemoryCheck::scratch(std::uint64_t bytes)
{
    Slot* slot = mySlot();
    if (!slot || bytes > (1ull << 30))
        return nullptr;
    if (slot->scratch.size() < bytes)
        slot->scratch.resize(bytes);
    return slot->scratch.data();
}

void SharedMemoryCheck::barrier()
{
    if (t_slot)
        ++t_slot->epoch;
}

void SharedMemoryCheck::warpSynced(unsigned warp)
{
    if (t_slot && warp < t_slot->warpSerial.size())
        ++t_slot->warpSerial[warp];
}

void SharedMemoryCheck::beginThread(unsigned thread)
{
    if (t_slot)
        t_slot->thread = thread;
}

void SharedMemoryCheck::access(const void* address, unsigned size, SharedAccess kind,
                               const void* pc, unsigned line)
{
    Slot* slot = t_slot;
    if (!slot || slot->thread / 32u >= slot->warpSerial.size())
        return;
    const unsigned thread = slot->thread;
    const auto* at = static_cast<const unsigned char*>(address);
    if (at < slot->memory || at + size > slot->memory + kSlotBytes) {
        record(*slot, SharedFinding::Kind::OutOfBounds, pc, line, [&] {
            return "thread " + threadCoordinates(thread, slot->blockDim) + " of " +
                   blockName(*slot) + " " + verb(kind) +
                   " the shared memory of another block, through a pointer " +
                   "kept from it: a GPU's shared memory belongs to one block";
        });
        return;
    }
    const std::uint64_t offset = std::uint64_t(at - slot->memory);
    for (std::uint64_t b = offset; b < offset + size; ++b)
        if (!slot->cells[b].addressable) {
            record(*slot, SharedFinding::Kind::OutOfBounds, pc, line, [&] {
                return "thread " + threadCoordinates(thread, slot->blockDim) + " of " +
                       blockName(*slot) + " " + verb(kind) + " " + std::to_string(size) +
                       " bytes of shared memory out of bounds, " + outsideName(*slot, b) +
                       ": a GPU stops the kernel there";
            });
            return;
        }
    Access one(*slot, offset, kind, pc, line, thread);
    for (std::uint64_t b = offset; b < offset + size; ++b)
        one.apply(slot->cells[b]);
}

void SharedMemoryCheck::absentLanes(const char* operation, unsigned line, unsigned warp,
                                    unsigned mask, unsigned present)
{
    Slot* slot = mySlot();
    if (!slot)
        return;
    record(*slot, SharedFinding::Kind::WarpMask, nullptr, line, [&] {
        const unsigned absent = mask & ~present;
        const int first = __builtin_ctz(absent), last = 31 - __builtin_clz(absent);
        const std::uint64_t threads =
            std::uint64_t(slot->blockDim[0]) * slot->blockDim[1] * slot->blockDim[2];
        return std::string(operation) + " in " + blockName(*slot) + " names lanes " +
               std::to_string(first) + ".." + std::to_string(last) + " of warp " +
               std::to_string(warp) + " in its mask, which a block of " + std::to_string(threads) +
               " threads does not have: CUDA leaves the result undefined (build the mask from "
               "the lanes that exist, with __activemask() or the block's size)";
    });
}

std::vector<SharedFinding> SharedMemoryCheck::takeFindings(std::uint64_t run)
{
    std::map<FindingKey, SharedFinding> merged;
    std::lock_guard lock(g_mutex);
    for (const std::unique_ptr<Slot>& slot : g_slots) {
        if (slot->run != run)
            continue;
        // Slots run blocks in any order: the text kept is the first block's, so that a run's
        // messages are the same every time.
        const auto before = [](const unsigned(&a)[3], const unsigned(&b)[3]) {
            return std::lexicographical_compare(std::rbegin(a), std::rend(a), std::rbegin(b),
                                                std::rend(b));
        };
        for (auto& [key, finding] : slot->findings) {
            auto [at, added] = merged.emplace(key, finding);
            if (added)
                continue;
            const std::uint64_t count = at->second.count + finding.count;
            if (before(finding.block, at->second.block))
                at->second = finding;
            at->second.count = count;
        }
        slot->findings.clear();
    }
    std::vector<SharedFinding> out;
    for (auto& [key, finding] : merged)
        out.push_back(std::move(finding));
    return out;
}

} // namespace warpscope::gpu
