// warpscope-kernel-runner: the process that runs users' kernels for Warpscope, so that a kernel
// that faults, crashes or never ends costs this process, never the app
// (gpu/kernel/KernelRunner.h). The app starts it with a socket on a descriptor; it confines
// itself (gpu/kernel/RunnerSandbox.h) before it loads any of a user's code.
#include "kernel/KernelRunner.h"
#include "kernel/RunnerSandbox.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace {

// A kernel's fault ends this process with its own signal, which the app names ("a segmentation
// fault"). Without this, a sanitizer's handler in an instrumented build would turn it into an
// abort.
void dieOfSignal(int signal)
{
    std::signal(signal, SIG_DFL);
    std::raise(signal);
}

// Ends the runner when the app's end of the socket closes: the app ended, even by SIGKILL, while
// a kernel may still be running here. A parent-death signal would follow the thread that
// started the runner, not the app.
void watchTheApp(int socket)
{
    std::thread([socket] {
        pollfd p{socket, POLLRDHUP, 0};
        while (true) {
            const int ready = ::poll(&p, 1, -1);
            if (ready < 0 && errno == EINTR)
                continue;
            if (ready != 0)
                std::_Exit(0);
        }
    }).detach();
}

// Only the socket and the standard descriptors (the app's output memory for what kernels print)
// stay open: nothing else of the app's reaches the kernel.
void closeOtherDescriptors(int socket)
{
    if (socket > 3)
        ::close_range(3, unsigned(socket) - 1, 0);
    ::close_range(unsigned(socket) + 1, ~0u, 0);
}

} // namespace

int main(int argc, char** argv)
{
    for (int fatal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL})
        std::signal(fatal, dieOfSignal);
    int socket = -1;
    std::string cudaBusId, libraryDir;
    for (int i = 1; i < argc; ++i) {
        const std::string word = argv[i];
        if (word == "--socket" && i + 1 < argc) {
            char* end = nullptr;
            const long fd = std::strtol(argv[++i], &end, 10);
            socket = (*end == '\0' && fd >= 0 && fd < 1 << 20) ? int(fd) : -1;
        } else if (word == "--cuda" && i + 1 < argc) {
            cudaBusId = argv[++i];
        } else if (word == "--libraries" && i + 1 < argc) {
            libraryDir = argv[++i];
        } else {
            socket = -1;
            break;
        }
    }
    int type = 0;
    socklen_t length = sizeof type;
    if (socket < 3 || ::getsockopt(socket, SOL_SOCKET, SO_TYPE, &type, &length) != 0) {
        std::fprintf(stderr, "warpscope-kernel-runner runs users' kernels for Warpscope, which "
                             "starts it.\nUsage: warpscope-kernel-runner --socket FD [--cuda "
                             "PCI_BUS_ID] [--libraries DIR]\n");
        return 2;
    }
    closeOtherDescriptors(socket);
    // Line by line into the app's print memory, so that a kernel's lines before a crash are kept.
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    const auto confine = [&](std::string& summary) {
        warpscope::gpu::RunnerConfinement confinement;
        confinement.libraryDir = libraryDir;
        confinement.gpu = !cudaBusId.empty();
        const warpscope::gpu::Status s = warpscope::gpu::confineRunner(confinement, summary);
        if (s)
            watchTheApp(socket);
        return s;
    };
    // No exit handlers: nothing of a kernel's (its static destructors) runs after the last run.
    std::_Exit(warpscope::gpu::serveKernelRuns(socket, cudaBusId, confine));
}
