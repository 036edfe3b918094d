// The int and bool @param declarations: their parsing, the Params struct's layout and the
// values' packing, and kernels that read them on the CPU simulator and, where there is one,
// on the GPU.
#include "TestSupport.h"
#include "kernel/KernelShared.h"
#include "warpscope/gpu/UserKernel.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <gtest/gtest.h>

namespace warpscope::gpu::test {
namespace {

constexpr auto Int = KernelParamType::Int;
constexpr auto Bool = KernelParamType::Bool;
constexpr auto Float = KernelParamType::Float;

// The one error a declaration on line 2 gives.
std::string errorOf(const std::string& declaration)
{
    const auto parsed = parseKernelParams("// a kernel\n" + declaration + "\n");
    EXPECT_TRUE(parsed.params.empty()) << declaration;
    if (parsed.errors.size() != 1) {
        ADD_FAILURE() << declaration << " gave " << parsed.errors.size() << " errors";
        return {};
    }
    EXPECT_EQ(parsed.errors[0].line, 2) << declaration;
    return parsed.errors[0].text;
}

TEST(KernelParams, ReadsIntAndBoolDeclarations)
{
    const auto parsed = parseKernelParams("// @param int n = 8 [1, 64]\n"
                                          "x; // @param bool on = true\n"
                                          "// @param bool off=false  \r\n"
                                          "// @param int wide = -2147483648 [-2147483648, "
                                          "2147483647]\n"
                                          "// @param int plus = +3 [-5, +5]\n");
    ASSERT_TRUE(parsed.errors.empty()) << parsed.errors.front().text;
    ASSERT_EQ(parsed.params.size(), 5u);
    EXPECT_EQ(parsed.params[0], (KernelParam{"n", 8, 1, 64, 1, Int}));
    EXPECT_EQ(parsed.params[1], (KernelParam{"on", 1, 0, 1, 2, Bool}));
    EXPECT_EQ(parsed.params[2], (KernelParam{"off", 0, 0, 1, 3, Bool}));
    EXPECT_EQ(parsed.params[3],
              (KernelParam{"wide", -2147483648.0, -2147483648.0, 2147483647.0, 4, Int}));
    EXPECT_EQ(parsed.params[4], (KernelParam{"plus", 3, -5, 5, 5, Int}));
}

TEST(KernelParams, HostileIntAndBoolDeclarationsGiveTheirMessages)
{
    const std::string intForm = "; write it as: // @param int name = value [min, max]";
    const std::string boolForm = "; write it as: // @param bool name = true";
    EXPECT_EQ(errorOf("// @param int n = 2.5 [0, 4]"),
              "@param 'n' needs a whole number as its value" + intForm);
    EXPECT_EQ(errorOf("// @param int n = 2.0 [0, 4]"),
              "@param 'n' needs a whole number as its value" + intForm);
    EXPECT_EQ(errorOf("// @param int n = 1e3 [0, 4]"),
              "@param 'n' needs a whole number as its value" + intForm);
    EXPECT_EQ(errorOf("// @param int n = 0x10 [0, 40]"),
              "@param 'n' needs a whole number as its value" + intForm);
    EXPECT_EQ(errorOf("// @param int n = +-2 [-4, 4]"),
              "@param 'n' needs a whole number as its value" + intForm);
    EXPECT_EQ(errorOf("// @param int n = 99999999999999999999 [0, 4]"),
              "@param 'n' needs a whole number as its value" + intForm);
    EXPECT_EQ(errorOf("// @param int n = 2 [0, 4.5]"),
              "@param 'n' needs a range [min, max] of whole numbers" + intForm);
    EXPECT_EQ(errorOf("// @param int n = 2"),
              "@param 'n' needs a range [min, max] of whole numbers" + intForm);
    EXPECT_EQ(errorOf("// @param int n = 2 [0, 2147483648]"),
              "@param 'n': min and max must lie within int's range [-2147483648, 2147483647]");
    EXPECT_EQ(errorOf("// @param int n = -2147483649 [-2147483649, 0]"),
              "@param 'n': min and max must lie within int's range [-2147483648, 2147483647]");
    EXPECT_EQ(errorOf("// @param int n = 2 [4, 4]"), "@param 'n': min must be below max");
    EXPECT_EQ(errorOf("// @param int n = 9 [0, 4]"),
              "@param 'n': the value must lie within [min, max]");
    EXPECT_EQ(errorOf("// @param int n = 1 [0, 4] and more"),
              "@param 'n' has unexpected text after its range: 'and more'");
    EXPECT_EQ(errorOf("// @param int = 1 [0, 4]"), "@param needs a name" + intForm);
    EXPECT_EQ(errorOf("// @param int n 1 [0, 4]"), "@param 'n' needs '= value'" + intForm);
    EXPECT_EQ(errorOf("// @param bool on = 1"),
              "@param 'on' needs true or false as its value" + boolForm);
    EXPECT_EQ(errorOf("// @param bool on = True"),
              "@param 'on' needs true or false as its value" + boolForm);
    EXPECT_EQ(errorOf("// @param bool on"), "@param 'on' needs '= value'" + boolForm);
    EXPECT_EQ(errorOf("// @param bool on = true [0, 1]"),
              "@param 'on' is a bool, which takes no range [min, max]");
    EXPECT_EQ(errorOf("// @param bool on = false;"),
              "@param 'on' has unexpected text after its value: ';'");
    EXPECT_EQ(errorOf("// @param bool int = true"), "@param name 'int' is reserved");
    EXPECT_EQ(errorOf("// @param double d = 1 [0, 2]"),
              "@param type 'double' is not supported: parameters are float, int or bool");
    EXPECT_EQ(errorOf("// @param unsigned n = 1 [0, 2]"),
              "@param type 'unsigned' is not supported: parameters are float, int or bool");
}

// Each member at the next offset that is a multiple of its size; the struct padded to its
// widest member's size; an empty struct is one byte, as in C++.
TEST(KernelParams, TheLayoutAlignsEachMemberToItsSize)
{
    const std::vector<KernelParam> mixed = {{"a", 0, 0, 1, 1, Bool},  {"b", 0, 0, 1, 2, Int},
                                            {"c", 0, 0, 1, 3, Bool},  {"d", 0, 0, 1, 4, Bool},
                                            {"e", 0, 0, 1, 5, Float}, {"f", 0, 0, 1, 6, Bool}};
    const KernelParamLayout layout = kernelParamLayout(mixed);
    EXPECT_EQ(layout.offsets, (std::vector<std::size_t>{0, 4, 8, 9, 12, 16}));
    EXPECT_EQ(layout.size, 20u);
    const KernelParamLayout bools = kernelParamLayout(
        {{"a", 0, 0, 1, 1, Bool}, {"b", 0, 0, 1, 2, Bool}, {"c", 0, 0, 1, 3, Bool}});
    EXPECT_EQ(bools.offsets, (std::vector<std::size_t>{0, 1, 2}));
    EXPECT_EQ(bools.size, 3u);
    EXPECT_EQ(kernelParamLayout({}).size, 1u);
}

TEST(KernelParams, ValuesArePackedAsTheirTypes)
{
    const std::vector<KernelParam> params = {
        {"on", 1, 0, 1, 1, Bool}, {"n", 0, -9, 9, 2, Int}, {"k", 0, -9, 9, 3, Float}};
    const std::string bytes = packKernelParams(params, {1, -7, 0.25});
    ASSERT_EQ(bytes.size(), 12u);
    EXPECT_EQ(bytes[0], 1);
    EXPECT_EQ(bytes.substr(1, 3), std::string(3, '\0')); // padding before the int
    std::int32_t n = 0;
    std::memcpy(&n, bytes.data() + 4, 4);
    EXPECT_EQ(n, -7);
    float k = 0.0f;
    std::memcpy(&k, bytes.data() + 8, 4);
    EXPECT_EQ(k, 0.25f);
}

TEST(KernelParams, RunsRefuseValuesTheTypesCannotHold)
{
    const std::vector<KernelParam> params = {
        {"k", 0, 0, 1, 1, Float}, {"n", 0, 0, 1, 2, Int}, {"on", 0, 0, 1, 3, Bool}};
    EXPECT_EQ(kernelValuesProblem(params, {0.5, 3, 1}), "");
    EXPECT_EQ(kernelValuesProblem(params, {0.5, 3}),
              "The kernel takes 3 parameter value(s); 2 were given");
    EXPECT_EQ(kernelValuesProblem(params, {NAN, 3, 1}), "The value of @param 'k' is not finite");
    EXPECT_EQ(kernelValuesProblem(params, {1e39, 3, 1}),
              "The value of @param 'k' is beyond float's range");
    EXPECT_EQ(kernelValuesProblem(params, {0, 2.5, 1}),
              "The value of @param 'n' is not a whole number within int's range");
    EXPECT_EQ(kernelValuesProblem(params, {0, 2147483648.0, 1}),
              "The value of @param 'n' is not a whole number within int's range");
    EXPECT_EQ(kernelValuesProblem(params, {0, INFINITY, 1}),
              "The value of @param 'n' is not a whole number within int's range");
    EXPECT_EQ(kernelValuesProblem(params, {0, 1, 2}),
              "The value of @param 'on' must be 0 (false) or 1 (true)");
}

TEST(KernelParams, ControlsValuesAreFittedToTheDeclaration)
{
    const KernelParam n{"n", 8, 1, 64, 1, Int};
    EXPECT_EQ(kernelParamValue(n, 7.5), 8.0);
    EXPECT_EQ(kernelParamValue(n, 7.4), 7.0);
    EXPECT_EQ(kernelParamValue(n, -3), 1.0);
    EXPECT_EQ(kernelParamValue(n, 1e300), 64.0);
    EXPECT_EQ(kernelParamValue(n, NAN), 8.0);
    const KernelParam on{"on", 1, 0, 1, 2, Bool};
    EXPECT_EQ(kernelParamValue(on, 0.0), 0.0);
    EXPECT_EQ(kernelParamValue(on, 0.3), 1.0);
    EXPECT_EQ(kernelParamValue(on, -2.0), 1.0);
    const KernelParam k{"k", 0.5, 0, 2, 3, Float};
    EXPECT_EQ(kernelParamValue(k, 0.1), double(0.1f));
    EXPECT_EQ(kernelParamValue(k, 3.0), 2.0);
}

// A bool before an int and after a float, and an int after a bool: a kernel that read a
// member at another offset than the packing's would give other numbers.
const KernelSource kTyped{KernelShape::PerNode,
                          "// @param float k = 0.5 [0, 2]\n"
                          "// @param bool on = true\n"
                          "// @param int n = 3 [1, 10]\n"
                          "// @param bool neg = false\n"
                          "// @param int m = -2 [-2000000000, 2000000000]\n"
                          "real s = 0;\n"
                          "for (int i = 0; i < p.n; ++i)\n"
                          "    s += p.k;\n"
                          "if (!p.on)\n"
                          "    return -1;\n"
                          "return (p.neg ? -s : s) + real(p.m % 1000) + real(p.m / 1000000);\n"};

// Every node of the field (which this kernel makes the same everywhere) holds expected.
void expectEverywhere(const std::vector<float>& field, const DistanceParams& mesh, float expected)
{
    const FieldLayout layout = layoutFor(mesh);
    for (int row = 0; row < mesh.ny; ++row)
        for (int col = 0; col < mesh.nx; ++col)
            ASSERT_EQ(field[layout.index(row, col)], expected) << "node " << row << ", " << col;
}

DistanceParams tinyMesh()
{
    DistanceParams mesh;
    mesh.nx = 19;
    mesh.ny = 7;
    return mesh;
}

TEST(KernelSimulator, IntAndBoolParametersReachTheKernel)
{
    SKIP_WITHOUT_COMPILER();
    TempDir dir;
    SimulatorBuild build;
    ASSERT_TRUE(buildSimulatedKernel(kTyped, dir.str(), build).ok()) << build.log;
    ASSERT_EQ(build.params.size(), 5u);
    auto context = cpuContext(2);
    KernelArgs args;
    args.mesh = tinyMesh();
    std::vector<float> field(layoutFor(args.mesh).elementCount());
    const auto run = [&](std::vector<double> values) {
        args.values = std::move(values);
        const Status s = runUserKernel(*context, {}, build, args, BufferView<float>::host(field));
        EXPECT_TRUE(s.ok()) << s.message();
    };
    // The defaults: 3 x 0.5 - 2.
    run({0.5, 1, 3, 0, -2});
    expectEverywhere(field, args.mesh, -0.5f);
    // 7 x 0.25 = 1.75, negated, + (1234567 % 1000 = 567) + 1234567 / 1000000 = 1.
    run({0.25, 1, 7, 1, 1234567});
    expectEverywhere(field, args.mesh, 566.25f);
    // 10 x 1.5 = 15, + (-1999999999 % 1000 = -999) + (-1999999999 / 1000000 = -1999).
    run({1.5, 1, 10, 0, -1999999999});
    expectEverywhere(field, args.mesh, -2983.0f);
    run({1.5, 0, 10, 0, 5});
    expectEverywhere(field, args.mesh, -1.0f);
    args.values = {0.5, 1, 2.5, 0, 0};
    EXPECT_FALSE(runUserKernel(*context, {}, build, args, BufferView<float>::host(field)).ok());
}

TEST(KernelCompile, IntAndBoolParametersCompileWithNvrtc)
{
    if (!nvrtcAvailable())
        GTEST_SKIP() << "NVRTC is not available in this build";
    CompiledKernel built;
    const Status s = compileKernel(kTyped, {}, {}, built);
    ASSERT_TRUE(s.ok()) << s.message() << "\n" << built.log;
    ASSERT_EQ(built.params.size(), 5u);
}

TEST_F(CudaContextTest, IntAndBoolParametersReachTheKernelOnTheGpu)
{
    CompiledKernel built;
    ASSERT_TRUE(compileKernel(kTyped, {}, {}, built).ok()) << built.log;
    KernelArgs args;
    args.mesh = tinyMesh();
    std::vector<float> field(layoutFor(args.mesh).elementCount());
    args.values = {0.25, 1, 7, 1, 1234567};
    const Status s = runUserKernel(*m_cuda, built, {}, args, BufferView<float>::host(field));
    ASSERT_TRUE(s.ok()) << s.message();
    expectEverywhere(field, args.mesh, 566.25f);
    args.values = {1.5, 0, 10, 0, 5};
    ASSERT_TRUE(runUserKernel(*m_cuda, built, {}, args, BufferView<float>::host(field)).ok());
    expectEverywhere(field, args.mesh, -1.0f);
}

} // namespace
} // namespace warpscope::gpu::test
