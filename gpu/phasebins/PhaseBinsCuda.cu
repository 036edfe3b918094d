// Phase dispersion and conditional entropy on a CUDA device: the plan's arrays in, the values
// poisoned, one kernel between timing events, the values out.
#include "phasebins/PhaseBinsKernel.cuh"
#include "phasebins/PhaseBinsShared.h"
#include "runtime/CudaContext.h"

#include <array>
#include <string>

namespace warpscope::gpu {
namespace {

// What the two methods keep on a CUDA context between calls, grow-only: the series' arrays,
// the values and the timing events.
class CudaPhaseBinsState : public SliceState
{
public:
    Status prepare()
    {
        for (CudaEvent* e : {&start, &stop})
            if (!*e)
                WS_CUDA_TRY(e->create());
        return Status::success();
    }

    CudaBuffer series{"the folded series", false};
    CudaBuffer values{"the phase-bin statistics", false};
    CudaEvent start, stop;
};

// A host array to copy to the device.
struct HostArray
{
    const void* data = nullptr;
    std::size_t bytes = 0;
};

// Copies the series' two arrays in (each at a 16-byte boundary), poisons out's values on the
// device (NaN: all bits set), runs launch(deviceArrays, deviceValues, stream) between the
// timing events as the span `name`, and copies the values back into out. kernelMs: the
// events' time.
template <typename Launch>
Status runOnDevice(Context& context, const std::string& name,
                   const std::array<HostArray, 2>& arrays, std::span<double> out, Launch launch,
                   double& kernelMs)
{
    CudaBacking& cuda = cudaBacking(context);
    if (Status s = cuda.activate(); !s)
        return s;
    CudaPhaseBinsState& state = context.state<CudaPhaseBinsState>();
    if (Status s = state.prepare(); !s)
        return s;
    const cudaStream_t stream = cuda.stream();
    const auto aligned = [](std::size_t bytes) { return (bytes + 15) / 16 * 16; };
    const std::size_t seriesBytes = aligned(arrays[0].bytes) + aligned(arrays[1].bytes);
    const std::size_t valueBytes = out.size() * sizeof(double);
    if (Status s = state.series.grow(seriesBytes, stream); !s)
        return s;
    if (Status s = state.values.grow(valueBytes, stream); !s)
        return s;
    auto* const base = state.series.as<unsigned char>();
    const std::array<const void*, 2> device{base, base + aligned(arrays[0].bytes)};
    if (Status s = cuda.recorded(
            stream, cuda.streamLane(), SpanKind::CopyHostToDevice, name + " series in", seriesBytes,
            [&] {
                for (int a = 0; a < 2; ++a)
                    WS_CUDA_TRY(cudaMemcpyAsync(const_cast<void*>(device[a]), arrays[a].data,
                                                arrays[a].bytes, cudaMemcpyHostToDevice, stream));
                return Status::success();
            });
        !s)
        return s;
    double* values = state.values.as<double>();
    WS_CUDA_TRY(cudaMemsetAsync(values, 0xff, valueBytes, stream));
    WS_CUDA_TRY(cudaEventRecord(state.start, stream));
    {
        const SpanScope span(cuda.recorder(), stream, cuda.streamLane(), SpanKind::Kernel, name, 0,
                             std::to_string(out.size()) + " frequencies");
        if (Status s =
                cudaStatus(launch(device, values, stream), ("Launching the " + name).c_str());
            !s)
            return s;
    }
    WS_CUDA_TRY(cudaEventRecord(state.stop, stream));
    if (Status s = cuda.recorded(
            stream, cuda.streamLane(), SpanKind::CopyDeviceToHost, name + " out", valueBytes,
            [&] {
                return cudaStatus(
                    cudaMemcpyAsync(out.data(), values, valueBytes, cudaMemcpyDeviceToHost, stream),
                    "Copying the values to the host");
            });
        !s)
        return s;
    WS_CUDA_TRY(cudaStreamSynchronize(stream));
    float ms = 0.0f;
    WS_CUDA_TRY(cudaEventElapsedTime(&ms, state.start, state.stop));
    kernelMs = ms;
    return Status::success();
}

} // namespace

Status phaseDispersionCuda(Context& context, const DispersionPlan& plan, std::span<double> out,
                           double& kernelMs)
{
    DispersionArgs args;
    args.n = int(plan.dt.size());
    args.fmin = plan.grid.fmin;
    args.df = plan.grid.df;
    args.count = plan.grid.count;
    args.logGrid = plan.grid.logarithmic;
    args.bins = plan.bins;
    args.covers = plan.covers;
    args.sigma2 = plan.sigma2;
    const std::size_t bytes = plan.dt.size() * sizeof(double);
    return runOnDevice(
        context, "phase dispersion",
        {HostArray{plan.dt.data(), bytes}, HostArray{plan.y.data(), bytes}}, out,
        [&](const std::array<const void*, 2>& device, double* values, cudaStream_t stream) {
            args.dt = static_cast<const double*>(device[0]);
            args.y = static_cast<const double*>(device[1]);
            return launchPhaseDispersion(args, values, stream);
        },
        kernelMs);
}

Status conditionalEntropyCuda(Context& context, const EntropyPlan& plan, std::span<double> out,
                              double& kernelMs)
{
    EntropyArgs args;
    args.n = int(plan.dt.size());
    args.fmin = plan.grid.fmin;
    args.df = plan.grid.df;
    args.count = plan.grid.count;
    args.logGrid = plan.grid.logarithmic;
    args.phaseBins = plan.phaseBins;
    args.magnitudeBins = plan.magnitudeBins;
    args.inverseN = plan.inverseN;
    return runOnDevice(
        context, "conditional entropy",
        {HostArray{plan.dt.data(), plan.dt.size() * sizeof(double)},
         HostArray{plan.magnitudeBin.data(), plan.magnitudeBin.size() * sizeof(int)}},
        out,
        [&](const std::array<const void*, 2>& device, double* values, cudaStream_t stream) {
            args.dt = static_cast<const double*>(device[0]);
            args.magnitudeBin = static_cast<const int*>(device[1]);
            return launchConditionalEntropy(args, values, stream);
        },
        kernelMs);
}

} // namespace warpscope::gpu
