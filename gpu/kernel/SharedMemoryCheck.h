#pragma once

// The simulator's shared memory and what it sees happen there. Each runner thread runs one
// block at a time and owns a slot of one reserved region: static __shared__ variables are laid
// out in it with red zones between them, then the launch's dynamic shared memory. The user's
// code is compiled with clang's load and store instrumentation (-fsanitize-coverage=
// trace-loads,trace-stores), whose callbacks in the simulator's library send the accesses that
// fall in the region here. Each byte keeps who last wrote and read it and when, so that this
// finds what compute-sanitizer's racecheck, initcheck and memcheck find on a GPU:
//   - a race: two threads of a block touch a byte with no barrier between them, one writing,
//     not both atomically (a __syncwarp or warp collective orders lanes of one warp);
//   - a read of a byte no thread of the block has written;
//   - an access outside every variable (a red zone, or dynamic memory past what the launch
//     gives).
// Findings are kept once per kind and place, counted, and named at their line when the run
// ends (KernelPcLines.h).
#include <cstdint>
#include <string>
#include <vector>

namespace warpscope::gpu {

enum class SharedAccess : int
{
    Read = 0,
    Write = 1,
    Atomic = 2
};

// One kind of bug at one place of the user's code: pc (an instruction of the library, named
// at its line when the run ends) or line.
struct SharedFinding
{
    enum class Kind
    {
        Race,
        Uninitialised,
        OutOfBounds,
        WarpMask
    } kind = Kind::Race;
    const void* pc = nullptr;
    unsigned line = 0;
    // A race's other access, whose line (" at line 12", or nothing where unknown) replaces
    // "{other}" in text.
    const void* otherPc = nullptr;
    unsigned otherLine = 0;
    std::string text;              // the occurrence in the first block, without its line
    unsigned block[3] = {0, 0, 0}; // that block (blockIdx)
    std::uint64_t count = 0;
};

// A block's thread, from its linear index, as "(x,y,z)" in messages.
std::string threadCoordinates(unsigned linear, const unsigned blockDim[3]);

// The region every runner thread's shared memory lies in (reserved on first use).
struct SharedRegion
{
    const void* lo = nullptr;
    std::uint64_t span = 0;
};
SharedRegion sharedRegion();

// What the calling runner thread's slot does for one run (identified by run, a SimulatedRun's
// address and serial). The slot is made on the thread's first call; false from begin when no
// slot is left (the region holds kSharedSlots).
class SharedMemoryCheck
{
public:
    // Starts a block of a run: a new run lays the variables out anew; every block starts with
    // no byte written.
    static void beginBlock(std::uint64_t run, std::uint64_t dynamicBytes, const unsigned block[3],
                           const unsigned blockDim[3]);
    // Where a static variable lies (the same place for every thread and block of the run); null
    // when it does not fit CUDA's 48 KiB of static shared memory (why says so).
    static void* staticVariable(unsigned site, std::uint64_t size, std::uint64_t align,
                                const char* name, unsigned line, std::string& why);
    // The launch's dynamic shared memory.
    static unsigned char* dynamicMemory();
    // Memory of at least bytes (up to 1 GiB) for the threads of a run that has failed to go on
    // with until their block stops; null past that.
    static void* scratch(std::uint64_t bytes);
    // A block barrier all the block's threads passed; a collective of warp's lanes.
    static void barrier();
    static void warpSynced(unsigned warp);
    // The block's thread (linear index) that runs from now on.
    static void beginThread(unsigned thread);
    // An access by the thread that runs.
    static void access(const void* address, unsigned size, SharedAccess kind, const void* pc,
                       unsigned line);
    // A warp operation's mask named lanes the block does not have.
    static void absentLanes(const char* operation, unsigned line, unsigned warp, unsigned mask,
                            unsigned present);
    // The findings of run, from every slot, merged (called once its blocks are done).
    static std::vector<SharedFinding> takeFindings(std::uint64_t run);
};

} // namespace warpscope::gpu
