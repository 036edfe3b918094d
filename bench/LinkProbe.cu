// warpscope-link-probe: how fast device-to-host copies into pinned memory go on this machine,
// alone and beside the work that a periodogram call into host memory puts next to them, to
// tell the link's own rate from what the call's copies meet.
//
//   warpscope-link-probe [--mib M] [--pieces P] [--runs R]
//
// M MiB (default 8, the powers of 2^20 frequencies in double) go from device memory to
// pinned host memory in P pieces (default 4) on one stream, each case the median of R runs
// (default 20), timed with CUDA events around the copies:
//   alone:                 nothing else running;
//   beside FMA kernel:     a kernel of fused multiply-adds in registers on every SM, on
//                          another stream, through the whole copy;
//   beside memory kernel:  a kernel streaming 512 MiB of device memory, read and written, at
//                          the memory's rate, through the whole copy;
//   host reads 1 thread:   a host thread copies each landed piece out of the pinned buffer
//                          into pageable memory while the rest arrive, as the call does;
//   host reads N threads:  the same, each piece split over every core (the call's pool);
//   into pageable:         the pieces straight into pageable memory (the driver stages them),
//                          the other way to bring powers to a caller's own memory.
// A program, not a test; it checks every CUDA call and exits 1 on a failure.
#include "Help.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <string>
#include <thread>
#include <vector>

namespace {

bool check(cudaError_t e, const char* what)
{
    if (e != cudaSuccess)
        std::fprintf(stderr, "warpscope-link-probe: %s: %s\n", what, cudaGetErrorString(e));
    return e == cudaSuccess;
}

__device__ unsigned long long nowNs()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Fused multiply-adds in registers for ns nanoseconds: every SM busy, no memory traffic.
__global__ void busy(unsigned long long ns, float* sink)
{
    const unsigned long long until = nowNs() + ns;
    float a = threadIdx.x, b = 1.0001f;
    while (nowNs() < until)
        for (int i = 0; i < 1024; ++i)
            a = fmaf(a, b, 0.5f);
    if (a == -1.0f)
        *sink = a; // never true; keeps the loop from being removed
}

// Copies from one half of buffer to the other and back, every thread a float4 at a time, for
// ns nanoseconds: device memory busy, little arithmetic.
__global__ void stream(float4* buffer, std::size_t count, unsigned long long ns)
{
    const unsigned long long until = nowNs() + ns;
    const std::size_t half = count / 2;
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    for (int pass = 0; nowNs() < until; ++pass) {
        float4* from = buffer + (pass % 2 ? half : 0);
        float4* to = buffer + (pass % 2 ? 0 : half);
        for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < half;
             i += stride)
            to[i] = from[i];
    }
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char** argv)
{
    const char* const usage =
        "usage: warpscope-link-probe [--mib 1..4096] [--pieces 1..64] [--runs 1..10000]\n";
    // Options come in pairs, so an odd one out is a mistake, not an option to ignore.
    const bool help = warpscope::bench::asksForHelp(argc, argv);
    if (help || argc % 2 == 0)
        return warpscope::bench::printUsage(usage, help);
    long long mib = 8;
    int pieces = 4, runs = 20;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        const long long value = std::atoll(argv[i + 1]);
        if (flag == "--mib" && value >= 1 && value <= 4096)
            mib = value;
        else if (flag == "--pieces" && value >= 1 && value <= 64)
            pieces = int(value);
        else if (flag == "--runs" && value >= 1 && value <= 10000)
            runs = int(value);
        else
            return warpscope::bench::printUsage(usage, false);
    }
    const std::size_t bytes = std::size_t(mib) << 20;
    const std::size_t pieceBytes = bytes / std::size_t(pieces);
    char *device = nullptr, *pinned = nullptr;
    float* sink = nullptr;
    cudaStream_t copies, work;
    std::vector<cudaEvent_t> landed(static_cast<std::size_t>(pieces));
    cudaEvent_t copyStart, copyEnd;
    if (!check(cudaMalloc(&device, bytes), "cudaMalloc") ||
        !check(cudaMemset(device, 1, bytes), "cudaMemset") ||
        !check(cudaMallocHost(&pinned, bytes), "cudaMallocHost") ||
        !check(cudaMalloc(&sink, sizeof(float)), "cudaMalloc") ||
        !check(cudaStreamCreateWithFlags(&copies, cudaStreamNonBlocking), "stream") ||
        !check(cudaStreamCreateWithFlags(&work, cudaStreamNonBlocking), "stream") ||
        !check(cudaEventCreate(&copyStart), "event") || !check(cudaEventCreate(&copyEnd), "event"))
        return 1;
    for (cudaEvent_t& e : landed)
        if (!check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "event"))
            return 1;
    int sms = 0;
    if (!check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "attribute"))
        return 1;
    std::vector<char> pageable(bytes);
    std::memset(pageable.data(), 0, bytes); // its pages exist before the first timed copy

    constexpr std::size_t kStreamBytes = std::size_t(512) << 20;
    float4* streamed = nullptr;
    if (!check(cudaMalloc(&streamed, kStreamBytes), "cudaMalloc") ||
        !check(cudaMemset(streamed, 0, kStreamBytes), "cudaMemset"))
        return 1;
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());

    enum class Beside
    {
        Nothing,
        Registers,
        Memory
    };
    // One run of a case: the copies (and, as asked, a kernel beside them and the host's
    // reads on readers threads); the copies' time in ms from CUDA events.
    const auto once = [&](Beside kernel, unsigned readers, bool toPageable, double& ms) {
        // 3 ms: longer than the slowest copies measured, so that it runs beside all of them.
        constexpr unsigned long long kBesideNs = 3000000ull;
        if (kernel == Beside::Registers)
            busy<<<sms * 4, 256, 0, work>>>(kBesideNs, sink);
        else if (kernel == Beside::Memory)
            stream<<<sms * 4, 256, 0, work>>>(streamed, kStreamBytes / sizeof(float4), kBesideNs);
        if (kernel != Beside::Nothing) {
            if (!check(cudaGetLastError(), "kernel beside the copies"))
                return false;
            // Let it fill the GPU before the copies start.
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
        if (!check(cudaEventRecord(copyStart, copies), "record"))
            return false;
        for (int k = 0; k < pieces; ++k) {
            const std::size_t at = std::size_t(k) * pieceBytes;
            char* to = toPageable ? pageable.data() : pinned;
            if (!check(cudaMemcpyAsync(to + at, device + at, pieceBytes, cudaMemcpyDeviceToHost,
                                       copies),
                       "copy") ||
                !check(cudaEventRecord(landed[std::size_t(k)], copies), "record"))
                return false;
        }
        if (!check(cudaEventRecord(copyEnd, copies), "record"))
            return false;
        for (int k = 0; k < pieces && readers > 0; ++k) {
            if (!check(cudaEventSynchronize(landed[std::size_t(k)]), "sync"))
                return false;
            const std::size_t at = std::size_t(k) * pieceBytes;
            const std::size_t slice = (pieceBytes + readers - 1) / readers;
            std::vector<std::thread> threads;
            for (unsigned r = 0; r < readers; ++r)
                threads.emplace_back([&, r] {
                    const std::size_t from = std::min(pieceBytes, r * slice);
                    const std::size_t to = std::min(pieceBytes, from + slice);
                    std::memcpy(pageable.data() + at + from, pinned + at + from, to - from);
                });
            for (std::thread& t : threads)
                t.join();
        }
        if (!check(cudaEventSynchronize(copyEnd), "sync"))
            return false;
        float elapsed = 0.0f;
        if (!check(cudaEventElapsedTime(&elapsed, copyStart, copyEnd), "elapsed"))
            return false;
        ms = elapsed;
        if (kernel != Beside::Nothing &&
            !check(cudaStreamSynchronize(work), "the end of the kernel beside the copies"))
            return false;
        return true;
    };

    cudaDeviceProp prop{};
    if (!check(cudaGetDeviceProperties(&prop, 0), "properties"))
        return 1;
    std::printf("%s: %lld MiB device to pinned host memory in %d pieces, median of %d runs\n",
                prop.name, mib, pieces, runs);
    const std::string everyCore = "host reads " + std::to_string(cores) + " threads";
    const struct
    {
        std::string name;
        Beside kernel;
        unsigned readers;
        bool toPageable;
    } cases[] = {{"alone", Beside::Nothing, 0, false},
                 {"beside FMA kernel", Beside::Registers, 0, false},
                 {"beside memory kernel", Beside::Memory, 0, false},
                 {"host reads 1 thread", Beside::Nothing, 1, false},
                 {everyCore, Beside::Nothing, cores, false},
                 {"into pageable", Beside::Nothing, 0, true}};
    for (const auto& c : cases) {
        std::vector<double> times;
        double ms = 0.0;
        if (!once(c.kernel, c.readers, c.toPageable, ms)) // warm-up
            return 1;
        for (int r = 0; r < runs; ++r) {
            if (!once(c.kernel, c.readers, c.toPageable, ms))
                return 1;
            times.push_back(ms);
        }
        const double m = median(times);
        std::printf("  %-22s %8.3f ms  %6.1f GB/s\n", c.name.c_str(), m, double(bytes) / (m * 1e6));
    }
    return 0;
}
