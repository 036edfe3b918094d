#pragma once

// The confinement of warpscope-kernel-runner, entered before the runner loads or runs any of a
// user's code. On the CPU simulator a kernel is the user's C++ running as host code (code under
// `#ifndef __CUDACC__` never meets NVRTC), and scene files carry kernels from strangers, so the
// runner is given what it needs to run a kernel and nothing else. Each layer stops something
// of its own, so that a kernel meets all of them (docs/security.md):
//   - resource limits: address space (plain builds), CPU time, file size (which caps what a
//     kernel prints), no core files, few descriptors;
//   - a session of its own, no terminal on its descriptors, and no descriptor of the app's
//     beyond its socket;
//   - Landlock, where the kernel has it: files are readable only under the system's folders
//     and the libraries the app hands over, writable nowhere, no TCP, and no signals or
//     abstract sockets outside the runner;
//   - seccomp (libseccomp): no new processes or programs, no sockets, no signals to other
//     processes, no ptrace or reading other processes' memory, no kernel-wide changes (mounts,
//     modules, keys, BPF, io_uring), and on the CPU no file opened for writing, created,
//     renamed, removed or changed.
#include "warpscope/gpu/Status.h"
#include "warpscope/gpu/UserKernel.h"

#include <cstdint>
#include <string>

namespace warpscope::gpu {

struct RunnerConfinement
{
    // The folder the app copies the simulator's libraries into: readable and mappable only.
    std::string libraryDir;
    // A runner with a CUDA context gets the limits and its own session only: NVRTC compiles
    // device code only, so none of the kernel's code runs on its host, while the driver goes on
    // opening devices, importing the app's memory (CUDA IPC) and reserving terabytes of address
    // space.
    bool gpu = false;
};

// The limits in force in a runner.
inline constexpr std::uint64_t kRunnerAddressSpaceBytes = 16ull << 30;
inline constexpr std::uint64_t kRunnerCpuSeconds = 3600;
// A runner that has used this much CPU time ends after its reply, and the app starts a new one
// for the next run, so that a long session never meets the limit above.
inline constexpr double kRunnerRetireCpuSeconds = 1800.0;
// What a kernel may print in one run, and so the largest file the runner could write if it
// could write one.
inline constexpr std::uint64_t kRunnerPrintBytes = kMaxPrintedBytes;

// Enters the confinement for good. Fails when seccomp cannot be loaded (the runner then runs
// nothing); Landlock's absence is said in summary, which names every layer in force.
Status confineRunner(const RunnerConfinement& confinement, std::string& summary);

} // namespace warpscope::gpu
