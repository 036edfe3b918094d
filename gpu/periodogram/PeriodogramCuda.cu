#include "periodogram/CudaSpectrum.h"
#include "periodogram/HarmonicPeriodogramKernel.cuh"
#include "periodogram/PeriodogramKernel.cuh"
#include "periodogram/PeriodogramMatrixKernel.cuh"
#include "periodogram/PeriodogramPlan.h"
#include "periodogram/PeriodogramShared.h"
#include "periodogram/SpectrumKernels.cuh"
#include "periodogram/SpectrumSupport.h"
#include "runtime/CudaContext.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>
#include <vector>

namespace warpscope::gpu {
namespace {

// What the periodogram keeps on a CUDA context between calls: the uploaded series, the
// powers (when they go to the host), its own timing events and the last method.
class CudaPeriodogramState : public SliceState
{
public:
    ~CudaPeriodogramState() override
    {
        if (start)
            cudaEventDestroy(start);
        if (stop)
            cudaEventDestroy(stop);
    }
    Status prepare()
    {
        if (!start)
            WS_CUDA_TRY(cudaEventCreate(&start));
        if (!stop)
            WS_CUDA_TRY(cudaEventCreate(&stop));
        return Status::success();
    }

    CudaBuffer series{"the time series", false};
    CudaBuffer power{"the periodogram", false};
    cudaEvent_t start = nullptr, stop = nullptr;
    PeriodogramMethod lastMethod = PeriodogramMethod::Direct;
};

// The multi-term kernel reads the series in double whatever the precision of its trigonometry,
// so queuePeriodogram prepares a multi-term request as float64.
cudaError_t launchTerms(const PeriodogramArgs<double>& args, const PeriodogramOptions& options,
                        const PeriodogramShape& shape, double* power, cudaStream_t stream)
{
    const HarmonicPeriodogramArgs terms{
        args.t,     args.w,       args.wy, args.n,        args.fmin,          args.df,
        args.count, args.logGrid, args.yy, args.psdScale, args.normalization, args.fitMean};
    return launchHarmonicPeriodogram(terms, options.nterms, options.precision == Precision::Float64,
                                     shape, power, stream);
}

cudaError_t launchTerms(const PeriodogramArgs<float>&, const PeriodogramOptions&,
                        const PeriodogramShape&, double*, cudaStream_t)
{
    return cudaErrorInvalidValue;
}

template <typename T>
Status runPeriodogram(CudaBacking& cuda, CudaPeriodogramState& state, const TimeSeries& series,
                      const PeriodogramOptions& options, PeriodogramMethod method,
                      double* devicePower, std::size_t heldBytes)
{
    const cudaStream_t stream = cuda.stream();
    const PeriodogramPlan<T> plan = makePeriodogramPlan<T>(series, options);
    const std::size_t n = plan.t.size();
    const std::size_t count = std::size_t(options.grid.count);
    // One upload: t in double, then w, wy and the rotation steps in T.
    const std::size_t seriesBytes = n * sizeof(double) + 4 * n * sizeof(T);
    const std::size_t powerBytes = count * sizeof(double);
    std::size_t freeBytes = 0, totalBytes = 0;
    WS_CUDA_TRY(cudaMemGetInfo(&freeBytes, &totalBytes));
    freeBytes += state.series.bytes() + heldBytes;
    if (seriesBytes + powerBytes > freeBytes)
        return Status::failure("The periodogram needs " +
                               std::to_string((seriesBytes + powerBytes) >> 20) +
                               " MiB of GPU memory; " + std::to_string(freeBytes >> 20) +
                               " MiB are free on " + cuda.name() + ". Use fewer frequencies.");
    if (Status s = state.series.grow(seriesBytes, stream); !s)
        return s;
    if (!devicePower) {
        if (Status s = state.power.grow(powerBytes, stream); !s)
            return s;
        devicePower = state.power.as<double>();
    }
    std::vector<unsigned char> staging(seriesBytes);
    unsigned char* at = staging.data();
    auto put = [&at](const void* data, std::size_t bytes) {
        std::memcpy(at, data, bytes);
        at += bytes;
    };
    put(plan.tDouble.data(), n * sizeof(double));
    put(plan.w.data(), n * sizeof(T));
    put(plan.wy.data(), n * sizeof(T));
    put(plan.stepCos.data(), n * sizeof(T));
    put(plan.stepSin.data(), n * sizeof(T));
    auto* device = state.series.as<unsigned char>();
    if (Status s = cuda.recorded(
            stream, cuda.streamLane(), SpanKind::CopyHostToDevice, "series in", seriesBytes,
            [&] {
                return cudaStatus(cudaMemcpyAsync(device, staging.data(), seriesBytes,
                                                  cudaMemcpyHostToDevice, stream),
                                  "Copying the series to the GPU");
            });
        !s)
        return s;
    PeriodogramArgs<T> args{};
    args.t = reinterpret_cast<const double*>(device);
    const T* arrays = reinterpret_cast<const T*>(device + n * sizeof(double));
    args.w = arrays;
    args.wy = arrays + n;
    args.stepCos = arrays + 2 * n;
    args.stepSin = arrays + 3 * n;
    args.n = int(n);
    args.fmin = options.grid.fmin;
    args.df = options.grid.df;
    args.count = options.grid.count;
    args.logGrid = options.grid.logarithmic;
    args.yy = plan.yy;
    args.psdScale = plan.psdScale;
    args.normalization = plan.normalization;
    args.fitMean = plan.fitMean;
    args.scale = T(1);
    if constexpr (sizeof(T) == 4)
        if (method == PeriodogramMethod::Matrix)
            args.scale = periodogramMatrixScale(plan.w.data(), plan.wy.data(), int(n));
    WS_CUDA_TRY(cudaEventRecord(state.start, stream));
    const bool matrix = method == PeriodogramMethod::Matrix;
    {
        const SpanScope span(
            cuda.recorder(), stream, cuda.streamLane(), SpanKind::Kernel,
            options.nterms > 1 ? "periodogram (" + std::to_string(options.nterms) + " terms)"
                               : (matrix ? "periodogram (tensor cores)" : "periodogram"),
            0, std::to_string(n) + " samples x " + std::to_string(count) + " frequencies");
        // Poison: frequencies a small grid leaves out stay NaN, and so would any not written.
        WS_CUDA_TRY(cudaMemsetAsync(devicePower, 0xff, powerBytes, stream));
        cudaError_t launched = cudaSuccess;
        const PeriodogramShape shape{int(options.launch.blockThreads), options.launch.gridBlocks,
                                     options.launch.gridStride};
        if (options.nterms > 1) {
            launched = launchTerms(args, options, shape, devicePower, stream);
        } else if (matrix) {
            launched = launchPeriodogramMatrix(args, devicePower, stream);
        } else {
            launched = launchPeriodogram(args, shape, devicePower, stream);
        }
        if (Status s = cudaStatus(launched, "Launching the periodogram kernel"); !s)
            return s;
    }
    WS_CUDA_TRY(cudaEventRecord(state.stop, stream));
    return Status::success();
}

// The method that runs for options (never Auto), or why the requested one cannot.
Status resolveMethod(const DeviceInfo& device, const PeriodogramOptions& options,
                     PeriodogramMethod& method)
{
    const bool tensor = periodogramMatrixSupported(device.ccMajor);
    const bool float64 = options.precision == Precision::Float64;
    if (options.nterms > 1) {
        if (options.method == PeriodogramMethod::Matrix)
            return Status::failure("The matrix products compute the one-term model; " +
                                   std::to_string(options.nterms) +
                                   " terms run on the direct kernel (Method: Auto or Direct)");
        method = PeriodogramMethod::Direct;
        return Status::success();
    }
    switch (options.method) {
    case PeriodogramMethod::Matrix:
        if (options.grid.logarithmic)
            return Status::failure("The matrix products need evenly spaced frequencies; a "
                                   "logarithmic grid runs on the direct kernel (Method: Auto "
                                   "or Direct)");
        if (!tensor)
            return Status::failure("The matrix products need tensor cores with FP64 and FP16 "
                                   "(compute capability 8.0 or newer); " +
                                   device.name + " has " + std::to_string(device.ccMajor) + "." +
                                   std::to_string(device.ccMinor));
        method = PeriodogramMethod::Matrix;
        break;
    case PeriodogramMethod::Direct:
        method = PeriodogramMethod::Direct;
        break;
    default:
        method = !options.grid.logarithmic &&
                         periodogramMatrixPreferred(device.ccMajor, device.ccMinor, float64)
                     ? PeriodogramMethod::Matrix
                     : PeriodogramMethod::Direct;
    }
    return Status::success();
}

// Computes a checked request (checkPeriodogram) into devicePower (device memory; null: the
// state's own buffer) on the context's stream, without waiting, once the method is settled
// and the powers are known to fit beside the series.
Status queuePeriodogram(CudaBacking& cuda, CudaPeriodogramState& state, const TimeSeries& series,
                        const PeriodogramOptions& options, double* devicePower,
                        std::size_t heldBytes)
{
    if (options.cancel && options.cancel->load())
        return Status::failure("The periodogram was cancelled");
    if (Status s = cuda.activate(); !s)
        return s;
    if (Status s = state.prepare(); !s)
        return s;
    PeriodogramMethod method = PeriodogramMethod::Direct;
    if (Status s = resolveMethod(cuda.info(), options, method); !s)
        return s;
    state.lastMethod = method;
    try {
        return options.precision == Precision::Float64 || options.nterms > 1
                   ? runPeriodogram<double>(cuda, state, series, options, method, devicePower,
                                            heldBytes)
                   : runPeriodogram<float>(cuda, state, series, options, method, devicePower,
                                           heldBytes);
    } catch (const std::bad_alloc&) {
        return Status::failure("Out of host memory for the periodogram");
    }
}

// The frequencies the last periodogram's launch left out on purpose (NaN).
long long unevaluated(const CudaPeriodogramState& state, const PeriodogramOptions& options)
{
    // The matrix products evaluate every frequency; the direct kernel, what its launch covers.
    return state.lastMethod == PeriodogramMethod::Matrix
               ? 0
               : options.grid.count - coveredFrequencies(options.launch, options.grid.count);
}

} // namespace

Status computePeriodogramCuda(Context& context, const TimeSeries& series,
                              const PeriodogramOptions& options, std::span<double> power,
                              double& kernelMs)
{
    CudaBacking& cuda = cudaBacking(context);
    CudaPeriodogramState& state = context.state<CudaPeriodogramState>();
    const cudaStream_t stream = cuda.stream();
    if (Status s = queuePeriodogram(cuda, state, series, options, nullptr, state.power.bytes()); !s)
        return s;
    const std::size_t bytes = std::size_t(options.grid.count) * sizeof(double);
    if (Status s = cuda.recorded(
            stream, cuda.streamLane(), SpanKind::CopyDeviceToHost, "power out", bytes,
            [&] {
                return cudaStatus(cudaMemcpyAsync(power.data(), state.power.get(), bytes,
                                                  cudaMemcpyDeviceToHost, stream),
                                  "Copying the periodogram to the host");
            });
        !s)
        return s;
    WS_CUDA_TRY(cudaStreamSynchronize(stream));
    float ms = 0.0f;
    WS_CUDA_TRY(cudaEventElapsedTime(&ms, state.start, state.stop));
    kernelMs = ms;
    const long long nonFinite = std::count_if(power.begin(), power.begin() + options.grid.count,
                                              [](double p) { return !std::isfinite(p); });
    return checkPowers(nonFinite, unevaluated(state, options), options);
}

Status computeSpectrumCuda(Context& context, const TimeSeries& series,
                           const PeriodogramOptions& options,
                           std::shared_ptr<const Spectrum>& spectrum)
{
    CudaBacking& cuda = cudaBacking(context);
    CudaPeriodogramState& state = context.state<CudaPeriodogramState>();
    const cudaStream_t stream = cuda.stream();
    if (Status s = cuda.activate(); !s)
        return s;
    std::shared_ptr<CudaSpectrum> result;
    if (Status s = CudaSpectrum::create(cuda.ordinal(), options.grid, result); !s)
        return s;
    if (Status s = queuePeriodogram(cuda, state, series, options, result->power(), 0); !s)
        return s;
    const int token =
        cuda.recorder().begin(stream, cuda.streamLane(), SpanKind::Kernel, "peak search", 0,
                              "top " + std::to_string(kSpectrumMaxPeaks) + " peaks");
    const Status searched = result->summarize(stream);
    cuda.recorder().end(token, stream);
    if (!searched)
        return searched;
    float ms = 0.0f;
    WS_CUDA_TRY(cudaEventElapsedTime(&ms, state.start, state.stop));
    if (Status s = checkPowers(result->nonFinite(), unevaluated(state, options), options); !s)
        return s;
    result->setComputeMs(ms);
    result->setMethod(periodogramMethodName(state.lastMethod));
    spectrum = std::move(result);
    return Status::success();
}

KernelOccupancy periodogramOccupancyCuda(Context& context, Precision precision,
                                         long long blockThreads)
{
    return kernelOccupancy(cudaBacking(context),
                           periodogramKernelSymbol(precision == Precision::Float64, false),
                           blockThreads);
}

Status writeSpectrumLineCuda(Context& context, const Spectrum& spectrum, const SpectrumAxis& axis,
                             float* out)
{
    CudaBacking& cuda = cudaBacking(context);
    if (Status s = cuda.activate(); !s)
        return s;
    const cudaStream_t stream = cuda.stream();
    // A spectrum in this device's memory is decimated there, straight into out.
    const auto* resident = dynamic_cast<const CudaSpectrum*>(&spectrum);
    if (resident && resident->device() == context.device().ordinal)
        return cuda.recorded(
            stream, cuda.streamLane(), SpanKind::Kernel, "periodogram line", 0, [&] {
                const Status launched = cudaStatus(
                    launchSpectrumColumns(resident->power(), spectrumMapping(spectrum.grid(), axis),
                                          out, stream),
                    "Launching the periodogram line kernel");
                return launched ? resident->markUse(stream) : launched;
            });
    std::vector<float> vertices;
    try {
        vertices.resize(std::size_t(axis.columns) * kSpectrumFloatsPerColumn);
    } catch (const std::bad_alloc&) {
        return Status::failure("Out of host memory for the periodogram's line");
    }
    if (Status s = spectrum.decimate(axis, vertices); !s)
        return s;
    const std::size_t bytes = vertices.size() * sizeof(float);
    if (Status s = cuda.recorded(
            stream, cuda.streamLane(), SpanKind::CopyHostToDevice, "periodogram line", bytes,
            [&] {
                return cudaStatus(
                    cudaMemcpyAsync(out, vertices.data(), bytes, cudaMemcpyHostToDevice, stream),
                    "Copying the periodogram's line");
            });
        !s)
        return s;
    // vertices is freed on return, so the copy must have read it.
    WS_CUDA_TRY(cudaStreamSynchronize(stream));
    return Status::success();
}

} // namespace warpscope::gpu
