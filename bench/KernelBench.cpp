// warpscope-kernel-bench: the kernel workbench against the built-in field, on the first CUDA
// device (or the CPU with --cpu): the built-in distance kernel, the editable haversine
// template (double) and a float32 per-node haversine, at N x N with K references, as medians
// of the kernels' own event times; then the compile time of a 40-line kernel with a cold and
// a warm cache. A program, not a test.
//   warpscope-kernel-bench [--size N] [--refs K] [--runs R] [--cpu]
//
// --slider: what moving a @param slider costs the app, at N x N (default 4096): a new value,
// the user's kernel writing the field's GL buffer through GlWriteScope (CUDA-GL interop, or a
// host copy and glBufferSubData where the GPU does not run the GL), the field drawn into an
// offscreen view, glFinish; wall clock from the value's change to glFinish, median of R, on
// headless EGL (no window, no compositor: the screen's own latency is not in it).
//   warpscope-kernel-bench --slider [--size N] [--runs R] [--view WxH]
//
// --variants FILE.csv: the Kernel workspace's variants table for the per-node template (or
// --source FILE.cu, its first line naming its shape as the workspace saves it), written as CSV.
//   warpscope-kernel-bench --variants FILE.csv [--source FILE.cu] [--size N] [--runs R] [--cpu]
//
// --launch: a whole kernel's file (--source) with the given grid and block (and dynamic shared
// bytes), at N x N: the median of its own times (bench/sim-kernels.sh runs the simulator's
// classic kernels so). --output writes the last run's field, N x N float32 values row by row
// (nodes the kernel does not write are 0), for a check against another implementation.
//   warpscope-kernel-bench --launch X,Y,Z/X,Y,Z[/BYTES] --source FILE.cu [--size N] [--runs R]
//   [--cpu] [--output FILE.f32] [--record]
// --record times the simulator's recording build (the Memory tab's record of every access).
#include "Help.h"
#include "warpscope/gpu/DevicePool.h"
#include "warpscope/gpu/Distance.h"
#include "warpscope/gpu/KernelVariants.h"
#include "warpscope/gpu/UserKernel.h"
#include "warpscope/render/FieldRenderer.h"
#include "warpscope/render/GlWriteScope.h"
#include "warpscope/render/HeadlessGl.h"

#include <GL/gl.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
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

// The same float32 haversine as a whole kernel with 16 x 16 blocks, its coordinates in float:
// what the per-node template's double lat and lon (and its launcher) cost, in the same run.
const char* kFloatWholeKernel = R"(__global__ void kernel(Out out, Mesh mesh, Refs refs, Params p)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= mesh.ny || col >= mesh.nx)
        return;
    const float toRad = 0.017453292f;
    const float lat = float(mesh.latMin) + float(mesh.latMax - mesh.latMin) * (float(row) / float(mesh.ny - 1));
    const float lon = float(mesh.lonMin) + float(mesh.lonMax - mesh.lonMin) * (float(col) / float(mesh.nx - 1));
    const float phi = lat * toRad;
    const float cosPhi = cosf(phi);
    float best = 1.0f;
    for (int i = 0; i < refs.count; ++i) {
        const float refPhi = float(refs[i].lat) * toRad;
        const float sLat = sinf(0.5f * (phi - refPhi));
        const float sLon = sinf(0.5f * (lon - float(refs[i].lon)) * toRad);
        best = fminf(best, sLat * sLat + cosPhi * cosf(refPhi) * sLon * sLon);
    }
    best = fminf(fmaxf(best, 0.0f), 1.0f);
    out.write(row, col, float(refs.radius) * 2.0f * asinf(sqrtf(best)));
}
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

// The median of runs of source's kernel (after a warm-up); field, when given, receives the
// last run's nodes row by row.
bool timeUser(Context& context, const KernelSource& source, const KernelArgs& base, int runs,
              double& ms, const std::string& cacheDir, std::vector<float>* field = nullptr)
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
    if (field) {
        const FieldLayout layout = layoutFor(args.mesh);
        field->clear();
        for (int row = 0; row < layout.ny; ++row)
            field->insert(field->end(), out.begin() + std::ptrdiff_t(layout.index(row, 0)),
                          out.begin() + std::ptrdiff_t(layout.index(row, layout.nx)));
    }
    return true;
}

// Moves the per-node template's k as a slider does, each value drawn to glFinish.
int runSlider(int size, int runs, int viewWidth, int viewHeight, const std::string& cacheDir)
{
    std::string error;
    auto gl = warpscope::render::HeadlessGl::create(viewWidth, viewHeight, error);
    if (!gl) {
        std::fprintf(stderr, "warpscope-kernel-bench: %s\n", error.c_str());
        return 1;
    }
    warpscope::render::FieldRenderer renderer;
    if (Status s = renderer.initialize(); !s) {
        std::fprintf(stderr, "warpscope-kernel-bench: %s\n", s.message().c_str());
        return 1;
    }
    DevicePool devices(BackendKind::Auto, -1, nullptr);
    std::unique_ptr<Context> context;
    std::string why;
    if (Status s =
            devices.openDisplay("kernel", warpscope::render::glCudaDevices(), true, context, why);
        !s) {
        std::fprintf(stderr, "warpscope-kernel-bench: %s\n", s.message().c_str());
        return 1;
    }
    warpscope::render::GlInterop interop(*context);
    KernelArgs args;
    args.mesh.nx = args.mesh.ny = size;
    const KernelSource source = kernelExamples().front().source; // per node, @param k
    CompiledKernel gpu;
    SimulatorBuild cpu;
    KernelOptions options;
    options.smMajor = context->isCuda() ? context->info().ccMajor : 9;
    options.smMinor = context->isCuda() ? context->info().ccMinor : 0;
    if (Status s = context->isCuda() ? compileKernel(source, options, cacheDir, gpu)
                                     : buildSimulatedKernel(source, cacheDir, cpu);
        !s) {
        std::fprintf(stderr, "compile failed: %s\n", s.message().c_str());
        return 1;
    }
    warpscope::render::FieldSurface surface;
    if (Status s = renderer.createSurface(layoutFor(args.mesh), surface); !s) {
        std::fprintf(stderr, "warpscope-kernel-bench: %s\n", s.message().c_str());
        return 1;
    }
    const warpscope::render::GeoRect rect{args.mesh.lonMin, args.mesh.latMin, args.mesh.lonMax,
                                          args.mesh.latMax};
    std::printf("OpenGL: %s\nDevice: %s\nWrite path: %s\n", gl->renderer().c_str(), why.c_str(),
                interop.interop() ? "CUDA-GL interop (the kernel's context copies into the mapped "
                                    "GL buffer)"
                                  : "host copy, then glBufferSubData");
    std::printf("Slider to pixels, per-node template, %dx%d, %dx%d view, median of %d after 10 "
                "warm-up:\n",
                size, size, viewWidth, viewHeight, runs);
    std::vector<double> frames, kernels;
    for (int k = -10; k < runs; ++k) {
        const auto t0 = std::chrono::steady_clock::now();
        args.values = {1.0f + 0.01f * float((k + 10) % 50)}; // the slider moved
        // As the Kernel view does it: the kernel runs in the kernel runner's process, and once
        // it has answered its output is copied into the mapped GL buffer.
        KernelRun run;
        Status s = startUserKernel(*context, gpu, cpu, args, false);
        if (s)
            userKernelAnswered(*context, args.timeoutMs);
        warpscope::render::GlWriteScope scope(interop, surface.buffer, surface.bytes());
        if (s)
            s = scope.status();
        if (s)
            s = finishUserKernel(*context, scope.view<float>(), {}, run);
        if (s)
            s = scope.commit();
        if (!s) {
            std::fprintf(stderr, "run failed: %s\n", s.message().c_str());
            return 1;
        }
        gl->bindFramebuffer();
        renderer.draw(surface, rect, rect, {0, 0, gl->width(), gl->height()}, {0, 0, 0});
        glFinish();
        const std::chrono::duration<double, std::milli> dt = std::chrono::steady_clock::now() - t0;
        if (k >= 0) {
            frames.push_back(dt.count());
            kernels.push_back(run.kernelMs);
        }
    }
    std::printf("  value change to glFinish: median %9.3f ms (min %.3f, max %.3f)\n",
                median(frames), *std::min_element(frames.begin(), frames.end()),
                *std::max_element(frames.begin(), frames.end()));
    std::printf("  the kernel alone (%s):   median %9.3f ms\n",
                context->isCuda() ? "CUDA events" : "wall clock", median(kernels));
    renderer.destroySurface(surface);
    return 0;
}

int runVariants(Context& context, const KernelSource& source, const KernelArgs& base, int runs,
                const std::string& csvPath, const std::string& cacheDir)
{
    KernelVariantsRequest request;
    request.source = source;
    request.args = base;
    request.args.launch.block = {16, 16, 1};
    request.args.launch.grid = {(base.mesh.nx + 15) / 16, (base.mesh.ny + 15) / 16, 1};
    for (const KernelParam& p : parseKernelParams(source.code).params)
        request.args.values.push_back(p.value);
    if (context.isCuda()) {
        request.options.smMajor = context.info().ccMajor;
        request.options.smMinor = context.info().ccMinor;
    }
    request.runs = runs;
    request.cacheDir = cacheDir;
    std::vector<KernelVariantRow> rows;
    const Status s = measureKernelVariants(context, request, rows);
    const std::string csv = kernelVariantsCsv(rows);
    std::fputs(csv.c_str(), stdout);
    std::ofstream out(csvPath, std::ios::binary);
    if (!(out << csv) || !out.flush()) {
        std::fprintf(stderr, "warpscope-kernel-bench: could not write %s\n", csvPath.c_str());
        return 1;
    }
    if (!s) {
        std::fprintf(stderr, "warpscope-kernel-bench: %s\n", s.message().c_str());
        return 1;
    }
    return 0;
}

// A .cu file as the workspace saves it: the first line may name its shape; otherwise one
// with __global__ is a whole kernel.
bool readSource(const std::string& path, KernelSource& source)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    if (!in || !(text << in.rdbuf()) || text.str().size() > kMaxKernelSourceBytes) {
        std::fprintf(stderr, "warpscope-kernel-bench: cannot read %s (or it is over 1 MiB)\n",
                     path.c_str());
        return false;
    }
    std::string code = text.str();
    source.shape = code.find("__global__") != std::string::npos ? KernelShape::WholeKernel
                                                                : KernelShape::PerNode;
    for (const auto& [marker, shape] :
         {std::pair{"// warpscope kernel: per node\n", KernelShape::PerNode},
          std::pair{"// warpscope kernel: whole kernel\n", KernelShape::WholeKernel}})
        if (code.starts_with(marker)) {
            source.shape = shape;
            code.erase(0, std::strlen(marker));
        }
    source.code = code;
    return true;
}

} // namespace

const char* const kUsage =
    "usage: warpscope-kernel-bench [--size N] [--refs K] [--runs R] [--cpu]\n"
    "       warpscope-kernel-bench --slider [--size N] [--runs R] [--view WxH]\n"
    "       warpscope-kernel-bench --variants FILE.csv [--source FILE.cu] [--size N] [--runs R] "
    "[--cpu]\n"
    "       warpscope-kernel-bench --launch X,Y,Z/X,Y,Z[/BYTES] --source FILE.cu [--size N] "
    "[--runs R] [--cpu] [--output FILE.f32] [--record]\n";

int main(int argc, char** argv)
{
    if (warpscope::bench::asksForHelp(argc, argv))
        return warpscope::bench::printUsage(kUsage, true);
    int size = 4096, refs = 1, runs = 20, viewWidth = 1600, viewHeight = 1000;
    bool cpu = false, slider = false, launch = false, record = false;
    LaunchConfig config;
    std::string variantsCsv, sourcePath, outputPath;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
        if (arg == "--cpu")
            cpu = true;
        else if (arg == "--record")
            record = true;
        else if (arg == "--size" && value)
            size = std::atoi(argv[++i]);
        else if (arg == "--refs" && value)
            refs = std::atoi(argv[++i]);
        else if (arg == "--runs" && value)
            runs = std::atoi(argv[++i]);
        else if (arg == "--slider")
            slider = true;
        else if (arg == "--view" && value &&
                 std::sscanf(argv[++i], "%dx%d", &viewWidth, &viewHeight) == 2 && viewWidth > 0 &&
                 viewHeight > 0 && viewWidth <= 8192 && viewHeight <= 8192)
            continue;
        else if (arg == "--variants" && value)
            variantsCsv = argv[++i];
        else if (arg == "--source" && value)
            sourcePath = argv[++i];
        else if (arg == "--output" && value)
            outputPath = argv[++i];
        else if (arg == "--launch" && value &&
                 std::sscanf(argv[++i], "%lld,%lld,%lld/%lld,%lld,%lld/%lld", &config.grid.x,
                             &config.grid.y, &config.grid.z, &config.block.x, &config.block.y,
                             &config.block.z, &config.sharedBytes) >= 6)
            launch = true;
        else
            return warpscope::bench::printUsage(kUsage, false);
    }
    if ((launch && sourcePath.empty()) || (!outputPath.empty() && !launch))
        return warpscope::bench::printUsage(kUsage, false);
    if (size < 2 || size > kMaxMeshAxis || refs < 1 || refs > kMaxReferencePoints || runs < 1) {
        std::fprintf(stderr, "warpscope-kernel-bench: size 2..%d, refs 1..%d, runs >= 1\n",
                     kMaxMeshAxis, kMaxReferencePoints);
        return 2;
    }
    const std::string cacheDir = (std::filesystem::temp_directory_path() /
                                  ("warpscope-kernel-bench-" + std::to_string(::getpid())))
                                     .string();
    const auto cleanUp = [&cacheDir](int code) {
        std::error_code error;
        std::filesystem::remove_all(cacheDir, error);
        return code;
    };
    if (slider)
        return cleanUp(runSlider(size, runs, viewWidth, viewHeight, cacheDir));
    KernelSource variantsSource = kernelExamples().front().source;
    if (!sourcePath.empty() && !readSource(sourcePath, variantsSource))
        return 2;
    variantsSource.recordMemory = record;
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
    if (!variantsCsv.empty())
        return cleanUp(runVariants(*context, variantsSource, args, runs, variantsCsv, cacheDir));
    if (launch) {
        args.launch = config;
        args.timeoutMs = 600000.0;
        double ms = 0.0;
        std::vector<float> field;
        if (!timeUser(*context, variantsSource, args, runs, ms, cacheDir, &field))
            return cleanUp(1);
        if (!outputPath.empty()) {
            std::ofstream file(outputPath, std::ios::binary);
            if (!file.write(reinterpret_cast<const char*>(field.data()),
                            std::streamsize(field.size() * sizeof(float))) ||
                !file.flush()) {
                std::fprintf(stderr, "warpscope-kernel-bench: could not write %s\n",
                             outputPath.c_str());
                return cleanUp(1);
            }
        }
        std::printf("%s, %dx%d, median of %d: %10.3f ms\n", sourcePath.c_str(), size, size, runs,
                    ms);
        return cleanUp(0);
    }
    std::printf("%s, %dx%d, %d reference(s), median of %d\n", context->name().c_str(), size, size,
                refs, runs);
    double builtIn = 0.0;
    if (Status s = timeDistanceKernel(*context, args.mesh, runs, builtIn); !s) {
        std::fprintf(stderr, "built-in: %s\n", s.message().c_str());
        return 1;
    }
    std::printf("built-in distance kernel (float32, separable): %10.4f ms\n", builtIn);
    const KernelSource haversine = kernelExamples()[2].source;
    double templateMs = 0.0, floatMs = 0.0, wholeMs = 0.0;
    KernelArgs whole = args;
    whole.launch.block = {16, 16, 1};
    whole.launch.grid = {(size + 15) / 16, (size + 15) / 16, 1};
    if (!timeUser(*context, haversine, args, runs, templateMs, cacheDir) ||
        !timeUser(*context, {KernelShape::PerNode, kFloatHaversine}, args, runs, floatMs,
                  cacheDir) ||
        !timeUser(*context, {KernelShape::WholeKernel, kFloatWholeKernel}, whole, runs, wholeMs,
                  cacheDir))
        return 1;
    std::printf("haversine template (double, per node):         %10.4f ms (%.2fx built-in)\n",
                templateMs, templateMs / builtIn);
    std::printf("haversine per node (float32):                  %10.4f ms (%.2fx built-in)\n",
                floatMs, floatMs / builtIn);
    std::printf("haversine whole kernel (float32, float coords): %9.4f ms (per node is %.2fx it)\n",
                wholeMs, floatMs / wholeMs);
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
    return cleanUp(0);
}
