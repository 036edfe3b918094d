// The GPU's run of a user's kernel: its CUBIN loaded as a library on the context's device,
// launched on the context's stream, then the field's figures; waited for with a timeout.
#include "kernel/KernelShared.h"
#include "runtime/CudaContext.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

namespace warpscope::gpu {
namespace {

// The loaded kernel and its buffers, kept in the context between frames.
struct UserKernelCudaState : SliceState
{
    ~UserKernelCudaState() override
    {
        unload();
        for (cudaEvent_t e : {start, stop})
            if (e)
                cudaEventDestroy(e);
    }
    void unload()
    {
        if (library)
            cudaLibraryUnload(library);
        library = nullptr;
        loadedKey.clear();
    }

    cudaLibrary_t library = nullptr;
    std::string loadedKey; // the CUBIN's hash and the entry loaded
    cudaKernel_t entry = nullptr, statsInit = nullptr, stats = nullptr, statsFinal = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr;
    // [0, 8): the out-of-bounds count; [8, 16): the min/max as ordered bits.
    CudaBuffer counters{"the kernel's counters", false};
    CudaBuffer field{"the kernel's field", false};
};

Status load(UserKernelCudaState& state, const CompiledKernel& gpu)
{
    const std::string key =
        hashHex(std::string_view(gpu.cubin.data(), gpu.cubin.size())) + " " + gpu.entry;
    if (state.library && state.loadedKey == key)
        return Status::success();
    state.unload();
    WS_CUDA_TRY(cudaLibraryLoadData(&state.library, gpu.cubin.data(), nullptr, nullptr, 0, nullptr,
                                    nullptr, 0));
    WS_CUDA_TRY(cudaLibraryGetKernel(&state.entry, state.library, gpu.entry.c_str()));
    WS_CUDA_TRY(cudaLibraryGetKernel(&state.statsInit, state.library, "ws_stats_init"));
    WS_CUDA_TRY(cudaLibraryGetKernel(&state.stats, state.library, "ws_stats"));
    WS_CUDA_TRY(cudaLibraryGetKernel(&state.statsFinal, state.library, "ws_stats_final"));
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

dim3 toDim3(const Dim3& d)
{
    return dim3(unsigned(d.x), unsigned(d.y), unsigned(d.z));
}

std::string launchText(const LaunchConfig& launch)
{
    auto text = [](const Dim3& d) {
        return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z);
    };
    return "grid " + text(launch.grid) + ", block " + text(launch.block);
}

// Queues the kernel and the figures' kernels into out (device memory).
Status queue(UserKernelCudaState& state, CudaBacking& cuda, const CompiledKernel& gpu,
             const KernelArgs& args, float* out)
{
    const cudaStream_t stream = cuda.stream();
    const FieldLayout layout = layoutFor(args.mesh);
    auto* outOfBounds = state.counters.as<unsigned long long>();
    auto* minmax = reinterpret_cast<unsigned*>(outOfBounds + 1);
    KernelAbiOut abiOut{out, outOfBounds, layout.pitch, args.mesh.nx, args.mesh.ny};
    KernelAbiMesh mesh = abiMesh(args.mesh);
    KernelAbiRefs refs = abiRefs(args.mesh);
    float noParams = 0.0f;
    void* params = args.values.empty() ? static_cast<void*>(&noParams)
                                       : const_cast<float*>(args.values.data());
    void* kernelArgs[] = {&abiOut, &mesh, &refs, params};
    const LaunchConfig launch = userKernelLaunch(gpu.source.shape, args);
    WS_CUDA_TRY(cudaMemsetAsync(outOfBounds, 0, sizeof(unsigned long long), stream));
    WS_CUDA_TRY(cudaEventRecord(state.start, stream));
    {
        const SpanScope span(cuda.recorder(), stream, cuda.streamLane(), SpanKind::Kernel,
                             "user kernel", 0,
                             cuda.recorder().recording() ? launchText(launch) : std::string());
        WS_CUDA_TRY(cudaLaunchKernel(reinterpret_cast<const void*>(state.entry),
                                     toDim3(launch.grid), toDim3(launch.block), kernelArgs, 0,
                                     stream));
    }
    WS_CUDA_TRY(cudaEventRecord(state.stop, stream));
    void* initArgs[] = {&minmax};
    WS_CUDA_TRY(cudaLaunchKernel(reinterpret_cast<const void*>(state.statsInit), dim3(1), dim3(1),
                                 initArgs, 0, stream));
    const float* field = out;
    int pitch = layout.pitch, nx = args.mesh.nx, ny = args.mesh.ny;
    void* statsArgs[] = {&field, &pitch, &nx, &ny, &minmax};
    const long long nodes = (long long)nx * ny;
    const unsigned blocks =
        unsigned(std::clamp<long long>((nodes + 255) / 256, 1, 8LL * cuda.info().smCount));
    WS_CUDA_TRY(cudaLaunchKernel(reinterpret_cast<const void*>(state.stats), dim3(blocks),
                                 dim3(256), statsArgs, 0, stream));
    long long statsOffset = (long long)layout.statsOffset();
    void* finalArgs[] = {&out, &statsOffset, &minmax};
    WS_CUDA_TRY(cudaLaunchKernel(reinterpret_cast<const void*>(state.statsFinal), dim3(1), dim3(1),
                                 finalArgs, 0, stream));
    return Status::success();
}

// Waits for the stream's last event without blocking past the timeout.
Status waitFor(cudaEvent_t event, double timeoutMs)
{
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::duration<double, std::milli>(timeoutMs);
    while (true) {
        const cudaError_t error = cudaEventQuery(event);
        if (error == cudaSuccess)
            return Status::success();
        if (error != cudaErrorNotReady)
            return Status::failure(std::string("The kernel stopped with an error: ") +
                                   cudaGetErrorString(error) + " (" + cudaGetErrorName(error) +
                                   ")");
        if (std::chrono::steady_clock::now() > deadline)
            return Status::failure("The kernel did not finish within " +
                                   std::to_string(int(timeoutMs)) + " ms");
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
}

} // namespace

Status runUserKernelCuda(Context& context, const CompiledKernel& gpu, const KernelArgs& args,
                         BufferView<float> out, KernelRun& run)
{
    CudaBacking& cuda = cudaBacking(context);
    if (Status s = cuda.activate(); !s)
        return s;
    const DeviceInfo& info = cuda.info();
    if (gpu.options.smMajor != info.ccMajor || gpu.options.smMinor != info.ccMinor)
        return Status::failure("The kernel was compiled for sm_" +
                               std::to_string(gpu.options.smMajor) +
                               std::to_string(gpu.options.smMinor) + "; " + info.name + " is sm_" +
                               std::to_string(info.ccMajor) + std::to_string(info.ccMinor));
    UserKernelCudaState& state = context.state<UserKernelCudaState>();
    const cudaStream_t stream = cuda.stream();
    if (!state.start) {
        WS_CUDA_TRY(cudaEventCreate(&state.start));
        WS_CUDA_TRY(cudaEventCreate(&state.stop));
    }
    if (Status s = load(state, gpu); !s)
        return s;
    if (Status s = state.counters.grow(16, stream); !s)
        return s;
    const FieldLayout layout = layoutFor(args.mesh);
    float* device = out.data;
    if (out.space == MemorySpace::Host) {
        if (Status s = state.field.grow(layout.elementCount() * sizeof(float), stream); !s)
            return s;
        device = state.field.as<float>();
    }
    if (Status s = queue(state, cuda, gpu, args, device); !s)
        return s;
    // Pageable copies would block past the timeout: they wait until the kernel has ended.
    if (Status s = waitFor(state.stop, args.timeoutMs); !s)
        return s;
    unsigned long long counters[2] = {};
    WS_CUDA_TRY(cudaMemcpyAsync(counters, state.counters.get(), sizeof counters,
                                cudaMemcpyDeviceToHost, stream));
    if (out.space == MemorySpace::Host)
        WS_CUDA_TRY(cudaMemcpyAsync(out.data, device, layout.elementCount() * sizeof(float),
                                    cudaMemcpyDeviceToHost, stream));
    WS_CUDA_TRY(cudaStreamSynchronize(stream));
    float ms = 0.0f;
    WS_CUDA_TRY(cudaEventElapsedTime(&ms, state.start, state.stop));
    run.kernelMs = ms;
    run.outOfBoundsWrites = (long long)counters[0];
    const unsigned lo = unsigned(counters[1]), hi = unsigned(counters[1] >> 32);
    if (lo <= hi)
        run.stats = {unorderedFloat(lo), unorderedFloat(hi)};
    if (run.outOfBoundsWrites > 0)
        return outOfBoundsStatus(run.outOfBoundsWrites, args.mesh);
    return Status::success();
}

} // namespace warpscope::gpu
