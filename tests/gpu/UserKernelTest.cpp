#include "warpscope/gpu/UserKernel.h"

#include "TestSupport.h"
#include "kernel/KernelRunner.h"
#include "kernel/KernelShared.h"
#include "warpscope/gpu/KernelMemcheck.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iostream>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace warpscope::gpu::test {
namespace {

namespace fs = std::filesystem;

const KernelExample& example(const std::string& name)
{
    for (const KernelExample& e : kernelExamples())
        if (e.name == name)
            return e;
    ADD_FAILURE() << "no example named " << name;
    return kernelExamples().front();
}

std::vector<double> defaults(const std::vector<KernelParam>& params)
{
    std::vector<double> values;
    for (const KernelParam& p : params)
        values.push_back(p.value);
    return values;
}

DistanceParams smallMesh()
{
    DistanceParams mesh;
    mesh.latMin = -40.0;
    mesh.latMax = 65.0;
    mesh.lonMin = -170.0;
    mesh.lonMax = 175.0;
    mesh.nx = 123; // not a multiple of the block, so edge blocks are partial
    mesh.ny = 77;
    mesh.references = {{30.0, 101.0}, {-33.9, 151.2}, {51.5, -0.1}};
    mesh.precision = Precision::Float64;
    return mesh;
}

#define SKIP_WITHOUT_NVRTC()                                                                       \
    if (!nvrtcAvailable())                                                                         \
    GTEST_SKIP() << "NVRTC is not available in this build"

// --- @param declarations ---------------------------------------------------------------

TEST(KernelParams, ReadsDeclarationsWithTheirLines)
{
    const auto parsed = parseKernelParams("// top\n"
                                          "// @param float k = 1.0 [0, 10]\n"
                                          "int x; // @param float gain=-2.5f [-5,5]  \n"
                                          "// @param float tiny = 1e-3 [0, 1e-2]\r\n");
    ASSERT_TRUE(parsed.errors.empty()) << parsed.errors.front().text;
    ASSERT_EQ(parsed.params.size(), 3u);
    EXPECT_EQ(parsed.params[0], (KernelParam{"k", 1.0f, 0.0f, 10.0f, 2}));
    EXPECT_EQ(parsed.params[1], (KernelParam{"gain", -2.5f, -5.0f, 5.0f, 3}));
    EXPECT_EQ(parsed.params[2].name, "tiny");
    EXPECT_FLOAT_EQ(parsed.params[2].max, 1e-2f);
    EXPECT_EQ(parsed.params[2].line, 4);
}

TEST(KernelParams, HostileDeclarationsAreErrorsAtTheirLines)
{
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"// @param", "needs a type"},
        {"// @param double n = 1 [0, 2]", "not supported"},
        {"// @param float = 1 [0, 2]", "needs a name"},
        {"// @param float 9lives = 1 [0, 2]", "must not start with a digit"},
        {"// @param float for = 1 [0, 2]", "reserved"},
        {"// @param float ws_x = 1 [0, 2]", "reserved"},
        {"// @param float __x = 1 [0, 2]", "reserved"},
        {"// @param float k 1 [0, 2]", "'= value'"},
        {"// @param float k = nan [0, 2]", "finite number"},
        {"// @param float k = inf [0, 2]", "finite number"},
        {"// @param float k = 1e39 [0, 2]", "finite number"},
        {"// @param float k = 1 [0 2]", "range"},
        {"// @param float k = 1 [0, 2", "range"},
        {"// @param float k = 1 [2, 0]", "min must be below max"},
        {"// @param float k = 1 [1, 1]", "min must be below max"},
        {"// @param float k = 5 [0, 2]", "within [min, max]"},
        {"// @param float k = 1 [0, 2] extra", "unexpected text"},
        {"// @param float " + std::string(65, 'a') + " = 1 [0, 2]", "longer than"},
    };
    for (const auto& [line, expected] : cases) {
        const auto parsed = parseKernelParams("\n\n" + line + "\n");
        ASSERT_EQ(parsed.errors.size(), 1u) << line;
        EXPECT_TRUE(parsed.params.empty()) << line;
        EXPECT_EQ(parsed.errors[0].line, 3) << line;
        EXPECT_NE(parsed.errors[0].text.find(expected), std::string::npos)
            << line << " gave: " << parsed.errors[0].text;
    }
}

TEST(KernelParams, DuplicatesAndTooManyAreRefused)
{
    auto parsed = parseKernelParams("// @param float k = 1 [0, 2]\n// @param float k = 1 [0, 2]\n");
    ASSERT_EQ(parsed.errors.size(), 1u);
    EXPECT_EQ(parsed.errors[0].line, 2);
    EXPECT_NE(parsed.errors[0].text.find("first at line 1"), std::string::npos);

    std::string many;
    for (int i = 0; i <= kMaxKernelParams; ++i)
        many += "// @param float p" + std::to_string(i) + " = 0 [0, 1]\n";
    parsed = parseKernelParams(many);
    EXPECT_EQ(parsed.params.size(), std::size_t(kMaxKernelParams));
    ASSERT_EQ(parsed.errors.size(), 1u);
    EXPECT_EQ(parsed.errors[0].line, kMaxKernelParams + 1);
}

// --- NVRTC ----------------------------------------------------------------------------

TEST(KernelCompile, EveryTemplateAndExampleCompilesWithNvrtc)
{
    SKIP_WITHOUT_NVRTC();
    for (const KernelExample& e : kernelExamples()) {
        CompiledKernel built;
        const Status s = compileKernel(e.source, {}, {}, built);
        ASSERT_TRUE(s.ok()) << e.name << ": " << s.message() << "\n" << built.log;
        EXPECT_TRUE(built.ok);
        EXPECT_NE(built.ptx.find(".entry"), std::string::npos) << e.name;
        EXPECT_NE(built.ptx.find(".target sm_90"), std::string::npos) << e.name;
        EXPECT_GT(built.cubin.size(), 100u) << e.name;
        EXPECT_FALSE(built.entry.empty()) << e.name;
        EXPECT_TRUE(built.usage.known) << e.name << "\n" << built.log;
        EXPECT_GT(built.usage.registers, 0) << e.name;
        for (const KernelMessage& m : built.messages)
            EXPECT_NE(m.severity, Severity::Error) << e.name << ": " << m.text;
    }
}

// The toolkit's headers are found: a kernel written with cooperative groups, as for nvcc,
// builds (the CPU simulator's classic kernels run it on a GPU).
TEST(KernelCompile, ToolkitHeadersAreFound)
{
    SKIP_WITHOUT_NVRTC();
    const KernelSource source{KernelShape::WholeKernel,
                              "#include <cooperative_groups.h>\n"
                              "namespace cg = cooperative_groups;\n"
                              "__global__ void kernel(Out out, Mesh mesh, Refs refs, Params p)\n"
                              "{\n"
                              "    cg::thread_block block = cg::this_thread_block();\n"
                              "    block.sync();\n"
                              "}\n"};
    CompiledKernel built;
    const Status s = compileKernel(source, {}, {}, built);
    ASSERT_TRUE(s.ok()) << s.message() << "\n" << built.log;
    EXPECT_FALSE(built.entry.empty());
}

TEST(KernelCompile, AnErrorIsReportedAtTheUsersLine)
{
    SKIP_WITHOUT_NVRTC();
    const KernelSource source{KernelShape::PerNode, "// line 1\n"
                                                    "// @param float k = 1 [0, 2]\n"
                                                    "float x = p.k;\n"
                                                    "float y = notDeclared * x;\n"
                                                    "return y;\n"};
    CompiledKernel built;
    const Status s = compileKernel(source, {}, {}, built);
    ASSERT_FALSE(s.ok());
    EXPECT_FALSE(built.ok);
    EXPECT_NE(s.message().find("Line 4"), std::string::npos) << s.message();
    ASSERT_FALSE(built.messages.empty()) << built.log;
    EXPECT_EQ(built.messages[0].line, 4);
    EXPECT_EQ(built.messages[0].severity, Severity::Error);
    EXPECT_NE(built.messages[0].text.find("notDeclared"), std::string::npos);
}

TEST(KernelCompile, AWarningIsReportedAtItsLineAndTheKernelStillBuilds)
{
    SKIP_WITHOUT_NVRTC();
    CompiledKernel built;
    const Status s =
        compileKernel({KernelShape::PerNode, "int unused = 3;\n\nreturn 1.0f;\n"}, {}, {}, built);
    ASSERT_TRUE(s.ok()) << s.message();
    ASSERT_FALSE(built.messages.empty()) << built.log;
    EXPECT_EQ(built.messages[0].severity, Severity::Warning);
    EXPECT_EQ(built.messages[0].line, 1);
}

TEST(KernelCompile, AWholeKernelWithAnotherSignatureIsRefused)
{
    SKIP_WITHOUT_NVRTC();
    CompiledKernel built;
    const Status s =
        compileKernel({KernelShape::WholeKernel, "__global__ void kernel(Out out, Mesh mesh) {}\n"},
                      {}, {}, built);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("kernel must be declared as"), std::string::npos) << s.message();
}

TEST(KernelCompile, UnbalancedBracesNameTheCause)
{
    SKIP_WITHOUT_NVRTC();
    CompiledKernel built;
    const Status s =
        compileKernel({KernelShape::PerNode, "if (lat > 0) {\nreturn 1.0f;\n"}, {}, {}, built);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.message(), "Line 1: This '{' is never closed");
    ASSERT_FALSE(
        compileKernel({KernelShape::PerNode, "return 1.0f;\n}\n// {\n"}, {}, {}, built).ok());
    ASSERT_EQ(built.messages.size(), 1u);
    EXPECT_EQ(built.messages[0].line, 2);
}

TEST(KernelCompile, OptionsChangeTheBuildAndUnknownOnesAreRefused)
{
    SKIP_WITHOUT_NVRTC();
    const KernelSource source = example("Built-in haversine").source;
    CompiledKernel narrow, wide;
    KernelOptions options;
    options.flags = {"-maxrregcount=32"};
    ASSERT_TRUE(compileKernel(source, options, {}, narrow).ok());
    ASSERT_TRUE(compileKernel(source, {}, {}, wide).ok());
    EXPECT_LE(narrow.usage.registers, 32);
    EXPECT_GT(wide.usage.registers, 32) << "the default build no longer needs the cap";

    options.flags = {"--include-path=/etc"};
    CompiledKernel refused;
    EXPECT_FALSE(compileKernel(source, options, {}, refused).ok());
    options = {};
    options.smMajor = 3;
    EXPECT_FALSE(compileKernel(source, options, {}, refused).ok());
}

// Builds without the toolkit say plainly that NVRTC is missing; the simulator still builds.
TEST(KernelCompile, WithoutNvrtcTheBuildSaysSo)
{
    if (nvrtcAvailable())
        GTEST_SKIP() << "NVRTC is available in this build";
    CompiledKernel built;
    const Status s = compileKernel(example("Per node").source, {}, {}, built);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("NVRTC is not available"), std::string::npos) << s.message();
    EXPECT_TRUE(nvrtcVersion().empty());
}

TEST(KernelCompile, ParamErrorsStopTheBuildAtTheirLine)
{
    CompiledKernel built;
    const Status s = compileKernel(
        {KernelShape::PerNode, "return 1.0f;\n// @param float k = 3 [0, 1]\n"}, {}, {}, built);
    ASSERT_FALSE(s.ok());
    ASSERT_EQ(built.messages.size(), 1u);
    EXPECT_EQ(built.messages[0].line, 2);
}

TEST(KernelCache, MissThenHitAndADamagedFileIsAMiss)
{
    SKIP_WITHOUT_NVRTC();
    TempDir dir;
    const KernelSource source = example("Ripples").source;
    CompiledKernel first, second, other;
    ASSERT_TRUE(compileKernel(source, {}, dir.str(), first).ok());
    EXPECT_FALSE(first.fromCache);
    ASSERT_TRUE(compileKernel(source, {}, dir.str(), second).ok());
    EXPECT_TRUE(second.fromCache);
    EXPECT_EQ(second.ptx, first.ptx);
    EXPECT_EQ(second.cubin, first.cubin);
    EXPECT_EQ(second.entry, first.entry);
    EXPECT_EQ(second.usage.registers, first.usage.registers);
    EXPECT_EQ(second.params, first.params);

    // Options and source are in the key.
    KernelOptions fast;
    fast.flags = {"-use_fast_math"};
    ASSERT_TRUE(compileKernel(source, fast, dir.str(), other).ok());
    EXPECT_FALSE(other.fromCache);
    KernelSource edited = source;
    edited.code += "\n";
    ASSERT_TRUE(compileKernel(edited, {}, dir.str(), other).ok());
    EXPECT_FALSE(other.fromCache);

    // A failed build is kept too, so reopening shows its errors at once.
    CompiledKernel bad;
    EXPECT_FALSE(compileKernel({KernelShape::PerNode, "oops\n"}, {}, dir.str(), bad).ok());
    EXPECT_FALSE(compileKernel({KernelShape::PerNode, "oops\n"}, {}, dir.str(), bad).ok());
    EXPECT_TRUE(bad.fromCache);
    ASSERT_FALSE(bad.messages.empty());
    EXPECT_EQ(bad.messages[0].line, 1);

    // Truncate every cached file: each becomes a miss and is rebuilt.
    for (const auto& entry : fs::directory_iterator(dir.path()))
        fs::resize_file(entry.path(), fs::file_size(entry.path()) / 2);
    CompiledKernel rebuilt;
    ASSERT_TRUE(compileKernel(source, {}, dir.str(), rebuilt).ok());
    EXPECT_FALSE(rebuilt.fromCache);
    EXPECT_EQ(rebuilt.cubin, first.cubin);
}

TEST(KernelLogs, PtxasReportIsReadForTheNamedEntry)
{
    const std::string log = "ptxas info    : Compiling entry function 'other' for 'sm_90'\n"
                            "ptxas info    : Function properties for other\n"
                            "ptxas         .     8 bytes stack frame, 0 bytes spill stores, 0 "
                            "bytes spill loads\n"
                            "ptxas info    : Used 99 registers, used 0 barriers\n"
                            "ptxas info    : Function properties for ws_per_node\n"
                            "ptxas         .     24 bytes stack frame, 12 bytes spill stores, 16 "
                            "bytes spill loads\n"
                            "ptxas info    : Used 32 registers, used 1 barriers, 2048 bytes smem, "
                            "400 bytes cmem[0]\n";
    const KernelUsage usage = ptxasUsage(log, "ws_per_node");
    EXPECT_TRUE(usage.known);
    EXPECT_EQ(usage.registers, 32);
    EXPECT_EQ(usage.barriers, 1);
    EXPECT_EQ(usage.stackBytes, 24);
    EXPECT_EQ(usage.spillStoreBytes, 12);
    EXPECT_EQ(usage.spillLoadBytes, 16);
    EXPECT_EQ(usage.sharedBytes, 2048);
    EXPECT_EQ(usage.constantBytes, 400);
    EXPECT_FALSE(ptxasUsage(log, "missing").known);
}

// --- The CPU simulator ----------------------------------------------------------------

// The largest source the workbench takes, as short lines: checked in seconds, not the minutes
// that compiling each pattern again for each line took.
TEST(KernelSimulator, LimitationsOfTheLargestSourceAreCheckedInSeconds)
{
    std::string code;
    while (code.size() + 4 <= kMaxKernelSourceBytes)
        code += "a;\n\n";
    code += "asm(\"nop;\");";
    const auto start = std::chrono::steady_clock::now();
    const auto messages = simulatorLimitations(code);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_EQ(messages.size(), 1u);
    EXPECT_EQ(messages[0].line, int(kMaxKernelSourceBytes / 4) * 2 + 1);
    EXPECT_LT(seconds, 20.0);
}

TEST(KernelSimulator, LimitationsAreNamedWithTheirLinesOutsideComments)
{
    const auto messages =
        simulatorLimitations("float a = 0;\n"
                             "// asm(\"trap;\") in a comment is fine\n"
                             "const char* s = \"asm\";\n"
                             "  asm volatile(\"trap;\"); __syncthreads();\n"
                             "a = tex2D<float>(t, 0.5f, 0.5f) + __shfl_down_sync(~0u, a, 1);\n"
                             "/* this_grid\n this_grid */ auto g = cg::this_grid();\n");
    ASSERT_EQ(messages.size(), 3u);
    EXPECT_EQ(messages[0].line, 4);
    EXPECT_NE(messages[0].text.find("asm (inline PTX)"), std::string::npos) << messages[0].text;
    EXPECT_EQ(messages[0].column, 3);
    EXPECT_EQ(messages[1].line, 5);
    EXPECT_NE(messages[1].text.find("textures"), std::string::npos);
    EXPECT_EQ(messages[2].line, 7);
    EXPECT_NE(messages[2].text.find("grid-wide"), std::string::npos);
}

TEST(KernelSimulator, RefusesWhatItCannotRunBeforeCompiling)
{
    SimulatorBuild build;
    const Status s = buildSimulatedKernel(
        {KernelShape::WholeKernel, "__global__ void kernel(Out out, Mesh m, Refs r, Params p)\n"
                                   "{\n    asm volatile(\"trap;\");\n}\n"},
        {}, build);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("Line 3"), std::string::npos) << s.message();
    EXPECT_FALSE(build.ok);
}

TEST(KernelSimulator, DynamicSharedArraysAreRewrittenOnTheirLines)
{
    // A declaration over three lines becomes one pointer followed by the same two newlines.
    const std::string code = "extern __shared__\nfloat\n  tile[ ];\nint x;\n";
    const std::string cpu = cpuUserCode(code, KernelShape::WholeKernel);
    EXPECT_EQ(std::count(cpu.begin(), cpu.end(), '\n'), 4);
    EXPECT_EQ(cpu.rfind("static thread_local  float   * const tile = reinterpret_cast< float   "
                        "*>(ws_dynamic_shared());\n\n\nint x;\n",
                        0),
              0u)
        << cpu;
    // Sized arrays, unclosed strings and comments holding brackets are left to the compiler.
    for (const std::string other :
         {"extern __shared__ float tile[4];\n", "extern __shared__ floa\"t tile[];\nx[1] = 1;\n",
          "extern __shared__ float tile /* [] */;\n"})
        EXPECT_EQ(cpuUserCode(other, KernelShape::WholeKernel), other);
}

TEST(KernelSimulator, StaticSharedDeclarationsInFunctionsBecomeTheRunnersOnTheirLines)
{
    const std::string code = "__shared__ int outside[4];\n"
                             "__global__ void kernel(Out out, Mesh mesh, Refs refs, Params p)\n"
                             "{\n"
                             "    static __shared__ float a[4][5],\n"
                             "        b;\n"
                             "    __shared__ int c = 0;\n"
                             "}\n";
    const std::string cpu = cpuUserCode(code, KernelShape::WholeKernel);
    EXPECT_EQ(std::count(cpu.begin(), cpu.end(), '\n'), 7);
    // At namespace scope, and with an initializer (which CUDA refuses), the compiler decides.
    EXPECT_EQ(cpu.rfind("__shared__ int outside[4];\n", 0), 0u) << cpu;
    EXPECT_NE(cpu.find("__shared__ int c = 0;"), std::string::npos) << cpu;
    EXPECT_NE(cpu.find("{\n    typedef float ws_shared_1_a[4][5], ws_shared_2_b; "
                       "ws_shared_1_a& a = ws_static_shared<ws_shared_1_a>(1, \"a\", 4); "
                       "ws_shared_2_b& b = ws_static_shared<ws_shared_2_b>(2, \"b\", 4);\n\n"),
              std::string::npos)
        << cpu;
    // A per-node body is a function's.
    EXPECT_EQ(cpuUserCode("__shared__ float s[8];\nreturn s[0];\n", KernelShape::PerNode),
              "typedef float ws_shared_1_s[8]; ws_shared_1_s& s = "
              "ws_static_shared<ws_shared_1_s>(1, \"s\", 1);\nreturn s[0];\n");
}

TEST(KernelSimulator, CompileErrorsAreAtTheUsersLine)
{
    SKIP_WITHOUT_COMPILER();
    TempDir dir;
    SimulatorBuild build;
    const Status s = buildSimulatedKernel(
        {KernelShape::PerNode, "double a = lat;\n\nreturn a + undefinedThing;\n"}, dir.str(),
        build);
    ASSERT_FALSE(s.ok());
    ASSERT_FALSE(build.messages.empty()) << build.log;
    EXPECT_EQ(build.messages[0].line, 3);
    EXPECT_NE(build.messages[0].text.find("undefinedThing"), std::string::npos);
}

// A million-character identifier or run of blanks is checked and wrapped without taking the
// stack (libstdc++'s regular expressions recurse once a character; these checks do not use them).
TEST(KernelSimulator, HugeIdentifiersAndBlanksAreCheckedWithoutExhaustingTheStack)
{
    const std::string texture = "float x = tex" + std::string(1 << 20, 'D') + "(t, 1);\n";
    const std::vector<KernelMessage> found = simulatorLimitations(texture);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].column, 11);
    EXPECT_NE(found[0].text.find("texDDDD"), std::string::npos);
    EXPECT_LT(found[0].text.size(), 200u);
    EXPECT_TRUE(usesBlockCollectives("float y = __shfl" + std::string(1 << 20, 'x') + ";\n"));
    const std::string blanks = "__global__" + std::string(1 << 20, ' ') +
                               "void kernel(Out out, Mesh mesh, Refs refs, Params p) {}\n";
    KernelSource source{KernelShape::WholeKernel, blanks};
    source.launchBounds = 256;
    const std::string wrapped = wrapKernelSource(source, {}, {}, KernelTarget::Cpu);
    EXPECT_NE(wrapped.find("__launch_bounds__(256) kernel("), std::string::npos);
    const std::string log = "kernel.cu:1:1: error: " + std::string(1 << 20, 'z') + "\n";
    ASSERT_EQ(gccMessages(log).size(), 1u);
}

// A source from a stranger's scene cannot make the compiler take the machine: an include of
// an endless file ends at the compiler's memory limit, as an error (g++), or reads as an empty
// file (clang++, which takes a device's size from stat).
TEST(KernelSimulator, AnIncludeOfAnEndlessFileIsACompileErrorNotAHang)
{
    SKIP_WITHOUT_COMPILER();
    TempDir dir;
    SimulatorBuild build;
    const auto start = std::chrono::steady_clock::now();
    const Status s = buildSimulatedKernel(
        {KernelShape::PerNode, "#include \"/dev/zero\"\nreturn 0.0f;\n"}, dir.str(), build);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_TRUE(!s.ok() || build.ok) << s.message();
    EXPECT_LT(seconds, 55.0) << "stopped by the 60 s timeout, not by the memory limit";
}

// The editable haversine template, simulated on the CPU, gives the built-in field. Both are
// double precision; the template's output is float32, so the tolerance is float32's rounding
// of the distance (2^-24 relative) plus 1e-9 of the radius for the different formulas
// (atan2 against the built-in's asin of the smaller root).
TEST(KernelSimulator, HaversineTemplateEqualsTheBuiltInField)
{
    SKIP_WITHOUT_COMPILER();
    TempDir dir;
    SimulatorBuild build;
    const Status s = buildSimulatedKernel(example("Built-in haversine").source, dir.str(), build);
    ASSERT_TRUE(s.ok()) << s.message() << "\n" << build.log;
    auto context = cpuContext(2);
    for (DistanceUnit unit : {DistanceUnit::Kilometres, DistanceUnit::NauticalMiles}) {
        KernelArgs args;
        args.mesh = smallMesh();
        args.mesh.unit = unit;
        const FieldLayout layout = layoutFor(args.mesh);
        std::vector<double> expected(layout.elementCount());
        ASSERT_TRUE(computeDistance(*context, args.mesh, std::span<double>(expected)).ok());
        std::vector<float> out(layout.elementCount(), std::nanf(""));
        KernelRun run;
        ASSERT_TRUE(runUserKernel(*context, {}, build, args,
                                  BufferView<float>::host(std::span<float>(out)), &run)
                        .ok());
        const double radius = args.mesh.radiusKm * unitsPerKilometre(unit);
        double worst = 0.0;
        for (int i = 0; i < args.mesh.ny; ++i)
            for (int j = 0; j < args.mesh.nx; ++j) {
                const double e = expected[layout.index(i, j)];
                const double got = out[layout.index(i, j)];
                ASSERT_TRUE(std::isfinite(got)) << i << ", " << j;
                const double tol = e * 0x1p-24 + radius * 1e-9;
                worst = std::max(worst, std::abs(got - e) / tol);
                ASSERT_LE(std::abs(got - e), tol) << "node " << i << ", " << j;
            }
        EXPECT_EQ(run.outOfBoundsWrites, 0);
        EXPECT_NEAR(out[layout.statsOffset()], expected[layout.statsOffset()],
                    expected[layout.statsOffset()] * 0x1p-23 + radius * 1e-9);
        EXPECT_NEAR(out[layout.statsOffset() + 1], expected[layout.statsOffset() + 1],
                    expected[layout.statsOffset() + 1] * 0x1p-23 + radius * 1e-9);
    }
}

TEST(KernelSimulator, CacheHitLoadsWithoutCompiling)
{
    SKIP_WITHOUT_COMPILER();
    TempDir dir;
    SimulatorBuild first, second;
    ASSERT_TRUE(buildSimulatedKernel(example("Per node").source, dir.str(), first).ok());
    EXPECT_FALSE(first.fromCache);
    ASSERT_TRUE(buildSimulatedKernel(example("Per node").source, dir.str(), second).ok());
    EXPECT_TRUE(second.fromCache);
}

// A parameter changes the arguments only: the same build gives a new picture.
TEST(KernelSimulator, ParameterValuesChangeThePictureWithoutRebuilding)
{
    SKIP_WITHOUT_COMPILER();
    TempDir dir;
    SimulatorBuild build;
    ASSERT_TRUE(buildSimulatedKernel(example("Per node").source, dir.str(), build).ok());
    ASSERT_EQ(build.params.size(), 1u);
    auto context = cpuContext(2);
    KernelArgs args;
    args.mesh = smallMesh();
    const std::size_t n = layoutFor(args.mesh).elementCount();
    std::vector<float> a(n), b(n);
    args.values = {1.0f};
    ASSERT_TRUE(runUserKernel(*context, {}, build, args, BufferView<float>::host(a)).ok());
    args.values = {2.5f};
    ASSERT_TRUE(runUserKernel(*context, {}, build, args, BufferView<float>::host(b)).ok());
    const FieldLayout layout = layoutFor(args.mesh);
    for (int i = 0; i < args.mesh.ny; i += 7)
        for (int j = 0; j < args.mesh.nx; j += 5)
            EXPECT_FLOAT_EQ(b[layout.index(i, j)], 2.5f * a[layout.index(i, j)]);
    args.values = {};
    EXPECT_FALSE(runUserKernel(*context, {}, build, args, BufferView<float>::host(b)).ok());
    args.values = {std::nanf("")};
    EXPECT_FALSE(runUserKernel(*context, {}, build, args, BufferView<float>::host(b)).ok());
}

// Writes past the mesh are refused by the bounds-checked view, counted and reported; the
// memory after the output is untouched.
TEST(KernelSimulator, OutOfBoundsWritesAreCaught)
{
    SKIP_WITHOUT_COMPILER();
    TempDir dir;
    SimulatorBuild build;
    const KernelSource source{KernelShape::WholeKernel,
                              "__global__ void kernel(Out out, Mesh mesh, Refs refs, Params p)\n"
                              "{\n"
                              "    const int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
                              "    const int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
                              "    out.write(row + 1, col, 1.0f); // one row too far\n"
                              "    out.write(-1, col, 2.0f);\n"
                              "}\n"};
    ASSERT_TRUE(buildSimulatedKernel(source, dir.str(), build).ok()) << build.log;
    auto context = cpuContext(2);
    KernelArgs args;
    args.mesh = smallMesh();
    args.mesh.nx = 64;
    args.mesh.ny = 32;
    args.launch.block = {16, 16, 1};
    args.launch.grid = {4, 2, 1};
    const FieldLayout layout = layoutFor(args.mesh);
    const std::size_t guard = 4096;
    std::vector<float> memory(layout.elementCount() + guard, -7.0f);
    KernelRun run;
    const Status s = runUserKernel(
        *context, {}, build, args,
        BufferView<float>::host(std::span<float>(memory.data(), layout.elementCount())), &run);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("outside its output"), std::string::npos) << s.message();
    EXPECT_EQ(run.outOfBoundsWrites, 64 + 64 * 32); // the last row past the mesh, every row -1
    for (std::size_t i = layout.elementCount(); i < memory.size(); ++i)
        ASSERT_EQ(memory[i], -7.0f) << "guard element " << i;
    EXPECT_EQ(memory[layout.index(0, 0)], -7.0f); // row 0 was never written
    EXPECT_EQ(memory[layout.index(1, 0)], 1.0f);
}

// Checks a teaching record against the launch alone (expectedOwner, the teaching kernel's
// rule): each node a thread reaches names its block and thread, and one no thread reaches is
// uncovered and NaN. Returns the nodes reached.
int checkTeachingRecord(const KernelArgs& args, const std::vector<float>& out,
                        const std::vector<std::uint32_t>& owners, int smCount, bool simulatedSm)
{
    LessonLaunch lesson;
    lesson.launch = args.launch;
    const FieldLayout layout = layoutFor(args.mesh);
    int reached = 0;
    for (int row = 0; row < args.mesh.ny; ++row)
        for (int col = 0; col < args.mesh.nx; ++col) {
            std::uint32_t block = 0, thread = 0;
            const std::uint32_t* o = &owners[2 * (std::size_t(row) * args.mesh.nx + col)];
            const float value = out[layout.index(row, col)];
            if (!expectedOwner(lesson, row, col, block, thread)) {
                EXPECT_EQ(o[0], kUncovered) << row << ", " << col;
                EXPECT_EQ(o[1], kUncovered) << row << ", " << col;
                EXPECT_TRUE(std::isnan(value)) << row << ", " << col;
                continue;
            }
            ++reached;
            EXPECT_EQ(o[0], block) << row << ", " << col;
            EXPECT_EQ(ownerThread(o[1]), thread) << row << ", " << col;
            if (simulatedSm)
                EXPECT_EQ(ownerSm(o[1]), block % std::uint32_t(smCount));
            else
                EXPECT_LT(ownerSm(o[1]), std::uint32_t(smCount));
            EXPECT_TRUE(std::isfinite(value)) << row << ", " << col;
        }
    return reached;
}

// A whole kernel launched with a grid too small for the mesh (2 x 3 blocks of 32 x 8 cover
// 64 x 24 of its 123 x 77 nodes), with the Launch panel's teaching overlay on.
KernelArgs teachingArgs()
{
    KernelArgs args;
    args.mesh = smallMesh();
    args.values = {1.0f};
    args.launch.block = {32, 8, 1};
    args.launch.grid = {2, 3, 1};
    return args;
}

TEST(KernelSimulator, TheTeachingRecordNamesEachNodesBlockAndThread)
{
    SKIP_WITHOUT_COMPILER();
    TempDir dir;
    SimulatorBuild build;
    ASSERT_TRUE(buildSimulatedKernel(example("Whole kernel").source, dir.str(), build).ok());
    auto context = cpuContext(2);
    KernelArgs args = teachingArgs();
    std::vector<float> out(layoutFor(args.mesh).elementCount(), 5.0f);
    std::vector<std::uint32_t> owners(2 * 123 * 77, 7u);
    args.owners = BufferView<std::uint32_t>::host(owners);
    KernelRun run;
    const Status s = runUserKernel(*context, {}, build, args, BufferView<float>::host(out), &run);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(checkTeachingRecord(args, out, owners, simulatedHopper().smCount, true), 64 * 24);
    EXPECT_TRUE(std::isfinite(run.stats.min) && std::isfinite(run.stats.max));
    std::vector<std::uint32_t> tooFew(2 * 123 * 77 - 1);
    args.owners = BufferView<std::uint32_t>::host(tooFew);
    const Status refused = runUserKernel(*context, {}, build, args, BufferView<float>::host(out));
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.message().find("owner record holds 18941 words; the mesh needs 18942"),
              std::string::npos)
        << refused.message();
}

// A whole kernel that writes NaN in columns 0 to 9, +inf in 10 to 14, -inf in 15 to 19, and
// col + 1 elsewhere.
const KernelSource kNonFiniteColumns{
    KernelShape::WholeKernel, "__global__ void kernel(Out out, Mesh mesh, Refs refs, Params p)\n"
                              "{\n"
                              "    const int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
                              "    const int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
                              "    if (row >= mesh.ny || col >= mesh.nx)\n"
                              "        return;\n"
                              "    const float zero = float(row) * 0.0f;\n"
                              "    float v = 1.0f + col;\n"
                              "    if (col < 10) v = zero / zero;\n"
                              "    else if (col < 15) v = 1.0f / zero;\n"
                              "    else if (col < 20) v = -1.0f / zero;\n"
                              "    out.write(row, col, v);\n"
                              "}\n"};

// Runs kNonFiniteColumns over smallMesh() with a grid that covers it, then with the teaching
// record on and teachingArgs()' grid (64 x 24 nodes reached), checking the count of nodes
// that are not finite and the finite range each time.
void expectNonFiniteCounted(Context& context, const CompiledKernel& gpu, const SimulatorBuild& cpu)
{
    KernelArgs args = teachingArgs();
    args.values = {};
    args.launch.grid = {(123 + 31) / 32, (77 + 7) / 8, 1};
    std::vector<float> out(layoutFor(args.mesh).elementCount(), 5.0f);
    KernelRun run;
    Status s = runUserKernel(context, gpu, cpu, args, BufferView<float>::host(out), &run);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(run.stats.nonFinite, 20 * 77);
    EXPECT_EQ(run.stats.min, 21.0);
    EXPECT_EQ(run.stats.max, 123.0);
    // Nodes no thread reaches are NaN by design, not the kernel's: they are not counted.
    args.launch.grid = {2, 3, 1};
    std::vector<std::uint32_t> owners(2 * 123 * 77);
    args.owners = BufferView<std::uint32_t>::host(owners);
    s = runUserKernel(context, gpu, cpu, args, BufferView<float>::host(out), &run);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(run.stats.nonFinite, 20 * 24);
    EXPECT_EQ(run.stats.max, 64.0);
}

TEST(KernelSimulator, NodesThatAreNotFiniteAreCounted)
{
    SKIP_WITHOUT_COMPILER();
    TempDir dir;
    SimulatorBuild build;
    ASSERT_TRUE(buildSimulatedKernel(kNonFiniteColumns, dir.str(), build).ok()) << build.log;
    auto context = cpuContext(2);
    expectNonFiniteCounted(*context, {}, build);
}

TEST(KernelSimulator, AWholeKernelRunsWithTheGivenLaunch)
{
    SKIP_WITHOUT_COMPILER();
    TempDir dir;
    SimulatorBuild build;
    ASSERT_TRUE(buildSimulatedKernel(example("Whole kernel").source, dir.str(), build).ok());
    SimulatorBuild perNode;
    ASSERT_TRUE(buildSimulatedKernel(example("Per node").source, dir.str(), perNode).ok());
    auto context = cpuContext(2);
    KernelArgs args;
    args.mesh = smallMesh();
    args.values = {1.0f};
    args.launch.block = {32, 8, 1};
    args.launch.grid = {(123 + 31) / 32, (77 + 7) / 8, 1};
    const std::size_t n = layoutFor(args.mesh).elementCount();
    std::vector<float> whole(n, -1.0f), node(n, -1.0f);
    ASSERT_TRUE(runUserKernel(*context, {}, build, args, BufferView<float>::host(whole)).ok());
    ASSERT_TRUE(runUserKernel(*context, {}, perNode, args, BufferView<float>::host(node)).ok());
    const FieldLayout layout = layoutFor(args.mesh);
    for (int i = 0; i < args.mesh.ny; ++i)
        for (int j = 0; j < args.mesh.nx; ++j)
            ASSERT_EQ(whole[layout.index(i, j)], node[layout.index(i, j)]) << i << ", " << j;
    args.launch.block = {2048, 1, 1};
    EXPECT_FALSE(runUserKernel(*context, {}, build, args, BufferView<float>::host(whole)).ok());
}

// --- What a user's kernel cannot do to the app --------------------------------------------

// The simulator's library runs in the kernel runner's process: a kernel that crashes ends that
// process, not this one, the output keeps its values, and the next run starts a new runner.
TEST(KernelRunner, ACrashingKernelOnTheSimulatorFailsAndALaterGoodRunWorks)
{
    SKIP_WITHOUT_COMPILER();
    TempDir dir;
    SimulatorBuild crashing, good;
    ASSERT_TRUE(
        buildSimulatedKernel({KernelShape::PerNode, "volatile float* nowhere = (float*)0x10;\n"
                                                    "*nowhere = 1.0f;\nreturn 0.0f;\n"},
                             dir.str(), crashing)
            .ok());
    ASSERT_TRUE(buildSimulatedKernel(example("Per node").source, dir.str(), good).ok());
    auto context = cpuContext(2);
    KernelArgs args;
    args.mesh = smallMesh();
    std::vector<float> out(layoutFor(args.mesh).elementCount(), -3.0f);
    const Status crash = runUserKernel(*context, {}, crashing, args, BufferView<float>::host(out));
    ASSERT_FALSE(crash.ok());
    EXPECT_NE(crash.message().find("segmentation fault"), std::string::npos) << crash.message();
    EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](float v) { return v == -3.0f; }));
    args.values = {1.0f};
    KernelRun run;
    const Status later =
        runUserKernel(*context, {}, good, args, BufferView<float>::host(out), &run);
    ASSERT_TRUE(later.ok()) << later.message();
    EXPECT_NE(out[0], -3.0f);
    EXPECT_LT(run.stats.min, run.stats.max);
}

TEST(KernelRunner, AnEndlessKernelOnTheSimulatorIsStoppedByTheTimeout)
{
    SKIP_WITHOUT_COMPILER();
    TempDir dir;
    SimulatorBuild endless, good;
    ASSERT_TRUE(buildSimulatedKernel({KernelShape::PerNode,
                                      "volatile int spin = 1;\nwhile (spin) {}\nreturn 0.0f;\n"},
                                     dir.str(), endless)
                    .ok());
    ASSERT_TRUE(buildSimulatedKernel(example("Per node").source, dir.str(), good).ok());
    auto context = cpuContext(2);
    KernelArgs args;
    args.mesh = smallMesh();
    args.timeoutMs = 300.0;
    std::vector<float> out(layoutFor(args.mesh).elementCount(), -3.0f);
    const auto start = std::chrono::steady_clock::now();
    const Status s = runUserKernel(*context, {}, endless, args, BufferView<float>::host(out));
    const double waitedMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("did not finish within 300 ms"), std::string::npos) << s.message();
    EXPECT_LT(waitedMs, 30000.0); // stopped, not waited for
    EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](float v) { return v == -3.0f; }));
    args.values = {1.0f};
    args.timeoutMs = 20000.0;
    const Status later = runUserKernel(*context, {}, good, args, BufferView<float>::host(out));
    EXPECT_TRUE(later.ok()) << later.message();
}

// The runner's side of the socket, served on a thread of this process: it refuses requests
// that do not add up and ends on a frame that is not one.
TEST(KernelRunner, MalformedRequestsAreRefusedAndGarbageEndsTheRunner)
{
    int ends[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends), 0);
    int served = -1;
    std::thread runner([&] { served = serveKernelRuns(ends[1], ""); });
    RunnerReply ready;
    bool timedOut = false;
    ASSERT_TRUE(receiveReply(ends[0], steadyNowMs() + 10000.0, ready, timedOut));
    EXPECT_TRUE(ready.ok);
    KernelArgs args;
    args.mesh = smallMesh();
    RunnerRequest request = runnerRequest(args, {}, LaunchConfig{});
    SharedOutput output;
    ASSERT_TRUE(output.reserve(16).ok()); // far smaller than the field
    request.output = output.descriptor();
    RunnerReply reply;
    ASSERT_TRUE(sendRequest(ends[0], request, output.fd()));
    ASSERT_TRUE(receiveReply(ends[0], steadyNowMs() + 10000.0, reply, timedOut));
    EXPECT_FALSE(reply.ok);
    EXPECT_NE(reply.message.find("malformed"), std::string::npos) << reply.message;
    request = runnerRequest(args, {}, LaunchConfig{});
    request.target = RunnerTarget::Cuda;
    ASSERT_TRUE(output.reserve(runnerOutputBytes(request)).ok());
    request.output = output.descriptor();
    ASSERT_TRUE(sendRequest(ends[0], request, output.fd()));
    ASSERT_TRUE(receiveReply(ends[0], steadyNowMs() + 10000.0, reply, timedOut));
    EXPECT_FALSE(reply.ok);
    EXPECT_NE(reply.message.find("without a GPU"), std::string::npos) << reply.message;
    const char garbage[] = "not a frame at all, and long enough for a header";
    ASSERT_EQ(::send(ends[0], garbage, sizeof garbage, MSG_NOSIGNAL), ssize_t(sizeof garbage));
    runner.join();
    EXPECT_EQ(served, 0);
    ::close(ends[0]);
    ::close(ends[1]);
}

TEST(KernelRunner, TheRunnerIsFoundAndRefusesToRunWithoutTheApp)
{
    const std::string path = kernelRunnerPath();
    ASSERT_FALSE(path.empty());
    EXPECT_EQ(std::system((path + " > /dev/null 2>&1").c_str()) >> 8, 2);
    EXPECT_EQ(std::system((path + " --socket 0 < /dev/null > /dev/null 2>&1").c_str()) >> 8, 2);
}

// --- On a GPU (skipped without one) ---------------------------------------------------

KernelOptions optionsFor(const Context& context)
{
    KernelOptions options;
    options.smMajor = context.info().ccMajor;
    options.smMinor = context.info().ccMinor;
    return options;
}

TEST_F(CudaContextTest, HaversineTemplateEqualsTheBuiltInFieldOnTheGpu)
{
    CompiledKernel built;
    ASSERT_TRUE(
        compileKernel(example("Built-in haversine").source, optionsFor(*m_cuda), {}, built).ok());
    KernelArgs args;
    args.mesh = smallMesh();
    const FieldLayout layout = layoutFor(args.mesh);
    std::vector<double> expected(layout.elementCount());
    ASSERT_TRUE(computeDistance(*m_cuda, args.mesh, std::span<double>(expected)).ok());
    std::vector<float> out(layout.elementCount(), std::nanf(""));
    KernelRun run;
    const Status s = runUserKernel(*m_cuda, built, {}, args, BufferView<float>::host(out), &run);
    ASSERT_TRUE(s.ok()) << s.message();
    const double radius = args.mesh.radiusKm;
    for (int i = 0; i < args.mesh.ny; ++i)
        for (int j = 0; j < args.mesh.nx; ++j) {
            const double e = expected[layout.index(i, j)];
            ASSERT_NEAR(out[layout.index(i, j)], e, e * 0x1p-24 + radius * 1e-9) << i << ", " << j;
        }
    EXPECT_GT(run.kernelMs, 0.0);
    EXPECT_NEAR(run.stats.max, expected[layout.statsOffset() + 1],
                expected[layout.statsOffset() + 1] * 0x1p-23 + radius * 1e-9);
}

TEST_F(CudaContextTest, OutOfBoundsWritesAreCaughtOnTheGpu)
{
    CompiledKernel built;
    ASSERT_TRUE(
        compileKernel({KernelShape::PerNode, "return 1.0f;\n"}, optionsFor(*m_cuda), {}, built)
            .ok());
    CompiledKernel stray;
    ASSERT_TRUE(compileKernel({KernelShape::WholeKernel,
                               "__global__ void kernel(Out out, Mesh mesh, Refs refs, Params p)\n"
                               "{ out.write(mesh.ny + threadIdx.x, 0, 1.0f); }\n"},
                              optionsFor(*m_cuda), {}, stray)
                    .ok());
    KernelArgs args;
    args.mesh = smallMesh();
    args.launch.block = {64, 1, 1};
    args.launch.grid = {3, 1, 1};
    std::vector<float> out(layoutFor(args.mesh).elementCount());
    KernelRun run;
    EXPECT_FALSE(runUserKernel(*m_cuda, stray, {}, args, BufferView<float>::host(out), &run).ok());
    EXPECT_EQ(run.outOfBoundsWrites, 192);
    EXPECT_TRUE(runUserKernel(*m_cuda, built, {}, args, BufferView<float>::host(out)).ok());
}

TEST_F(CudaContextTest, AFaultingKernelFailsAndALaterGoodKernelRuns)
{
    CompiledKernel faulty, good;
    ASSERT_TRUE(compileKernel({KernelShape::PerNode, "volatile float* nowhere = (float*)0x10;\n"
                                                     "*nowhere = 1.0f;\nreturn 0.0f;\n"},
                              optionsFor(*m_cuda), {}, faulty)
                    .ok());
    ASSERT_TRUE(
        compileKernel(example("Built-in haversine").source, optionsFor(*m_cuda), {}, good).ok());
    KernelArgs args;
    args.mesh = smallMesh();
    std::vector<float> out(layoutFor(args.mesh).elementCount());
    const Status fault = runUserKernel(*m_cuda, faulty, {}, args, BufferView<float>::host(out));
    ASSERT_FALSE(fault.ok());
    EXPECT_NE(fault.message().find("illegal"), std::string::npos) << fault.message();
    const Status later = runUserKernel(*m_cuda, good, {}, args, BufferView<float>::host(out));
    EXPECT_TRUE(later.ok()) << later.message();
    // The app's own CUDA work goes on in its context: the fault stayed in the runner's process.
    std::vector<double> field(layoutFor(args.mesh).elementCount());
    const Status builtIn = computeDistance(*m_cuda, args.mesh, std::span<double>(field));
    EXPECT_TRUE(builtIn.ok()) << builtIn.message();
}

// An illegal address and a misaligned access are faults, named within the default timeout. A
// trap reaches the runner only after about 3.5 s (measured on an H200): within a longer timeout
// it is named as the driver names it, within the default one the timeout says what it may be.
TEST_F(CudaContextTest, FaultsAreNamedAndATrapIsToldApartByTheTimeout)
{
    struct Fault
    {
        const char* code;
        double timeoutMs;
        const char* named;
    };
    const Fault faults[] = {
        {"volatile float* nowhere = (float*)0x10;\n*nowhere = 1.0f;\nreturn 0.0f;\n", 2000.0,
         "illegal memory access"},
        {"volatile float* odd = (float*)(size_t(&lat) + 1);\nreturn *odd;\n", 2000.0,
         "misaligned address"},
        {"asm volatile(\"trap;\");\nreturn 0.0f;\n", 20000.0, "launch failure"},
        {"asm volatile(\"trap;\");\nreturn 0.0f;\n", 2000.0, "a kernel that traps"}};
    KernelArgs args;
    args.mesh = smallMesh();
    std::vector<float> out(layoutFor(args.mesh).elementCount());
    for (const Fault& fault : faults) {
        CompiledKernel faulty;
        ASSERT_TRUE(
            compileKernel({KernelShape::PerNode, fault.code}, optionsFor(*m_cuda), {}, faulty)
                .ok());
        args.timeoutMs = fault.timeoutMs;
        const Status s = runUserKernel(*m_cuda, faulty, {}, args, BufferView<float>::host(out));
        EXPECT_FALSE(s.ok()) << fault.code;
        EXPECT_NE(s.message().find(fault.named), std::string::npos) << s.message();
    }
}

// The GPU names a fault but not where: memcheck, run again on the same kernel and launch,
// names the user's line and the block and thread, as the kernel below is written to fault.
TEST_F(CudaContextTest, MemcheckNamesTheLineBlockAndThreadOfAFault)
{
    if (computeSanitizerPath().empty())
        GTEST_SKIP() << "compute-sanitizer is not installed";
    struct Fault
    {
        const char* statement;
        const char* what;
    };
    const Fault faults[] = {{"*(volatile float*)0x10 = 1.0f;", "write"},
                            {"asm volatile(\"trap;\");", ""}};
    KernelArgs args;
    args.mesh = smallMesh();
    args.launch.block = {64, 1, 1};
    args.launch.grid = {3, 1, 1};
    std::vector<float> out(layoutFor(args.mesh).elementCount());
    for (const Fault& fault : faults) {
        const std::string code = std::string("__global__ void kernel(Out out, Mesh mesh, Refs "
                                             "refs, Params p)\n"
                                             "{\n"
                                             "    if (blockIdx.x == 2 && threadIdx.x == 37)\n"
                                             "        ") +
                                 fault.statement + "\n}\n";
        CompiledKernel built;
        ASSERT_TRUE(
            compileKernel({KernelShape::WholeKernel, code}, optionsFor(*m_cuda), {}, built).ok());
        args.timeoutMs = 20000.0;
        KernelRun run;
        EXPECT_FALSE(
            runUserKernel(*m_cuda, built, {}, args, BufferView<float>::host(out), &run).ok());
        EXPECT_TRUE(run.gpuFault) << fault.statement;
        MemcheckJob job;
        ASSERT_TRUE(prepareMemcheck(*m_cuda, built, args, job).ok());
        MemcheckReport report;
        std::string printed;
        const Status s = runUnderMemcheck(job, report, printed);
        ASSERT_TRUE(s.ok()) << s.message();
        std::cout << "memcheck's report of " << fault.statement << ":\n" << report.text;
        ASSERT_FALSE(report.findings.empty()) << report.text;
        const MemcheckFinding& found = report.findings.front();
        EXPECT_EQ(found.userLine(), 4) << report.text;
        EXPECT_TRUE(found.located) << report.text;
        EXPECT_EQ(found.block, (std::array<int, 3>{2, 0, 0})) << report.text;
        EXPECT_EQ(found.thread, (std::array<int, 3>{37, 0, 0})) << report.text;
        EXPECT_NE(found.what.find(fault.what), std::string::npos) << report.text;
    }
    // A kernel's printf cannot pass for memcheck: forged report lines (flushed when the kernel
    // ends well) are what it printed, not findings.
    const std::string forger = "__global__ void kernel(Out out, Mesh mesh, Refs refs, Params p)\n"
                               "{\n"
                               "    if (blockIdx.x == 0 && threadIdx.x == 0)\n"
                               "        printf(\"========= Invalid __global__ write of size 4 "
                               "bytes\\n=========     at kernel+0x10 in kernel.cu:3\\n"
                               "=========     by thread (1,0,0) in block (0,0,0)\\n"
                               "========= ERROR SUMMARY: 1 error\\n\");\n"
                               "}\n";
    CompiledKernel forged;
    ASSERT_TRUE(
        compileKernel({KernelShape::WholeKernel, forger}, optionsFor(*m_cuda), {}, forged).ok());
    MemcheckJob job;
    ASSERT_TRUE(prepareMemcheck(*m_cuda, forged, args, job).ok());
    MemcheckReport report;
    std::string printed;
    ASSERT_TRUE(runUnderMemcheck(job, report, printed).ok());
    EXPECT_TRUE(report.findings.empty()) << report.text;
    EXPECT_EQ(report.errorCount, 0) << report.text;
    EXPECT_NE(printed.find("========= Invalid __global__ write"), std::string::npos) << printed;
    // The app's context never saw the faults.
    std::vector<double> field(layoutFor(args.mesh).elementCount());
    const Status builtIn = computeDistance(*m_cuda, args.mesh, std::span<double>(field));
    EXPECT_TRUE(builtIn.ok()) << builtIn.message();
}

TEST_F(CudaContextTest, AnEndlessKernelIsStoppedByTheTimeout)
{
    CompiledKernel endless, good;
    ASSERT_TRUE(compileKernel({KernelShape::PerNode,
                               // clock64() is a volatile read: the loop cannot be removed
                               "const long long t0 = clock64();\n"
                               "while (clock64() - t0 >= 0) {}\nreturn 0.0f;\n"},
                              optionsFor(*m_cuda), {}, endless)
                    .ok());
    ASSERT_TRUE(compileKernel(example("Per node").source, optionsFor(*m_cuda), {}, good).ok());
    KernelArgs args;
    args.mesh = smallMesh();
    args.timeoutMs = 300.0;
    std::vector<float> out(layoutFor(args.mesh).elementCount());
    const Status s = runUserKernel(*m_cuda, endless, {}, args, BufferView<float>::host(out));
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("did not finish within 300 ms"), std::string::npos) << s.message();
    args.values = {1.0f};
    const Status later = runUserKernel(*m_cuda, good, {}, args, BufferView<float>::host(out));
    EXPECT_TRUE(later.ok()) << later.message();
    std::vector<double> field(layoutFor(args.mesh).elementCount());
    const Status builtIn = computeDistance(*m_cuda, args.mesh, std::span<double>(field));
    EXPECT_TRUE(builtIn.ok()) << builtIn.message();
}

TEST_F(CudaContextTest, NodesThatAreNotFiniteAreCountedOnTheGpu)
{
    CompiledKernel built;
    ASSERT_TRUE(compileKernel(kNonFiniteColumns, optionsFor(*m_cuda), {}, built).ok());
    expectNonFiniteCounted(*m_cuda, built, {});
}

TEST_F(CudaContextTest, TheTeachingRecordNamesEachNodesBlockThreadAndSmOnTheGpu)
{
    KernelArgs args = teachingArgs();
    CompiledKernel built;
    ASSERT_TRUE(compileKernel(example("Whole kernel").source, optionsFor(*m_cuda), {}, built).ok());
    std::vector<float> out(layoutFor(args.mesh).elementCount(), 5.0f);
    std::vector<std::uint32_t> owners(2 * 123 * 77, 7u);
    args.owners = BufferView<std::uint32_t>::host(owners);
    const Status s = runUserKernel(*m_cuda, built, {}, args, BufferView<float>::host(out));
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(checkTeachingRecord(args, out, owners, m_cuda->info().smCount, false), 64 * 24);
}

} // namespace
} // namespace warpscope::gpu::test
