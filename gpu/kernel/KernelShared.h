#pragma once

#include "warpscope/gpu/UserKernel.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// What the workbench's parts share inside gpu/kernel: the argument layout the wrapped source
// declares (KernelWrap.cpp writes the same members in the same order), the compilers' log
// readers, and the disk cache.
namespace warpscope::gpu {

inline constexpr int kKernelRefSlots = kMaxReferencePoints;

struct KernelAbiRef
{
    double lat, lon;
};
struct KernelAbiRefs
{
    int count;
    double radius;
    KernelAbiRef ref[kKernelRefSlots];
};
struct KernelAbiMesh
{
    double latMin, latMax, lonMin, lonMax;
    int nx, ny;
    double rowScale, colScale; // 1 / (ny - 1), 1 / (nx - 1)
};
struct KernelAbiOut
{
    float* data;
    unsigned long long* outOfBounds;
    std::uint32_t* owners; // null: no teaching record
    int pitch, nx, ny;
    unsigned smCount; // the simulator's SM ids are block % smCount
};
// The CUDA execution model the simulator's library calls back into (BlockFibers.h), as plain
// function pointers: the library is built from a string and links nothing of the runner's.
// runBlock runs a block's threads (thread(arg, linear index)) as fibers that meet at barriers;
// it returns false when the run has failed (this block or another). syncThreads and warpOp are
// called from inside those threads.
struct KernelAbiRuntime
{
    void* run;
    bool (*runBlock)(void* run, const unsigned block[3], const unsigned blockDim[3],
                     void (*thread)(void* arg, unsigned linear), void* arg);
    int (*syncThreads)(int op, int predicate, unsigned line);
    unsigned long long (*warpOp)(int op, unsigned mask, unsigned long long value, int arg,
                                 int width, unsigned line);
    void (*print)(void* run, const unsigned block[3], const unsigned thread[3], const char* text,
                  unsigned long long length);
    // Shared memory (SharedMemoryCheck.h): where a static __shared__ variable lies (the same
    // place for the whole run), the dynamic shared memory, the start of each block and thread,
    // and an access (kind: SharedAccess) the library's load and store callbacks saw in
    // [sharedLo, sharedLo + sharedSpan), at pc or, for atomics, line.
    void* (*sharedStatic)(void* run, unsigned site, unsigned long long size,
                          unsigned long long align, const char* name, unsigned line);
    unsigned char* (*sharedDynamic)(void* run);
    void (*beginBlock)(void* run, const unsigned block[3], const unsigned blockDim[3]);
    // The thread that runs now, where its block's threads run straight through (runBlock's
    // fibers say so themselves): the library's own threadIdx may not be in memory yet.
    void (*beginThread)(unsigned linear);
    void (*sharedAccess)(const void* address, unsigned size, int kind, const void* pc,
                         unsigned line);
    const void* sharedLo;
    unsigned long long sharedSpan;
    // The recording build's (KernelSource::recordMemory; MemoryRecord.h): every access in
    // shared memory or in the kernel's global memory ([globalLo[i], globalLo[i] +
    // globalSpan[i]): the field, the buffers, the library's __device__ variables), and each
    // basic block a thread enters (kind 3, address null).
    void (*memoryAccess)(const void* address, unsigned size, int kind, const void* pc,
                         unsigned line);
    const void* globalLo[3];
    unsigned long long globalSpan[3];
};
// What the simulator's library takes for a range of blocks (KernelWrap.cpp's ws_run_blocks).
struct KernelAbiLaunch
{
    KernelAbiOut out;
    KernelAbiMesh mesh;
    KernelAbiRefs refs;
    const void* params; // the Params struct's bytes (packKernelParams)
    unsigned grid[3];
    unsigned block[3];
    const KernelAbiRuntime* runtime;
    unsigned long long dynamicSharedBytes;
};
// The dynamic shared memory a simulated block may ask for: Hopper's 227 KiB.
inline constexpr unsigned long long kSimulatorMaxDynamicShared = 227ull << 10;

// The simulator's prelude of CUDA's execution model (KernelCpuModel.cpp), and the user's code
// as the simulator compiles it (KernelCpuSource.cpp): shared memory declarations made the
// runner's, and the cooperative groups header left to the prelude, on the same lines. A
// per-node body is a function's.
std::string cpuExecutionModel();
std::string cpuUserCode(const std::string& code, KernelShape shape);

// Whether code uses what needs a block's threads to run as fibers (barriers, warp operations,
// cooperative groups); a kernel without them runs its threads straight through.
bool usesBlockCollectives(std::string_view code);

// Where each parameter lies in the Params struct the wrapped source declares (its members in
// declaration order, each aligned to its size: 4 bytes for a float or an int, 1 for a bool),
// and the struct's size: a multiple of its widest member's, and 1 when it is empty, as C++
// and CUDA make it. The wrapper asserts the same layout to both compilers.
// A member's size in Params, which is also its alignment: a float's and an int's 4 bytes, a
// bool's 1.
inline std::size_t kernelParamBytes(KernelParamType type)
{
    return type == KernelParamType::Bool ? 1 : 4;
}
struct KernelParamLayout
{
    std::vector<std::size_t> offsets;
    std::vector<std::size_t> bufferOffsets; // each buffer's WsBuffer, after the values
    std::size_t size = 1;
};
// A buffer's member of Params (KernelAbiBuffer): its data, its element count and the run's
// counter of refused accesses, 8-byte aligned.
struct KernelAbiBuffer
{
    void* data;
    long long count;
    unsigned long long* outOfBounds;
};
KernelParamLayout kernelParamLayout(const std::vector<KernelParam>& params,
                                    const std::vector<KernelBuffer>& buffers = {});
// Why values cannot be a run's values of params (their count, a float's beyond float's range,
// an int's not whole or beyond int's, a bool's not 0 or 1), or empty when they can.
std::string kernelValuesProblem(const std::vector<KernelParam>& params,
                                const std::vector<double>& values);
// The Params struct's bytes holding values (checked by kernelValuesProblem), as the kernel
// receives them on either target; padding is zero.
std::string packKernelParams(const std::vector<KernelParam>& params,
                             const std::vector<double>& values,
                             const std::vector<KernelBuffer>& buffers = {});

// The arguments of a run, in the wrapped source's layout.
KernelAbiMesh abiMesh(const DistanceParams& mesh);
KernelAbiRefs abiRefs(const DistanceParams& mesh);

// The entry the per-node template's launcher has; a whole kernel's is "kernel".
inline constexpr const char* kPerNodeEntry = "ws_per_node";
inline constexpr const char* kWholeKernelEntry = "kernel";
// The per-node launcher's block (16 x 16), on both targets.
inline constexpr int kPerNodeBlock = 16;

// The messages of an NVRTC log ("kernel.cu(12): error: ...") or a GCC/Clang one
// ("kernel.cu:12:5: error: ..."). Lines of the wrapper's own code become line 0.
std::vector<KernelMessage> nvrtcMessages(std::string_view log);
std::vector<KernelMessage> gccMessages(std::string_view log);
// ptxas' report (--ptxas-options=-v) for the entry whose lowered name is entry.
KernelUsage ptxasUsage(std::string_view log, std::string_view entry);
// The resources the driver gives for the built entry, where a GPU of the kernel's architecture
// is present; unknown otherwise. Some NVRTC releases leave ptxas' report out of the log.
KernelUsage driverUsage(const CompiledKernel& built);

// A stable 64-bit FNV-1a hash, as 16 hex digits, for cache file names (the whole key is
// kept in the file and compared, so a collision is a miss, never a wrong hit).
std::string hashHex(std::string_view text);

// One cached build: its key and named blobs, written atomically (a temporary file renamed).
struct CacheEntry
{
    std::string key;
    std::vector<std::string> blobs;
};
std::optional<CacheEntry> readCacheEntry(const std::string& path, std::string_view key);
bool writeCacheEntry(const std::string& path, const CacheEntry& entry);

// One NVRTC compilation of a whole translation unit (Nvrtc.cpp; NvrtcNoCuda.cpp in builds
// without the toolkit). compiled is false when NVRTC rejected the source (the log says why);
// the Status fails only when NVRTC could not run.
struct NvrtcOutput
{
    bool compiled = false;
    std::string log;
    std::string ptx;
    std::string cubin;
    std::string entry; // the lowered name of nameExpression
};
Status nvrtcBuild(const std::string& text, const std::vector<std::string>& options,
                  const std::string& nameExpression, NvrtcOutput& out);

// The first brace of the user's code that is not matched, as an error at its line (checked
// before compiling: the compilers would report it in the wrapper's code).
std::optional<KernelMessage> unbalancedBrace(std::string_view code);

// The user's code with its comments and string literals blanked (newlines kept).
std::string codeWithoutComments(std::string_view code);

} // namespace warpscope::gpu

namespace warpscope::gpu {

class KernelRunner;
struct RunnerRequest;

// The launch a run uses: the per-node launcher's 16 x 16 blocks over the mesh, or the
// whole kernel's own grid and block.
LaunchConfig userKernelLaunch(KernelShape shape, const KernelArgs& args);
// Writes the minimum and maximum of out's finite nodes into its two stats slots, and counts
// the nodes that are not finite. With owners (the teaching record), nodes no thread wrote
// (NaN by design) are left out.
FieldStats writeFieldStats(const FieldLayout& layout, float* out,
                           const std::uint32_t* owners = nullptr);
// Puts a run of the user's kernel in the context's timeline (when it records one), as the
// built-in kernels appear: its name and launch configuration ("grid (x, y, z), block (x, y,
// z)"), on lane, between the two times of the timeline's clock.
void recordUserKernelSpan(Context& context, int lane, const std::string& name,
                          const LaunchConfig& launch, double startUs, double endUs);
// The message for a run that wrote outside its output.
Status outOfBoundsStatus(long long writes, const DistanceParams& mesh);

// A run sent to the context's kernel runner and not finished yet.
struct PendingUserKernel
{
    bool active = false;
    DistanceParams mesh;
    bool withOwners = false;
    LaunchConfig launch;
    std::string spanName; // the timeline's name for it
    double sentUs = 0.0;  // the timeline's clock when it was sent
};

// The context's pending run, and the runner that runs its kernels on its device (GPU runs)
// or its threads (the simulator's).
PendingUserKernel& pendingUserKernel(Context& context);
KernelRunner& userKernelRunner(Context& context);
KernelRunner& cpuKernelRunner(Context& context);
KernelRunner& cudaKernelRunner(Context& context);
// The PCI bus id of a CUDA context's GPU, which its runner opens; empty without one.
std::string cudaRunnerBusId(Context& context);

// Each target's two halves of a run (UserKernelCpu.cpp; UserKernelCuda.cu, or
// UserKernelNoCuda.cpp in builds without nvcc). prepare fills in request (its program, and the
// shared output it names, seeded with seed when given) and outputFd (the Host output's memfd);
// finish copies a good run's output out.
Status prepareUserKernelCpu(Context& context, const SimulatorBuild& cpu, BufferView<float> seed,
                            RunnerRequest& request, int& outputFd);
Status finishUserKernelCpu(Context& context, const PendingUserKernel& pending,
                           BufferView<float> out, BufferView<std::uint32_t> owners);
Status prepareUserKernelCuda(Context& context, const CompiledKernel& gpu, BufferView<float> seed,
                             RunnerRequest& request, int& outputFd);
Status finishUserKernelCuda(Context& context, const PendingUserKernel& pending,
                            BufferView<float> out, BufferView<std::uint32_t> owners);

} // namespace warpscope::gpu
