// The user's source made into a whole translation unit for NVRTC or for the system's C++
// compiler. Both get the same structs (KernelShared.h's layout, with methods), the user's
// code after `#line 1 "kernel.cu"`, and an entry: the per-node launcher, the field's figures
// (CUDA) or the simulator's block loop (CPU).
#include "kernel/KernelShared.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace warpscope::gpu {
namespace {

// Placed before the structs: what CUDA offers that C++ lacks, for the simulator.
const char* kCpuPrelude = R"(#include <math.h>
#include <cmath>
#include <regex>
#include <cstddef>
#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>
#include <ctime>
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define WS_ATOMIC_ADD(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
// Out::write's store is the user's, at the line of their out.write (MemoryRecord.h).
#define WS_LINE_PARAM , unsigned ws_line = __builtin_LINE()
#define WS_STORE_NODE(p, v) ws_store_node((p), (v), ws_line)
struct uint3 { unsigned x, y, z; };
struct dim3 { unsigned x = 1, y = 1, z = 1; };
static thread_local uint3 threadIdx, blockIdx;
static thread_local dim3 blockDim, gridDim;
static const int warpSize = 32;
using std::min;
using std::max;
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __powf(float x, float y) { return powf(x, y); }
inline float __fdividef(float x, float y) { return x / y; }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
template <typename T> inline T __ldg(const T* p) { return *p; }
// The teaching overlay's record of a node (LaunchLesson.h's words); SM ids are simulated as
// the teaching kernel's simulator does: the block's index modulo the SM count.
inline void ws_record(unsigned* owner, unsigned smCount)
{
    const unsigned block = blockIdx.y * gridDim.x + blockIdx.x;
    owner[0] = block;
    owner[1] = (threadIdx.y * blockDim.x + threadIdx.x) | ((block % smCount) << 16);
}
)";

const char* kCudaPrelude = R"(#define WS_ATOMIC_ADD(p, v) atomicAdd((p), (v))
#define WS_LINE_PARAM
#define WS_STORE_NODE(p, v) (*(p) = (v))
// The teaching overlay's record of a node: block, thread and the SM that ran it
// (LaunchLesson.h's words).
__host__ __device__ __forceinline__ void ws_record(unsigned* owner, unsigned)
{
#ifdef __CUDA_ARCH__
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    owner[0] = blockIdx.y * gridDim.x + blockIdx.x;
    owner[1] = (threadIdx.y * blockDim.x + threadIdx.x) | (sm << 16);
#endif
}
)";

// The argument structs (KernelShared.h's KernelAbi* layout) with the methods users call.
const char* kStructs =
    R"(template <class A, class B> struct ws_same { static const bool value = false; };
template <class A> struct ws_same<A, A> { static const bool value = true; };
// A @buffer: its elements, their count, and the run's counter of refused accesses, which an
// index outside the buffer adds to (the access then reaches a sink, not memory of another's).
__device__ double ws_sink[2];
template <typename T> struct WsBuffer {
    T* ws_data;
    long long ws_count;
    unsigned long long* ws_outOfBounds;
    __host__ __device__ T& operator[](long long i) const
    {
        if (i >= 0 && i < ws_count)
            return ws_data[i];
        WS_ATOMIC_ADD(ws_outOfBounds, 1ull);
        return *reinterpret_cast<T*>(ws_sink);
    }
    __host__ __device__ long long size() const { return ws_count; }
};
struct Ref { double lat, lon; };
struct Refs {
    int count;
    double radius;
    Ref ref[64];
    __host__ __device__ const Ref& operator[](int i) const { return ref[i]; }
};
struct Mesh {
    double latMin, latMax, lonMin, lonMax;
    int nx, ny;
    double ws_rowScale, ws_colScale; // 1 / (ny - 1), 1 / (nx - 1)
    __host__ __device__ double lat(int row) const
    { return row == ny - 1 ? latMax : latMin + (latMax - latMin) * (double(row) * ws_rowScale); }
    __host__ __device__ double lon(int col) const
    { return col == nx - 1 ? lonMax : lonMin + (lonMax - lonMin) * (double(col) * ws_colScale); }
};
struct Out {
    float* ws_data;
    unsigned long long* ws_outOfBounds;
    unsigned* ws_owners;
    int ws_pitch, nx, ny;
    unsigned ws_smCount;
    __host__ __device__ void write(int row, int col, float value WS_LINE_PARAM) const
    {
        if (row >= 0 && row < ny && col >= 0 && col < nx) {
            WS_STORE_NODE(&ws_data[(long long)row * ws_pitch + col], value);
            if (ws_owners)
                ws_record(ws_owners + 2 * ((long long)row * nx + col), ws_smCount);
        } else {
            WS_ATOMIC_ADD(ws_outOfBounds, 1ull);
        }
    }
};
)";

// The field's minimum and maximum over finite values, into the two slots after the nodes,
// as float bit patterns ordered as unsigned integers, and the count of nodes that are not
// finite (those no thread wrote, with the teaching record, left out), as writeFieldStats
// computes them on the CPU.
const char* kCudaStats = R"(
__device__ __forceinline__ unsigned ws_order(float f)
{
    const unsigned b = __float_as_uint(f);
    return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}
__device__ __forceinline__ float ws_unorder(unsigned u)
{
    return __uint_as_float((u & 0x80000000u) ? (u & 0x7fffffffu) : ~u);
}
extern "C" __global__ void ws_stats_init(unsigned* minmax, unsigned long long* nonFinite)
{
    minmax[0] = 0xffffffffu;
    minmax[1] = 0u;
    *nonFinite = 0ull;
}
extern "C" __global__ void ws_stats(const float* field, int pitch, int nx, int ny,
                                    const unsigned* owners, unsigned* minmax,
                                    unsigned long long* nonFinite)
{
    unsigned lo = 0xffffffffu, hi = 0u;
    unsigned long long bad = 0;
    const long long count = (long long)nx * ny;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count;
         i += (long long)gridDim.x * blockDim.x) {
        const float v = field[(i / nx) * pitch + i % nx];
        if (isfinite(v)) {
            lo = min(lo, ws_order(v));
            hi = max(hi, ws_order(v));
        } else if (!owners || owners[2 * i] != 0xffffffffu) {
            ++bad;
        }
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        lo = min(lo, __shfl_down_sync(0xffffffffu, lo, offset));
        hi = max(hi, __shfl_down_sync(0xffffffffu, hi, offset));
        bad += __shfl_down_sync(0xffffffffu, bad, offset);
    }
    if ((threadIdx.x & 31) == 0) {
        atomicMin(&minmax[0], lo);
        atomicMax(&minmax[1], hi);
        if (bad)
            atomicAdd(nonFinite, bad);
    }
}
extern "C" __global__ void ws_stats_final(float* field, long long statsOffset, const unsigned* minmax)
{
    const bool any = minmax[0] <= minmax[1];
    field[statsOffset] = any ? ws_unorder(minmax[0]) : 0.0f;
    field[statsOffset + 1] = any ? ws_unorder(minmax[1]) : 0.0f;
}
)";

// Runs blocks [first, last) of the grid: as fibers that meet at barriers (BlockFibers.h) when
// the kernel uses any, else one thread after another, which costs no switches.
const char* kCpuEntry = R"(
struct WsLaunch {
    Out out;
    Mesh mesh;
    Refs refs;
    const void* params;
    unsigned grid[3];
    unsigned block[3];
    const WsRuntime* runtime;
    unsigned long long dynamicSharedBytes;
};
struct WsBlock {
    const WsLaunch* launch;
    const Params* params;
};
// The block loop and each thread's entry are the simulator's, not the kernel's: a recording
// build leaves them out, and calls the kernel through a pointer, so that it is not inlined into
// the entry and left out with it.
#if WS_RECORD_ACCESSES
#define WS_UNRECORDED __attribute__((no_sanitize("coverage")))
static void (*volatile ws_entry)(Out, Mesh, Refs, Params) = &WS_ENTRY;
#else
#define WS_UNRECORDED
#define ws_entry WS_ENTRY
#endif
WS_UNRECORDED static void ws_thread(void* arg, unsigned linear)
{
    const WsBlock* b = static_cast<const WsBlock*>(arg);
    threadIdx = uint3{linear % blockDim.x, linear / blockDim.x % blockDim.y,
                      linear / (blockDim.x * blockDim.y)};
    ws_entry(b->launch->out, b->launch->mesh, b->launch->refs, *b->params);
}
extern "C" __attribute__((visibility("default"))) WS_UNRECORDED void
ws_run_blocks(const WsLaunch* a, long long first, long long last)
{
    gridDim = dim3{a->grid[0], a->grid[1], a->grid[2]};
    blockDim = dim3{a->block[0], a->block[1], a->block[2]};
    ws_runtime = a->runtime;
    ws_shared_begin(a->runtime);
    Params p;
    std::memcpy(static_cast<void*>(&p), a->params, sizeof(Params));
    const WsBlock block{a, &p};
    const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
    for (long long b = first; b < last; ++b) {
        blockIdx.x = unsigned(b % gridDim.x);
        blockIdx.y = unsigned((b / gridDim.x) % gridDim.y);
        blockIdx.z = unsigned(b / ((long long)gridDim.x * gridDim.y));
        const unsigned at[3] = {blockIdx.x, blockIdx.y, blockIdx.z};
        a->runtime->beginBlock(a->runtime->run, at, a->block);
        if (WS_FIBERS) {
            if (!a->runtime->runBlock(a->runtime->run, at, a->block, &ws_thread, (void*)&block))
                return;
        } else {
            for (unsigned t = 0; t < threads; ++t) {
                a->runtime->beginThread(t);
                ws_thread((void*)&block, t);
            }
        }
    }
}
)";

const char* bufferTypeName(KernelBufferType type)
{
    switch (type) {
    case KernelBufferType::Double:
        return "double";
    case KernelBufferType::Int:
        return "int";
    case KernelBufferType::Unsigned:
        return "unsigned";
    case KernelBufferType::Float:
        break;
    }
    return "float";
}

const char* typeName(KernelParamType type)
{
    switch (type) {
    case KernelParamType::Int:
        return "int";
    case KernelParamType::Bool:
        return "bool";
    case KernelParamType::Float:
        break;
    }
    return "float";
}

// The parameters' struct, and assertions that both compilers lay it out as the values are
// packed (kernelParamLayout), so that a kernel never reads a value from another's bytes: each
// member's size and alignment, and the whole size. (NVRTC has no constant offsetof; members
// aligned to their sizes, in order, leave the offsets no choice.)
std::string paramsStruct(const std::vector<KernelParam>& params,
                         const std::vector<KernelBuffer>& buffers)
{
    std::string text = "struct Params {";
    for (const KernelParam& p : params)
        text += std::string(" ") + typeName(p.type) + " " + p.name + ";";
    for (const KernelBuffer& b : buffers)
        text += std::string(" WsBuffer<") + bufferTypeName(b.type) + "> " + b.name + ";";
    text += " };\n";
    for (const KernelBuffer& b : buffers)
        text += "static_assert(sizeof(Params::" + b.name +
                ") == " + std::to_string(sizeof(KernelAbiBuffer)) +
                " && alignof(decltype(Params::" + b.name + ")) == 8, \"Params as packed\");\n";
    for (const KernelParam& p : params) {
        const std::string size = std::to_string(kernelParamBytes(p.type));
        text += "static_assert(sizeof(Params::" + p.name + ") == " + size +
                " && alignof(decltype(Params::" + p.name + ")) == " + size +
                ", \"Params as packed\");\n";
    }
    return text + "static_assert(sizeof(Params) == " +
           std::to_string(kernelParamLayout(params, buffers).size) + ", \"Params as packed\");\n";
}

std::string launchBounds(int threads)
{
    return threads > 0 ? "__launch_bounds__(" + std::to_string(threads) + ") " : std::string();
}

// Where `kernel` starts in the first `__global__ void kernel (` of code, or npos. Read by hand:
// libstdc++'s regular expressions recurse once a character, and a hostile source's million
// blanks would take the stack.
std::size_t kernelDeclaration(std::string_view code)
{
    const auto blanks = [&](std::size_t at) {
        while (at < code.size() && std::isspace(static_cast<unsigned char>(code[at])))
            ++at;
        return at;
    };
    const auto word = [&](std::size_t at, std::string_view w) {
        return code.substr(at, w.size()) == w;
    };
    for (std::size_t at = code.find("__global__"); at != std::string_view::npos;
         at = code.find("__global__", at + 1)) {
        std::size_t next = at + 10;
        std::size_t after = blanks(next);
        if (after == next || !word(after, "void"))
            continue;
        next = after + 4;
        after = blanks(next);
        if (after == next || !word(after, "kernel"))
            continue;
        if (const std::size_t paren = blanks(after + 6); paren < code.size() && code[paren] == '(')
            return after;
    }
    return std::string_view::npos;
}

// The whole kernel's code with __launch_bounds__ before its name, on the same line, so
// messages keep the user's line numbers. Unchanged when there is no `__global__ void kernel(`
// outside comments (the compile then says so) or bounds are not asked for.
std::string withLaunchBounds(const std::string& code, int threads)
{
    if (threads <= 0)
        return code;
    const std::string blanked = codeWithoutComments(code);
    const std::size_t name = kernelDeclaration(blanked);
    if (name == std::string::npos)
        return code;
    std::string out = code;
    out.insert(name, launchBounds(threads));
    return out;
}

// The line after the user's code, in the translation unit, for the wrapper's #line.
int lineCount(std::string_view text)
{
    return int(std::count(text.begin(), text.end(), '\n')) + 1;
}

} // namespace

KernelAbiMesh abiMesh(const DistanceParams& mesh)
{
    // The reciprocals spare each thread two double divisions (they cost a per-node kernel more
    // than its float arithmetic does).
    return {mesh.latMin,
            mesh.latMax,
            mesh.lonMin,
            mesh.lonMax,
            mesh.nx,
            mesh.ny,
            mesh.ny > 1 ? 1.0 / double(mesh.ny - 1) : 0.0,
            mesh.nx > 1 ? 1.0 / double(mesh.nx - 1) : 0.0};
}

KernelAbiRefs abiRefs(const DistanceParams& mesh)
{
    KernelAbiRefs refs{};
    refs.count = int(std::min<std::size_t>(mesh.references.size(), kKernelRefSlots));
    refs.radius = mesh.radiusKm * unitsPerKilometre(mesh.unit);
    for (int i = 0; i < refs.count; ++i)
        refs.ref[i] = {mesh.references[i].lat, mesh.references[i].lon};
    return refs;
}

std::string wrapKernelSource(const KernelSource& source, const std::vector<KernelParam>& params,
                             const std::vector<KernelBuffer>& buffers, KernelTarget target)
{
    const bool cuda = target == KernelTarget::Cuda;
    std::string text = cuda ? kCudaPrelude : kCpuPrelude + cpuExecutionModel();
    text += kStructs;
    text += paramsStruct(params, buffers);
    text += source.realIsDouble ? "typedef double real;\n" : "typedef float real;\n";
    const bool perNode = source.shape == KernelShape::PerNode;
    if (perNode)
        text += "__device__ real value(double lat, double lon, const Refs& refs, const Params& "
                "p)\n{\n";
    text += "#line 1 \"" + std::string(kUserSourceName) + "\"\n";
    const std::string code = cuda ? source.code : cpuUserCode(source.code, source.shape);
    text += perNode ? code : withLaunchBounds(code, source.launchBounds);
    if (!source.code.empty() && source.code.back() != '\n')
        text += '\n';
    // The wrapper's own lines are named "wrapper": a message there is not at a user's line.
    text += "#line " + std::to_string(lineCount(text) + 1) + " \"wrapper\"\n";
    if (!perNode)
        text +=
            "static_assert(ws_same<decltype(&kernel), void (*)(Out, Mesh, Refs, Params)>::value,\n"
            "              \"kernel must be declared as __global__ void kernel(Out out, Mesh "
            "mesh, Refs refs, Params p)\");\n";
    if (perNode)
        text += std::string("}\n") + (cuda ? "extern \"C\" " : "") + "__global__ void " +
                launchBounds(source.launchBounds) +
                "ws_per_node(Out out, Mesh mesh, Refs refs, Params p)\n"
                "{\n"
                "    const int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "    const int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
                "    if (row < mesh.ny && col < mesh.nx)\n"
                "        out.write(row, col, float(value(mesh.lat(row), mesh.lon(col), refs, p))" +
                std::string(cuda ? "" : ", 0u") + ");\n}\n";
    if (cuda) {
        text += kCudaStats;
    } else {
        text +=
            std::string("#define WS_ENTRY ") + (perNode ? kPerNodeEntry : kWholeKernelEntry) + "\n";
        text += std::string("#define WS_FIBERS ") +
                (usesBlockCollectives(source.code) ? "1" : "0") + "\n";
        text += kCpuEntry;
    }
    return text;
}

} // namespace warpscope::gpu
