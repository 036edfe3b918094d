// The app's side of a GPU run of a user's kernel. The kernel runs in the kernel runner's
// process (KernelRunner.h), so a fault or an endless loop cannot reach the app's CUDA context.
// It writes device memory of the app's, which the runner opens through CUDA IPC; the app copies
// it into the output (a mapped GL buffer or host memory) on its own stream only when the run
// succeeded. Where IPC is refused, the runner copies its results into shared host memory.
#include "kernel/CudaDriver.h"
#include "kernel/KernelRunner.h"
#include "runtime/CudaContext.h"

#include <cstring>

namespace warpscope::gpu {
namespace {

struct UserKernelCudaState : SliceState
{
    std::unique_ptr<KernelRunner> runner;
    CudaBuffer staging{"the user kernel's output", false};
    void* exported = nullptr; // the staging memory the IPC handle names
    std::array<char, 64> handle{};
    std::uint64_t generation = 0;
    bool ipcRefused = false;
    SharedOutput host; // where IPC is refused
};

// Exports the staging memory for the runner; false where the driver refuses IPC.
bool exportStaging(UserKernelCudaState& state)
{
    if (state.exported == state.staging.get())
        return true;
    cudaIpcMemHandle_t handle;
    if (cudaIpcGetMemHandle(&handle, state.staging.get()) != cudaSuccess) {
        cudaGetLastError(); // not sticky: the shared host memory is used instead
        return false;
    }
    std::memcpy(state.handle.data(), &handle, sizeof handle);
    state.exported = state.staging.get();
    ++state.generation;
    return true;
}

// Copies a successful run's output (source: staging or shared host memory) into out and the
// owner record, on the app's stream.
Status copyOut(CudaBacking& cuda, const RunnerRequest& request, const char* source,
               BufferView<float> out, const KernelArgs& args)
{
    WS_CUDA_TRY(cudaMemcpyAsync(out.data, source, request.elementCount * sizeof(float),
                                cudaMemcpyDefault, cuda.stream()));
    if (request.withOwners)
        WS_CUDA_TRY(
            cudaMemcpyAsync(args.owners.data, source + runnerOwnersOffset(request.elementCount),
                            2 * std::size_t(request.nx) * request.ny * sizeof(std::uint32_t),
                            cudaMemcpyDefault, cuda.stream()));
    WS_CUDA_TRY(cudaStreamSynchronize(cuda.stream()));
    return Status::success();
}

// The context's runner, made for its GPU on first use.
Status runnerFor(Context& context, CudaBacking& cuda, UserKernelCudaState& state)
{
    if (state.runner)
        return Status::success();
    char busId[32] = {};
    WS_CUDA_TRY(cudaDeviceGetPCIBusId(busId, sizeof busId, cuda.ordinal()));
    state.runner = std::make_unique<KernelRunner>(busId);
    return Status::success();
}

} // namespace

Status prepareUserKernelsCuda(Context& context)
{
    CudaBacking& cuda = cudaBacking(context);
    UserKernelCudaState& state = context.state<UserKernelCudaState>();
    if (Status s = runnerFor(context, cuda, state); !s)
        return s;
    return state.runner->launch();
}

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
    if (Status s = runnerFor(context, cuda, state); !s)
        return s;
    RunnerRequest request = runnerRequest(args, userKernelLaunch(gpu.source.shape, args));
    request.target = RunnerTarget::Cuda;
    request.program.assign(gpu.cubin.begin(), gpu.cubin.end());
    request.entry = gpu.entry;
    request.smCount = std::uint32_t(info.smCount);
    const std::size_t bytes = runnerOutputBytes(request);
    if (!state.ipcRefused) {
        if (Status s = state.staging.grow(bytes, cuda.stream()); !s)
            return s;
        state.ipcRefused = !exportStaging(state);
    }
    if (state.ipcRefused) {
        if (Status s = state.host.reserve(bytes); !s)
            return s;
        request.output = state.host.descriptor();
    } else {
        request.output.kind = RunnerOutput::Kind::Device;
        request.output.generation = state.generation;
        request.output.bytes = state.staging.bytes();
        request.output.ipcHandle = state.handle;
    }
    // Nodes the kernel does not write keep their values, as if it wrote out itself. The copy
    // also orders the staging memory after the app's earlier work on it.
    char* staging =
        state.ipcRefused ? static_cast<char*>(state.host.data()) : state.staging.as<char>();
    WS_CUDA_TRY(cudaMemcpyAsync(staging, out.data, request.elementCount * sizeof(float),
                                cudaMemcpyDefault, cuda.stream()));
    WS_CUDA_TRY(cudaStreamSynchronize(cuda.stream()));
    Timeline* timeline = context.timeline();
    const double sentUs = timeline ? timeline->nowUs() : 0.0;
    RunnerReply reply;
    if (Status s = state.runner->run(request, state.host.fd(), args.timeoutMs, reply); !s)
        return s;
    if (!reply.ok)
        return Status::failure(reply.message);
    if (Status s = copyOut(cuda, request, staging, out, args); !s)
        return s;
    applyReply(reply, run);
    if (timeline)
        recordUserKernelSpan(
            context, timeline->lane("CUDA user kernel (" + context.role() + ")"), SpanKind::Kernel,
            gpu.source.shape == KernelShape::PerNode ? "user kernel (per node)" : "user kernel",
            run.launch, sentUs + 1000.0 * reply.startMs, sentUs + 1000.0 * reply.stopMs);
    if (run.outOfBoundsWrites > 0)
        return outOfBoundsStatus(run.outOfBoundsWrites, args.mesh);
    return Status::success();
}

KernelUsage driverUsage(const CompiledKernel& built)
{
    const CudaDriver& d = cudaDriver();
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
