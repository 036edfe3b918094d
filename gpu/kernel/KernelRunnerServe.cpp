// The runner's side: reads requests, runs users' kernels, answers. What the kernel does to this
// process (a crash, a poisoned CUDA context, a loop that never ends) costs this process only;
// the app sees the socket close or the deadline pass and says why.
#include "kernel/BlockFibers.h"
#include "kernel/KernelRunner.h"
#include "kernel/RunnerSandbox.h"
#include "runtime/ThreadPool.h"
#include "warpscope/gpu/LaunchLesson.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <limits>
#include <link.h>
#include <map>
#include <memory>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

namespace warpscope::gpu {
namespace {

using RunBlocks = void (*)(const KernelAbiLaunch*, long long first, long long last);

// The Host output, mapped once per generation.
class MappedOutput
{
public:
    ~MappedOutput() { unmap(); }
    // Maps fd (a new generation's) or keeps the mapping of the current one.
    bool update(const RunnerOutput& output, int fd)
    {
        if (fd >= 0) {
            unmap();
            void* data = ::mmap(nullptr, output.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            ::close(fd);
            if (data == MAP_FAILED)
                return false;
            m_data = data;
            m_bytes = output.bytes;
            m_generation = output.generation;
        }
        return m_data && m_generation == output.generation && m_bytes == output.bytes;
    }
    void* data() const { return m_data; }

private:
    void unmap()
    {
        if (m_data)
            ::munmap(m_data, m_bytes);
        m_data = nullptr;
        m_bytes = 0;
        m_generation = 0;
    }
    void* m_data = nullptr;
    std::size_t m_bytes = 0;
    std::uint64_t m_generation = 0;
};

RunnerReply failed(std::string message)
{
    RunnerReply reply;
    reply.message = std::move(message);
    return reply;
}

// A run's @buffer memory on the CPU: one anonymous mapping, zero when made, each buffer at a
// 256-byte boundary.
class RunnerBuffers
{
public:
    RunnerBuffers() = default;
    RunnerBuffers(const RunnerBuffers&) = delete;
    RunnerBuffers& operator=(const RunnerBuffers&) = delete;
    ~RunnerBuffers()
    {
        if (m_data)
            ::munmap(m_data, m_bytes);
    }
    bool allocate(const std::vector<RunnerBuffer>& buffers)
    {
        m_bytes = 0;
        for (const RunnerBuffer& b : buffers)
            m_bytes += (b.count * b.elementBytes + 255) / 256 * 256;
        if (m_bytes == 0)
            return true;
        void* data = ::mmap(nullptr, m_bytes, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (data == MAP_FAILED)
            return false;
        m_data = static_cast<unsigned char*>(data);
        return true;
    }
    void fill(const std::vector<RunnerBuffer>& buffers, std::string& params,
              unsigned long long* outOfBounds) const
    {
        std::uint64_t at = 0;
        for (const RunnerBuffer& b : buffers) {
            const KernelAbiBuffer member{m_data + at, (long long)b.count, outOfBounds};
            std::memcpy(params.data() + b.offset, &member, sizeof member);
            at += (b.count * b.elementBytes + 255) / 256 * 256;
        }
    }
    const void* data() const { return m_data; }
    std::uint64_t bytes() const { return m_bytes; }

private:
    unsigned char* m_data = nullptr;
    std::uint64_t m_bytes = 0;
};

class CpuRunner
{
public:
    RunnerReply run(const RunnerRequest& request, void* output)
    {
        if (request.sharedBytes > kSimulatorMaxDynamicShared)
            return failed("The launch asks for " + std::to_string(request.sharedBytes) +
                          " bytes of dynamic shared memory; a block has at most " +
                          std::to_string(kSimulatorMaxDynamicShared) + " (227 KiB)");
        const Library* library = load(request.program);
        if (!library)
            return failed(m_loadError);
        const RunBlocks runBlocks = library->run;
        if (!m_pool || m_pool->size() != std::max(1u, request.threads))
            m_pool = std::make_unique<ThreadPool>(std::max(1u, request.threads));
        auto* out = static_cast<float*>(output);
        std::uint32_t* owners =
            request.withOwners
                ? reinterpret_cast<std::uint32_t*>(static_cast<char*>(output) +
                                                   runnerOwnersOffset(request.elementCount))
                : nullptr;
        FieldLayout layout;
        layout.nx = request.nx;
        layout.ny = request.ny;
        layout.pitch = request.pitch;
        if (owners) {
            // As the teaching kernel leaves them: nodes no thread writes are NaN and uncovered.
            std::fill(out, out + request.statsOffset, std::numeric_limits<float>::quiet_NaN());
            std::fill(owners, owners + 2 * std::size_t(request.nx) * request.ny, kUncovered);
        }
        unsigned long long outOfBounds = 0;
        KernelAbiLaunch abi{};
        abi.out = {out,
                   &outOfBounds,
                   owners,
                   request.pitch,
                   request.nx,
                   request.ny,
                   std::max(1u, request.smCount)};
        abi.mesh = request.mesh;
        abi.refs = request.refs;
        // The buffers' memory, zero, and their members of Params pointing at it.
        std::string params = request.params;
        RunnerBuffers buffers;
        if (!buffers.allocate(request.buffers))
            return failed("The run's @buffer memory (" + std::to_string(buffers.bytes() >> 20) +
                          " MiB) could not be had");
        unsigned long long bufferOutOfBounds = 0;
        buffers.fill(request.buffers, params, &bufferOutOfBounds);
        abi.params = params.data();
        std::copy(std::begin(request.grid), std::end(request.grid), abi.grid);
        std::copy(std::begin(request.block), std::end(request.block), abi.block);
        SimulatedRun simulated;
        abi.runtime = simulated.runtime();
        abi.dynamicSharedBytes = request.sharedBytes;
        simulated.setDynamicSharedBytes(request.sharedBytes);
        // The kernel's global memory is its field (the teaching record and the counter of
        // refused writes are the wrapper's, not the kernel's).
        if (request.recordMemory)
            simulated.recordMemory(request.grid, request.block,
                                   {{out, request.statsOffset * sizeof(float)},
                                    {buffers.data(), buffers.bytes()},
                                    {library->dataLo, library->dataSpan}});
        const auto start = std::chrono::steady_clock::now();
        const std::size_t blocks = std::size_t(request.grid[0]) * request.grid[1] * request.grid[2];
        m_pool->parallelFor(blocks, [&](std::size_t first, std::size_t last, unsigned) {
            runBlocks(&abi, (long long)first, (long long)last);
        });
        // A line without its newline is still the run's (the app reads them after the reply).
        std::fflush(stdout);
        RunnerReply reply;
        reply.printLines = simulated.takePrintLines(reply.printLinesDropped);
        reply.findings = simulated.takeFindings();
        reply.memory = simulated.takeMemoryReport();
        if (simulated.failed()) {
            reply.message = simulated.message();
            return reply;
        }
        reply.ok = true;
        reply.kernelMs =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        reply.outOfBounds = __atomic_load_n(&outOfBounds, __ATOMIC_RELAXED);
        reply.bufferOutOfBounds = __atomic_load_n(&bufferOutOfBounds, __ATOMIC_RELAXED);
        const FieldStats stats = writeFieldStats(layout, out, owners);
        reply.lo = float(stats.min);
        reply.hi = float(stats.max);
        reply.nonFinite = std::uint64_t(stats.nonFinite);
        return reply;
    }

private:
    // A loaded simulator library: its entry, and its writable data (the kernel's __device__
    // variables, global memory to the record of memory).
    struct Library
    {
        RunBlocks run = nullptr;
        const void* dataLo = nullptr;
        std::uint64_t dataSpan = 0;
    };

    const Library* load(const std::string& path)
    {
        if (auto found = m_loaded.find(path); found != m_loaded.end())
            return &found->second;
        void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            const char* error = ::dlerror();
            m_loadError =
                "Could not load the simulator's library: " + std::string(error ? error : path);
            return nullptr;
        }
        Library library;
        library.run = reinterpret_cast<RunBlocks>(::dlsym(handle, "ws_run_blocks"));
        if (!library.run) {
            m_loadError = "The simulator's library has no entry ws_run_blocks";
            return nullptr;
        }
        writableData(reinterpret_cast<const void*>(library.run), library);
        // Libraries stay loaded for the runner's life: a kernel is a few kB, and the runner
        // is restarted whenever a run fails.
        return &m_loaded.emplace(path, library).first->second;
    }

    // The span of the writable segments of the object that holds code.
    static void writableData(const void* code, Library& library)
    {
        Dl_info info{};
        if (::dladdr(code, &info) == 0 || !info.dli_fbase)
            return;
        struct Search
        {
            const void* base;
            std::uintptr_t lo = ~std::uintptr_t(0), hi = 0;
        } search{info.dli_fbase};
        ::dl_iterate_phdr(
            [](dl_phdr_info* object, std::size_t, void* data) {
                auto* s = static_cast<Search*>(data);
                if (reinterpret_cast<const void*>(object->dlpi_addr) != s->base)
                    return 0;
                for (int i = 0; i < object->dlpi_phnum; ++i) {
                    const ElfW(Phdr)& segment = object->dlpi_phdr[i];
                    if (segment.p_type != PT_LOAD || !(segment.p_flags & PF_W))
                        continue;
                    const std::uintptr_t at = object->dlpi_addr + segment.p_vaddr;
                    s->lo = std::min(s->lo, at);
                    s->hi = std::max(s->hi, at + segment.p_memsz);
                }
                return 1;
            },
            &search);
        if (search.hi > search.lo) {
            library.dataLo = reinterpret_cast<const void*>(search.lo);
            library.dataSpan = search.hi - search.lo;
        }
    }

    std::map<std::string, Library> m_loaded;
    std::string m_loadError;
    std::unique_ptr<ThreadPool> m_pool;
};

bool validRequest(const RunnerRequest& r)
{
    if (!runnerBuffersProblem(r).empty())
        return false;
    if (r.nx <= 0 || r.ny <= 0 || r.pitch < r.nx ||
        r.statsOffset != std::uint64_t(r.pitch) * std::uint64_t(r.ny) ||
        r.elementCount != r.statsOffset + 2)
        return false;
    return r.output.bytes >= runnerOutputBytes(r);
}

// Whether this process has used the CPU time after which it retires (kRunnerRetireCpuSeconds).
bool timeToRetire()
{
    rusage usage{};
    if (::getrusage(RUSAGE_SELF, &usage) != 0)
        return false;
    const auto seconds = [](const timeval& t) { return double(t.tv_sec) + 1e-6 * t.tv_usec; };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime) > kRunnerRetireCpuSeconds;
}

} // namespace

int serveKernelRuns(int socket, const std::string& cudaBusId,
                    const std::function<Status(std::string&)>& confine)
{
    RunnerReply ready;
    ready.ok = true;
    if (!cudaBusId.empty())
        if (Status s = openRunnerCuda(cudaBusId); !s) {
            ready.ok = false;
            ready.message = s.message();
        }
    if (ready.ok && confine)
        if (Status s = confine(ready.message); !s) {
            ready.ok = false;
            ready.message =
                "it could not confine itself, so it runs no kernel (" + s.message() + ")";
        }
    if (!sendReply(socket, ready) || !ready.ok)
        return 1;
    MappedOutput mapped;
    CpuRunner cpu;
    while (true) {
        RunnerRequest request;
        int fd = -1;
        if (!receiveRequest(socket, request, fd))
            return 0; // the app closed the socket (or broke it): nothing more to do
        RunnerReply reply;
        const bool host = request.output.kind == RunnerOutput::Kind::Host;
        if (!host && fd >= 0)
            ::close(fd); // only a Host output comes with memory to map
        if (!validRequest(request))
            reply = failed("The kernel runner received a malformed request");
        else if (host && !mapped.update(request.output, fd))
            reply = failed("The kernel runner could not map the output memory");
        else if (request.target == RunnerTarget::Cpu && !host)
            reply = failed("The CPU simulator writes host memory only");
        else if (request.target == RunnerTarget::Cpu && !cudaBusId.empty())
            reply = failed("A GPU's kernel runner does not load the CPU simulator's libraries");
        else if (request.target == RunnerTarget::Cpu)
            reply = cpu.run(request, mapped.data());
        else if (cudaBusId.empty())
            reply = failed("The kernel runner was started without a GPU");
        else
            reply = runOnRunnerCuda(request, host ? mapped.data() : nullptr);
        if (timeToRetire())
            reply.runnerEnds = true;
        if (!sendReply(socket, reply))
            return 0;
        if (reply.runnerEnds)
            return 3; // the app starts a new runner for the next run
    }
}

} // namespace warpscope::gpu
