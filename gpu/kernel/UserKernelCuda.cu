// The GPU's run of a user's kernel. A user's kernel may fault (an illegal address, a trap)
// or never end, and a fault leaves a CUDA context unusable. So user kernels run in a CUDA
// context of their own on the same device, never in the one the app's slices share: the
// kernel writes that context's buffer, which is copied to the output (a peer copy into the
// app's context, such as a mapped GL buffer, or to the host). A fault or a timeout destroys
// the kernel's context only; the next run makes a new one, and the app's context, its
// buffers and GL registrations are untouched.
//
// The driver API is reached through the runtime's cudaGetDriverEntryPointByVersion, so the
// build links no libcuda and starts on machines without a driver.
#include "kernel/KernelShared.h"
#include "runtime/CudaContext.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <thread>

namespace warpscope::gpu {
namespace {

struct Driver
{
    PFN_cuDeviceGet_v2000 deviceGet = nullptr;
    PFN_cuCtxCreate_v3020 ctxCreate = nullptr;
    PFN_cuCtxDestroy_v4000 ctxDestroy = nullptr;
    PFN_cuCtxPushCurrent_v4000 ctxPush = nullptr;
    PFN_cuCtxPopCurrent_v4000 ctxPop = nullptr;
    PFN_cuCtxGetCurrent_v4000 ctxGetCurrent = nullptr;
    PFN_cuModuleLoadData_v2000 moduleLoad = nullptr;
    PFN_cuModuleUnload_v2000 moduleUnload = nullptr;
    PFN_cuModuleGetFunction_v2000 moduleGetFunction = nullptr;
    PFN_cuFuncGetAttribute_v2020 funcGetAttribute = nullptr;
    PFN_cuLaunchKernel_v4000 launchKernel = nullptr;
    PFN_cuMemAlloc_v3020 memAlloc = nullptr;
    PFN_cuMemFree_v3020 memFree = nullptr;
    PFN_cuMemsetD8_v3020 memsetD8 = nullptr;
    PFN_cuMemsetD8Async_v3020 memsetD8Async = nullptr;
    PFN_cuMemcpyDtoH_v3020 memcpyDtoH = nullptr;
    PFN_cuMemcpyPeer_v4000 memcpyPeer = nullptr;
    PFN_cuStreamCreate_v2000 streamCreate = nullptr;
    PFN_cuStreamSynchronize_v2000 streamSynchronize = nullptr;
    PFN_cuEventCreate_v2000 eventCreate = nullptr;
    PFN_cuEventRecord_v2000 eventRecord = nullptr;
    PFN_cuEventQuery_v2000 eventQuery = nullptr;
    PFN_cuEventElapsedTime_v2000 eventElapsedTime = nullptr;
    PFN_cuGetErrorName_v6000 errorName = nullptr;
    PFN_cuGetErrorString_v6000 errorString = nullptr;
    Status loaded;
};

template <typename Fn> bool entry(const char* name, unsigned version, Fn& fn, std::string& missing)
{
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    void* pointer = nullptr;
    if (cudaGetDriverEntryPointByVersion(name, &pointer, version, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess || !pointer) {
        cudaGetLastError();
        missing = name;
        return false;
    }
    fn = reinterpret_cast<Fn>(pointer);
    return true;
}

const Driver& driver()
{
    static const Driver loaded = [] {
        Driver d;
        std::string missing;
        const bool ok = entry("cuDeviceGet", 2000, d.deviceGet, missing) &&
                        entry("cuCtxCreate", 3020, d.ctxCreate, missing) &&
                        entry("cuCtxDestroy", 4000, d.ctxDestroy, missing) &&
                        entry("cuCtxPushCurrent", 4000, d.ctxPush, missing) &&
                        entry("cuCtxPopCurrent", 4000, d.ctxPop, missing) &&
                        entry("cuCtxGetCurrent", 4000, d.ctxGetCurrent, missing) &&
                        entry("cuModuleLoadData", 2000, d.moduleLoad, missing) &&
                        entry("cuModuleUnload", 2000, d.moduleUnload, missing) &&
                        entry("cuModuleGetFunction", 2000, d.moduleGetFunction, missing) &&
                        entry("cuFuncGetAttribute", 2020, d.funcGetAttribute, missing) &&
                        entry("cuLaunchKernel", 4000, d.launchKernel, missing) &&
                        entry("cuMemAlloc", 3020, d.memAlloc, missing) &&
                        entry("cuMemFree", 3020, d.memFree, missing) &&
                        entry("cuMemsetD8", 3020, d.memsetD8, missing) &&
                        entry("cuMemsetD8Async", 3020, d.memsetD8Async, missing) &&
                        entry("cuMemcpyDtoH", 3020, d.memcpyDtoH, missing) &&
                        entry("cuMemcpyPeer", 4000, d.memcpyPeer, missing) &&
                        entry("cuStreamCreate", 2000, d.streamCreate, missing) &&
                        entry("cuStreamSynchronize", 2000, d.streamSynchronize, missing) &&
                        entry("cuEventCreate", 2000, d.eventCreate, missing) &&
                        entry("cuEventRecord", 2000, d.eventRecord, missing) &&
                        entry("cuEventQuery", 2000, d.eventQuery, missing) &&
                        entry("cuEventElapsedTime", 2000, d.eventElapsedTime, missing) &&
                        entry("cuGetErrorName", 6000, d.errorName, missing) &&
                        entry("cuGetErrorString", 6000, d.errorString, missing);
        if (!ok)
            d.loaded = Status::failure("The CUDA driver does not offer " + missing +
                                       ", which user kernels need");
        return d;
    }();
    return loaded;
}

Status cuStatus(CUresult result, const char* what)
{
    if (result == CUDA_SUCCESS)
        return Status::success();
    const char* name = nullptr;
    driver().errorName(result, &name);
    return Status::failure(std::string(what) + " failed: " + (name ? name : "unknown error"));
}

#define WS_CU_TRY(call)                                                                            \
    do {                                                                                           \
        if (const CUresult wsResult = (call); wsResult != CUDA_SUCCESS)                            \
            return cuStatus(wsResult, #call);                                                      \
    } while (0)

// The kernel's own context and what lives in it. reset() throws all of it away (after a
// fault the context cannot be used again).
struct UserKernelCudaState : SliceState
{
    ~UserKernelCudaState() override { reset(); }

    void reset()
    {
        // Destroying the context frees its module, memory, stream and events.
        if (context)
            driver().ctxDestroy(context);
        context = nullptr;
        module = nullptr;
        stream = nullptr;
        start = stop = base = nullptr;
        entry = statsInit = stats = statsFinal = nullptr;
        loadedKey.clear();
        field = counters = owners = 0;
        fieldBytes = ownersBytes = 0;
    }

    CUcontext context = nullptr;
    CUmodule module = nullptr;
    CUstream stream = nullptr;
    CUevent start = nullptr, stop = nullptr;
    CUevent base = nullptr; // recorded first on the idle stream: its host time is known
    double baseUs = 0.0;
    CUfunction entry = nullptr, statsInit = nullptr, stats = nullptr, statsFinal = nullptr;
    std::string loadedKey;
    CUdeviceptr field = 0;    // the kernel's output
    CUdeviceptr counters = 0; // [0, 8): out-of-bounds writes; [8, 16): min/max ordered bits
    std::size_t fieldBytes = 0;
    CUdeviceptr owners = 0; // the teaching record, when asked for
    std::size_t ownersBytes = 0;
};

// Makes the kernel's context current on this thread for a scope, and restores the one
// before (the app's) however the scope ends.
class ContextScope
{
public:
    explicit ContextScope(CUcontext context) : m_pushed(driver().ctxPush(context) == CUDA_SUCCESS)
    {}
    ~ContextScope()
    {
        CUcontext popped = nullptr;
        if (m_pushed)
            driver().ctxPop(&popped);
    }
    bool ok() const { return m_pushed; }

private:
    bool m_pushed;
};

Status prepare(UserKernelCudaState& state, int ordinal)
{
    if (state.context)
        return Status::success();
    const Driver& d = driver();
    CUdevice device = 0;
    WS_CU_TRY(d.deviceGet(&device, ordinal));
    CUcontext context = nullptr;
    WS_CU_TRY(d.ctxCreate(&context, 0, device)); // made current: popped below
    CUcontext popped = nullptr;
    d.ctxPop(&popped);
    state.context = context;
    ContextScope scope(context);
    WS_CU_TRY(d.streamCreate(&state.stream, CU_STREAM_NON_BLOCKING));
    WS_CU_TRY(d.eventCreate(&state.start, CU_EVENT_DEFAULT));
    WS_CU_TRY(d.eventCreate(&state.stop, CU_EVENT_DEFAULT));
    WS_CU_TRY(d.eventCreate(&state.base, CU_EVENT_DEFAULT));
    WS_CU_TRY(d.memAlloc(&state.counters, 16));
    return Status::success();
}

Status load(UserKernelCudaState& state, const CompiledKernel& gpu)
{
    const std::string key =
        hashHex(std::string_view(gpu.cubin.data(), gpu.cubin.size())) + " " + gpu.entry;
    if (state.module && state.loadedKey == key)
        return Status::success();
    const Driver& d = driver();
    if (state.module)
        d.moduleUnload(state.module);
    state.module = nullptr;
    state.loadedKey.clear();
    WS_CU_TRY(d.moduleLoad(&state.module, gpu.cubin.data()));
    WS_CU_TRY(d.moduleGetFunction(&state.entry, state.module, gpu.entry.c_str()));
    WS_CU_TRY(d.moduleGetFunction(&state.statsInit, state.module, "ws_stats_init"));
    WS_CU_TRY(d.moduleGetFunction(&state.stats, state.module, "ws_stats"));
    WS_CU_TRY(d.moduleGetFunction(&state.statsFinal, state.module, "ws_stats_final"));
    state.loadedKey = key;
    return Status::success();
}

// The inverse of the figures' kernel's ordering of float bits (KernelWrap.cpp).
float unorderedFloat(unsigned u)
{
    const unsigned bits = (u & 0x80000000u) ? (u & 0x7fffffffu) : ~u;
    float value = 0.0f;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

Status queue(UserKernelCudaState& state, const CudaBacking& cuda, const CompiledKernel& gpu,
             const KernelArgs& args, double timelineNowUs)
{
    const Driver& d = driver();
    const FieldLayout layout = layoutFor(args.mesh);
    const std::size_t bytes = layout.elementCount() * sizeof(float);
    if (state.fieldBytes < bytes) {
        if (state.field)
            d.memFree(state.field);
        state.field = 0;
        state.fieldBytes = 0;
        WS_CU_TRY(d.memAlloc(&state.field, bytes));
        state.fieldBytes = bytes;
    }
    const std::size_t ownerBytes =
        args.owners.data ? 2 * std::size_t(args.mesh.nx) * args.mesh.ny * sizeof(std::uint32_t) : 0;
    if (state.ownersBytes < ownerBytes) {
        if (state.owners)
            d.memFree(state.owners);
        state.owners = 0;
        state.ownersBytes = 0;
        WS_CU_TRY(d.memAlloc(&state.owners, ownerBytes));
        state.ownersBytes = ownerBytes;
    }
    if (ownerBytes) {
        // As the teaching kernel leaves them: nodes no thread writes are NaN (all bits set)
        // and uncovered.
        WS_CU_TRY(
            d.memsetD8Async(state.field, 0xff, layout.statsOffset() * sizeof(float), state.stream));
        WS_CU_TRY(d.memsetD8Async(state.owners, 0xff, ownerBytes, state.stream));
    }
    auto* out = reinterpret_cast<float*>(state.field);
    auto* outOfBounds = reinterpret_cast<unsigned long long*>(state.counters);
    auto* minmax = reinterpret_cast<unsigned*>(state.counters + 8);
    KernelAbiOut abiOut{out,
                        outOfBounds,
                        ownerBytes ? reinterpret_cast<std::uint32_t*>(state.owners) : nullptr,
                        layout.pitch,
                        args.mesh.nx,
                        args.mesh.ny,
                        unsigned(cuda.info().smCount)};
    KernelAbiMesh mesh = abiMesh(args.mesh);
    KernelAbiRefs refs = abiRefs(args.mesh);
    float noParams = 0.0f;
    void* params = args.values.empty() ? static_cast<void*>(&noParams)
                                       : const_cast<float*>(args.values.data());
    void* kernelArgs[] = {&abiOut, &mesh, &refs, params};
    const LaunchConfig launch = userKernelLaunch(gpu.source.shape, args);
    WS_CU_TRY(d.memsetD8(state.counters, 0, 8));
    // The stream is idle here (each run waits for its end), so the base event completes
    // within the microseconds it takes to submit: its host time places the kernel in the
    // timeline without waiting for anything.
    state.baseUs = timelineNowUs;
    WS_CU_TRY(d.eventRecord(state.base, state.stream));
    WS_CU_TRY(d.eventRecord(state.start, state.stream));
    WS_CU_TRY(d.launchKernel(state.entry, unsigned(launch.grid.x), unsigned(launch.grid.y),
                             unsigned(launch.grid.z), unsigned(launch.block.x),
                             unsigned(launch.block.y), unsigned(launch.block.z), 0, state.stream,
                             kernelArgs, nullptr));
    WS_CU_TRY(d.eventRecord(state.stop, state.stream));
    void* initArgs[] = {&minmax};
    WS_CU_TRY(
        d.launchKernel(state.statsInit, 1, 1, 1, 1, 1, 1, 0, state.stream, initArgs, nullptr));
    const float* field = out;
    int pitch = layout.pitch, nx = args.mesh.nx, ny = args.mesh.ny;
    void* statsArgs[] = {&field, &pitch, &nx, &ny, &minmax};
    const long long nodes = (long long)nx * ny;
    const unsigned blocks =
        unsigned(std::clamp<long long>((nodes + 255) / 256, 1, 8LL * cuda.info().smCount));
    WS_CU_TRY(
        d.launchKernel(state.stats, blocks, 1, 1, 256, 1, 1, 0, state.stream, statsArgs, nullptr));
    long long statsOffset = (long long)layout.statsOffset();
    void* finalArgs[] = {&out, &statsOffset, &minmax};
    WS_CU_TRY(
        d.launchKernel(state.statsFinal, 1, 1, 1, 1, 1, 1, 0, state.stream, finalArgs, nullptr));
    return Status::success();
}

// Waits for the kernel without blocking past the timeout.
Status waitFor(CUevent event, double timeoutMs)
{
    const Driver& d = driver();
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::duration<double, std::milli>(timeoutMs);
    while (true) {
        const CUresult result = d.eventQuery(event);
        if (result == CUDA_SUCCESS)
            return Status::success();
        if (result != CUDA_ERROR_NOT_READY) {
            const char* name = nullptr;
            const char* description = nullptr;
            d.errorName(result, &name);
            d.errorString(result, &description);
            return Status::failure(std::string("The kernel stopped with an error: ") +
                                   (description ? description : "unknown error") + " (" +
                                   (name ? name : "?") + ")" +
                                   ". Its CUDA context was reset; the picture keeps the last "
                                   "good run");
        }
        if (std::chrono::steady_clock::now() > deadline)
            return Status::failure("The kernel did not finish within " +
                                   std::to_string(int(timeoutMs)) +
                                   " ms and was stopped (its CUDA context was reset)");
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
}

Status runInContext(Context& context, UserKernelCudaState& state, CudaBacking& cuda,
                    const CompiledKernel& gpu, const KernelArgs& args, BufferView<float> out,
                    KernelRun& run)
{
    const Driver& d = driver();
    // The app's context (the runtime's, current after activate()) receives the results.
    CUcontext appContext = nullptr;
    WS_CU_TRY(d.ctxGetCurrent(&appContext));
    if (Status s = prepare(state, cuda.ordinal()); !s)
        return s;
    ContextScope scope(state.context);
    if (!scope.ok())
        return Status::failure("Could not make the kernel's CUDA context current");
    if (Status s = load(state, gpu); !s)
        return s;
    Timeline* timeline = context.timeline();
    if (Status s = queue(state, cuda, gpu, args, timeline ? timeline->nowUs() : 0.0); !s)
        return s;
    if (Status s = waitFor(state.stop, args.timeoutMs); !s)
        return s;
    WS_CU_TRY(d.streamSynchronize(state.stream));
    unsigned long long counters[2] = {};
    WS_CU_TRY(d.memcpyDtoH(counters, state.counters, sizeof counters));
    const FieldLayout layout = layoutFor(args.mesh);
    const std::size_t bytes = layout.elementCount() * sizeof(float);
    if (out.space == MemorySpace::Host)
        WS_CU_TRY(d.memcpyDtoH(out.data, state.field, bytes));
    else
        WS_CU_TRY(d.memcpyPeer(reinterpret_cast<CUdeviceptr>(out.data), appContext, state.field,
                               state.context, bytes));
    if (args.owners.data) {
        const std::size_t ownerBytes =
            2 * std::size_t(args.mesh.nx) * args.mesh.ny * sizeof(std::uint32_t);
        if (args.owners.space == MemorySpace::Host)
            WS_CU_TRY(d.memcpyDtoH(args.owners.data, state.owners, ownerBytes));
        else
            WS_CU_TRY(d.memcpyPeer(reinterpret_cast<CUdeviceptr>(args.owners.data), appContext,
                                   state.owners, state.context, ownerBytes));
    }
    float ms = 0.0f;
    WS_CU_TRY(d.eventElapsedTime(&ms, state.start, state.stop));
    run.kernelMs = ms;
    if (timeline) {
        float toStart = 0.0f, toStop = 0.0f;
        WS_CU_TRY(d.eventElapsedTime(&toStart, state.base, state.start));
        WS_CU_TRY(d.eventElapsedTime(&toStop, state.base, state.stop));
        recordUserKernelSpan(
            context, timeline->lane("CUDA user kernel (" + context.role() + ")"), SpanKind::Kernel,
            gpu.source.shape == KernelShape::PerNode ? "user kernel (per node)" : "user kernel",
            userKernelLaunch(gpu.source.shape, args), state.baseUs + 1000.0 * toStart,
            state.baseUs + 1000.0 * toStop);
    }
    run.outOfBoundsWrites = (long long)counters[0];
    const unsigned lo = unsigned(counters[1]), hi = unsigned(counters[1] >> 32);
    if (lo <= hi)
        run.stats = {unorderedFloat(lo), unorderedFloat(hi)};
    return Status::success();
}

} // namespace

Status runUserKernelCuda(Context& context, const CompiledKernel& gpu, const KernelArgs& args,
                         BufferView<float> out, KernelRun& run)
{
    CudaBacking& cuda = cudaBacking(context);
    if (Status s = cuda.activate(); !s)
        return s;
    if (!driver().loaded)
        return driver().loaded;
    const DeviceInfo& info = cuda.info();
    if (gpu.options.smMajor != info.ccMajor || gpu.options.smMinor != info.ccMinor)
        return Status::failure("The kernel was compiled for sm_" +
                               std::to_string(gpu.options.smMajor) +
                               std::to_string(gpu.options.smMinor) + "; " + info.name + " is sm_" +
                               std::to_string(info.ccMajor) + std::to_string(info.ccMinor));
    // The output must be complete in the app's context before the kernel's copies into it.
    WS_CUDA_TRY(cudaStreamSynchronize(cuda.stream()));
    UserKernelCudaState& state = context.state<UserKernelCudaState>();
    const Status status = runInContext(context, state, cuda, gpu, args, out, run);
    if (!status) {
        // Whatever failed, the kernel's context may be unusable: the next run makes a new one.
        state.reset();
        return status;
    }
    if (run.outOfBoundsWrites > 0)
        return outOfBoundsStatus(run.outOfBoundsWrites, args.mesh);
    return Status::success();
}

KernelUsage driverUsage(const CompiledKernel& built)
{
    const Driver& d = driver();
    int count = 0;
    if (!d.loaded || built.cubin.empty() || built.entry.empty() ||
        cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError(); // no device is no error here
        return {};
    }
    for (int device = 0; device < count; ++device) {
        int major = 0, minor = 0;
        if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) !=
                cudaSuccess ||
            cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) !=
                cudaSuccess) {
            cudaGetLastError();
            continue;
        }
        if (major != built.options.smMajor || minor != built.options.smMinor)
            continue;
        // The device's primary context, which the app's own work uses anyway: loading a module
        // there costs far less than creating a context for it.
        int previous = 0;
        cudaGetDevice(&previous);
        KernelUsage usage;
        if (cudaSetDevice(device) == cudaSuccess && cudaFree(nullptr) == cudaSuccess) {
            CUmodule module = nullptr;
            if (d.moduleLoad(&module, built.cubin.data()) == CUDA_SUCCESS) {
                CUfunction function = nullptr;
                int registers = 0, local = 0, shared = 0, constant = 0;
                if (d.moduleGetFunction(&function, module, built.entry.c_str()) == CUDA_SUCCESS &&
                    d.funcGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, function) ==
                        CUDA_SUCCESS &&
                    d.funcGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, function) ==
                        CUDA_SUCCESS &&
                    d.funcGetAttribute(&shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function) ==
                        CUDA_SUCCESS &&
                    d.funcGetAttribute(&constant, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, function) ==
                        CUDA_SUCCESS) {
                    usage.known = true;
                    usage.registers = registers;
                    usage.stackBytes = local;
                    usage.sharedBytes = shared;
                    usage.constantBytes = constant;
                }
                d.moduleUnload(module);
            }
        }
        cudaGetLastError();
        cudaSetDevice(previous);
        return usage;
    }
    return {};
}

} // namespace warpscope::gpu
