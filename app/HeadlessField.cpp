#include "HeadlessField.h"

#include "NpyFile.h"
#include "warpscope/gpu/DevicePool.h"
#include "warpscope/gpu/Distance.h"
#include "warpscope/gpu/LaunchLesson.h"
#include "warpscope/gpu/UserKernel.h"

#include <QStandardPaths>
#include <cstdio>
#include <limits>
#include <vector>

namespace warpscope::app {
namespace {

int failure(const QString& message)
{
    std::fprintf(stderr, "warpscope: %s\n", qPrintable(message));
    return 1;
}

// The kernel shown, and the file it came from, for messages at its lines.
struct ShownKernel
{
    gpu::KernelSource source;
    std::vector<std::string> flags;
    std::vector<scene::KernelParamValue> values;
    QString file;
};

ShownKernel shownKernel(const AppOptions& options)
{
    const scene::KernelScene kernel = options.scene ? options.scene->kernel : scene::KernelScene{};
    ShownKernel shown{{kernel.shape, kernel.source},
                      kernel.flags,
                      kernel.values,
                      options.scene ? options.scenePath : QStringLiteral("kernel.cu")};
    if (options.kernelFile) {
        shown.source = *options.kernelFile;
        shown.file = options.kernelSource;
    }
    return shown;
}

// The build's first error, at its line of the file, or the build's own reason.
QString buildProblem(const ShownKernel& kernel, const std::vector<gpu::KernelMessage>& messages,
                     const gpu::Status& status)
{
    for (const gpu::KernelMessage& m : messages)
        if (m.severity == gpu::Severity::Error)
            return kernel.file + (m.line > 0 ? ":" + QString::number(m.line) : QString()) + ": " +
                   QString::fromStdString(m.text);
    return kernel.file + ": " + QString::fromStdString(status.message());
}

// The kernel's output into field (layoutFor(mesh)), built for the context's device into the
// window's cache of builds.
QString runKernel(gpu::Context& context, const AppOptions& options, std::vector<float>& field)
{
    const ShownKernel kernel = shownKernel(options);
    const std::string cacheDir =
        (QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + "/kernels")
            .toStdString();
    gpu::CompiledKernel gpuBuild;
    gpu::SimulatorBuild cpuBuild;
    if (context.isCuda()) {
        gpu::KernelOptions kernelOptions;
        kernelOptions.flags = kernel.flags;
        kernelOptions.smMajor = context.info().ccMajor;
        kernelOptions.smMinor = context.info().ccMinor;
        if (const gpu::Status s =
                gpu::compileKernel(kernel.source, kernelOptions, cacheDir, gpuBuild);
            !s)
            return buildProblem(kernel, gpuBuild.messages, s);
    } else if (const gpu::Status s = gpu::buildSimulatedKernel(kernel.source, cacheDir, cpuBuild);
               !s) {
        return buildProblem(kernel, cpuBuild.messages, s);
    }
    gpu::KernelArgs args;
    args.mesh = options.params;
    args.launch = options.launch;
    // The scene's values by name, fitted to the declarations; the defaults elsewhere.
    for (const gpu::KernelParam& p : context.isCuda() ? gpuBuild.params : cpuBuild.params) {
        double value = p.value;
        for (const scene::KernelParamValue& v : kernel.values)
            if (v.name == p.name)
                value = gpu::kernelParamValue(p, v.value);
        args.values.push_back(value);
    }
    const gpu::Status s =
        gpu::runUserKernel(context, gpuBuild, cpuBuild, args, gpu::BufferView<float>::host(field));
    return s ? QString() : kernel.file + ": " + QString::fromStdString(s.message());
}

QString computeField(gpu::Context& context, const AppOptions& options, std::vector<float>& field)
{
    if (options.kernelShown())
        return runKernel(context, options, field);
    gpu::Status s;
    if (options.teaching) {
        std::vector<std::uint32_t> owners(2 * std::size_t(options.params.nx) *
                                          std::size_t(options.params.ny));
        s = gpu::runLesson(context, options.params, {options.launch, options.gridStride}, field,
                           owners);
    } else {
        s = gpu::computeDistance(context, options.params, std::span<float>(field));
    }
    return s ? QString() : QString::fromStdString(s.message());
}

} // namespace

int runHeadlessField(const AppOptions& options)
{
    gpu::DevicePool devices(options.backend, options.device, nullptr);
    std::unique_ptr<gpu::Context> context;
    if (const gpu::Status s = devices.open("field", context); !s)
        return failure(QString::fromStdString(s.message()));
    const gpu::FieldLayout layout = gpu::layoutFor(options.params);
    // Nodes nothing writes (a kernel's, a lesson's uncovered ones) are NaN: no value.
    std::vector<float> field(layout.elementCount(), std::numeric_limits<float>::quiet_NaN());
    if (const QString problem = computeField(*context, options, field); !problem.isEmpty())
        return failure(problem);
    if (const QString problem = writeFieldNpy(options.exportField, field, layout);
        !problem.isEmpty())
        return failure(problem);
    std::printf("Saved %s (%d x %d float32 on %s)\n", qPrintable(options.exportField),
                options.params.ny, options.params.nx, context->name().c_str());
    return 0;
}

} // namespace warpscope::app
