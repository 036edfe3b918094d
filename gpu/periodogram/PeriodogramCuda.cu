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
#include <atomic>
#include <cmath>
#include <cstring>
#include <new>
#include <optional>
#include <vector>

namespace warpscope::gpu {
namespace {

// Series of up to this many bytes (t, w and wy: 16 Ki samples in float32, 10 Ki in float64)
// are read by the preparing kernel from pinned memory rather than copied first.
constexpr std::size_t kPreparedUploadBytes = 256 << 10;

// A call whose powers go to the host runs the matrix products in up to this many pieces, so
// that each piece's powers travel while the next is computed.
constexpr int kMaxPieces = 8;

// What the periodogram keeps on a CUDA context between calls, all of it grow-only: the
// uploaded series and its pinned staging, the powers (when they go to the host) with their
// pinned landing place, a stream for the copies out, the spectra's stream, its own timing
// events and the last method.
class CudaPeriodogramState : public SliceState
{
public:
    Status prepare()
    {
        for (CudaEvent* e : {&start, &stop})
            if (!*e)
                WS_CUDA_TRY(e->create());
        if (!uploaded)
            WS_CUDA_TRY(uploaded.create(cudaEventDisableTiming));
        return Status::success();
    }
    // What only a call with host output needs.
    Status prepareCopies()
    {
        if (!copyStream)
            WS_CUDA_TRY(copyStream.create());
        for (int k = 0; k < kMaxPieces; ++k) {
            if (!computed[k])
                WS_CUDA_TRY(computed[k].create(cudaEventDisableTiming));
            if (!copied[k])
                WS_CUDA_TRY(copied[k].create(cudaEventDisableTiming));
        }
        return Status::success();
    }

    CudaBuffer series{"the time series", false};
    CudaBuffer staging{"the time series' staging", true};
    CudaBuffer power{"the periodogram", false};
    CudaBuffer hostPower{"the periodogram's copy to the host", true};
    std::shared_ptr<SpectrumStream> spectrumStream; // for the spectra the app keeps
    // The peak search's blocks' results, and its summary in pinned memory.
    CudaBuffer searchScratch{"the peak search's scratch", false};
    CudaBuffer hostSummary{"the peaks found", true};
    CudaEvent start, stop;
    CudaEvent uploaded; // the staging was read: it may be written again
    CudaStream copyStream;
    CudaEvent computed[kMaxPieces], copied[kMaxPieces];
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

// Where a call's powers go in pieces: piece k is CTAs [cta[k], cta[k + 1]) of the matrix
// products and frequencies [begin[k], begin[k + 1]).
struct PowerPieces
{
    bool toHost = false; // each piece's end is marked by state.computed[k]
    int count = 1;
    long long cta[kMaxPieces + 1] = {};
    long long begin[kMaxPieces + 1] = {};
};

// One piece (the whole grid) unless pieces are asked for and the matrix products run: then
// whole waves of CTAs a piece, at most kMaxPieces, so that no piece leaves SMs idle that one
// launch would have used.
template <typename T>
PowerPieces powerPieces(const CudaBacking& cuda, const PeriodogramOptions& options,
                        PeriodogramMethod method, bool wanted)
{
    PowerPieces pieces;
    pieces.toHost = wanted;
    const long long count = options.grid.count;
    pieces.cta[1] = -1; // one launch of every CTA
    pieces.begin[1] = count;
    if (!wanted || method != PeriodogramMethod::Matrix)
        return pieces;
    const long long perWave =
        (long long)periodogramMatrixCtasPerSm(sizeof(T) == 8, options.fitMean) *
        cuda.info().smCount;
    const long long ctas = periodogramMatrixCtas(count);
    if (perWave <= 0 || ctas < 2 * perWave)
        return pieces;
    const long long waves = (ctas + perWave - 1) / perWave;
    const long long wavesPerPiece = (waves + kMaxPieces - 1) / kMaxPieces;
    pieces.count = int((waves + wavesPerPiece - 1) / wavesPerPiece);
    for (int k = 1; k < pieces.count; ++k) {
        pieces.cta[k] = k * wavesPerPiece * perWave;
        pieces.begin[k] = std::min(count, pieces.cta[k] * periodogramMatrixCtaFrequencies());
    }
    pieces.cta[pieces.count] = ctas;
    pieces.begin[pieces.count] = count;
    return pieces;
}

template <typename T>
Status runPeriodogram(CudaBacking& cuda, CudaPeriodogramState& state, Timeline* timeline,
                      const TimeSeries& series, const PeriodogramMoments& moments,
                      const PeriodogramOptions& options, PeriodogramMethod method,
                      double* devicePower, std::size_t heldBytes, PowerPieces& pieces)
{
    const cudaStream_t stream = cuda.stream();
    std::optional<PeriodogramPlan<T>> made;
    {
        const ScopedHostSpan span(timeline, cuda.hostLane(), "periodogram plan");
        made.emplace(makePeriodogramPlan<T>(series, options, moments, PlanSteps::Device));
    }
    const PeriodogramPlan<T>& plan = *made;
    const std::size_t n = plan.t.size();
    const std::size_t count = std::size_t(options.grid.count);
    // One upload: t in double, then w and wy in T; the device adds the rotation steps after
    // them.
    const std::size_t uploadBytes = n * sizeof(double) + 2 * n * sizeof(T);
    const std::size_t seriesBytes = uploadBytes + 2 * n * sizeof(T);
    const std::size_t powerBytes = count * sizeof(double);
    const bool fits =
        state.series.bytes() >= seriesBytes && (devicePower || state.power.bytes() >= powerBytes);
    if (!fits) {
        // Only a call that must allocate asks the driver (a query costs tens of µs).
        std::size_t freeBytes = 0, totalBytes = 0;
        WS_CUDA_TRY(cudaMemGetInfo(&freeBytes, &totalBytes));
        freeBytes += state.series.bytes() + heldBytes;
        if (seriesBytes + powerBytes > freeBytes)
            return Status::failure("The periodogram needs " +
                                   std::to_string((seriesBytes + powerBytes) >> 20) +
                                   " MiB of GPU memory; " + std::to_string(freeBytes >> 20) +
                                   " MiB are free on " + cuda.name() + ". Use fewer frequencies.");
    }
    if (Status s = state.series.grow(seriesBytes, stream); !s)
        return s;
    if (!devicePower) {
        if (Status s = state.power.grow(powerBytes, stream); !s)
            return s;
        devicePower = state.power.as<double>();
    }
    // The last upload read the staging before this one writes it (at once in practice: every
    // call waits for its results).
    WS_CUDA_TRY(cudaEventSynchronize(state.uploaded));
    if (Status s = state.staging.grow(uploadBytes, stream); !s)
        return s;
    unsigned char* at = state.staging.as<unsigned char>();
    auto put = [&at](const void* data, std::size_t bytes) {
        std::memcpy(at, data, bytes);
        at += bytes;
    };
    put(plan.tDouble.data(), n * sizeof(double));
    put(plan.w.data(), n * sizeof(T));
    put(plan.wy.data(), n * sizeof(T));
    auto* device = state.series.as<unsigned char>();
    PeriodogramArgs<T> args{};
    args.t = reinterpret_cast<const double*>(device);
    T* arrays = reinterpret_cast<T*>(device + n * sizeof(double));
    args.w = arrays;
    args.wy = arrays + n;
    args.stepCos = arrays + 2 * n;
    args.stepSin = arrays + 3 * n;
    // A small series is read by one kernel straight from the pinned staging, which also
    // writes the steps and the poison: each operation on the stream costs microseconds of
    // latency, more than these bytes take. A large one is copied at the link's rate.
    const bool prepared = uploadBytes <= kPreparedUploadBytes;
    if (prepared) {
        if (Status s = cuda.recorded(
                stream, cuda.streamLane(), SpanKind::Kernel, "series in, rotation steps",
                uploadBytes,
                [&] {
                    return cudaStatus(launchPeriodogramPrepare(
                                          state.staging.get(), device, uploadBytes, (long long)n,
                                          options.grid.df, arrays + 2 * n, arrays + 3 * n,
                                          devicePower, options.grid.count, stream),
                                      "Launching the series' preparation");
                });
            !s)
            return s;
    } else {
        if (Status s = cuda.recorded(
                stream, cuda.streamLane(), SpanKind::CopyHostToDevice, "series in", uploadBytes,
                [&] {
                    return cudaStatus(cudaMemcpyAsync(device, state.staging.get(), uploadBytes,
                                                      cudaMemcpyHostToDevice, stream),
                                      "Copying the series to the GPU");
                });
            !s)
            return s;
        if (Status s =
                cuda.recorded(stream, cuda.streamLane(), SpanKind::Kernel, "rotation steps", 0,
                              [&] {
                                  return cudaStatus(launchPeriodogramSteps(
                                                        args.t, int(n), options.grid.df,
                                                        arrays + 2 * n, arrays + 3 * n, stream),
                                                    "Launching the rotation steps");
                              });
            !s)
            return s;
        // Poison: frequencies a small grid leaves out stay NaN, and so would any not written.
        WS_CUDA_TRY(cudaMemsetAsync(devicePower, 0xff, powerBytes, stream));
    }
    WS_CUDA_TRY(cudaEventRecord(state.uploaded, stream));
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
    const PeriodogramShape shape{int(options.launch.blockThreads), options.launch.gridBlocks,
                                 options.launch.gridStride};
    for (int k = 0; k < pieces.count; ++k) {
        const std::string detail =
            std::to_string(n) + " samples x " +
            std::to_string(pieces.begin[k + 1] - pieces.begin[k]) + " frequencies" +
            (pieces.count > 1
                 ? " (piece " + std::to_string(k + 1) + " of " + std::to_string(pieces.count) + ")"
                 : std::string());
        const SpanScope span(cuda.recorder(), stream, cuda.streamLane(), SpanKind::Kernel,
                             options.nterms > 1
                                 ? "periodogram (" + std::to_string(options.nterms) + " terms)"
                                 : (matrix ? "periodogram (tensor cores)" : "periodogram"),
                             0, detail);
        cudaError_t launched = cudaSuccess;
        if (options.nterms > 1) {
            launched = launchTerms(args, options, shape, devicePower, stream);
        } else if (matrix) {
            launched = pieces.count > 1
                           ? launchPeriodogramMatrix(args, devicePower, stream, pieces.cta[k],
                                                     pieces.cta[k + 1] - pieces.cta[k])
                           : launchPeriodogramMatrix(args, devicePower, stream);
        } else {
            launched = launchPeriodogram(args, shape, devicePower, stream);
        }
        if (Status s = cudaStatus(launched, "Launching the periodogram kernel"); !s)
            return s;
        if (pieces.toHost)
            WS_CUDA_TRY(cudaEventRecord(state.computed[k], stream));
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
// and the powers are known to fit beside the series. toHost: the powers then go to the host,
// in the pieces it leaves in pieces.
Status queuePeriodogram(CudaBacking& cuda, CudaPeriodogramState& state, Timeline* timeline,
                        const TimeSeries& series, const PeriodogramMoments& moments,
                        const PeriodogramOptions& options, double* devicePower,
                        std::size_t heldBytes, bool toHost, PowerPieces& pieces)
{
    if (options.cancel && options.cancel->load())
        return Status::failure("The periodogram was cancelled");
    if (Status s = cuda.activate(); !s)
        return s;
    if (Status s = state.prepare(); !s)
        return s;
    if (toHost)
        if (Status s = state.prepareCopies(); !s)
            return s;
    PeriodogramMethod method = PeriodogramMethod::Direct;
    if (Status s = resolveMethod(cuda.info(), options, method); !s)
        return s;
    state.lastMethod = method;
    const bool float64 = options.precision == Precision::Float64;
    pieces = float64 ? powerPieces<double>(cuda, options, method, toHost)
                     : powerPieces<float>(cuda, options, method, toHost);
    try {
        // The multi-term kernel reads the series in double whatever its precision.
        return float64 || options.nterms > 1
                   ? runPeriodogram<double>(cuda, state, timeline, series, moments, options, method,
                                            devicePower, heldBytes, pieces)
                   : runPeriodogram<float>(cuda, state, timeline, series, moments, options, method,
                                           devicePower, heldBytes, pieces);
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
                              const PeriodogramMoments& moments, const PeriodogramOptions& options,
                              std::span<double> power, double& kernelMs)
{
    CudaBacking& cuda = cudaBacking(context);
    CudaPeriodogramState& state = context.state<CudaPeriodogramState>();
    Timeline* timeline = context.timeline();
    PowerPieces pieces;
    if (Status s = queuePeriodogram(cuda, state, timeline, series, moments, options, nullptr,
                                    state.power.bytes(), true, pieces);
        !s)
        return s;
    const std::size_t bytes = std::size_t(options.grid.count) * sizeof(double);
    if (Status s = state.hostPower.grow(bytes, state.copyStream); !s)
        return s;
    // Each piece goes to pinned memory at the link's full rate as soon as it is computed,
    // while the next is; the host then moves it into power and counts what is not finite,
    // on the host pool, while the GPU goes on.
    const cudaStream_t copies = state.copyStream;
    const int copyLane = cuda.recorder().recording() && timeline
                             ? timeline->lane("CUDA stream: " + context.role() + " out")
                             : -1;
    const double* device = state.power.as<double>();
    double* landing = state.hostPower.as<double>();
    for (int k = 0; k < pieces.count; ++k) {
        const long long begin = pieces.begin[k], end = pieces.begin[k + 1];
        const std::size_t pieceBytes = std::size_t(end - begin) * sizeof(double);
        WS_CUDA_TRY(cudaStreamWaitEvent(copies, state.computed[k]));
        if (Status s = cuda.recorded(
                copies, copyLane, SpanKind::CopyDeviceToHost, "power out", pieceBytes,
                [&] {
                    return cudaStatus(cudaMemcpyAsync(landing + begin, device + begin, pieceBytes,
                                                      cudaMemcpyDeviceToHost, copies),
                                      "Copying the periodogram to the host");
                });
            !s)
            return s;
        WS_CUDA_TRY(cudaEventRecord(state.copied[k], copies));
    }
    std::atomic<long long> nonFinite{0};
    for (int k = 0; k < pieces.count; ++k) {
        WS_CUDA_TRY(cudaEventSynchronize(state.copied[k]));
        const long long begin = pieces.begin[k], end = pieces.begin[k + 1];
        const ScopedHostSpan span(timeline, cuda.hostLane(), "periodogram to the caller");
        // Blocks of 16 Ki values (128 KiB): a piece of 2 MiB then spreads over 16 threads.
        constexpr long long kBlock = 1 << 14;
        cuda.hostPool().parallelFor(std::size_t((end - begin + kBlock - 1) / kBlock),
                                    [&](std::size_t first, std::size_t last, unsigned) {
                                        const long long from = begin + (long long)first * kBlock;
                                        const long long to =
                                            std::min(end, begin + (long long)last * kBlock);
                                        std::memcpy(power.data() + from, landing + from,
                                                    std::size_t(to - from) * sizeof(double));
                                        long long bad = 0;
                                        for (long long i = from; i < to; ++i)
                                            bad += !std::isfinite(landing[i]);
                                        nonFinite += bad;
                                    });
    }
    WS_CUDA_TRY(cudaEventSynchronize(state.stop));
    float ms = 0.0f;
    WS_CUDA_TRY(cudaEventElapsedTime(&ms, state.start, state.stop));
    kernelMs = ms;
    return checkPowers(nonFinite.load(), unevaluated(state, options), options);
}

Status computeSpectrumCuda(Context& context, const TimeSeries& series,
                           const PeriodogramMoments& moments, const PeriodogramOptions& options,
                           std::shared_ptr<const Spectrum>& spectrum)
{
    CudaBacking& cuda = cudaBacking(context);
    CudaPeriodogramState& state = context.state<CudaPeriodogramState>();
    const cudaStream_t stream = cuda.stream();
    if (Status s = cuda.activate(); !s)
        return s;
    if (!state.spectrumStream)
        if (Status s = SpectrumStream::create(cuda.ordinal(), state.spectrumStream); !s)
            return s;
    std::shared_ptr<CudaSpectrum> result;
    if (Status s = CudaSpectrum::create(cuda.ordinal(), options.grid, state.spectrumStream, stream,
                                        result);
        !s)
        return s;
    PowerPieces pieces;
    const Status queued = queuePeriodogram(cuda, state, context.timeline(), series, moments,
                                           options, result->power(), 0, false, pieces);
    // Freed only after what was queued wrote the powers, even when the rest failed.
    if (Status s = result->markUse(stream); !s)
        return s;
    if (!queued)
        return queued;
    // The peaks and the range found on the device; only they come back, written by the
    // kernels straight into pinned memory.
    if (state.searchScratch.bytes() == 0) {
        if (Status s = state.searchScratch.grow(spectrumSummaryScratchBytes(), stream); !s)
            return s;
        WS_CUDA_TRY(prepareSpectrumSearch(state.searchScratch.get(), stream));
    }
    if (Status s = state.hostSummary.grow(sizeof(SpectrumSummary), stream); !s)
        return s;
    auto* hostSummary = state.hostSummary.as<SpectrumSummary>();
    {
        // The span ends once the peaks are in host memory: what the caller waits for.
        const SpanScope span(cuda.recorder(), stream, cuda.streamLane(), SpanKind::Kernel,
                             "peak search", 0,
                             "top " + std::to_string(kSpectrumMaxPeaks) + " peaks");
        const cudaError_t searched =
            searchSpectrum(result->power(), options.grid.count, state.searchScratch.get(),
                           hostSummary, cuda.info().ccMajor, stream);
        // Freed only after whatever part of the search ran.
        if (Status s = result->markUse(stream); !s)
            return s;
        WS_CUDA_TRY(searched);
    }
    result->setSummary(*hostSummary);
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
