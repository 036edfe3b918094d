// CUDA's execution model as the simulator's library sees it: shared memory, barriers, warp
// collectives, atomics, fences, clocks and cooperative groups, written in C++ over the
// runner's scheduler (BlockFibers.h), which the library reaches through the launch's table of
// function pointers. Placed after the CPU prelude's includes and before the user's code.
#include "kernel/KernelShared.h"
#include "kernel/WarpOps.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>

namespace warpscope::gpu {
namespace {

// Every thread's place in the block is saved across a call that may switch fibers: the
// library's threadIdx is one per runner thread, shared by the block's fibers.
const char* kModel = R"(
struct WsRuntime {
    void* run;
    bool (*runBlock)(void*, const unsigned*, const unsigned*, void (*)(void*, unsigned), void*);
    int (*syncThreads)(int, int, unsigned);
    unsigned long long (*warpOp)(int, unsigned, unsigned long long, int, int, unsigned);
    void (*print)(void*, const unsigned*, const unsigned*, const char*, unsigned long long);
    void* (*sharedStatic)(void*, unsigned, unsigned long long, unsigned long long, const char*,
                          unsigned);
    unsigned char* (*sharedDynamic)(void*);
    void (*beginBlock)(void*, const unsigned*, const unsigned*);
    void (*beginThread)(unsigned);
    void (*sharedAccess)(const void*, unsigned, int, const void*, unsigned);
    const void* sharedLo;
    unsigned long long sharedSpan;
    void (*memoryAccess)(const void*, unsigned, int, const void*, unsigned);
    const void* globalLo[3];
    unsigned long long globalSpan[3];
};
static thread_local const WsRuntime* ws_runtime;

// --- Memory accesses: clang calls these before each load and store of the user's code
// (-fsanitize-coverage=trace-loads,trace-stores); those in the runner's shared memory go to its
// checks. A recording build (WS_RECORD_ACCESSES; MemoryRecord.h) also sends those in global
// memory, and each basic block a thread enters (trace-pc-guard), to the recorder. The regions
// are the same for every thread of the run.
#ifndef WS_CHECK_ACCESSES
#define WS_CHECK_ACCESSES 0
#endif
#ifndef WS_RECORD_ACCESSES
#define WS_RECORD_ACCESSES 0
#endif
static unsigned long long ws_shared_lo, ws_shared_span, ws_global_lo[3], ws_global_span[3];
static void (*ws_shared_access)(const void*, unsigned, int, const void*, unsigned);
static void (*ws_memory_access)(const void*, unsigned, int, const void*, unsigned);
__attribute__((always_inline)) inline bool ws_in(const void* p, unsigned long long& lo,
                                                 unsigned long long& span)
{
    return (unsigned long long)p - __atomic_load_n(&lo, __ATOMIC_RELAXED) <
           __atomic_load_n(&span, __ATOMIC_RELAXED);
}
__attribute__((always_inline)) inline void ws_trace(const void* p, unsigned size, int kind,
                                                    const void* pc, unsigned line)
{
    // Without clang's instrumentation the plain accesses go unseen, and atomics alone would
    // read as accesses to memory no thread wrote.
    if (!WS_CHECK_ACCESSES)
        return;
    const bool shared = ws_in(p, ws_shared_lo, ws_shared_span);
    if (shared)
        ws_shared_access(p, size, kind, pc, line);
    if (WS_RECORD_ACCESSES &&
        (shared || ws_in(p, ws_global_lo[0], ws_global_span[0]) ||
         ws_in(p, ws_global_lo[1], ws_global_span[1]) || ws_in(p, ws_global_lo[2], ws_global_span[2])))
        ws_memory_access(p, size, kind, pc, line);
}
// An access the prelude names itself (an atomic, a node's store): called, not inlined, so that
// the checks' own reads of the regions are not taken for the user's in a recording build.
__attribute__((noinline, no_sanitize("coverage"))) void ws_trace_call(const void* p,
                                                                      unsigned size, int kind,
                                                                      const void* pc,
                                                                      unsigned line)
{
    ws_trace(p, size, kind, pc, line);
}
#define WS_TRACE(size)                                                                         \
    extern "C" void __sanitizer_cov_load##size(void* p)                                        \
    { ws_trace(p, size, 0, __builtin_return_address(0), 0); }                                  \
    extern "C" void __sanitizer_cov_store##size(void* p)                                       \
    { ws_trace(p, size, 1, __builtin_return_address(0), 0); }
WS_TRACE(1)
WS_TRACE(2)
WS_TRACE(4)
WS_TRACE(8)
WS_TRACE(16)
#undef WS_TRACE
#if WS_RECORD_ACCESSES
extern "C" void __sanitizer_cov_trace_pc_guard_init(unsigned*, unsigned*) {}
extern "C" void __sanitizer_cov_trace_pc_guard(unsigned*)
{
    if (void (*record)(const void*, unsigned, int, const void*, unsigned) =
            __atomic_load_n(&ws_memory_access, __ATOMIC_RELAXED))
        record(nullptr, 0, 3, __builtin_return_address(0), 0);
}
#endif
// A node's store into the field: in a recording build, told at the line of the user's
// out.write (line 0: the per-node launcher's), not at Out's own.
__attribute__((noinline, no_sanitize("coverage"))) inline void ws_store_untraced(float* p, float v)
{
    *p = v;
}
inline void ws_store_node(float* p, float v, unsigned line)
{
    if (WS_RECORD_ACCESSES) {
        ws_trace_call(p, sizeof(float), 1, nullptr, line);
        ws_store_untraced(p, v);
    } else {
        *p = v;
    }
}
inline void ws_shared_begin(const WsRuntime* runtime)
{
    __atomic_store_n(&ws_shared_lo, (unsigned long long)runtime->sharedLo, __ATOMIC_RELAXED);
    __atomic_store_n(&ws_shared_span, runtime->sharedSpan, __ATOMIC_RELAXED);
    __atomic_store_n(&ws_shared_access, runtime->sharedAccess, __ATOMIC_RELAXED);
    for (int i = 0; i < 3; ++i) {
        __atomic_store_n(&ws_global_lo[i], (unsigned long long)runtime->globalLo[i],
                         __ATOMIC_RELAXED);
        __atomic_store_n(&ws_global_span[i], runtime->globalSpan[i], __ATOMIC_RELAXED);
    }
    __atomic_store_n(&ws_memory_access, runtime->memoryAccess, __ATOMIC_RELAXED);
}
// A static __shared__ variable, as the rewritten declaration asks for it.
template <typename T> inline T& ws_static_shared(unsigned site, const char* name, unsigned line)
{
    return *static_cast<T*>(
        ws_runtime->sharedStatic(ws_runtime->run, site, sizeof(T), alignof(T), name, line));
}
inline unsigned char* ws_dynamic_shared() { return ws_runtime->sharedDynamic(ws_runtime->run); }
inline int ws_sync(int op, int predicate, unsigned line)
{
    const uint3 me = threadIdx;
    const int result = ws_runtime->syncThreads(op, predicate, line);
    threadIdx = me;
    return result;
}
inline unsigned long long ws_warp(int op, unsigned mask, unsigned long long value, int arg,
                                  int width, unsigned line)
{
    const uint3 me = threadIdx;
    const unsigned long long result = ws_runtime->warpOp(op, mask, value, arg, width, line);
    threadIdx = me;
    return result;
}
template <typename T> inline unsigned long long ws_bits(T value)
{
    static_assert(sizeof(T) <= 8, "warp operations take values of up to 64 bits");
    unsigned long long bits = 0;
    std::memcpy(&bits, &value, sizeof(T));
    return bits;
}
template <typename T> inline T ws_value(unsigned long long bits)
{
    T value;
    std::memcpy(&value, &bits, sizeof(T));
    return value;
}

// --- Block barriers
inline void __syncthreads(unsigned line = __builtin_LINE()) { ws_sync(WS_SYNC_PLAIN, 0, line); }
inline int __syncthreads_count(int p, unsigned line = __builtin_LINE())
{ return ws_sync(WS_SYNC_COUNT, p, line); }
inline int __syncthreads_and(int p, unsigned line = __builtin_LINE())
{ return ws_sync(WS_SYNC_AND, p, line); }
inline int __syncthreads_or(int p, unsigned line = __builtin_LINE())
{ return ws_sync(WS_SYNC_OR, p, line); }

// --- Warps
inline void __syncwarp(unsigned mask = 0xffffffffu, unsigned line = __builtin_LINE())
{ ws_warp(WS_WARP_SYNC, mask, 0, 0, 32, line); }
inline unsigned __activemask(unsigned line = __builtin_LINE())
{ return unsigned(ws_warp(WS_WARP_ACTIVE, 0xffffffffu, 0, 0, 32, line)); }
template <typename T>
inline T __shfl_sync(unsigned mask, T v, int lane, int width = 32, unsigned line = __builtin_LINE())
{ return ws_value<T>(ws_warp(WS_WARP_SHFL_IDX, mask, ws_bits(v), lane, width, line)); }
template <typename T>
inline T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = 32,
                        unsigned line = __builtin_LINE())
{ return ws_value<T>(ws_warp(WS_WARP_SHFL_UP, mask, ws_bits(v), int(delta), width, line)); }
template <typename T>
inline T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32,
                          unsigned line = __builtin_LINE())
{ return ws_value<T>(ws_warp(WS_WARP_SHFL_DOWN, mask, ws_bits(v), int(delta), width, line)); }
template <typename T>
inline T __shfl_xor_sync(unsigned mask, T v, int laneMask, int width = 32,
                         unsigned line = __builtin_LINE())
{ return ws_value<T>(ws_warp(WS_WARP_SHFL_XOR, mask, ws_bits(v), laneMask, width, line)); }
inline unsigned __ballot_sync(unsigned mask, int p, unsigned line = __builtin_LINE())
{ return unsigned(ws_warp(WS_WARP_BALLOT, mask, p != 0, 0, 32, line)); }
inline int __any_sync(unsigned mask, int p, unsigned line = __builtin_LINE())
{ return int(ws_warp(WS_WARP_ANY, mask, p != 0, 0, 32, line)); }
inline int __all_sync(unsigned mask, int p, unsigned line = __builtin_LINE())
{ return int(ws_warp(WS_WARP_ALL, mask, p != 0, 0, 32, line)); }
template <typename T>
inline unsigned __match_any_sync(unsigned mask, T v, unsigned line = __builtin_LINE())
{ return unsigned(ws_warp(WS_WARP_MATCH_ANY, mask, ws_bits(v), 0, 32, line)); }
template <typename T>
inline unsigned __match_all_sync(unsigned mask, T v, int* pred, unsigned line = __builtin_LINE())
{
    const unsigned long long r = ws_warp(WS_WARP_MATCH_ALL, mask, ws_bits(v), 0, 32, line);
    *pred = int(r >> 32);
    return unsigned(r);
}
#define WS_REDUCE(name, T, op)                                                                 \
    inline T name(unsigned mask, T v, unsigned line = __builtin_LINE())                         \
    { return T(ws_warp(op, mask, ws_bits(v), 0, 32, line)); }
WS_REDUCE(__reduce_add_sync, unsigned, WS_WARP_REDUCE_ADD)
WS_REDUCE(__reduce_add_sync, int, WS_WARP_REDUCE_ADD)
WS_REDUCE(__reduce_min_sync, unsigned, WS_WARP_REDUCE_MIN_UNSIGNED)
WS_REDUCE(__reduce_min_sync, int, WS_WARP_REDUCE_MIN_SIGNED)
WS_REDUCE(__reduce_max_sync, unsigned, WS_WARP_REDUCE_MAX_UNSIGNED)
WS_REDUCE(__reduce_max_sync, int, WS_WARP_REDUCE_MAX_SIGNED)
WS_REDUCE(__reduce_and_sync, unsigned, WS_WARP_REDUCE_AND)
WS_REDUCE(__reduce_or_sync, unsigned, WS_WARP_REDUCE_OR)
WS_REDUCE(__reduce_xor_sync, unsigned, WS_WARP_REDUCE_XOR)
#undef WS_REDUCE

// --- Atomics: the block's threads share one runner thread, other blocks run on others.
// Read-modify-writes that the CPU has are one instruction; the others are compare-and-swap
// loops, whose first read is not instrumented: a plain load would count as a read in shared
// memory's checks.
template <typename T>
__attribute__((noinline, no_sanitize("coverage"))) T ws_atomic_read(const T* address)
{
    T value;
    __atomic_load(address, &value, __ATOMIC_RELAXED);
    return value;
}
template <typename T, typename F> inline T ws_atomic_update(T* address, F f, unsigned line)
{
    ws_trace_call(address, sizeof(T), 2, nullptr, line);
    T old = ws_atomic_read(address);
    T desired = f(old);
    while (!__atomic_compare_exchange(address, &old, &desired, true, __ATOMIC_SEQ_CST,
                                      __ATOMIC_RELAXED))
        desired = f(old);
    return old;
}
#define WS_ATOMIC(name, T, expr)                                                               \
    inline T name(T* address, T v, unsigned line = __builtin_LINE())                           \
    {                                                                                          \
        return ws_atomic_update(                                                               \
            address, [v](T old) { (void)old; return static_cast<T>(expr); }, line);            \
    }
#define WS_ATOMIC_RMW(name, T, builtin)                                                        \
    inline T name(T* address, T v, unsigned line = __builtin_LINE())                           \
    {                                                                                          \
        ws_trace_call(address, sizeof(T), 2, nullptr, line);                                       \
        return builtin(address, v, __ATOMIC_SEQ_CST);                                          \
    }
#define WS_ATOMIC_INTEGERS(name, expr)                                                         \
    WS_ATOMIC(name, int, expr)                                                                 \
    WS_ATOMIC(name, unsigned, expr)                                                            \
    WS_ATOMIC(name, unsigned long long, expr)
#define WS_ATOMIC_RMW_INTEGERS(name, builtin)                                                  \
    WS_ATOMIC_RMW(name, int, builtin)                                                          \
    WS_ATOMIC_RMW(name, unsigned, builtin)                                                     \
    WS_ATOMIC_RMW(name, unsigned long long, builtin)
WS_ATOMIC_RMW_INTEGERS(atomicAdd, __atomic_fetch_add)
WS_ATOMIC(atomicAdd, float, old + v)
WS_ATOMIC(atomicAdd, double, old + v)
WS_ATOMIC_RMW(atomicSub, int, __atomic_fetch_sub)
WS_ATOMIC_RMW(atomicSub, unsigned, __atomic_fetch_sub)
WS_ATOMIC_RMW_INTEGERS(atomicExch, __atomic_exchange_n)
WS_ATOMIC(atomicExch, float, v)
WS_ATOMIC_INTEGERS(atomicMin, old < v ? old : v)
WS_ATOMIC(atomicMin, long long, old < v ? old : v)
WS_ATOMIC_INTEGERS(atomicMax, old > v ? old : v)
WS_ATOMIC(atomicMax, long long, old > v ? old : v)
WS_ATOMIC_RMW_INTEGERS(atomicAnd, __atomic_fetch_and)
WS_ATOMIC_RMW_INTEGERS(atomicOr, __atomic_fetch_or)
WS_ATOMIC_RMW_INTEGERS(atomicXor, __atomic_fetch_xor)
WS_ATOMIC(atomicInc, unsigned, old >= v ? 0u : old + 1u)
WS_ATOMIC(atomicDec, unsigned, (old == 0u || old > v) ? v : old - 1u)
#undef WS_ATOMIC_RMW_INTEGERS
#undef WS_ATOMIC_INTEGERS
#undef WS_ATOMIC_RMW
#undef WS_ATOMIC
template <typename T> inline T atomicCAS(T* address, T compare, T v, unsigned line = __builtin_LINE())
{
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "atomicCAS takes 32- or 64-bit words");
    ws_trace_call(address, sizeof(T), 2, nullptr, line);
    __atomic_compare_exchange(address, &compare, &v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return compare;
}

// --- Fences, clocks and sleep
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
// A simulated cycle counter: it counts its own readings, so that it only ever goes up.
inline long long ws_clock64()
{
    static thread_local long long cycles = 0;
    return cycles += 16;
}
#define clock64() ws_clock64()
#define clock() ((clock_t)ws_clock64())
inline void __nanosleep(unsigned) {}
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(unsigned(x)); }

// --- Shared memory: declarations in functions become ws_static_shared (cpuUserCode); the
// others are one copy per runner thread, which runs one block at a time, unchecked
#define __align__(n) __attribute__((aligned(n)))
#define __shared__ static thread_local

// --- printf: each call one line of the run's list, with its block and thread, and the
// runner's standard output as before (what the kernel printed, in order)
inline int ws_printf(const char* format, ...) __attribute__((format(printf, 1, 2)));
inline int ws_printf(const char* format, ...)
{
    char text[1024];
    va_list args;
    va_start(args, format);
    const int length = std::vsnprintf(text, sizeof text, format, args);
    va_end(args);
    if (length < 0)
        return length;
    std::string whole(text, std::min<std::size_t>(std::size_t(length), sizeof text - 1));
    if (std::size_t(length) >= sizeof text) {
        whole.resize(std::size_t(length) + 1);
        va_start(args, format);
        std::vsnprintf(&whole[0], whole.size(), format, args);
        va_end(args);
        whole.resize(std::size_t(length));
    }
    const unsigned block[3] = {blockIdx.x, blockIdx.y, blockIdx.z};
    const unsigned thread[3] = {threadIdx.x, threadIdx.y, threadIdx.z};
    if (ws_runtime) // null in code run at the library's load, outside any kernel's thread
        ws_runtime->print(ws_runtime->run, block, thread, whole.data(), whole.size());
    std::fwrite(whole.data(), 1, whole.size(), stdout);
    return length;
}
// std::printf( becomes std::ws_printf( too.
namespace std {
using ::ws_printf;
}
#define printf(...) ws_printf(__VA_ARGS__)

// --- Cooperative groups (the block and its tiles of up to a warp)
namespace cooperative_groups {
inline unsigned ws_rank()
{ return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x; }
struct thread_block {
    void sync(unsigned line = __builtin_LINE()) const { __syncthreads(line); }
    unsigned thread_rank() const { return ws_rank(); }
    unsigned size() const { return blockDim.x * blockDim.y * blockDim.z; }
    unsigned num_threads() const { return size(); }
    dim3 group_index() const { return dim3{blockIdx.x, blockIdx.y, blockIdx.z}; }
    dim3 thread_index() const { return dim3{threadIdx.x, threadIdx.y, threadIdx.z}; }
    dim3 group_dim() const { return blockDim; }
    dim3 dim_threads() const { return blockDim; }
};
inline thread_block this_thread_block() { return thread_block(); }
inline void sync(const thread_block& g, unsigned line = __builtin_LINE()) { g.sync(line); }
template <unsigned N> struct thread_block_tile {
    static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0, "tiles are powers of two up to 32");
    unsigned ws_base() const { return ws_rank() % 32u / N * N; }
    unsigned ws_mask() const { return N == 32 ? 0xffffffffu : ((1u << N) - 1u) << ws_base(); }
    void sync(unsigned line = __builtin_LINE()) const { __syncwarp(ws_mask(), line); }
    unsigned thread_rank() const { return ws_rank() % N; }
    unsigned size() const { return N; }
    unsigned num_threads() const { return N; }
    unsigned meta_group_rank() const { return ws_rank() / N; }
    unsigned meta_group_size() const { return (thread_block().size() + N - 1) / N; }
    template <typename T> T shfl(T v, int lane, unsigned line = __builtin_LINE()) const
    { return __shfl_sync(ws_mask(), v, lane, int(N), line); }
    template <typename T> T shfl_up(T v, unsigned d, unsigned line = __builtin_LINE()) const
    { return __shfl_up_sync(ws_mask(), v, d, int(N), line); }
    template <typename T> T shfl_down(T v, unsigned d, unsigned line = __builtin_LINE()) const
    { return __shfl_down_sync(ws_mask(), v, d, int(N), line); }
    template <typename T> T shfl_xor(T v, int m, unsigned line = __builtin_LINE()) const
    { return __shfl_xor_sync(ws_mask(), v, m, int(N), line); }
    unsigned ballot(int p, unsigned line = __builtin_LINE()) const
    { return __ballot_sync(ws_mask(), p, line) >> ws_base(); }
    int any(int p, unsigned line = __builtin_LINE()) const
    { return __any_sync(ws_mask(), p, line); }
    int all(int p, unsigned line = __builtin_LINE()) const
    { return __all_sync(ws_mask(), p, line); }
};
template <unsigned N> inline thread_block_tile<N> tiled_partition(const thread_block&)
{ return thread_block_tile<N>(); }
template <unsigned N> inline void sync(const thread_block_tile<N>& g,
                                       unsigned line = __builtin_LINE()) { g.sync(line); }
} // namespace cooperative_groups
)";

std::string define(const char* name, long long value)
{
    return std::string("#define ") + name + " " + std::to_string(value) + "\n";
}

} // namespace

std::string cpuExecutionModel()
{
    std::string text;
    const std::pair<const char*, WarpOp> ops[] = {
        {"WS_WARP_SYNC", WarpOp::Sync},
        {"WS_WARP_ACTIVE", WarpOp::Active},
        {"WS_WARP_SHFL_IDX", WarpOp::ShflIdx},
        {"WS_WARP_SHFL_UP", WarpOp::ShflUp},
        {"WS_WARP_SHFL_DOWN", WarpOp::ShflDown},
        {"WS_WARP_SHFL_XOR", WarpOp::ShflXor},
        {"WS_WARP_BALLOT", WarpOp::Ballot},
        {"WS_WARP_ANY", WarpOp::Any},
        {"WS_WARP_ALL", WarpOp::All},
        {"WS_WARP_MATCH_ANY", WarpOp::MatchAny},
        {"WS_WARP_MATCH_ALL", WarpOp::MatchAll},
        {"WS_WARP_REDUCE_ADD", WarpOp::ReduceAdd},
        {"WS_WARP_REDUCE_MIN_SIGNED", WarpOp::ReduceMinSigned},
        {"WS_WARP_REDUCE_MAX_SIGNED", WarpOp::ReduceMaxSigned},
        {"WS_WARP_REDUCE_MIN_UNSIGNED", WarpOp::ReduceMinUnsigned},
        {"WS_WARP_REDUCE_MAX_UNSIGNED", WarpOp::ReduceMaxUnsigned},
        {"WS_WARP_REDUCE_AND", WarpOp::ReduceAnd},
        {"WS_WARP_REDUCE_OR", WarpOp::ReduceOr},
        {"WS_WARP_REDUCE_XOR", WarpOp::ReduceXor}};
    for (const auto& [name, op] : ops)
        text += define(name, int(op));
    const std::pair<const char*, BlockSync> syncs[] = {{"WS_SYNC_PLAIN", BlockSync::Plain},
                                                       {"WS_SYNC_COUNT", BlockSync::Count},
                                                       {"WS_SYNC_AND", BlockSync::And},
                                                       {"WS_SYNC_OR", BlockSync::Or}};
    for (const auto& [name, op] : syncs)
        text += define(name, int(op));
    text += kModel;
    // The block- and system-scoped atomics are the device-scoped ones on one CPU.
    for (const char* name :
         {"atomicAdd", "atomicSub", "atomicExch", "atomicMin", "atomicMax", "atomicInc",
          "atomicDec", "atomicCAS", "atomicAnd", "atomicOr", "atomicXor"})
        for (const char* scope : {"_block", "_system"})
            text += std::string("#define ") + name + scope + " " + name + "\n";
    return text;
}

} // namespace warpscope::gpu
