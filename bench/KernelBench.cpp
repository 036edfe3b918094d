// warpscope-kernel-bench: the kernel workbench against the built-in field, on the first CUDA
// device (or the CPU with --cpu): the built-in distance kernel, the editable haversine
// template (double) and a float32 per-node haversine, at N x N with K references, as medians
// of the kernels' own event times; then the compile time of a 40-line kernel with a cold and
// a warm cache. A program, not a test.
//   warpscope-kernel-bench [--size N] [--refs K] [--runs R] [--cpu]
#include "warpscope/gpu/Distance.h"
#include "warpscope/gpu/UserKernel.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

using namespace warpscope::gpu;

namespace {

// The haversine per node in float32, with the nearest reference's term found first, as a
// user would write it without the built-in's separable tables.
const char* kFloatHaversine = R"(// Haversine in float32, per node.
const float toRad = 0.017453292f;
const float phi = float(lat) * toRad;
const float cosPhi = cosf(phi);
float best = 1.0f;
for (int i = 0; i < refs.count; ++i) {
    const float refPhi = float(refs[i].lat) * toRad;
    const float sLat = sinf(0.5f * (phi - refPhi));
    const float sLon = sinf(0.5f * float(lon - refs[i].lon) * toRad);
    best = fminf(best, sLat * sLat + cosPhi * cosf(refPhi) * sLon * sLon);
}
best = fminf(fmaxf(best, 0.0f), 1.0f);
return float(refs.radius) * 2.0f * asinf(sqrtf(best));
)";

double median(std::vector<double> v)
{
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
}

// A 40-line kernel for the compile times: ripples over every reference, unrolled by hand.
std::string fortyLineKernel(int salt)
{
    std::string code = "// @param float k = 1.0 [0, 10]\n// variant " + std::to_string(salt) + "\n";
    code += "float sum = 0.0f;\n";
    for (int i = 0; i < 36; ++i)
        code += "sum += cosf(p.k * float(lat) * " + std::to_string(i + 1) + ".0f + float(lon));\n";
    code += "return sum;\n";
    return code;
}

bool timeUser(Context& context, const KernelSource& source, const KernelArgs& base, int runs,
              double& ms, const std::string& cacheDir)
{
    CompiledKernel gpu;
    SimulatorBuild cpu;
    KernelOptions options;
    options.smMajor = context.info().ccMajor ? context.info().ccMajor : 9;
    options.smMinor = context.info().ccMajor ? context.info().ccMinor : 0;
    Status s = context.isCuda() ? compileKernel(source, options, cacheDir, gpu)
                                : buildSimulatedKernel(source, cacheDir, cpu);
    if (!s) {
        std::fprintf(stderr, "compile failed: %s\n", s.message().c_str());
        return false;
    }
    KernelArgs args = base;
    for (const KernelParam& p : context.isCuda() ? gpu.params : cpu.params)
        args.values.push_back(p.value);
    std::vector<float> out(layoutFor(args.mesh).elementCount());
    std::vector<double> times;
    for (int r = 0; r <= runs; ++r) {
        KernelRun run;
        if (Status s = runUserKernel(context, gpu, cpu, args, BufferView<float>::host(out), &run);
            !s) {
            std::fprintf(stderr, "run failed: %s\n", s.message().c_str());
            return false;
        }
        if (r > 0) // the first is a warm-up
            times.push_back(run.kernelMs);
    }
    ms = median(times);
    return true;
}

} // namespace

int main(int argc, char** argv)
{
    int size = 4096, refs = 1, runs = 20;
    bool cpu = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
        if (arg == "--cpu")
            cpu = true;
        else if (arg == "--size" && value)
            size = std::atoi(argv[++i]);
        else if (arg == "--refs" && value)
            refs = std::atoi(argv[++i]);
        else if (arg == "--runs" && value)
            runs = std::atoi(argv[++i]);
        else {
            std::fprintf(
                stderr, "usage: warpscope-kernel-bench [--size N] [--refs K] [--runs R] [--cpu]\n");
            return 2;
        }
    }
    if (size < 2 || size > kMaxMeshAxis || refs < 1 || refs > kMaxReferencePoints || runs < 1) {
        std::fprintf(stderr, "warpscope-kernel-bench: size 2..%d, refs 1..%d, runs >= 1\n",
                     kMaxMeshAxis, kMaxReferencePoints);
        return 2;
    }
    std::unique_ptr<Context> context;
    if (Status s = Context::open({cpu ? DeviceKind::Cpu : DeviceKind::Cuda, 0}, context); !s) {
        std::fprintf(stderr, "warpscope-kernel-bench: %s\n", s.message().c_str());
        return 1;
    }
    KernelArgs args;
    args.mesh.nx = args.mesh.ny = size;
    args.mesh.references.clear();
    for (int i = 0; i < refs; ++i)
        args.mesh.references.push_back(
            {29.0 + 2.0 * i / refs, 99.0 + 2.0 * ((i * 7) % refs) / refs});
    const std::string cacheDir = (std::filesystem::temp_directory_path() /
                                  ("warpscope-kernel-bench-" + std::to_string(::getpid())))
                                     .string();
    std::printf("%s, %dx%d, %d reference(s), median of %d\n", context->name().c_str(), size, size,
                refs, runs);
    double builtIn = 0.0;
    if (Status s = timeDistanceKernel(*context, args.mesh, runs, builtIn); !s) {
        std::fprintf(stderr, "built-in: %s\n", s.message().c_str());
        return 1;
    }
    std::printf("built-in distance kernel (float32, separable): %10.4f ms\n", builtIn);
    const KernelSource haversine = kernelExamples()[2].source;
    double templateMs = 0.0, floatMs = 0.0;
    if (!timeUser(*context, haversine, args, runs, templateMs, cacheDir) ||
        !timeUser(*context, {KernelShape::PerNode, kFloatHaversine}, args, runs, floatMs, cacheDir))
        return 1;
    std::printf("haversine template (double, per node):         %10.4f ms (%.2fx built-in)\n",
                templateMs, templateMs / builtIn);
    std::printf("haversine per node (float32):                  %10.4f ms (%.2fx built-in)\n",
                floatMs, floatMs / builtIn);
    // Compile times: a new 40-line kernel (cold), then the same again (warm cache).
    KernelOptions options;
    options.smMajor = context->info().ccMajor ? context->info().ccMajor : 9;
    options.smMinor = context->info().ccMajor ? context->info().ccMinor : 0;
    for (const char* which : {"cold", "warm"}) {
        const auto start = std::chrono::steady_clock::now();
        CompiledKernel gpu;
        SimulatorBuild sim;
        const KernelSource source{KernelShape::PerNode, fortyLineKernel(int(::getpid()))};
        const Status s = context->isCuda() ? compileKernel(source, options, cacheDir, gpu)
                                           : buildSimulatedKernel(source, cacheDir, sim);
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        std::printf("40-line kernel, %s cache: %8.1f ms%s\n", which, ms,
                    s ? "" : (" (failed: " + s.message() + ")").c_str());
    }
    std::error_code error;
    std::filesystem::remove_all(cacheDir, error);
    return 0;
}
