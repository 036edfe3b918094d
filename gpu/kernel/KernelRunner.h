#pragma once

// Users' kernels run in a process of their own, warpscope-kernel-runner, never in the app's.
// A fault in a CUDA context poisons every context of its process (they share one GPU address
// space), and a fault in the CPU simulator's library is a crash, so only a separate process
// contains them; a kernel that never ends is stopped by ending that process. The app keeps the
// output buffers and copies a run's results out only when the run succeeded, so the picture
// keeps the last good run whatever the kernel does.
//
// The app talks to the runner over a socket: one request, one reply. The output is shared,
// not sent: device memory the runner opens through CUDA IPC, or host memory (a memfd) both
// processes map.
#include "kernel/KernelShared.h"

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace warpscope::gpu {

enum class RunnerTarget : std::uint32_t
{
    Cpu = 1,  // the simulator's library, its blocks spread over threads
    Cuda = 2, // a CUBIN, launched in the runner's CUDA context
};

// Where a run's output lives, shared by the app and the runner: the field's values
// (elementCount floats) and, when the teaching record is asked for, the owners' words right
// after them (aligned to 16 bytes).
struct RunnerOutput
{
    enum class Kind : std::uint32_t
    {
        Host = 1,   // a memfd both map; sent with the request that first names it
        Device = 2, // device memory of the app's, opened in the runner through CUDA IPC
    } kind = Kind::Host;
    std::uint64_t generation = 0; // changes whenever the memory does
    std::uint64_t bytes = 0;
    std::array<char, 64> ipcHandle{}; // Device: cudaIpcMemHandle_t's bytes
};

// A @buffer of a run: where its WsBuffer lies in the Params bytes (the runner fills in the
// data and the counter), and its elements.
struct RunnerBuffer
{
    std::uint64_t offset = 0;
    std::uint64_t count = 0;
    std::uint64_t elementBytes = 4;
};

struct RunnerRequest
{
    RunnerTarget target = RunnerTarget::Cpu;
    std::string program; // Cpu: the simulator library's path; Cuda: the CUBIN
    std::string entry;   // Cuda: the entry's lowered name
    KernelAbiMesh mesh{};
    KernelAbiRefs refs{};
    std::string params; // the Params struct's bytes (packKernelParams)
    std::vector<RunnerBuffer> buffers;
    std::uint32_t grid[3] = {1, 1, 1};
    std::uint32_t block[3] = {1, 1, 1};
    std::uint64_t sharedBytes = 0; // dynamic shared memory per block
    std::int32_t pitch = 0, nx = 0, ny = 0;
    std::uint32_t smCount = 1; // the SM count the teaching record's SM ids use on the CPU
    std::uint64_t elementCount = 0;
    std::uint64_t statsOffset = 0;
    std::uint32_t withOwners = 0;   // 1: write the teaching record after the field
    std::uint32_t threads = 1;      // Cpu: the worker threads
    std::uint32_t recordMemory = 0; // Cpu: 1 when the library records (MemoryRecord.h)
    RunnerOutput output;
};

struct RunnerReply
{
    bool ok = false;
    std::string message; // why the run failed
    // The runner ends after this reply: its CUDA context is unusable, or it has used the CPU
    // time after which it retires. The app starts a new one for the next run.
    bool runnerEnds = false;
    double kernelMs = 0.0;
    double startMs = 0.0, stopMs = 0.0; // the kernel's span, from the request's arrival
    std::uint64_t outOfBounds = 0;
    std::uint64_t bufferOutOfBounds = 0;     // accesses of @buffers outside them, refused
    float lo = 0.0f, hi = 0.0f;              // the finite values' range
    std::uint64_t nonFinite = 0;             // the nodes written NaN or infinite
    std::vector<KernelPrintLine> printLines; // the simulator's printf calls
    std::uint64_t printLinesDropped = 0;
    std::vector<KernelMessage> findings; // the simulator's checks (SharedMemoryCheck.h)
    KernelMemoryReport memory;           // a recording build's (MemoryRecord.h)
};

// Offset of the owners' words in a RunnerOutput.
inline std::uint64_t runnerOwnersOffset(std::uint64_t elementCount)
{
    return (elementCount * sizeof(float) + 15) / 16 * 16;
}

// The bytes of a RunnerOutput that a run writes: the field, and the owners' words when asked.
inline std::uint64_t runnerOutputBytes(const RunnerRequest& request)
{
    return request.withOwners ? runnerOwnersOffset(request.elementCount) +
                                    2 * std::uint64_t(request.nx) * std::uint64_t(request.ny) * 4
                              : request.elementCount * sizeof(float);
}

// The runner's executable: $WARPSCOPE_KERNEL_RUNNER, else beside the running program, else
// where the build put it. Empty when there is none.
std::string kernelRunnerPath();

// One runner process, started on first use and started again after it ended. Not thread-safe:
// one per context, which is used by one thread at a time.
class KernelRunner
{
public:
    // cudaBusId: the PCI bus id of the GPU that Cuda requests run on (empty: CPU only).
    explicit KernelRunner(std::string cudaBusId = {}) : m_cudaBusId(std::move(cudaBusId)) {}
    ~KernelRunner();
    KernelRunner(const KernelRunner&) = delete;
    KernelRunner& operator=(const KernelRunner&) = delete;

    // A run in two steps, so that a caller can wait in an event loop. send() sends request
    // (with outputFd, the Host output's memfd, when the runner has not seen its generation) and
    // returns; answered() says whether receive() would return at once (a reply, or the process
    // gone), waiting up to waitMs for it; receive() waits for the reply until timeoutMs after
    // send(). A failed Status means the runner process failed (it ended, crashed, or did not
    // answer in time, and then was ended); a reply with ok false means the kernel failed and
    // the runner said why. cancel() ends the process, and with it the kernel.
    Status send(const RunnerRequest& request, int outputFd, double timeoutMs);
    bool answered(double waitMs = 0.0) const;
    Status receive(RunnerReply& reply);
    void cancel();
    // The socket, readable when a reply (or the process's end) has come; -1 when not running.
    int socket() const { return m_socket; }
    // Starts the process, if it is not running, without waiting for it to be ready (its CUDA
    // context takes a few hundred ms): the first run waits for that instead.
    Status launch();
    // What the kernel printed (its standard output and error) since the last send(), up to
    // kRunnerPrintBytes; capped says the cap was reached. Read after the reply, or after the
    // process ended: a kernel's lines before its crash are kept.
    std::string printed(bool& capped) const;
    // How the running process confined itself (RunnerSandbox.h), once it has answered.
    const std::string& confinement() const { return m_confinement; }
    // Starts the runner under a tool (compute-sanitizer): words go before the runner's own
    // command line. Such a runner is ended by closing its socket, and given time to end, so
    // that the tool can write its report (into the print memory) when its process ends.
    void setTool(std::vector<std::string> words) { m_tool = std::move(words); }

private:
    Status waitReady();
    void stop();
    // Why the process ended, once it has: its exit status or signal, in words.
    std::string describeEnd();
    // The runner's own folder and its print memory, made once for this object's life.
    Status prepare();
    // A copy of a simulator library in the runner's folder, the only one it may read.
    Status stageLibrary(std::string& path);

    std::string m_cudaBusId;
    std::vector<std::string> m_tool;
    std::string m_dir;
    int m_printFd = -1;
    std::string m_confinement;
    pid_t m_pid = -1;
    int m_socket = -1;
    bool m_ready = false;
    double m_timeoutMs = 0.0;
    double m_deadlineMs = 0.0;
    std::uint64_t m_sentGeneration = 0;
};

// Host memory both processes map: a memfd the runner receives once per generation.
class SharedOutput
{
public:
    SharedOutput() = default;
    ~SharedOutput();
    SharedOutput(const SharedOutput&) = delete;
    SharedOutput& operator=(const SharedOutput&) = delete;

    // Makes room for bytes; a new mapping gets a new generation.
    Status reserve(std::size_t bytes);
    void* data() const { return m_data; }
    int fd() const { return m_fd; }
    RunnerOutput descriptor() const;

private:
    int m_fd = -1;
    void* m_data = nullptr;
    std::size_t m_bytes = 0;
    std::uint64_t m_generation = 0;
};

// A request for args (their values those of params, checked) on the mesh's layout; its target,
// program, output and teaching record are the caller's to fill in.
RunnerRequest runnerRequest(const KernelArgs& args, const std::vector<KernelParam>& params,
                            const LaunchConfig& launch,
                            const std::vector<KernelBuffer>& buffers = {});
// Why a request's buffers cannot be made (one too large, all past kMaxKernelBufferBytes, or a
// layout outside its Params bytes), or empty.
std::string runnerBuffersProblem(const RunnerRequest& request);

// The runner's side (warpscope-kernel-runner): serves requests read from socket until the app
// closes it. cudaBusId: the GPU to open a CUDA context on before answering (empty: none).
// confine, when given, is called once the context is made and before the first request: it
// confines the process (RunnerSandbox.h) and says how, which the ready reply carries; when it
// fails, the runner says why and serves nothing.
int serveKernelRuns(int socket, const std::string& cudaBusId,
                    const std::function<Status(std::string&)>& confine = {});

// The runner's CUDA side (KernelRunnerCuda.cu; KernelRunnerNoCuda.cpp in builds without
// nvcc). openRunnerCuda makes the runner's context on the GPU with that PCI bus id;
// runOnRunnerCuda runs a Cuda request into the output: the Device output opened through IPC,
// or hostOutput (the mapped Host output), which the results are copied into.
Status openRunnerCuda(const std::string& busId);
RunnerReply runOnRunnerCuda(const RunnerRequest& request, void* hostOutput);

// The socket's framing, shared by both sides (KernelRunnerChannel.cpp). Each returns false
// when the peer has gone or sent something malformed.
bool sendRequest(int socket, const RunnerRequest& request, int fd);
bool receiveRequest(int socket, RunnerRequest& request, int& fd);
bool sendReply(int socket, const RunnerReply& reply);
// deadline: a steady clock time in ms (std::chrono::steady_clock's epoch); timedOut is set
// when it passed first.
bool receiveReply(int socket, double deadlineMs, RunnerReply& reply, bool& timedOut);
double steadyNowMs();

} // namespace warpscope::gpu
