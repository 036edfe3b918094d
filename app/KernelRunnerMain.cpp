// warpscope-kernel-runner: the process that runs users' kernels for Warpscope, so that a kernel
// that faults, crashes or never ends costs this process, never the app
// (gpu/kernel/KernelRunner.h). The app starts it with a socket on a descriptor.
#include "kernel/KernelRunner.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/socket.h>

namespace {

// A kernel's fault ends this process with its own signal, which the app names ("a segmentation
// fault"). Without this, a sanitizer's handler in an instrumented build would turn it into an
// abort.
void dieOfSignal(int signal)
{
    std::signal(signal, SIG_DFL);
    std::raise(signal);
}

} // namespace

int main(int argc, char** argv)
{
    for (int fatal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL})
        std::signal(fatal, dieOfSignal);
    int socket = -1;
    std::string cudaBusId;
    for (int i = 1; i < argc; ++i) {
        const std::string word = argv[i];
        if (word == "--socket" && i + 1 < argc) {
            char* end = nullptr;
            const long fd = std::strtol(argv[++i], &end, 10);
            socket = (*end == '\0' && fd >= 0 && fd < 1 << 20) ? int(fd) : -1;
        } else if (word == "--cuda" && i + 1 < argc) {
            cudaBusId = argv[++i];
        } else {
            socket = -1;
            break;
        }
    }
    int type = 0;
    socklen_t length = sizeof type;
    if (socket < 0 || ::getsockopt(socket, SOL_SOCKET, SO_TYPE, &type, &length) != 0) {
        std::fprintf(stderr, "warpscope-kernel-runner runs users' kernels for Warpscope, which "
                             "starts it.\nUsage: warpscope-kernel-runner --socket FD [--cuda "
                             "PCI_BUS_ID]\n");
        return 2;
    }
    return warpscope::gpu::serveKernelRuns(socket, cudaBusId);
}
