// The app's side of the runner: starting it, asking it to run, and ending it when it fails or
// does not answer in time.
#include "kernel/KernelRunner.h"
#include "kernel/RunnerSandbox.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <poll.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace warpscope::gpu {
namespace fs = std::filesystem;

namespace {

constexpr const char* kRunnerName = "warpscope-kernel-runner";
// Starting the runner includes making its CUDA context, which takes a few hundred ms on a
// GPU and longer on a loaded machine: the user's timeout starts after that.
constexpr double kStartTimeoutMs = 60000.0;
// How long a tool around the runner is given to write its report once the runner's socket
// closes.
constexpr int kToolEndMs = 30000;

bool executable(const fs::path& path)
{
    return !path.empty() && ::access(path.c_str(), X_OK) == 0 && fs::is_regular_file(path);
}

std::string signalName(int signal)
{
    switch (signal) {
    case SIGSEGV:
        return "a segmentation fault: an access to memory it does not own";
    case SIGBUS:
        return "a bus error: a misaligned or unmapped access";
    case SIGFPE:
        return "an arithmetic exception, such as an integer division by zero";
    case SIGILL:
        return "an illegal instruction";
    case SIGABRT:
        return "an abort";
    case SIGKILL:
        return "being killed";
    default:
        return "signal " + std::to_string(signal) + " (" + ::strsignal(signal) + ")";
    }
}

} // namespace

std::string kernelRunnerPath()
{
    if (const char* given = std::getenv("WARPSCOPE_KERNEL_RUNNER"); given && *given)
        return executable(given) ? std::string(given) : std::string();
    std::error_code error;
    const fs::path self = fs::read_symlink("/proc/self/exe", error);
    if (!error && executable(self.parent_path() / kRunnerName))
        return (self.parent_path() / kRunnerName).string();
#ifdef WARPSCOPE_KERNEL_RUNNER_BUILD
    if (executable(WARPSCOPE_KERNEL_RUNNER_BUILD))
        return WARPSCOPE_KERNEL_RUNNER_BUILD;
#endif
    return {};
}

KernelRunner::~KernelRunner()
{
    stop();
    if (m_printFd >= 0)
        ::close(m_printFd);
    if (!m_dir.empty()) {
        std::error_code error;
        fs::remove_all(m_dir, error);
    }
}

Status KernelRunner::prepare()
{
    if (m_dir.empty()) {
        std::error_code error;
        const fs::path temp = fs::temp_directory_path(error);
        std::string pattern =
            ((error ? fs::path("/tmp") : temp) / "warpscope-runner-XXXXXX").string();
        if (!::mkdtemp(pattern.data()))
            return Status::failure("Could not make the kernel runner's folder in " + temp.string() +
                                   ": " + std::strerror(errno));
        m_dir = pattern;
    }
    if (m_printFd < 0) {
        // Appending, so that each run's lines start at the front once it is emptied.
        m_printFd = ::memfd_create("warpscope-kernel-printf", MFD_CLOEXEC);
        if (m_printFd < 0 || ::fcntl(m_printFd, F_SETFL, O_APPEND) != 0)
            return Status::failure(std::string("Could not make the kernel's print memory: ") +
                                   std::strerror(errno));
    }
    return Status::success();
}

Status KernelRunner::stageLibrary(std::string& path)
{
    const fs::path staged = fs::path(m_dir) / fs::path(path).filename();
    std::error_code error;
    if (!fs::exists(staged, error)) {
        const fs::path partial = staged.string() + ".part";
        if (!fs::copy_file(path, partial, fs::copy_options::overwrite_existing, error) ||
            (fs::rename(partial, staged, error), error))
            return Status::failure("Could not hand the simulator's library " + path +
                                   " to the kernel runner: " + error.message());
    }
    path = staged.string();
    return Status::success();
}

std::string KernelRunner::printed(bool& capped) const
{
    capped = false;
    if (m_printFd < 0)
        return {};
    struct stat info
    {};
    if (::fstat(m_printFd, &info) != 0 || info.st_size <= 0)
        return {};
    const std::size_t size = std::min<std::size_t>(std::size_t(info.st_size), kRunnerPrintBytes);
    std::string text(size, '\0');
    const ssize_t got = ::pread(m_printFd, text.data(), size, 0);
    text.resize(got > 0 ? std::size_t(got) : 0);
    capped = std::uint64_t(info.st_size) >= kRunnerPrintBytes;
    return text;
}

Status KernelRunner::launch()
{
    if (m_socket >= 0)
        return Status::success();
    if (Status s = prepare(); !s)
        return s;
    const std::string path = kernelRunnerPath();
    if (path.empty())
        return Status::failure(std::string("The kernel runner (") + kRunnerName +
                               ") was not found beside this program, so user kernels cannot run");
    int ends[2] = {-1, -1};
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0)
        return Status::failure(std::string("Could not make the kernel runner's socket: ") +
                               std::strerror(errno));
    // The runner's end becomes its descriptor 3 (dup2 clears close-on-exec there). It reads
    // nothing from the app's terminal and prints into memory the app reads, never onto the
    // app's output.
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, m_printFd, 1);
    posix_spawn_file_actions_adddup2(&actions, m_printFd, 2);
    posix_spawn_file_actions_adddup2(&actions, ends[1], 3);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    sigaddset(&defaults, SIGINT);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    std::vector<std::string> words = m_tool;
    words.insert(words.end(), {path, "--socket", "3", "--libraries", m_dir});
    if (!m_cudaBusId.empty())
        words.insert(words.end(), {"--cuda", m_cudaBusId});
    std::vector<char*> argv;
    for (std::string& word : words)
        argv.push_back(word.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int spawned = ::posix_spawn(&pid, argv[0], &actions, &attributes, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    ::close(ends[1]);
    if (spawned != 0) {
        ::close(ends[0]);
        return Status::failure("Could not start the kernel runner " + std::string(argv[0]) + ": " +
                               std::strerror(spawned));
    }
    m_pid = pid;
    m_socket = ends[0];
    m_ready = false;
    m_sentGeneration = 0;
    return Status::success();
}

Status KernelRunner::waitReady()
{
    // The runner answers one empty reply once it is ready (its CUDA context made).
    RunnerReply ready;
    bool timedOut = false;
    if (!receiveReply(m_socket, steadyNowMs() + kStartTimeoutMs, ready, timedOut) || !ready.ok) {
        std::string why = timedOut ? "no answer within 60 s" : ready.message;
        if (why.empty())
            why = describeEnd();
        stop();
        return Status::failure("The kernel runner could not start: " + why);
    }
    m_ready = true;
    m_confinement = ready.message;
    return Status::success();
}

void KernelRunner::stop()
{
    if (m_socket >= 0)
        ::close(m_socket);
    m_socket = -1;
    m_ready = false;
    if (m_pid > 0) {
        int status = 0;
        const auto reapedWithin = [&](int ms) {
            for (int waited = 0; waited < ms; waited += 5) {
                if (::waitpid(m_pid, &status, WNOHANG) == m_pid)
                    return true;
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            }
            return false;
        };
        // A runner under a tool ends as its socket closes, and the tool writes its report then.
        bool reaped = !m_tool.empty() && reapedWithin(kToolEndMs);
        // Otherwise the runner keeps nothing worth a graceful end, and one inside a kernel
        // would not see the socket close: it is killed. A process inside the driver (a GPU
        // being reset) ends only when the driver lets it, so it is reaped in the background,
        // not waited for.
        if (!reaped) {
            ::kill(m_pid, SIGKILL);
            reaped = reapedWithin(500);
        }
        if (!reaped)
            std::thread([pid = m_pid] {
                int ended = 0;
                ::waitpid(pid, &ended, 0);
            }).detach();
    }
    m_pid = -1;
}

std::string KernelRunner::describeEnd()
{
    if (m_pid <= 0)
        return "no process";
    int status = 0;
    pid_t reaped = 0;
    // The socket closes as the process ends; its exit status follows within moments.
    for (int wait = 0; wait < 200 && reaped == 0; ++wait) {
        reaped = ::waitpid(m_pid, &status, WNOHANG);
        if (reaped == 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (reaped != m_pid)
        return "no answer";
    m_pid = -1;
    if (WIFSIGNALED(status))
        return signalName(WTERMSIG(status));
    return "exit status " + std::to_string(WEXITSTATUS(status));
}

Status KernelRunner::send(const RunnerRequest& request, int outputFd, double timeoutMs)
{
    if (Status s = launch(); !s)
        return s;
    if (!m_ready)
        if (Status s = waitReady(); !s)
            return s;
    RunnerRequest staged = request;
    if (staged.target == RunnerTarget::Cpu)
        if (Status s = stageLibrary(staged.program); !s)
            return s;
    if (::ftruncate(m_printFd, 0) != 0)
        return Status::failure(std::string("Could not empty the kernel's print memory: ") +
                               std::strerror(errno));
    const bool sendFd = request.output.kind == RunnerOutput::Kind::Host &&
                        request.output.generation != m_sentGeneration;
    if (!sendRequest(m_socket, staged, sendFd ? outputFd : -1)) {
        const std::string why = describeEnd();
        stop();
        return Status::failure("The kernel runner ended before the run (" + why + ")");
    }
    if (sendFd)
        m_sentGeneration = request.output.generation;
    m_timeoutMs = timeoutMs;
    m_deadlineMs = steadyNowMs() + timeoutMs;
    return Status::success();
}

bool KernelRunner::answered(double waitMs) const
{
    if (m_socket < 0)
        return true;
    pollfd p{m_socket, POLLIN, 0};
    int ready;
    do
        ready = ::poll(&p, 1, int(std::ceil(std::max(0.0, waitMs))));
    while (ready < 0 && errno == EINTR);
    return ready != 0;
}

Status KernelRunner::receive(RunnerReply& reply)
{
    if (m_socket < 0)
        return Status::failure("The kernel runner is not running");
    bool timedOut = false;
    reply = {};
    if (!receiveReply(m_socket, m_deadlineMs, reply, timedOut)) {
        if (timedOut) {
            stop(); // kills it: the kernel ends with its process (and its CUDA context)
            // Measured on an H200: a trap reaches the runner as an error about 3.5 s after the
            // launch, an illegal address within half a second.
            const std::string trapHint =
                m_cudaBusId.empty() ? std::string()
                                    : ". On a GPU, a kernel that traps (__trap, a failed assert, "
                                      "asm trap) is reported by the driver only after about 4 s: "
                                      "a longer Timeout tells the two apart";
            return Status::failure("The kernel did not finish within " +
                                   std::to_string(int(m_timeoutMs)) +
                                   " ms and was stopped (its process was ended; the next run "
                                   "starts a new one). The picture keeps the last good run" +
                                   trapHint);
        }
        const std::string why = describeEnd();
        stop();
        return Status::failure("The kernel ended its process with " + why +
                               ". It ran in a process of its own, so Warpscope goes on; the "
                               "picture keeps the last good run");
    }
    if (reply.runnerEnds)
        stop(); // the runner ends after saying why; the next run starts a new one
    return Status::success();
}

void KernelRunner::cancel()
{
    stop();
}

SharedOutput::~SharedOutput()
{
    if (m_data)
        ::munmap(m_data, m_bytes);
    if (m_fd >= 0)
        ::close(m_fd);
}

Status SharedOutput::reserve(std::size_t bytes)
{
    if (m_data && m_bytes >= bytes)
        return Status::success();
    if (m_data)
        ::munmap(m_data, m_bytes);
    if (m_fd >= 0)
        ::close(m_fd);
    m_data = nullptr;
    m_bytes = 0;
    m_fd = ::memfd_create("warpscope-kernel-output", MFD_CLOEXEC);
    if (m_fd < 0)
        return Status::failure(std::string("Could not make the kernel's output memory: ") +
                               std::strerror(errno));
    if (::ftruncate(m_fd, off_t(bytes)) != 0)
        return Status::failure(std::string("Could not size the kernel's output memory: ") +
                               std::strerror(errno));
    void* data = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, m_fd, 0);
    if (data == MAP_FAILED)
        return Status::failure(std::string("Could not map the kernel's output memory: ") +
                               std::strerror(errno));
    m_data = data;
    m_bytes = bytes;
    ++m_generation;
    return Status::success();
}

RunnerOutput SharedOutput::descriptor() const
{
    RunnerOutput output;
    output.kind = RunnerOutput::Kind::Host;
    output.generation = m_generation;
    output.bytes = m_bytes;
    return output;
}

RunnerRequest runnerRequest(const KernelArgs& args, const std::vector<KernelParam>& params,
                            const LaunchConfig& launch, const std::vector<KernelBuffer>& buffers)
{
    const FieldLayout layout = layoutFor(args.mesh);
    RunnerRequest r;
    r.mesh = abiMesh(args.mesh);
    r.refs = abiRefs(args.mesh);
    r.params = packKernelParams(params, args.values, buffers);
    const KernelParamLayout members = kernelParamLayout(params, buffers);
    for (std::size_t i = 0; i < buffers.size(); ++i)
        r.buffers.push_back({members.bufferOffsets[i],
                             kernelBufferCount(buffers[i], args.mesh, launch),
                             kernelBufferElementBytes(buffers[i].type)});
    r.grid[0] = std::uint32_t(launch.grid.x), r.grid[1] = std::uint32_t(launch.grid.y),
    r.grid[2] = std::uint32_t(launch.grid.z);
    r.block[0] = std::uint32_t(launch.block.x), r.block[1] = std::uint32_t(launch.block.y),
    r.block[2] = std::uint32_t(launch.block.z);
    r.sharedBytes = std::uint64_t(std::max(0ll, launch.sharedBytes));
    r.pitch = layout.pitch;
    r.nx = args.mesh.nx;
    r.ny = args.mesh.ny;
    r.elementCount = layout.elementCount();
    r.statsOffset = layout.statsOffset();
    return r;
}

std::string runnerBuffersProblem(const RunnerRequest& request)
{
    std::uint64_t total = 0;
    for (const RunnerBuffer& b : request.buffers) {
        if (b.count == 0 || (b.elementBytes != 4 && b.elementBytes != 8) ||
            b.count > kMaxKernelBufferBytes / b.elementBytes)
            return "A @buffer of this run would hold more than " +
                   std::to_string(kMaxKernelBufferBytes >> 20) +
                   " MiB; a smaller mesh or grid "
                   "makes it fit";
        total += (b.count * b.elementBytes + 255) / 256 * 256;
        if (b.offset % 8 != 0 || b.offset + sizeof(KernelAbiBuffer) > request.params.size())
            return "A @buffer's place in the parameters is outside them";
    }
    if (total > kMaxKernelBufferBytes)
        return "The run's buffers would hold more than " +
               std::to_string(kMaxKernelBufferBytes >> 20) + " MiB together";
    return {};
}

} // namespace warpscope::gpu
