// A warp instruction's cost in sectors and wavefronts (MemoryModel.h), and the sentence that
// says why.
#include "kernel/MemoryModel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <utility>
#include <vector>

namespace warpscope::gpu {
namespace {

// The bytes the lanes use, each counted once.
std::uint64_t uniqueBytes(const WarpAccess& access)
{
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
    for (unsigned i = 0; i < access.count; ++i)
        ranges.emplace_back(access.address[i], access.address[i] + access.size);
    std::sort(ranges.begin(), ranges.end());
    std::uint64_t bytes = 0, end = 0;
    for (const auto& [from, to] : ranges) {
        const std::uint64_t start = std::max(from, end);
        if (to > start)
            bytes += to - start;
        end = std::max(end, to);
    }
    return bytes;
}

std::uint64_t ceilDiv(std::uint64_t a, std::uint64_t b)
{
    return (a + b - 1) / b;
}

// The constant step in bytes between consecutive lanes (active lanes apart by k steps count k
// of it), if the lanes have one.
bool laneStride(const WarpAccess& access, long long& stride)
{
    if (access.count < 2)
        return false;
    const long long laneGap = access.lane[1] - access.lane[0];
    const long long step = (long long)(access.address[1] - access.address[0]);
    if (laneGap <= 0 || step % laneGap != 0)
        return false;
    stride = step / laneGap;
    for (unsigned i = 1; i < access.count; ++i) {
        const long long gap = access.lane[i] - access.lane[i - 1];
        if ((long long)(access.address[i] - access.address[i - 1]) != stride * gap)
            return false;
    }
    return true;
}

std::string format(const char* pattern, double a, double b = 0.0, double c = 0.0)
{
    char text[256];
    std::snprintf(text, sizeof text, pattern, a, b, c);
    return text;
}

std::string globalCause(const WarpAccess& first, double perRequest, double idealPerRequest)
{
    long long stride = 0;
    const bool regular = laneStride(first, stride);
    if (regular && stride == 0)
        return "every lane uses the same address: one sector serves the warp";
    const std::string figures =
        format("%.3g sectors per request where %.3g would do", perRequest, idealPerRequest);
    if (regular && stride == (long long)first.size) {
        if (perRequest <= idealPerRequest * 1.05)
            return format("coalesced: consecutive lanes use consecutive %g-byte words, %.3g "
                          "sectors per request, the fewest",
                          first.size, perRequest);
        return format("consecutive lanes use consecutive %g-byte words, but the warp's bytes "
                      "start %g bytes into a sector: ",
                      first.size, double(first.address[0] % kSectorBytes)) +
               figures;
    }
    if (regular && stride > (long long)first.size && stride % first.size == 0)
        return format("a stride of %g elements (%g bytes) between lanes: ",
                      double(stride / (long long)first.size), double(stride)) +
               (stride >= (long long)kSectorBytes ? "each lane touches its own sector, " : "") +
               figures;
    return "the lanes' addresses are scattered: " + figures;
}

std::string sharedCause(const WarpAccess& first, double ways, double perInstruction)
{
    long long stride = 0;
    const bool regular = laneStride(first, stride);
    if (regular && stride == 0)
        return "every lane uses the same word: one wavefront broadcasts it";
    if (ways <= 1.05)
        return format("no bank conflict: the lanes' words lie in distinct banks or are shared, "
                      "%.3g wavefronts per instruction, the fewest",
                      perInstruction);
    if (regular && stride > 0 && stride % 4 == 0 && first.size <= 4) {
        const long long words = stride / 4;
        const long long lanesPerBank = std::gcd(words, (long long)kSharedBanks);
        return format("a stride of %g words between lanes puts %g lanes in each bank used: a "
                      "%g-way conflict; padding each row by one word spreads them",
                      double(words), double(lanesPerBank), double(lanesPerBank));
    }
    return format("lanes' words share banks: %.3g wavefronts per instruction, %.3g times the "
                  "fewest",
                  perInstruction, ways);
}

} // namespace

const char* memoryOpName(MemoryOp op)
{
    switch (op) {
    case MemoryOp::GlobalLoad:
        return "global load";
    case MemoryOp::GlobalStore:
        return "global store";
    case MemoryOp::GlobalAtomic:
        return "global atomic";
    case MemoryOp::SharedLoad:
        return "shared load";
    case MemoryOp::SharedStore:
        return "shared store";
    case MemoryOp::SharedAtomic:
        return "shared atomic";
    case MemoryOp::Branch:
    case MemoryOp::Count:
        break;
    }
    return "branch";
}

MemoryLineStats memoryTotal(const KernelMemoryReport& report, MemoryOp op)
{
    MemoryLineStats total;
    total.op = op;
    for (const MemoryLineStats& line : report.lines)
        if (line.op == op) {
            total.instructions += line.instructions;
            total.lanes += line.lanes;
            total.units += line.units;
            total.ideal += line.ideal;
        }
    return total;
}

MemorySummary summarizeMemory(const KernelMemoryReport& report)
{
    MemorySummary summary;
    std::uint64_t requests = 0, sectors = 0, idealSectors = 0, wavefronts = 0, idealWavefronts = 0;
    for (const MemoryLineStats& line : report.lines)
        if (isGlobal(line.op)) {
            requests += line.instructions;
            sectors += line.units;
            idealSectors += line.ideal;
        } else if (isShared(line.op)) {
            wavefronts += line.units;
            idealWavefronts += line.ideal;
        }
    if (requests > 0) {
        summary.sectorsPerRequest = double(sectors) / double(requests);
        summary.idealSectorsPerRequest = double(idealSectors) / double(requests);
    }
    if (idealWavefronts > 0)
        summary.conflictWays = double(wavefronts) / double(idealWavefronts);
    if (const MemoryLineStats branches = memoryTotal(report, MemoryOp::Branch);
        branches.instructions > 0)
        summary.activeLanes = double(branches.lanes) / double(branches.instructions);
    return summary;
}

double memoryExcessRatio(const MemoryLineStats& line)
{
    if (line.op == MemoryOp::Branch)
        return line.lanes > 0 ? 32.0 * double(line.instructions) / double(line.lanes) : 1.0;
    return line.ideal > 0 ? double(line.units) / double(line.ideal) : 1.0;
}

unsigned globalSectors(const WarpAccess& access)
{
    std::vector<std::uint64_t> sectors;
    for (unsigned i = 0; i < access.count; ++i)
        for (std::uint64_t s = access.address[i] / kSectorBytes;
             s <= (access.address[i] + access.size - 1) / kSectorBytes; ++s)
            sectors.push_back(s);
    std::sort(sectors.begin(), sectors.end());
    return unsigned(std::unique(sectors.begin(), sectors.end()) - sectors.begin());
}

unsigned atomicSectors(const WarpAccess& access)
{
    std::vector<std::pair<std::uint64_t, std::uint64_t>> addresses; // (sector, address)
    for (unsigned i = 0; i < access.count; ++i)
        addresses.emplace_back(access.address[i] / kSectorBytes, access.address[i]);
    std::sort(addresses.begin(), addresses.end());
    unsigned passes = 0;
    for (std::size_t i = 0; i < addresses.size();) {
        unsigned most = 0;
        std::size_t j = i;
        while (j < addresses.size() && addresses[j].first == addresses[i].first) {
            std::size_t k = j;
            while (k < addresses.size() && addresses[k] == addresses[j])
                ++k;
            most = std::max(most, unsigned(k - j));
            j = k;
        }
        passes += most;
        i = j;
    }
    return passes;
}

unsigned idealSectors(const WarpAccess& access)
{
    return unsigned(std::max<std::uint64_t>(1, ceilDiv(uniqueBytes(access), kSectorBytes)));
}

unsigned sharedWavefronts(const WarpAccess& access)
{
    const unsigned lanesPerPhase = access.size <= 4 ? 32 : access.size <= 8 ? 16 : 8;
    unsigned wavefronts = 0;
    for (unsigned phase = 0; phase < 32 / lanesPerPhase; ++phase) {
        // (bank, word) of every word the phase's lanes touch; each distinct word of a bank
        // takes a wavefront of its own.
        std::vector<std::pair<unsigned, std::uint64_t>> words;
        for (unsigned i = 0; i < access.count; ++i) {
            if (access.lane[i] / lanesPerPhase != phase)
                continue;
            for (std::uint64_t w = access.address[i] / 4;
                 w <= (access.address[i] + access.size - 1) / 4; ++w)
                words.emplace_back(unsigned(w % kSharedBanks), w);
        }
        if (words.empty())
            continue;
        std::sort(words.begin(), words.end());
        words.erase(std::unique(words.begin(), words.end()), words.end());
        unsigned most = 0;
        for (std::size_t i = 0; i < words.size();) {
            std::size_t j = i;
            while (j < words.size() && words[j].first == words[i].first)
                ++j;
            most = std::max(most, unsigned(j - i));
            i = j;
        }
        wavefronts += most;
    }
    return wavefronts;
}

unsigned idealWavefronts(const WarpAccess& access)
{
    return unsigned(std::max<std::uint64_t>(1, ceilDiv(uniqueBytes(access), 4 * kSharedBanks)));
}

std::string memoryCause(MemoryOp op, const WarpAccess& first, const MemoryLineStats& total)
{
    if (total.instructions == 0)
        return {};
    const double n = double(total.instructions);
    if (op == MemoryOp::Branch) {
        const double lanes = double(total.lanes) / n;
        if (lanes >= 31.5)
            return "every lane of each warp runs it";
        return format("on average %.3g of 32 lanes active: the warp runs the sides of a branch "
                      "(or a loop's last turns) one after the other",
                      lanes);
    }
    if (isGlobal(op))
        return globalCause(first, double(total.units) / n, double(total.ideal) / n);
    return sharedCause(first, double(total.units) / double(std::max<std::uint64_t>(1, total.ideal)),
                       double(total.units) / n);
}

} // namespace warpscope::gpu
