#pragma once

// How a GPU's memory pipeline serves one warp instruction, from each active lane's address and
// the access's size: NVIDIA's rules, as Nsight Compute counts them on Volta to Hopper.
//   - Global memory is moved in 32-byte sectors: a request costs the distinct sectors its
//     lanes' bytes touch.
//   - Shared memory has 32 banks of 4-byte words; a wavefront serves at most one word per bank
//     (lanes reading the same word share it). A warp's 8-byte accesses are served half a warp at
//     a time, its 16-byte accesses a quarter at a time.
// The ideal of each is the fewest the same bytes could need, packed together.
#include "warpscope/gpu/KernelMemory.h"

#include <cstdint>
#include <string>

namespace warpscope::gpu {

inline constexpr unsigned kSectorBytes = 32;
inline constexpr unsigned kSharedBanks = 32;

// The active lanes of one warp instruction, in lane order.
struct WarpAccess
{
    unsigned count = 0;
    unsigned size = 4; // bytes per lane
    unsigned char lane[32] = {};
    std::uint64_t address[32] = {};
};

unsigned globalSectors(const WarpAccess& access);
// An atomic's sectors: lanes on the same address are served one after another, so a sector
// costs as many passes as the most lanes that share one of its addresses.
unsigned atomicSectors(const WarpAccess& access);
unsigned idealSectors(const WarpAccess& access);
unsigned sharedWavefronts(const WarpAccess& access);
unsigned idealWavefronts(const WarpAccess& access);

// One sentence on why a line's accesses cost what they do, from the first warp that ran it and
// the line's totals: a broadcast, a stride between lanes, a misaligned start, scattered lanes, or
// (for a branch) how many lanes were active.
std::string memoryCause(MemoryOp op, const WarpAccess& first, const MemoryLineStats& total);

} // namespace warpscope::gpu
