// The runner's GPU side: one CUDA context (the device's primary one, in this process of its
// own), the loaded CUBIN, and the launch of the user's kernel with the wrapper's figures
// kernels after it. A fault or a trap leaves the context unusable: the reply says so and the
// runner ends, so the driver frees everything with the process.
#include "kernel/CudaDriver.h"
#include "kernel/KernelRunner.h"
#include "runtime/CudaCheck.h"
#include "runtime/CudaEvent.h"
#include "runtime/CudaStream.h"

#include <algorithm>
#include <cstring>

namespace warpscope::gpu {
namespace {

struct RunnerCuda
{
    CudaStream stream;
    CudaEvent base, start, stop;
    // [0, 8): out-of-bounds writes; [8, 16): min/max as ordered bits; [16, 24): the nodes
    // that are not finite; [24, 32): accesses of @buffers outside them
    unsigned long long* counters = nullptr;
    CUmodule module = nullptr;
    std::string loadedProgram, loadedEntry; // compared whole: cheaper than hashing every run
    CUfunction entry = nullptr, statsInit = nullptr, stats = nullptr, statsFinal = nullptr;
    // The output: the app's memory opened through IPC, or this process's own when the results
    // go back through host memory.
    std::array<char, 64> openedHandle{};
    std::uint64_t openedGeneration = 0;
    void* opened = nullptr;
    void* own = nullptr;
    std::size_t ownBytes = 0;
    // The runs' @buffer memory, kept and grown as runs need more.
    char* buffers = nullptr;
    std::size_t bufferBytes = 0;
};

RunnerCuda& runner()
{
    // Never destroyed: the process's end frees its stream and events, also after a fault has
    // lost the context.
    static RunnerCuda& state = *new RunnerCuda;
    return state;
}

Status load(RunnerCuda& r, const RunnerRequest& request)
{
    if (r.module && r.loadedProgram == request.program && r.loadedEntry == request.entry)
        return Status::success();
    const CudaDriver& d = cudaDriver();
    if (r.module)
        d.moduleUnload(r.module);
    r.module = nullptr;
    r.loadedProgram.clear();
    WS_CU_TRY(d.moduleLoad(&r.module, request.program.data()));
    WS_CU_TRY(d.moduleGetFunction(&r.entry, r.module, request.entry.c_str()));
    WS_CU_TRY(d.moduleGetFunction(&r.statsInit, r.module, "ws_stats_init"));
    WS_CU_TRY(d.moduleGetFunction(&r.stats, r.module, "ws_stats"));
    WS_CU_TRY(d.moduleGetFunction(&r.statsFinal, r.module, "ws_stats_final"));
    r.loadedProgram = request.program;
    r.loadedEntry = request.entry;
    return Status::success();
}

// The device memory the kernel writes.
Status outputMemory(RunnerCuda& r, const RunnerRequest& request, bool host, char*& out)
{
    if (!host) {
        if (!r.opened || r.openedHandle != request.output.ipcHandle ||
            r.openedGeneration != request.output.generation) {
            if (r.opened)
                cudaIpcCloseMemHandle(r.opened);
            r.opened = nullptr;
            cudaIpcMemHandle_t handle;
            std::memcpy(&handle, request.output.ipcHandle.data(), sizeof handle);
            WS_CUDA_TRY(cudaIpcOpenMemHandle(&r.opened, handle, cudaIpcMemLazyEnablePeerAccess));
            r.openedHandle = request.output.ipcHandle;
            r.openedGeneration = request.output.generation;
        }
        out = static_cast<char*>(r.opened);
        return Status::success();
    }
    if (r.ownBytes < request.output.bytes) {
        if (r.own)
            cudaFree(r.own);
        r.own = nullptr;
        r.ownBytes = 0;
        WS_CUDA_TRY(cudaMalloc(&r.own, request.output.bytes));
        r.ownBytes = request.output.bytes;
    }
    out = static_cast<char*>(r.own);
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

// The run's @buffer memory, zeroed on the stream, and the buffers' members of params pointing
// at it (each at a 256-byte boundary).
Status placeBuffers(RunnerCuda& r, const std::vector<RunnerBuffer>& buffers, std::string& params)
{
    std::size_t bytes = 0;
    for (const RunnerBuffer& b : buffers)
        bytes += (b.count * b.elementBytes + 255) / 256 * 256;
    if (bytes == 0)
        return Status::success();
    if (bytes > r.bufferBytes) {
        if (r.buffers)
            WS_CUDA_TRY(cudaFree(r.buffers));
        r.buffers = nullptr;
        r.bufferBytes = 0;
        WS_CUDA_TRY(cudaMalloc(&r.buffers, bytes));
        r.bufferBytes = bytes;
    }
    WS_CUDA_TRY(cudaMemsetAsync(r.buffers, 0, bytes, r.stream));
    std::size_t at = 0;
    for (const RunnerBuffer& b : buffers) {
        const KernelAbiBuffer member{r.buffers + at, (long long)b.count, r.counters + 3};
        std::memcpy(params.data() + b.offset, &member, sizeof member);
        at += (b.count * b.elementBytes + 255) / 256 * 256;
    }
    return Status::success();
}

Status queue(RunnerCuda& r, const RunnerRequest& request, char* output)
{
    const CudaDriver& d = cudaDriver();
    auto* out = reinterpret_cast<float*>(output);
    auto* owners =
        request.withOwners
            ? reinterpret_cast<std::uint32_t*>(output + runnerOwnersOffset(request.elementCount))
            : nullptr;
    if (owners) {
        // As the teaching kernel leaves them: nodes no thread writes are NaN (all bits set)
        // and uncovered.
        WS_CUDA_TRY(cudaMemsetAsync(out, 0xff, request.statsOffset * sizeof(float), r.stream));
        WS_CUDA_TRY(cudaMemsetAsync(
            owners, 0xff, 2 * std::size_t(request.nx) * request.ny * sizeof(std::uint32_t),
            r.stream));
    }
    unsigned long long* outOfBounds = r.counters;
    auto* minmax = reinterpret_cast<unsigned*>(r.counters + 1);
    unsigned long long* nonFinite = r.counters + 2;
    KernelAbiOut abiOut{out,        outOfBounds, owners,         request.pitch,
                        request.nx, request.ny,  request.smCount};
    KernelAbiMesh mesh = request.mesh;
    KernelAbiRefs refs = request.refs;
    std::string paramBytes = request.params; // the Params struct's bytes
    if (Status s = placeBuffers(r, request.buffers, paramBytes); !s)
        return s;
    void* params = paramBytes.data();
    void* kernelArgs[] = {&abiOut, &mesh, &refs, params};
    // Past 48 KiB a kernel must opt in to dynamic shared memory (up to the device's 227 KiB
    // on Hopper); the launch then fails only where the device has less.
    constexpr unsigned long long kDefaultDynamicShared = 48u << 10;
    if (request.sharedBytes > kDefaultDynamicShared)
        WS_CU_TRY(d.funcSetAttribute(r.entry, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                     int(request.sharedBytes)));
    WS_CUDA_TRY(cudaMemsetAsync(r.counters, 0, 4 * sizeof(unsigned long long), r.stream));
    WS_CUDA_TRY(cudaEventRecord(r.start, r.stream));
    WS_CU_TRY(d.launchKernel(r.entry, request.grid[0], request.grid[1], request.grid[2],
                             request.block[0], request.block[1], request.block[2],
                             unsigned(request.sharedBytes), r.stream, kernelArgs, nullptr));
    WS_CUDA_TRY(cudaEventRecord(r.stop, r.stream));
    void* initArgs[] = {&minmax, &nonFinite};
    WS_CU_TRY(d.launchKernel(r.statsInit, 1, 1, 1, 1, 1, 1, 0, r.stream, initArgs, nullptr));
    const float* field = out;
    const std::uint32_t* ownerWords = owners;
    int pitch = request.pitch, nx = request.nx, ny = request.ny;
    void* statsArgs[] = {&field, &pitch, &nx, &ny, &ownerWords, &minmax, &nonFinite};
    const long long nodes = (long long)nx * ny;
    const unsigned blocks =
        unsigned(std::clamp<long long>((nodes + 255) / 256, 1, 8LL * request.smCount));
    WS_CU_TRY(d.launchKernel(r.stats, blocks, 1, 1, 256, 1, 1, 0, r.stream, statsArgs, nullptr));
    long long statsOffset = (long long)request.statsOffset;
    void* finalArgs[] = {&out, &statsOffset, &minmax};
    WS_CU_TRY(d.launchKernel(r.statsFinal, 1, 1, 1, 1, 1, 1, 0, r.stream, finalArgs, nullptr));
    return Status::success();
}

// The fault a kernel's error stands for, in words.
std::string faultName(cudaError_t error)
{
    switch (error) {
    case cudaErrorIllegalAddress:
        return "an illegal address: a load or store outside any allocation";
    case cudaErrorMisalignedAddress:
        return "a misaligned address: a load or store not aligned to its size";
    case cudaErrorIllegalInstruction:
        return "an illegal instruction";
    case cudaErrorInvalidPc:
        return "a jump to an invalid address";
    case cudaErrorHardwareStackError:
        return "a stack error: too deep a recursion or a corrupted stack";
    case cudaErrorAssert:
        return "a failed assert";
    case cudaErrorLaunchFailure:
        return "a trap or an exception the GPU does not name (__trap, asm trap, a breakpoint)";
    default:
        return "an error";
    }
}

// A run's failure: before the kernel ran (the context is fine) or after (it may not be).
RunnerReply failure(const Status& status, bool contextLost)
{
    RunnerReply reply;
    reply.message = status.message();
    reply.runnerEnds = contextLost;
    return reply;
}

} // namespace

Status openRunnerCuda(const std::string& busId)
{
    if (!cudaDriver().loaded)
        return cudaDriver().loaded;
    int ordinal = -1;
    WS_CUDA_TRY(cudaDeviceGetByPCIBusId(&ordinal, busId.c_str()));
    WS_CUDA_TRY(cudaSetDevice(ordinal));
    RunnerCuda& r = runner();
    WS_CUDA_TRY(r.stream.create());
    WS_CUDA_TRY(r.base.create());
    WS_CUDA_TRY(r.start.create());
    WS_CUDA_TRY(r.stop.create());
    WS_CUDA_TRY(cudaMalloc(&r.counters, 4 * sizeof(unsigned long long)));
    return Status::success();
}

RunnerReply runOnRunnerCuda(const RunnerRequest& request, void* hostOutput)
{
    RunnerCuda& r = runner();
    // The request's arrival, as the times in the reply count from it.
    if (Status s = cudaStatus(cudaEventRecord(r.base, r.stream), "Timing the kernel"); !s)
        return failure(s, true);
    if (Status s = load(r, request); !s)
        return failure(s, false);
    char* output = nullptr;
    if (Status s = outputMemory(r, request, hostOutput != nullptr, output); !s)
        return failure(s, false);
    if (Status s = queue(r, request, output); !s)
        return failure(s, true);
    if (const cudaError_t e = cudaStreamSynchronize(r.stream); e != cudaSuccess)
        return failure(Status::failure("The kernel stopped with " + faultName(e) + " (" +
                                       cudaGetErrorString(e) + ", " + cudaGetErrorName(e) +
                                       "). It ran in a process of its own, which was ended; "
                                       "the picture keeps the last good run"),
                       true);
    RunnerReply reply;
    unsigned long long counters[4] = {};
    float startMs = 0.0f, stopMs = 0.0f, kernelMs = 0.0f;
    Status copied =
        cudaStatus(cudaMemcpy(counters, r.counters, sizeof counters, cudaMemcpyDeviceToHost),
                   "Reading the kernel's figures");
    if (copied && hostOutput)
        copied = cudaStatus(
            cudaMemcpy(hostOutput, output, runnerOutputBytes(request), cudaMemcpyDeviceToHost),
            "Copying the kernel's output");
    if (copied)
        copied = cudaStatus(cudaEventElapsedTime(&startMs, r.base, r.start), "Timing the kernel");
    if (copied)
        copied = cudaStatus(cudaEventElapsedTime(&stopMs, r.base, r.stop), "Timing the kernel");
    if (copied)
        copied = cudaStatus(cudaEventElapsedTime(&kernelMs, r.start, r.stop), "Timing the kernel");
    if (!copied)
        return failure(copied, true);
    reply.ok = true;
    reply.kernelMs = kernelMs;
    reply.startMs = startMs;
    reply.stopMs = stopMs;
    reply.outOfBounds = counters[0];
    reply.bufferOutOfBounds = counters[3];
    reply.nonFinite = counters[2];
    const unsigned lo = unsigned(counters[1]), hi = unsigned(counters[1] >> 32);
    if (lo <= hi) {
        reply.lo = unorderedFloat(lo);
        reply.hi = unorderedFloat(hi);
    }
    return reply;
}

} // namespace warpscope::gpu
