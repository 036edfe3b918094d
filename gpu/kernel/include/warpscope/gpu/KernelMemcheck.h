#pragma once

// A faulting kernel run again under compute-sanitizer's memcheck, which names what the GPU
// alone does not: the line of the user's code, and the block and thread that faulted. The run
// uses a kernel runner of its own (KernelRunner.h) started under compute-sanitizer, a build
// with line information, and host memory for its output, so nothing of the context's, and no
// picture, is touched. It is slow (memcheck instruments every access): run it on a worker.
#include "warpscope/gpu/Context.h"
#include "warpscope/gpu/Status.h"
#include "warpscope/gpu/UserKernel.h"

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace warpscope::gpu {

// compute-sanitizer's path: $WARPSCOPE_COMPUTE_SANITIZER, else on PATH, else in the CUDA
// toolkit ($CUDA_HOME/bin, /usr/local/cuda/bin). Empty when there is none.
std::string computeSanitizerPath();

// One error memcheck reported on the device.
struct MemcheckFinding
{
    std::string what;     // "Invalid __global__ write of size 4 bytes", "Illegal Instruction"
    std::string function; // the device function it happened in, as memcheck names it
    std::string file;     // "kernel.cu" for the user's code
    int line = 0;         // the line in file; 0 when memcheck gave none
    bool located = false; // block and thread are known
    std::array<int, 3> block{};
    std::array<int, 3> thread{};
    std::vector<std::string> details; // e.g. "Address 0x10 is out of bounds"

    // The user's line (file is kUserSourceName), or 0.
    int userLine() const { return file == kUserSourceName ? line : 0; }
    // One sentence for the Messages list: what, where, by whom, and the first detail.
    std::string summary() const;
};

struct MemcheckReport
{
    std::vector<MemcheckFinding> findings;
    std::vector<std::string> apiErrors; // "Program hit cudaErrorLaunchFailure ..." lines
    int errorCount = -1;                // from "ERROR SUMMARY: N errors"; -1 when absent
    std::string text;                   // memcheck's lines, prefixes removed
};

// Reads compute-sanitizer's output (its "=========" lines; other lines are ignored).
MemcheckReport parseMemcheckReport(std::string_view output);

// A run to repeat under memcheck: taken on the context's thread, run on any thread.
struct MemcheckJob
{
    std::string busId; // the context's GPU
    CompiledKernel kernel;
    KernelArgs args;
};

// The job for a GPU run of gpu with args on context (a CUDA context). Fails when this build or
// context has no GPU, or there is no compute-sanitizer.
Status prepareMemcheck(Context& context, const CompiledKernel& gpu, const KernelArgs& args,
                       MemcheckJob& job);

// How long a run under memcheck may take, for a run that may take timeoutMs: memcheck slows
// kernels by one or two orders of magnitude, and takes seconds to start.
double memcheckTimeoutMs(double timeoutMs);

// Builds the kernel again with -lineinfo, runs it once under memcheck and reads the report.
// The kernel's own fault is not a failure here (that is what the report is for); a failure is
// memcheck or the build not running at all. memcheck writes its report to a file of its own,
// so that nothing the kernel prints can pass for it; printed: what the kernel printed.
Status runUnderMemcheck(const MemcheckJob& job, MemcheckReport& report, std::string& printed);

} // namespace warpscope::gpu
