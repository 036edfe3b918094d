// The recorder (MemoryRecord.h): accesses kept per warp of the block a runner thread runs,
// grouped into warp instructions when the warp's lanes are done with them, costed by the
// memory model and summed per instruction of the library and per warp of the launch.
#include "kernel/MemoryRecord.h"

#include "kernel/KernelPcLines.h"
#include "kernel/MemoryModel.h"
#include "kernel/SharedMemoryCheck.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

namespace warpscope::gpu {
namespace {

// An access's instruction: its pc, or (atomics and the store of Out::write, which the
// library names by line) the line with this bit set.
constexpr std::uint64_t kLineKey = 1ull << 63;
enum WarpFigure
{
    Requests,
    Sectors,
    SectorsIdeal,
    SharedInstructions,
    Wavefronts,
    SharedIdeal,
    Branches,
    BranchLanes,
    FigureCount
};

struct Entry
{
    std::uint64_t key;
    std::uint64_t address;
    std::uint32_t order; // the lane's sequence, then its occurrence of key
    std::uint8_t lane, size, kind, shared;
};

struct LineFigures
{
    MemoryLineStats stats;
    std::uint64_t sampleOrder = std::numeric_limits<std::uint64_t>::max();
    WarpAccess sample;
};

MemoryOp operation(const Entry& e)
{
    if (e.kind == 3)
        return MemoryOp::Branch;
    const int base = e.shared ? int(MemoryOp::SharedLoad) : int(MemoryOp::GlobalLoad);
    return MemoryOp(base + std::min<int>(e.kind, 2));
}

std::atomic<std::uint64_t> g_serial{0};
// The run that records now (0: none): a runner thread's recorder of an earlier run is gone.
std::atomic<std::uint64_t> g_live{0};

} // namespace

struct MemoryRecord::Recorder
{
    MemoryRecord* owner = nullptr;
    std::uint64_t block = 0;
    bool inBlock = false, fibers = false, inPart = false, threadRunning = false;
    unsigned thread = 0;
    std::vector<std::vector<Entry>> warps;
    std::vector<std::uint32_t> ended;
    std::size_t buffered = 0;
    std::map<std::pair<std::uint64_t, int>, LineFigures> lines;
    std::uint64_t blocksInPart = 0;

    void flushAll()
    {
        for (unsigned w = 0; w < warps.size(); ++w)
            flushWarp(w);
    }
    void markEnded(unsigned t)
    {
        const unsigned w = t / 32;
        if (w >= ended.size())
            return;
        ended[w] |= 1u << (t % 32);
        const unsigned lanes = std::min(32u, owner->m_threads - w * 32);
        if (ended[w] == (lanes == 32 ? ~0u : (1u << lanes) - 1u))
            flushWarp(w);
    }
    void flushWarp(unsigned w);
    void addGroup(const Entry* first, const Entry* last, unsigned w);
};

namespace {
thread_local MemoryRecord::Recorder* t_recorder = nullptr;
thread_local std::uint64_t t_serial = 0;

MemoryRecord::Recorder* live()
{
    return t_recorder && t_serial == g_live.load(std::memory_order_relaxed) ? t_recorder : nullptr;
}
} // namespace

MemoryRecord::MemoryRecord(const unsigned grid[3], const unsigned blockDim[3])
    : m_serial(++g_serial)
{
    std::copy(grid, grid + 3, m_grid);
    m_threads = blockDim[0] * blockDim[1] * blockDim[2];
    m_warpsPerBlock = (m_threads + 31) / 32;
    m_blocks = std::uint64_t(grid[0]) * grid[1] * grid[2];
    if (m_blocks * m_warpsPerBlock <= kMaxRecordedWarps)
        m_warpFigures.assign(m_blocks * m_warpsPerBlock * FigureCount, 0);
    const SharedRegion region = sharedRegion();
    m_sharedLo = reinterpret_cast<std::uintptr_t>(region.lo);
    m_sharedSpan = region.span;
    g_live.store(m_serial, std::memory_order_relaxed);
}

MemoryRecord::~MemoryRecord()
{
    // The runner threads' recorders die with the run; the hooks must not find them after.
    std::uint64_t serial = m_serial;
    g_live.compare_exchange_strong(serial, 0);
}

MemoryRecord::Recorder& MemoryRecord::recorder()
{
    if (Recorder* r = live(); r && r->owner == this)
        return *r;
    std::lock_guard lock(m_mutex);
    m_recorders.push_back(std::make_unique<Recorder>());
    m_recorders.back()->owner = this;
    t_recorder = m_recorders.back().get();
    t_serial = m_serial;
    return *t_recorder;
}

void MemoryRecord::beginBlock(MemoryRecord* record, const unsigned block[3])
{
    if (!record) {
        t_recorder = nullptr;
        return;
    }
    Recorder& r = record->recorder();
    if (r.inBlock)
        r.flushAll();
    r.inBlock = true;
    r.block = block[0] + std::uint64_t(record->m_grid[0]) *
                             (block[1] + std::uint64_t(record->m_grid[1]) * block[2]);
    r.fibers = r.inPart = r.threadRunning = false;
    r.thread = 0;
    r.warps.resize(record->m_warpsPerBlock);
    r.ended.assign(record->m_warpsPerBlock, 0);
}

void MemoryRecord::blockRunsFibers()
{
    if (Recorder* r = live())
        r->fibers = true;
}

void MemoryRecord::beginThread(unsigned thread)
{
    Recorder* r = live();
    if (!r)
        return;
    // Threads run one after another when the block has no fibers: the last one has ended.
    if (!r->fibers && r->threadRunning)
        r->markEnded(r->thread);
    r->thread = thread;
    r->threadRunning = true;
}

void MemoryRecord::threadEnded(unsigned thread)
{
    if (Recorder* r = live())
        r->markEnded(thread);
}

void MemoryRecord::barrier()
{
    if (Recorder* r = live())
        r->flushAll();
}

void MemoryRecord::access(const void* address, unsigned size, int kind, const void* pc,
                          unsigned line)
{
    Recorder* r = live();
    if (!r || r->inPart || kind < 0 || kind > 3 || r->thread / 32 >= r->warps.size())
        return;
    if (r->buffered >= kMaxRecordedAccesses) {
        // Too many to group: the block's figures are what its warps had done so far.
        r->inPart = true;
        ++r->blocksInPart;
        for (std::vector<Entry>& w : r->warps)
            w.clear();
        r->buffered = 0;
        return;
    }
    std::vector<Entry>& warp = r->warps[r->thread / 32];
    Entry e;
    e.key = pc ? std::uint64_t(reinterpret_cast<std::uintptr_t>(pc)) : (kLineKey | line);
    e.address = std::uint64_t(reinterpret_cast<std::uintptr_t>(address));
    e.order = std::uint32_t(warp.size());
    e.lane = std::uint8_t(r->thread % 32);
    e.size = std::uint8_t(std::min(size, 255u));
    e.kind = std::uint8_t(kind);
    e.shared = kind != 3 && e.address - r->owner->m_sharedLo < r->owner->m_sharedSpan;
    warp.push_back(e);
    ++r->buffered;
}

void MemoryRecord::Recorder::flushWarp(unsigned w)
{
    std::vector<Entry>& entries = warps[w];
    if (entries.empty())
        return;
    buffered -= std::min(buffered, entries.size());
    // Each lane's k-th run of an instruction, then the lanes that ran it the k-th time.
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
        return std::tie(a.key, a.lane, a.order) < std::tie(b.key, b.lane, b.order);
    });
    for (std::size_t i = 0; i < entries.size(); ++i)
        entries[i].order =
            i > 0 && entries[i - 1].key == entries[i].key && entries[i - 1].lane == entries[i].lane
                ? entries[i - 1].order + 1
                : 0;
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
        return std::tie(a.key, a.order, a.lane) < std::tie(b.key, b.order, b.lane);
    });
    for (std::size_t i = 0; i < entries.size();) {
        std::size_t j = i + 1;
        while (j < entries.size() && entries[j].key == entries[i].key &&
               entries[j].order == entries[i].order)
            ++j;
        addGroup(&entries[i], &entries[j - 1] + 1, w);
        i = j;
    }
    entries.clear();
}

void MemoryRecord::Recorder::addGroup(const Entry* first, const Entry* last, unsigned w)
{
    const MemoryOp op = operation(*first);
    WarpAccess access;
    access.size = first->size;
    for (const Entry* e = first; e != last && access.count < 32; ++e) {
        access.lane[access.count] = e->lane;
        access.address[access.count++] = e->address;
    }
    unsigned units = 0, ideal = 0;
    if (op == MemoryOp::GlobalAtomic) {
        units = atomicSectors(access);
        ideal = idealSectors(access);
    } else if (isGlobal(op)) {
        units = globalSectors(access);
        ideal = idealSectors(access);
    } else if (isShared(op)) {
        units = sharedWavefronts(access);
        ideal = idealWavefronts(access);
    }
    const std::uint64_t order = block * owner->m_warpsPerBlock + w;
    LineFigures& line = lines[{first->key, int(op)}];
    line.stats.op = op;
    ++line.stats.instructions;
    line.stats.lanes += access.count;
    line.stats.units += units;
    line.stats.ideal += ideal;
    if (order < line.sampleOrder) {
        line.sampleOrder = order;
        line.sample = access;
    }
    if (owner->m_warpFigures.empty())
        return;
    std::uint64_t* figures = &owner->m_warpFigures[order * FigureCount];
    if (isGlobal(op)) {
        ++figures[Requests];
        figures[Sectors] += units;
        figures[SectorsIdeal] += ideal;
    } else if (isShared(op)) {
        ++figures[SharedInstructions];
        figures[Wavefronts] += units;
        figures[SharedIdeal] += ideal;
    } else {
        ++figures[Branches];
        figures[BranchLanes] += access.count;
    }
}

KernelMemoryReport MemoryRecord::takeReport(KernelPcLines& pcLines)
{
    std::lock_guard lock(m_mutex);
    KernelMemoryReport report;
    report.recorded = true;
    report.blocks = m_blocks;
    std::map<std::pair<int, int>, LineFigures> merged;
    std::map<std::uint64_t, int> lineOf;
    for (const auto& r : m_recorders) {
        r->flushAll();
        report.blocksInPart += r->blocksInPart;
        for (const auto& [key, figures] : r->lines) {
            auto [at, added] = lineOf.try_emplace(key.first, 0);
            if (added)
                at->second = key.first & kLineKey
                                 ? int(key.first & 0xffffffffu)
                                 : int(pcLines.userLine(
                                       reinterpret_cast<const void*>(std::uintptr_t(key.first))));
            LineFigures& m = merged[{at->second, key.second}];
            m.stats.line = at->second;
            m.stats.op = figures.stats.op;
            m.stats.instructions += figures.stats.instructions;
            m.stats.lanes += figures.stats.lanes;
            m.stats.units += figures.stats.units;
            m.stats.ideal += figures.stats.ideal;
            if (figures.sampleOrder < m.sampleOrder) {
                m.sampleOrder = figures.sampleOrder;
                m.sample = figures.sample;
            }
        }
    }
    for (auto& [key, m] : merged) {
        m.stats.cause = memoryCause(m.stats.op, m.sample, m.stats);
        report.lines.push_back(std::move(m.stats));
    }
    if (!m_warpFigures.empty()) {
        const std::size_t warps = m_warpFigures.size() / FigureCount;
        const float nan = std::numeric_limits<float>::quiet_NaN();
        report.warps.warpsPerBlock = m_warpsPerBlock;
        report.warps.sectorsPerRequest.resize(warps, nan);
        report.warps.idealSectorsPerRequest.resize(warps, nan);
        report.warps.conflictWays.resize(warps, nan);
        report.warps.activeLanes.resize(warps, nan);
        for (std::size_t i = 0; i < warps; ++i) {
            const std::uint64_t* f = &m_warpFigures[i * FigureCount];
            if (f[Requests]) {
                report.warps.sectorsPerRequest[i] = float(double(f[Sectors]) / double(f[Requests]));
                report.warps.idealSectorsPerRequest[i] =
                    float(double(f[SectorsIdeal]) / double(f[Requests]));
            }
            if (f[SharedIdeal])
                report.warps.conflictWays[i] =
                    float(double(f[Wavefronts]) / double(f[SharedIdeal]));
            if (f[Branches])
                report.warps.activeLanes[i] = float(double(f[BranchLanes]) / double(f[Branches]));
        }
    }
    return report;
}

} // namespace warpscope::gpu
