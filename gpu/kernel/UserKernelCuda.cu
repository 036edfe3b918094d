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

// The PCI bus id of the context's GPU, which the runner opens (empty where it cannot be read:
// the runner then says it has no GPU at the first run).
std::string busIdOf(Context& context)
{
    char busId[32] = {};
    if (cudaDeviceGetPCIBusId(busId, sizeof busId, cudaBacking(context).ordinal()) != cudaSuccess) {
        cudaGetLastError();
        return {};
    }
    return busId;
}

struct UserKernelCudaState : SliceState
{
    explicit UserKernelCudaState(Context& context) : runner(busIdOf(context)) {}

    KernelRunner runner;
    CudaBuffer staging{"the user kernel's output", false};
    // The staging memory the IPC handle names. Its size too: a grown allocation may come back
    // at the same address, and the runner must then open the new one, not keep the old.
    void* exported = nullptr;
    std::size_t exportedBytes = 0;
    std::array<char, 64> handle{};
    std::uint64_t generation = 0;
    bool ipcRefused = false;
    SharedOutput host; // where IPC is refused
};

// Exports the staging memory for the runner; false where the driver refuses IPC.
bool exportStaging(UserKernelCudaState& state)
{
    if (state.exported == state.staging.get() && state.exportedBytes == state.staging.bytes())
        return true;
    cudaIpcMemHandle_t handle;
    if (cudaIpcGetMemHandle(&handle, state.staging.get()) != cudaSuccess) {
        cudaGetLastError(); // not sticky: the shared host memory is used instead
        return false;
    }
    std::memcpy(state.handle.data(), &handle, sizeof handle);
    state.exported = state.staging.get();
    state.exportedBytes = state.staging.bytes();
    ++state.generation;
    return true;
}

char* sharedOutput(UserKernelCudaState& state)
{
    return state.ipcRefused ? static_cast<char*>(state.host.data()) : state.staging.as<char>();
}

} // namespace

std::string cudaRunnerBusId(Context& context)
{
    return context.isCuda() ? busIdOf(context) : std::string();
}

KernelRunner& cudaKernelRunner(Context& context)
{
    return context.state<UserKernelCudaState>().runner;
}

Status prepareUserKernelCuda(Context& context, const CompiledKernel& gpu, BufferView<float> seed,
                             RunnerRequest& request, int& outputFd)
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
    outputFd = state.host.fd();
    // Nodes the kernel does not write keep their values.
    if (seed.data)
        WS_CUDA_TRY(cudaMemcpyAsync(sharedOutput(state), seed.data,
                                    request.elementCount * sizeof(float), cudaMemcpyDefault,
                                    cuda.stream()));
    // The app's stream must be idle while the runner's kernel runs: on the H100s, a run sent
    // with the app's last unmap and GL hand-over still queued (or with a GL buffer mapped)
    // never finished (measured with the slider's benchmark).
    WS_CUDA_TRY(cudaStreamSynchronize(cuda.stream()));
    return Status::success();
}

Status finishUserKernelCuda(Context& context, const PendingUserKernel& pending,
                            BufferView<float> out, BufferView<std::uint32_t> owners)
{
    CudaBacking& cuda = cudaBacking(context);
    if (Status s = cuda.activate(); !s)
        return s;
    UserKernelCudaState& state = context.state<UserKernelCudaState>();
    const char* source = sharedOutput(state);
    const FieldLayout layout = layoutFor(pending.mesh);
    WS_CUDA_TRY(cudaMemcpyAsync(out.data, source, layout.elementCount() * sizeof(float),
                                cudaMemcpyDefault, cuda.stream()));
    if (pending.withOwners)
        WS_CUDA_TRY(cudaMemcpyAsync(owners.data, source + runnerOwnersOffset(layout.elementCount()),
                                    2 * std::size_t(pending.mesh.nx) * pending.mesh.ny *
                                        sizeof(std::uint32_t),
                                    cudaMemcpyDefault, cuda.stream()));
    WS_CUDA_TRY(cudaStreamSynchronize(cuda.stream()));
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
