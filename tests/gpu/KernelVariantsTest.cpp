#include "warpscope/gpu/KernelVariants.h"

#include "TestSupport.h"

#include <algorithm>
#include <filesystem>
#include <unistd.h>

namespace warpscope::gpu::test {
namespace {

const KernelExample& example(const std::string& name)
{
    for (const KernelExample& e : kernelExamples())
        if (e.name == name)
            return e;
    ADD_FAILURE() << "no example named " << name;
    return kernelExamples().front();
}

// A mesh whose per-node template values (k = 1: the distance in degrees from the first
// reference) stay below 400: sqrt(105^2 + 345^2) < 361.
DistanceParams smallMesh()
{
    DistanceParams mesh;
    mesh.latMin = -40.0;
    mesh.latMax = 65.0;
    mesh.lonMin = -170.0;
    mesh.lonMax = 175.0;
    mesh.nx = 123;
    mesh.ny = 77;
    mesh.references = {{30.0, 101.0}, {-33.9, 151.2}};
    return mesh;
}
constexpr double kLargestValue = 400.0;

KernelVariantsRequest requestFor(const KernelSource& source, const Context& context)
{
    KernelVariantsRequest request;
    request.source = source;
    if (context.isCuda()) {
        request.options.smMajor = context.info().ccMajor;
        request.options.smMinor = context.info().ccMinor;
    }
    request.args.mesh = smallMesh();
    request.args.launch.block = {32, 8, 1};
    request.args.launch.grid = {(123 + 31) / 32, (77 + 7) / 8, 1};
    for (const KernelParam& p : parseKernelParams(source.code).params)
        request.args.values.push_back(p.value);
    request.runs = 3;
    request.cacheDir = (std::filesystem::temp_directory_path() /
                        ("warpscope-variants-test-" + std::to_string(::getpid())))
                           .string();
    return request;
}

const std::vector<std::string> kRowNames = {
    "default",          "-use_fast_math",         "-maxrregcount=32",
    "-maxrregcount=64", "__launch_bounds__(256)", "float64 (real = double)"};

const KernelVariantRow& row(const std::vector<KernelVariantRow>& rows, const std::string& name)
{
    for (const KernelVariantRow& r : rows)
        if (r.name == name)
            return r;
    ADD_FAILURE() << "no row " << name;
    return rows.front();
}

TEST(KernelVariants, TheTableHasItsRowsAndSkipsWhatCannotApply)
{
    const KernelSource perNode = example("Per node").source;
    std::vector<std::string> names;
    for (const KernelVariant& v : kernelVariants(perNode, {}, 256))
        names.push_back(v.name);
    EXPECT_EQ(names, kRowNames);
    const auto skipOf = [](const KernelSource& source, const KernelOptions& options,
                           const std::string& name) {
        for (const KernelVariant& v : kernelVariants(source, options, 128))
            if (v.name == name)
                return v.skip;
        return std::string("no such row");
    };
    // A whole kernel that never names real: float64 would change nothing.
    const KernelSource plain{
        KernelShape::WholeKernel,
        "// real in a comment does not count\n"
        "__global__ void kernel(Out out, Mesh mesh, Refs refs, Params p) {}\n"};
    EXPECT_NE(skipOf(plain, {}, "float64 (real = double)").find("does not use the type real"),
              std::string::npos);
    EXPECT_EQ(skipOf(example("Whole kernel").source, {}, "float64 (real = double)"), "");
    const KernelSource bounded{KernelShape::WholeKernel,
                               "__global__ void __launch_bounds__(64) kernel(Out out, Mesh mesh, "
                               "Refs refs, Params p) {}\n"};
    EXPECT_NE(skipOf(bounded, {}, "__launch_bounds__(128)").find("declares __launch_bounds__"),
              std::string::npos);
    KernelOptions fast;
    fast.flags = {"-use_fast_math", "-maxrregcount=40"};
    EXPECT_NE(skipOf(perNode, fast, "-use_fast_math").find("have it already"), std::string::npos);
    EXPECT_NE(skipOf(perNode, fast, "-maxrregcount=32").find("set -maxrregcount already"),
              std::string::npos);
    // Every variant keeps the user's own options.
    for (const KernelVariant& v : kernelVariants(perNode, fast, 128))
        EXPECT_TRUE(std::find(v.options.flags.begin(), v.options.flags.end(), "-maxrregcount=40") !=
                    v.options.flags.end())
            << v.name;
}

TEST(KernelVariants, LaunchBoundsGoBeforeTheKernelsNameOnItsOwnLine)
{
    KernelSource source{KernelShape::WholeKernel,
                        "// __global__ void kernel( in a comment\n"
                        "__global__\nvoid kernel(Out out, Mesh mesh, Refs refs, Params p) {}\n"};
    source.launchBounds = 96;
    const std::string text = wrapKernelSource(source, {}, {}, KernelTarget::Cuda);
    EXPECT_NE(text.find("void __launch_bounds__(96) kernel(Out"), std::string::npos) << text;
    EXPECT_NE(text.find("// __global__ void kernel( in a comment"), std::string::npos);
    KernelSource perNode{KernelShape::PerNode, "return 1.0f;\n"};
    perNode.launchBounds = 256;
    perNode.realIsDouble = true;
    const std::string wrapped = wrapKernelSource(perNode, {}, {}, KernelTarget::Cuda);
    EXPECT_NE(wrapped.find("__launch_bounds__(256) ws_per_node("), std::string::npos);
    EXPECT_NE(wrapped.find("typedef double real;"), std::string::npos);
}

// Without a GPU: NVRTC still builds every variant, so registers and occupancy are known; the
// simulator times and compares the default and float64 rows, and says why the others have
// no time.
TEST(KernelVariants, EveryTemplatesVariantsCompileAndReportRegisters)
{
    if (!nvrtcAvailable())
        GTEST_SKIP() << "NVRTC is not available in this build";
    if (hostCompiler().empty())
        GTEST_SKIP() << "no C++ compiler for the CPU simulator";
    auto context = cpuContext(2);
    for (const char* name : {"Per node", "Whole kernel", "Built-in haversine"}) {
        SCOPED_TRACE(name);
        const KernelVariantsRequest request = requestFor(example(name).source, *context);
        std::vector<KernelVariantRow> rows;
        int lastDone = 0;
        const Status s = measureKernelVariants(*context, request, rows, nullptr,
                                               [&](int done, int) { lastDone = done; });
        ASSERT_TRUE(s.ok()) << s.message();
        ASSERT_EQ(rows.size(), 6u);
        EXPECT_EQ(lastDone, 6);
        for (const KernelVariantRow& r : rows) {
            SCOPED_TRACE(r.name);
            ASSERT_TRUE(r.compiled) << r.problem;
            EXPECT_TRUE(r.usage.known);
            EXPECT_GT(r.usage.registers, 0);
            EXPECT_TRUE(r.occupancyKnown);
            EXPECT_GT(r.occupancy.fraction, 0.0);
            EXPECT_FALSE(r.timeNote.empty());
            EXPECT_FALSE(r.diffNote.empty());
        }
        // What the option asks of ptxas.
        EXPECT_LE(row(rows, "-maxrregcount=32").usage.registers, 32);
        EXPECT_LE(row(rows, "-maxrregcount=64").usage.registers, 64);
        const KernelVariantRow& fast = row(rows, "-use_fast_math");
        EXPECT_FALSE(fast.timed);
        EXPECT_EQ(fast.timeNote, "CPU simulator: compile flags do not apply");
        EXPECT_FALSE(fast.compared);
        EXPECT_FALSE(rows[4].timed);
        EXPECT_EQ(rows[4].timeNote, "CPU simulator: launch bounds do not apply");
        const KernelVariantRow& base = rows[0];
        ASSERT_TRUE(base.timed);
        ASSERT_TRUE(base.compared);
        EXPECT_EQ(base.maxAbsDiff, 0.0);
        EXPECT_EQ(base.differingNodes, 0);
    }
}

// The float64 row against float32 on the simulator: each float operation of the templates
// rounds by at most 2^-24 of its result, a handful of them per node, so the two differ by a
// few units in the last place of the largest value.
TEST(KernelVariants, Float64DiffersFromFloat32ByRoundingOnTheSimulator)
{
    if (hostCompiler().empty())
        GTEST_SKIP() << "no C++ compiler for the CPU simulator";
    auto context = cpuContext(2);
    for (const char* name : {"Per node", "Whole kernel"}) {
        SCOPED_TRACE(name);
        std::vector<KernelVariantRow> rows;
        const Status s =
            measureKernelVariants(*context, requestFor(example(name).source, *context), rows);
        ASSERT_TRUE(s.ok()) << s.message();
        const KernelVariantRow& wide = row(rows, "float64 (real = double)");
        ASSERT_TRUE(wide.timed);
        ASSERT_TRUE(wide.compared);
        EXPECT_GT(wide.maxAbsDiff, 0.0); // float32 does round
        EXPECT_LE(wide.maxAbsDiff, kLargestValue * 0x1p-20);
        EXPECT_GT(wide.differingNodes, 0);
        EXPECT_EQ(wide.nonFiniteDiffering, 0);
    }
}

// A kernel whose float64 variant writes NaN where float32 writes 1 (columns 0 to 9), NaN where
// float32 does too (10 to 19), +inf where float32 writes -inf (20 to 29), and 3 where float32
// writes 2 (30 to 39); both write 2 elsewhere.
TEST(KernelVariants, NonFiniteValuesDifferFromNumbersAndFromOtherNonFiniteValues)
{
    if (hostCompiler().empty())
        GTEST_SKIP() << "no C++ compiler for the CPU simulator";
    const KernelSource source{
        KernelShape::WholeKernel,
        "__global__ void kernel(Out out, Mesh mesh, Refs refs, Params p)\n"
        "{\n"
        "    const int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    const int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
        "    if (row >= mesh.ny || col >= mesh.nx)\n"
        "        return;\n"
        "    const real zero = real(row) * 0;\n"
        "    const bool wide = sizeof(real) == sizeof(double);\n"
        "    real v = 2;\n"
        "    if (col < 10) v = wide ? zero / zero : real(1);\n"
        "    else if (col < 20) v = zero / zero;\n"
        "    else if (col < 30) v = wide ? real(1) / zero : real(-1) / zero;\n"
        "    else if (col < 40) v = wide ? real(3) : real(2);\n"
        "    out.write(row, col, float(v));\n"
        "}\n"};
    auto context = cpuContext(2);
    std::vector<KernelVariantRow> rows;
    const Status s = measureKernelVariants(*context, requestFor(source, *context), rows);
    ASSERT_TRUE(s.ok()) << s.message();
    const KernelVariantRow& base = row(rows, "default");
    ASSERT_TRUE(base.compared);
    EXPECT_EQ(base.differingNodes, 0); // NaN against NaN is no difference
    const KernelVariantRow& wide = row(rows, "float64 (real = double)");
    ASSERT_TRUE(wide.compared);
    EXPECT_EQ(wide.maxAbsDiff, 1.0);
    EXPECT_EQ(wide.differingNodes, (10 + 10 + 10) * 77);
    EXPECT_EQ(wide.nonFiniteDiffering, (10 + 10) * 77);
}

// The memory columns: one recorded run of each variant the simulator runs. A warp's store of
// 32 floats side by side costs 4 sectors, of 32 doubles 8 (Nsight Compute's figures), so the
// float64 variant's requests cost (8 + 4) / 2 where the default's cost (4 + 4) / 2. The array
// is aligned as cudaMalloc aligns memory; the host's linker alone would give it 16 bytes.
TEST(KernelVariants, TheMemoryColumnsCompareTheVariantsRecordedRuns)
{
    if (!simulatorChecksMemory())
        GTEST_SKIP() << "the simulator's compiler is not clang++: nothing is recorded";
    const KernelSource source{KernelShape::WholeKernel,
                              "__device__ __align__(256) real g[128 * 64];\n"
                              "__global__ void kernel(Out out, Mesh mesh, Refs refs, Params p)\n"
                              "{\n"
                              "    const int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
                              "    const int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
                              "    const real v = real(row) * real(0.5) + real(col);\n"
                              "    g[row * 128 + col] = v;\n"
                              "    out.write(row, col, float(v));\n"
                              "}\n"};
    auto context = cpuContext(2);
    KernelVariantsRequest request = requestFor(source, *context);
    request.args.mesh.nx = 128;
    request.args.mesh.ny = 64;
    request.args.launch.grid = {4, 8, 1};
    request.runs = 1;
    std::vector<KernelVariantRow> rows;
    ASSERT_TRUE(measureKernelVariants(*context, request, rows).ok());
    EXPECT_FALSE(row(rows, "default").memoryKnown);
    EXPECT_NE(row(rows, "default").memoryNote.find("not recorded"), std::string::npos);

    request.recordMemory = true;
    ASSERT_TRUE(measureKernelVariants(*context, request, rows).ok());
    for (const auto& [name, sectors] :
         {std::pair{"default", 4.0}, {"float64 (real = double)", 6.0}}) {
        const KernelVariantRow& r = row(rows, name);
        ASSERT_TRUE(r.memoryKnown) << name << ": " << r.memoryNote;
        ASSERT_TRUE(r.memory.sectorsPerRequest && r.memory.idealSectorsPerRequest) << name;
        EXPECT_DOUBLE_EQ(*r.memory.sectorsPerRequest, sectors) << name;
        EXPECT_DOUBLE_EQ(*r.memory.idealSectorsPerRequest, sectors) << name;
        EXPECT_FALSE(r.memory.conflictWays) << name << ": no shared memory";
        ASSERT_TRUE(r.memory.activeLanes) << name;
        EXPECT_DOUBLE_EQ(*r.memory.activeLanes, 32.0) << name;
    }
    // Variants the simulator does not run have no record, and say why.
    EXPECT_FALSE(row(rows, "-use_fast_math").memoryKnown);
}

// Fast math and float atomics change results with no bug: the table says why, where they do.
TEST(KernelVariants, ExpectedDifferencesAreNamed)
{
    KernelVariant plain;
    plain.source = {KernelShape::PerNode, "return float(lat); // atomicAdd in a comment\n"};
    EXPECT_EQ(expectedDifference(plain, true), "");
    KernelVariant fast = plain;
    fast.options.flags = {"-use_fast_math"};
    EXPECT_EQ(expectedDifference(fast, true).rfind("-use_fast_math approximates", 0), 0u);
    EXPECT_EQ(expectedDifference(fast, false), "") << "the simulator takes no NVRTC flags";
    KernelVariant atomic = plain;
    atomic.source.code = "__global__ void kernel(Out out, Mesh mesh, Refs refs, Params p)\n"
                         "{ atomicAdd_block(out.data, 1.0f); }\n";
    EXPECT_NE(expectedDifference(atomic, false).find("atomicAdd on float or double"),
              std::string::npos);
    atomic.source.code = "int myatomicAdd(int);\n";
    EXPECT_EQ(expectedDifference(atomic, false), "");
}

TEST(KernelVariants, CancelStopsBeforeTheNextVariant)
{
    if (hostCompiler().empty())
        GTEST_SKIP() << "no C++ compiler for the CPU simulator";
    auto context = cpuContext(2);
    std::atomic<bool> cancel{true};
    std::vector<KernelVariantRow> rows;
    const Status s = measureKernelVariants(
        *context, requestFor(example("Per node").source, *context), rows, &cancel);
    EXPECT_FALSE(s.ok());
    EXPECT_EQ(s.message(), "Cancelled");
    EXPECT_TRUE(rows.empty());
}

TEST(KernelVariants, BadRequestsFailWithAMessage)
{
    auto context = cpuContext(2);
    KernelVariantsRequest request = requestFor(example("Per node").source, *context);
    request.runs = 0;
    std::vector<KernelVariantRow> rows;
    EXPECT_NE(measureKernelVariants(*context, request, rows).message().find("1 to 1000"),
              std::string::npos);
    request.runs = 3;
    request.args.mesh.nx = 1;
    EXPECT_FALSE(measureKernelVariants(*context, request, rows).ok());
}

TEST(KernelVariants, CsvHasAHeaderAndEmptyCellsForUnknownFigures)
{
    KernelVariantRow timed;
    timed.name = "default";
    timed.compiled = true;
    timed.usage.known = true;
    timed.usage.registers = 30;
    timed.usage.spillsKnown = true;
    timed.usage.spillStoreBytes = 4;
    timed.usage.spillLoadBytes = 8;
    timed.occupancyKnown = true;
    timed.occupancy.fraction = 0.75;
    timed.timed = true;
    timed.medianMs = 0.125;
    timed.timeNote = "GPU, CUDA events, median of 7 runs";
    timed.compared = true;
    timed.maxAbsDiff = 0.0;
    timed.diffNote = "the default's last run against its first";
    timed.memoryKnown = true;
    timed.memory.sectorsPerRequest = 8.0;
    timed.memory.idealSectorsPerRequest = 4.0;
    timed.memory.activeLanes = 32.0; // no shared memory: its cell stays empty
    timed.memoryNote = "recorded";
    KernelVariantRow skipped;
    skipped.name = "__launch_bounds__(256)";
    skipped.problem = "the source declares __launch_bounds__ itself, \"twice\"";
    skipped.timeNote = skipped.diffNote = "not built";
    const std::string csv = kernelVariantsCsv({timed, skipped});
    EXPECT_EQ(csv, "variant,compiled,time_ms,registers,spill_store_bytes,spill_load_bytes,"
                   "occupancy_percent,max_abs_diff,nodes_differing,nodes_differing_not_finite,"
                   "sectors_per_request,ideal_sectors_per_request,conflict_ways,active_lanes,"
                   "timing,comparison,memory,problem\n"
                   "default,yes,0.125,30,4,8,75.0,0,0,0,8,4,,32,\"GPU, CUDA events, median of 7 "
                   "runs\",the default's last run against its first,recorded,\n"
                   "__launch_bounds__(256),no,,,,,,,,,,,,,not built,not built,,\"the source "
                   "declares __launch_bounds__ itself, \"\"twice\"\"\"\n");
    // Resources from the driver: registers, but no spills to report.
    timed.usage.spillsKnown = false;
    EXPECT_NE(kernelVariantsCsv({timed}).find("\ndefault,yes,0.125,30,,,75.0,"), std::string::npos)
        << kernelVariantsCsv({timed});
}

// A user kernel's run is in the timeline with its launch, as the built-in kernels are.
TEST(KernelTimeline, ASimulatedRunIsASpanWithItsLaunch)
{
    if (hostCompiler().empty())
        GTEST_SKIP() << "no C++ compiler for the CPU simulator";
    auto context = cpuContext(2);
    auto timeline = std::make_shared<Timeline>();
    context->setTimeline(timeline, "kernel");
    const KernelVariantsRequest request = requestFor(example("Whole kernel").source, *context);
    SimulatorBuild build;
    ASSERT_TRUE(buildSimulatedKernel(request.source, request.cacheDir, build).ok());
    std::vector<float> out(layoutFor(request.args.mesh).elementCount());
    ASSERT_TRUE(
        runUserKernel(*context, {}, build, request.args, BufferView<float>::host(out)).ok());
    const TimelineSnapshot snapshot = timeline->snapshot();
    const auto span = std::find_if(snapshot.spans.begin(), snapshot.spans.end(),
                                   [](const Span& s) { return s.name.starts_with("user kernel"); });
    ASSERT_NE(span, snapshot.spans.end());
    EXPECT_EQ(span->name, "user kernel (CPU simulator)");
    EXPECT_EQ(span->kind, SpanKind::Kernel); // coloured as a GPU's run, not as host work
    EXPECT_EQ(span->detail, "grid (4, 10, 1), block (32, 8, 1)");
    EXPECT_GE(span->endUs, span->startUs);
}

// --- On a GPU (skipped without one) ---------------------------------------------------

class KernelVariantsGpu : public CudaContextTest
{};

// Every row is timed with events and compared over the whole field. The default against
// itself is exactly 0 (the same build, the same inputs). -use_fast_math turns sqrt and
// division into approximations within 2 ulp and flushes denormals; float64 against float32
// differs by the rounding of a handful of float operations: both stay within 2^-20 of the
// largest value (under 400 on this mesh).
TEST_F(KernelVariantsGpu, EveryRowIsTimedAndComparedOnTheGpu)
{
    for (const char* name : {"Per node", "Whole kernel"}) {
        SCOPED_TRACE(name);
        std::vector<KernelVariantRow> rows;
        const KernelVariantsRequest request = requestFor(example(name).source, *m_cuda);
        const Status s = measureKernelVariants(*m_cuda, request, rows);
        ASSERT_TRUE(s.ok()) << s.message();
        ASSERT_EQ(rows.size(), 6u);
        for (const KernelVariantRow& r : rows) {
            SCOPED_TRACE(r.name);
            ASSERT_TRUE(r.compiled) << r.problem;
            EXPECT_TRUE(r.timed) << r.timeNote;
            EXPECT_GT(r.medianMs, 0.0);
            EXPECT_EQ(r.timeNote, "GPU, CUDA events, median of 3 runs");
            EXPECT_TRUE(r.compared) << r.diffNote;
            EXPECT_TRUE(r.occupancyKnown);
            EXPECT_EQ(r.nonFiniteDiffering, 0);
            EXPECT_LE(r.maxAbsDiff, kLargestValue * 0x1p-20);
        }
        EXPECT_EQ(rows[0].maxAbsDiff, 0.0);
        EXPECT_GT(row(rows, "float64 (real = double)").maxAbsDiff, 0.0);
    }
}

TEST_F(KernelVariantsGpu, AGpuRunIsAKernelSpanWithItsLaunch)
{
    auto timeline = std::make_shared<Timeline>();
    m_cuda->setTimeline(timeline, "kernel");
    const KernelVariantsRequest request = requestFor(example("Whole kernel").source, *m_cuda);
    CompiledKernel built;
    ASSERT_TRUE(compileKernel(request.source, request.options, {}, built).ok());
    std::vector<float> out(layoutFor(request.args.mesh).elementCount());
    const double before = timeline->nowUs();
    ASSERT_TRUE(runUserKernel(*m_cuda, built, {}, request.args, BufferView<float>::host(out)).ok());
    const double after = timeline->nowUs();
    const TimelineSnapshot snapshot = timeline->snapshot();
    const auto span = std::find_if(snapshot.spans.begin(), snapshot.spans.end(),
                                   [](const Span& s) { return s.name == "user kernel"; });
    ASSERT_NE(span, snapshot.spans.end());
    EXPECT_EQ(span->kind, SpanKind::Kernel);
    EXPECT_EQ(span->detail, "grid (4, 10, 1), block (32, 8, 1)");
    EXPECT_EQ(snapshot.lanes[std::size_t(span->lane)], "CUDA user kernel (kernel)");
    // Placed on the host clock within the call (a few microseconds of submission allowed).
    EXPECT_GE(span->startUs, before - 50.0);
    EXPECT_LE(span->endUs, after + 50.0);
    EXPECT_GT(span->endUs, span->startUs);
}

} // namespace
} // namespace warpscope::gpu::test
