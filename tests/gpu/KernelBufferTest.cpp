// The @buffer declarations: their parsing and sizes, the Params layout they take, and kernels
// that keep values in them on the CPU simulator and, where there is one, on the GPU.
#include "KernelTargets.h"
#include "kernel/KernelRunner.h"
#include "kernel/KernelShared.h"
#include "warpscope/gpu/UserKernel.h"

#include <gtest/gtest.h>
#include <string>

namespace warpscope::gpu::test {
namespace {

std::string bufferError(const std::string& declaration)
{
    const auto parsed = parseKernelParams("// a kernel\n" + declaration + "\n");
    EXPECT_TRUE(parsed.buffers.empty()) << declaration;
    if (parsed.errors.size() != 1) {
        ADD_FAILURE() << declaration << " gave " << parsed.errors.size() << " errors";
        return {};
    }
    EXPECT_EQ(parsed.errors[0].line, 2) << declaration;
    return parsed.errors[0].text;
}

TEST(KernelBuffers, ReadsDeclarationsWithTheirSizes)
{
    const auto parsed = parseKernelParams("// @param int n = 8 [1, 64]\n"
                                          "// @buffer float partial[blocks]\n"
                                          "x; // @buffer double twice [ nodes * 2 ]\r\n"
                                          "// @buffer int counts[256]\n"
                                          "// @buffer unsigned per[4*threads]\n"
                                          "// @buffer float rows[ny]\n");
    ASSERT_TRUE(parsed.errors.empty()) << parsed.errors.front().text;
    ASSERT_EQ(parsed.buffers.size(), 5u);
    using T = KernelBufferType;
    using U = KernelBufferUnit;
    EXPECT_EQ(parsed.buffers[0], (KernelBuffer{"partial", T::Float, U::Blocks, 1, 2}));
    EXPECT_EQ(parsed.buffers[1], (KernelBuffer{"twice", T::Double, U::Nodes, 2, 3}));
    EXPECT_EQ(parsed.buffers[2], (KernelBuffer{"counts", T::Int, U::One, 256, 4}));
    EXPECT_EQ(parsed.buffers[3], (KernelBuffer{"per", T::Unsigned, U::Threads, 4, 5}));
    EXPECT_EQ(parsed.buffers[4], (KernelBuffer{"rows", T::Float, U::Ny, 1, 6}));

    DistanceParams mesh;
    mesh.nx = 30;
    mesh.ny = 20;
    LaunchConfig launch;
    launch.grid = {4, 2, 1};
    launch.block = {32, 4, 1};
    EXPECT_EQ(kernelBufferCount(parsed.buffers[0], mesh, launch), 8u);
    EXPECT_EQ(kernelBufferCount(parsed.buffers[1], mesh, launch), 1200u);
    EXPECT_EQ(kernelBufferCount(parsed.buffers[2], mesh, launch), 256u);
    EXPECT_EQ(kernelBufferCount(parsed.buffers[3], mesh, launch), 4u * 8u * 128u);
    EXPECT_EQ(kernelBufferCount(parsed.buffers[4], mesh, launch), 20u);
    // Past 1 GiB a buffer has no size, and the run says so.
    mesh.nx = mesh.ny = 20000;
    EXPECT_EQ(kernelBufferCount(parsed.buffers[1], mesh, launch), 0u);
}

TEST(KernelBuffers, HostileDeclarationsGiveTheirMessages)
{
    EXPECT_NE(bufferError("// @buffer half h[8]").find("@buffer type 'half' is not supported"),
              std::string::npos);
    EXPECT_EQ(bufferError("// @buffer float ws_x[8]"), "@buffer name 'ws_x' is reserved");
    EXPECT_EQ(bufferError("// @buffer float 2x[8]"),
              "@buffer name '2x' must not start with a digit");
    EXPECT_NE(bufferError("// @buffer float a").find("needs a size in brackets"),
              std::string::npos);
    EXPECT_NE(bufferError("// @buffer float a[0]").find("size must be a whole number from 1"),
              std::string::npos);
    EXPECT_NE(bufferError("// @buffer float a[rows]").find("size must be a whole number"),
              std::string::npos);
    EXPECT_NE(bufferError("// @buffer float a[nodes * nodes]").find("size must be"),
              std::string::npos);
    EXPECT_NE(bufferError("// @buffer float a[8").find("needs ']'"), std::string::npos);
    EXPECT_NE(bufferError("// @buffer float a[8] = 3").find("unexpected text after its size"),
              std::string::npos);
    const auto twice = parseKernelParams("// @param float k = 1 [0, 2]\n// @buffer float k[8]\n");
    ASSERT_EQ(twice.errors.size(), 1u);
    EXPECT_EQ(twice.errors[0].text, "'k' is declared twice (first at line 1)");
    std::string many;
    for (int i = 0; i <= kMaxKernelBuffers; ++i)
        many += "// @buffer float b" + std::to_string(i) + "[8]\n";
    EXPECT_EQ(parseKernelParams(many).buffers.size(), std::size_t(kMaxKernelBuffers));
}

TEST(KernelBuffers, BuffersFollowTheValuesInParams)
{
    const std::vector<KernelParam> params = {{"on", 1, 0, 1, 1, KernelParamType::Bool}};
    const std::vector<KernelBuffer> buffers = {{"a", KernelBufferType::Float},
                                               {"b", KernelBufferType::Double}};
    const KernelParamLayout layout = kernelParamLayout(params, buffers);
    ASSERT_EQ(layout.bufferOffsets.size(), 2u);
    EXPECT_EQ(layout.bufferOffsets[0], 8u);
    EXPECT_EQ(layout.bufferOffsets[1], 8u + sizeof(KernelAbiBuffer));
    EXPECT_EQ(layout.size, 8u + 2 * sizeof(KernelAbiBuffer));
    EXPECT_EQ(packKernelParams(params, {1}, buffers).size(), layout.size);
    // A request whose buffers are too large is refused before it reaches a runner.
    RunnerRequest request;
    request.params = packKernelParams(params, {1}, buffers);
    request.buffers = {{8, 1u << 20, 4}, {8 + sizeof(KernelAbiBuffer), 0, 8}};
    EXPECT_NE(runnerBuffersProblem(request).find("more than 1024 MiB"), std::string::npos);
    request.buffers[1].count = 16;
    EXPECT_EQ(runnerBuffersProblem(request), "");
    request.buffers[1].offset = 40;
    EXPECT_NE(runnerBuffersProblem(request), "");
}

// On each target: a buffer keeps what one pass of the block wrote for another thread to read,
// holds zeros at a run's start, and refuses (and counts) an index outside it.
class KernelBufferRuns : public KernelTargets, public ::testing::WithParamInterface<Target>
{
protected:
    void SetUp() override { open(GetParam()); }
};

TEST_P(KernelBufferRuns, ABufferCarriesValuesBetweenThreadsAndRefusesOutsideIndices)
{
    const std::string code = "// @buffer int partial[threads]\n"
                             "// @buffer double wide[blocks]\n"
                             "__global__ void kernel(Out out, Mesh mesh, Refs refs, Params p)\n"
                             "{\n"
                             "    const int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
                             "    p.partial[t] += 3 * t;\n"
                             "    __syncthreads();\n"
                             "    const int other = blockIdx.x * blockDim.x +\n"
                             "                      (threadIdx.x + 1) % blockDim.x;\n"
                             "    if (threadIdx.x == 0) {\n"
                             "        p.wide[blockIdx.x] = 0.5;\n"
                             "        p.partial[p.partial.size()] = 1;\n"
                             "        p.partial[-1] = 1;\n"
                             "    }\n"
                             "    out.write(blockIdx.x, threadIdx.x, float(p.partial[other]));\n"
                             "}\n";
    Field field;
    KernelRun run;
    for (int repeat = 0; repeat < 2; ++repeat) {
        const Status s = runCode(code, 64, 4, {4, 1, 1}, {64, 1, 1}, field, 0, run);
        EXPECT_EQ(s.message(), "The kernel reached 8 element(s) outside its @buffers; the "
                               "bounds-checked buffers refused them");
        for (int b = 0; b < 4; ++b)
            for (int t = 0; t < 64; ++t)
                ASSERT_EQ(field.at(b, t), float(3 * (b * 64 + (t + 1) % 64)))
                    << "block " << b << " thread " << t << " run " << repeat;
        // Two refused writes per block; the buffer is zero again at the next run.
        EXPECT_EQ(run.bufferOutOfBounds, 8);
        EXPECT_EQ(run.outOfBoundsWrites, 0);
    }
}

INSTANTIATE_TEST_SUITE_P(, KernelBufferRuns, ::testing::Values(Target::Simulator, Target::Gpu),
                         [](const auto& info) {
                             return info.param == Target::Gpu ? "Gpu" : "Simulator";
                         });

} // namespace
} // namespace warpscope::gpu::test
