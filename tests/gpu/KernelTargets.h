#pragma once

// A user's kernel built and run as the app does it (buildSimulatedKernel or compileKernel,
// runUserKernel through the kernel runner's process) on the CPU simulator or a GPU, for the
// tests of the simulator and of its record of memory.
#include "TestSupport.h"
#include "warpscope/gpu/UserKernel.h"

#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <string>
#include <vector>

namespace warpscope::gpu::test {

inline std::string simKernelFixture(const std::string& name)
{
    std::ifstream file(fixtureDir() + "/sim-kernels/" + name);
    EXPECT_TRUE(file) << name;
    return std::string((std::istreambuf_iterator<char>(file)), {});
}

struct Field
{
    DistanceParams mesh;
    std::vector<float> values;
    float at(int row, int col) const { return values[layoutFor(mesh).index(row, col)]; }
};

// Where a kernel runs: the CPU simulator, or a GPU through NVRTC.
enum class Target
{
    Simulator,
    Gpu
};

class KernelTargets : public ::testing::Test
{
protected:
    // Opens the target's context, or skips the test where the machine has none.
    void open(Target target)
    {
        m_target = target;
        if (target == Target::Gpu) {
            m_context = cudaContext();
            if (!m_context)
                GTEST_SKIP() << "no CUDA device";
            return;
        }
        if (hostCompiler().empty())
            GTEST_SKIP() << "no C++ compiler on PATH for the CPU simulator";
        m_context = cpuContext(2);
    }

    // Runs the fixture on an nx x ny field (every node -1 before) with the launch; a failed
    // build or run is the returned Status. The classic kernels are right: the simulator's
    // checks find nothing in them.
    Status run(const std::string& name, int nx, int ny, Dim3 grid, Dim3 block, Field& field,
               long long sharedBytes = 0, KernelRun* kernelRun = nullptr)
    {
        KernelRun own;
        KernelRun& done = kernelRun ? *kernelRun : own;
        const Status s =
            runCode(simKernelFixture(name), nx, ny, grid, block, field, sharedBytes, done);
        for (const KernelMessage& m : done.findings)
            ADD_FAILURE() << name << ":" << m.line << ": " << m.text;
        return s;
    }

    Status runCode(const std::string& code, int nx, int ny, Dim3 grid, Dim3 block, Field& field,
                   long long sharedBytes, KernelRun& kernelRun, bool recordMemory = false)
    {
        KernelSource source{KernelShape::WholeKernel, code};
        source.recordMemory = recordMemory;
        SimulatorBuild cpu;
        CompiledKernel gpu;
        if (m_target == Target::Gpu) {
            KernelOptions options;
            options.smMajor = m_context->info().ccMajor;
            options.smMinor = m_context->info().ccMinor;
            if (Status s = compileKernel(source, options, {}, gpu); !s)
                return s;
        } else if (Status s = buildSimulatedKernel(source, m_dir.str(), cpu); !s) {
            return s;
        }
        KernelArgs args;
        args.mesh.nx = nx;
        args.mesh.ny = ny;
        args.mesh.latMin = -10.0;
        args.mesh.latMax = 10.0;
        args.mesh.lonMin = -10.0;
        args.mesh.lonMax = 10.0;
        args.launch.grid = grid;
        args.launch.block = block;
        args.launch.sharedBytes = sharedBytes;
        args.timeoutMs = 60000.0;
        field.mesh = args.mesh;
        field.values.assign(layoutFor(args.mesh).elementCount(), -1.0f);
        return runUserKernel(*m_context, gpu, cpu, args, BufferView<float>::host(field.values),
                             &kernelRun);
    }

    Target m_target = Target::Simulator;
    TempDir m_dir;
    std::unique_ptr<Context> m_context;
};

} // namespace warpscope::gpu::test
