// What a user's kernel cannot do on the CPU simulator, whose kernels are the user's C++ running
// as host code in warpscope-kernel-runner (gpu/kernel/RunnerSandbox.h). Each attack is made by a
// real kernel, from a static initializer that runs as the runner loads it (code a scene file
// could carry under #ifndef __CUDACC__), and its outcome is read from the kernel's output and
// from the file system and process table outside.
#include "kernel/RunnerSandbox.h"

#include "TestSupport.h"
#include "kernel/KernelRunner.h"
#include "kernel/KernelShared.h"
#include "warpscope/gpu/UserKernel.h"

#include <chrono>
#include <csignal>
#include <dirent.h>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>

namespace warpscope::gpu::test {
namespace {

namespace fs = std::filesystem;

// Each attack's outcome, 1 when the sandbox refused it (or, for the thread, when it worked).
enum Probe
{
    Fork,
    System,
    InetSocket,
    UnixSocket,
    OpenForWriting,
    KillTheApp,
    PtraceTheApp,
    KillTheGroup,
    Exec,
    ReadOutside,
    RaiseCpuLimit,
    HugeAllocation,
    ThreadRuns,
    Unlink,
    Rename,
    ProbeCount
};

std::string attackKernel(const TempDir& dir)
{
    const std::string d = dir.str();
    return R"(#ifndef __CUDACC__
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
static float probes[16];
static int attack()
{
    probes[0] = fork() < 0;
    probes[1] = std::system("touch )" +
           d + R"(/by-system") != 0;
    probes[2] = socket(AF_INET, SOCK_STREAM, 0) < 0;
    probes[3] = socket(AF_UNIX, SOCK_STREAM, 0) < 0;
    probes[4] = open(")" +
           d + R"(/written", O_WRONLY | O_CREAT, 0600) < 0;
    probes[5] = kill(getppid(), SIGKILL) < 0;
    probes[6] = ptrace(PTRACE_ATTACH, getppid(), nullptr, nullptr) < 0;
    probes[7] = kill(0, SIGTERM) < 0;
    probes[8] = execl("/bin/true", "true", (char*)nullptr) < 0;
    probes[9] = open(")" +
           d + R"(/secret", O_RDONLY) < 0;
    rlimit unlimited{RLIM_INFINITY, RLIM_INFINITY};
    probes[10] = setrlimit(RLIMIT_CPU, &unlimited) < 0;
    probes[11] = mmap(nullptr, size_t(64) << 30, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0) == MAP_FAILED;
    std::thread([] { probes[12] = 1; }).join();
    probes[13] = unlink(")" +
           d + R"(/keep") < 0;
    probes[14] = rename(")" +
           d + R"(/keep", ")" + d + R"(/moved") < 0;
    std::printf("attacks made\n");
    return 0;
}
static int attacked = attack();
#endif
__global__ void kernel(Out out, Mesh mesh, Refs refs, Params p)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col < 16)
        out.write(0, col, probes[col]);
}
)";
}

DistanceParams probeMesh()
{
    DistanceParams mesh;
    mesh.nx = 32;
    mesh.ny = 2;
    mesh.references = {{0.0, 0.0}};
    return mesh;
}

KernelArgs probeArgs()
{
    KernelArgs args;
    args.mesh = probeMesh();
    args.launch.block = {32, 1, 1};
    args.launch.grid = {1, 1, 1};
    args.timeoutMs = 20000.0;
    return args;
}

TEST(RunnerSandbox, HostCodeInAKernelCannotReachBeyondTheRunner)
{
    SKIP_WITHOUT_COMPILER();
    TempDir dir;
    {
        std::ofstream(dir.path() / "secret") << "not for kernels\n";
    }
    {
        std::ofstream(dir.path() / "keep") << "stays\n";
    }
    SimulatorBuild build;
    const Status built =
        buildSimulatedKernel({KernelShape::WholeKernel, attackKernel(dir)}, dir.str(), build);
    ASSERT_TRUE(built.ok()) << built.message() << "\n" << build.log;
    auto context = cpuContext(2);
    const KernelArgs args = probeArgs();
    std::vector<float> out(layoutFor(args.mesh).elementCount(), -1.0f);
    KernelRun run;
    // Were kill(getppid()) let through, this process would end here.
    const Status ran = runUserKernel(*context, {}, build, args, BufferView<float>::host(out), &run);
    ASSERT_TRUE(ran.ok()) << ran.message();
    const std::string confinement = userKernelRunner(*context).confinement();
    EXPECT_NE(confinement.find("seccomp"), std::string::npos) << confinement;
    const FieldLayout layout = layoutFor(args.mesh);
    const auto refused = [&](Probe probe) { return out[layout.index(0, probe)]; };
    for (Probe probe : {Fork, System, InetSocket, UnixSocket, OpenForWriting, KillTheApp,
                        PtraceTheApp, KillTheGroup, Exec, RaiseCpuLimit, Unlink, Rename})
        EXPECT_EQ(refused(probe), 1.0f) << "attack " << probe << " was let through";
    EXPECT_EQ(refused(ThreadRuns), 1.0f) << "the simulator's threads must still start";
    if (confinement.find("Landlock ABI") != std::string::npos)
        EXPECT_EQ(refused(ReadOutside), 1.0f) << "a file outside the system's folders was read";
    if (confinement.find("GiB of address space") != std::string::npos)
        EXPECT_EQ(refused(HugeAllocation), 1.0f) << "64 GiB of address space were given";
    EXPECT_FALSE(fs::exists(dir.path() / "by-system"));
    EXPECT_FALSE(fs::exists(dir.path() / "written"));
    EXPECT_TRUE(fs::exists(dir.path() / "keep"));
    EXPECT_FALSE(fs::exists(dir.path() / "moved"));
    EXPECT_NE(run.printed.find("attacks made"), std::string::npos) << run.printed;
}

// A kernel that prints without end fills its 4 MiB and no more; the run still ends well.
TEST(RunnerSandbox, PrintingIsCappedAndKeptFromTheTerminal)
{
    SKIP_WITHOUT_COMPILER();
    TempDir dir;
    SimulatorBuild build;
    ASSERT_TRUE(buildSimulatedKernel({KernelShape::PerNode,
                                      "for (int i = 0; i < 20000; ++i)\n"
                                      "    printf(\"node %f %f line %d\\n\", lat, lon, i);\n"
                                      "return 1.0f;\n"},
                                     dir.str(), build)
                    .ok());
    auto context = cpuContext(2);
    KernelArgs args = probeArgs();
    std::vector<float> out(layoutFor(args.mesh).elementCount(), -1.0f);
    KernelRun run;
    const Status ran = runUserKernel(*context, {}, build, args, BufferView<float>::host(out), &run);
    ASSERT_TRUE(ran.ok()) << ran.message();
    EXPECT_TRUE(run.printedCapped);
    EXPECT_EQ(run.printed.size(), kRunnerPrintBytes);
    EXPECT_EQ(run.printed.rfind("node ", 0), 0u) << run.printed.substr(0, 80);
    // The next run's lines start afresh.
    SimulatorBuild quiet;
    ASSERT_TRUE(buildSimulatedKernel({KernelShape::WholeKernel,
                                      "__global__ void kernel(Out out, Mesh mesh, Refs refs, "
                                      "Params p)\n{\n"
                                      "    if (blockIdx.x == 0 && threadIdx.x == 0)\n"
                                      "        printf(\"one line\\n\");\n}\n"},
                                     dir.str(), quiet)
                    .ok());
    ASSERT_TRUE(runUserKernel(*context, {}, quiet, args, BufferView<float>::host(out), &run).ok());
    EXPECT_EQ(run.printed, "one line\n");
    EXPECT_FALSE(run.printedCapped);
}

// The runner's process id, once the app's context has started it: the child of this process
// named warpscope-kernel-runner (its name is cut to 15 characters by the kernel).
pid_t runnerChild()
{
    const std::string self = std::to_string(::getpid());
    DIR* proc = ::opendir("/proc");
    pid_t found = -1;
    while (dirent* entry = proc ? ::readdir(proc) : nullptr) {
        std::ifstream status(std::string("/proc/") + entry->d_name + "/status");
        std::string line, name, parent;
        while (std::getline(status, line)) {
            if (line.rfind("Name:", 0) == 0)
                name = line.substr(line.find_first_not_of(" \t", 5));
            if (line.rfind("PPid:", 0) == 0)
                parent = line.substr(line.find_first_not_of(" \t", 5));
        }
        if (parent == self && name.rfind("warpscope-kerne", 0) == 0)
            found = pid_t(std::atoi(entry->d_name));
    }
    if (proc)
        ::closedir(proc);
    return found;
}

// An app killed while its kernel runs forever takes the runner with it: nothing is left
// spinning on a shared lab machine.
TEST(RunnerSandbox, TheRunnerEndsWithTheApp)
{
    SKIP_WITHOUT_COMPILER();
    TempDir dir;
    SimulatorBuild endless;
    ASSERT_TRUE(buildSimulatedKernel({KernelShape::PerNode,
                                      "volatile int spin = 1;\nwhile (spin) {}\nreturn 0.0f;\n"},
                                     dir.str(), endless)
                    .ok());
    // Orphans come to this process, so that the runner's end can be waited for.
    ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    int pipe[2];
    ASSERT_EQ(::pipe(pipe), 0);
    const pid_t app = ::fork();
    ASSERT_GE(app, 0);
    if (app == 0) { // the app: starts the endless run and waits to be killed
        auto context = cpuContext(1);
        KernelArgs args = probeArgs();
        args.timeoutMs = 600000.0;
        pid_t runner = -1;
        if (startUserKernel(*context, {}, endless, args, false).ok())
            runner = runnerChild();
        (void)!::write(pipe[1], &runner, sizeof runner);
        ::pause();
        std::_Exit(0);
    }
    pid_t runner = -1;
    ASSERT_EQ(::read(pipe[0], &runner, sizeof runner), ssize_t(sizeof runner));
    ::close(pipe[0]);
    ::close(pipe[1]);
    ASSERT_GT(runner, 0) << "the app could not start its run";
    std::this_thread::sleep_for(std::chrono::milliseconds(300)); // the kernel is spinning
    ::kill(app, SIGKILL);
    int status = 0;
    ::waitpid(app, &status, 0);
    bool ended = false;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!ended && std::chrono::steady_clock::now() < deadline) {
        ended = ::waitpid(runner, &status, WNOHANG) == runner;
        if (!ended)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!ended) {
        ::kill(runner, SIGKILL);
        ::waitpid(runner, &status, 0);
    }
    ::prctl(PR_SET_CHILD_SUBREAPER, 0);
    EXPECT_TRUE(ended) << "the runner outlived the app by 10 s";
}

} // namespace
} // namespace warpscope::gpu::test
