#include "periodogram/PeriodogramBatchKernel.cuh"
#include "periodogram/PeriodogramBatchShared.h"
#include "periodogram/PeriodogramKernel.cuh"
#include "periodogram/PeriodogramMatrixKernel.cuh"
#include "periodogram/PeriodogramPlan.h"
#include "runtime/CudaContext.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

namespace warpscope::gpu {
namespace {

// Samples a block stages in shared memory at a time (the direct kernel's tile): objects with
// the same number of tiles form a bucket, one launch each, whose blocks do the same work.
constexpr long long kTileSamples = 256;

// What the batch keeps on a CUDA context between calls, grow-only: the uploaded series and
// its staging, the powers on the device and their pinned landing place, the stream
// that copies them out, and the timing events.
class CudaBatchState : public SliceState
{
public:
    Status prepare()
    {
        for (CudaEvent* e : {&start, &stop})
            if (!*e)
                WS_CUDA_TRY(e->create());
        if (!copyStream)
            WS_CUDA_TRY(copyStream.create());
        return Status::success();
    }

    CudaBuffer series{"the batch's series", false};
    // Pageable: the driver copies it to its own pinned buffers as the upload is issued.
    // Pinning a staging of a batch's size took 10 to 40 ms for W2 (1000 objects of 20 000
    // points), one context after another, while every other CUDA call of the process
    // waited.
    std::unique_ptr<unsigned char[]> staging;
    std::size_t stagingBytes = 0;
    CudaBuffer power{"the batch's periodograms", false};
    CudaBuffer hostPower{"the batch's periodograms' copy to the host", true};
    CudaBuffer summaries{"the batch's peaks", false};
    CudaBuffer hostSummaries{"the batch's peaks' copy to the host", true};
    CudaEvent start, stop;
    CudaStream copyStream;
};

// A buffer's size for bytes: an eighth to spare, since a run's batches differ in size and
// each growth costs (freeing device memory synchronises the device), so that a run grows its
// buffers once, not at each larger batch.
std::size_t withSpare(std::size_t bytes)
{
    return bytes + bytes / 8;
}

// Makes buffer hold bytes, withSpare where memory allows. A growth is a span on lane of
// timeline, where a run shows what its allocations cost.
Status fit(CudaBuffer& buffer, std::size_t bytes, cudaStream_t stream, Timeline* timeline, int lane)
{
    if (buffer.bytes() >= bytes)
        return Status::success();
    const ScopedHostSpan span(timeline, lane, std::string("allocating ") + buffer.what());
    if (buffer.grow(withSpare(bytes), stream))
        return Status::success();
    return buffer.grow(bytes, stream);
}

// Sections of the upload start on 256-byte boundaries.
std::size_t aligned(std::size_t bytes)
{
    return (bytes + 255) & ~std::size_t(255);
}

// The matrix products' scale of an object's w and wy (PeriodogramArgs::scale).
template <typename T> T matrixScale(const PeriodogramPlan<T>& p)
{
    if constexpr (sizeof(T) == 4)
        return periodogramMatrixScale(p.w.data(), p.wy.data(), int(p.t.size()));
    return T(1);
}

// A bucket: slots [first, first + count), every object of the same number of tiles.
struct Bucket
{
    long long first = 0, count = 0;
};

// Where each section of a batch's upload lies on the device: the times (double), w and wy,
// the rotation steps' cos and sin, the offsets, yy, the PSD scales and the matrix scales.
struct BatchLayout
{
    std::size_t tBytes = 0, arrayBytes = 0, offsetBytes = 0, scaleBytes = 0;
    std::size_t seriesBytes = 0, powerBytes = 0, summaryBytes = 0;

    // The rotation steps' two arrays are the device's to fill: the staging leaves them out.
    std::size_t stepsAt() const { return tBytes + 2 * arrayBytes; }
    std::size_t stepsEnd() const { return tBytes + 4 * arrayBytes; }
    std::size_t gap() const { return stepsEnd() - stepsAt(); }
    std::size_t offsetsAt() const { return stepsEnd(); }
    std::size_t yyAt() const { return offsetsAt() + offsetBytes; }
    std::size_t psdAt() const { return yyAt() + scaleBytes; }
    std::size_t matrixScaleAt() const { return psdAt() + scaleBytes; }
};

// A batch's objects planned, put in slots and buckets, and its memory laid out.
template <typename T> struct BatchPlan
{
    std::vector<PeriodogramPlan<T>> plans;
    // Slots: the objects, largest first, so that the longest blocks start first and the
    // blocks of a launch do the same work.
    std::vector<std::size_t> order;
    std::vector<Bucket> buckets;
    std::size_t samples = 0;
    BatchLayout layout;

    long long tiles(std::size_t slot) const
    {
        return ((long long)plans[order[slot]].t.size() + kTileSamples - 1) / kTileSamples;
    }
};

template <typename T>
void planBatch(CudaBacking& cuda, Timeline* timeline, const BatchRequest& request, bool matrix,
               BatchPlan<T>& batch)
{
    const PeriodogramOptions& options = *request.options;
    const std::size_t objects = request.valid.size();
    batch.plans.resize(objects);
    {
        const ScopedHostSpan span(timeline, cuda.hostLane(), "periodogram batch plans");
        std::atomic<std::size_t> next{0};
        cuda.hostPool().parallelFor(cuda.hostPool().size(), [&](std::size_t, std::size_t,
                                                                unsigned) {
            for (std::size_t k; (k = next.fetch_add(1)) < objects;)
                batch.plans[k] =
                    makePeriodogramPlan<T>(request.series[request.valid[k]], options,
                                           request.moments[request.valid[k]], PlanSteps::Device);
        });
    }
    batch.order.resize(objects);
    for (std::size_t k = 0; k < objects; ++k)
        batch.order[k] = k;
    std::stable_sort(batch.order.begin(), batch.order.end(), [&](std::size_t a, std::size_t b) {
        return batch.plans[a].t.size() > batch.plans[b].t.size();
    });
    for (std::size_t s = 0; s < objects; ++s) {
        if (batch.buckets.empty() ||
            batch.tiles(s) != batch.tiles(std::size_t(batch.buckets.back().first)))
            batch.buckets.push_back({(long long)s, 0});
        ++batch.buckets.back().count;
    }
    for (const auto& plan : batch.plans)
        batch.samples += plan.t.size();
    BatchLayout& l = batch.layout;
    l.tBytes = aligned(batch.samples * sizeof(double));
    l.arrayBytes = aligned(batch.samples * sizeof(T));
    l.offsetBytes = aligned((objects + 1) * sizeof(long long));
    l.scaleBytes = aligned(objects * sizeof(double));
    // The matrix products' per-object scale of w and wy (float32's; 1 in float64).
    const std::size_t matrixScaleBytes = matrix ? aligned(objects * sizeof(T)) : 0;
    l.seriesBytes = l.matrixScaleAt() + matrixScaleBytes;
    l.powerBytes = objects * std::size_t(options.grid.count) * sizeof(double);
    // Peaks alone: the powers stay on the device, searched there; only the summaries travel.
    l.summaryBytes = request.peaks ? objects * sizeof(BatchPeakSummary) : 0;
}

// The state's buffers grown to hold the batch, or why the GPU's memory cannot.
Status reserveBatch(CudaBacking& cuda, CudaBatchState& state, Timeline* timeline,
                    const BatchLayout& l)
{
    const cudaStream_t stream = cuda.stream();
    if (state.series.bytes() < l.seriesBytes || state.power.bytes() < l.powerBytes ||
        state.summaries.bytes() < l.summaryBytes) {
        std::size_t freeBytes = 0, totalBytes = 0;
        WS_CUDA_TRY(cudaMemGetInfo(&freeBytes, &totalBytes));
        freeBytes += state.series.bytes() + state.power.bytes() + state.summaries.bytes();
        const std::size_t needed = l.seriesBytes + l.powerBytes + l.summaryBytes;
        if (needed > freeBytes)
            return Status::failure("The periodogram batch needs " + std::to_string(needed >> 20) +
                                   " MiB of GPU memory; " + std::to_string(freeBytes >> 20) +
                                   " MiB are free on " + cuda.name() +
                                   ". Give it fewer objects at a time.");
    }
    const int lane = cuda.hostLane();
    if (Status s = fit(state.series, l.seriesBytes, stream, timeline, lane); !s)
        return s;
    if (Status s = fit(state.power, l.powerBytes, stream, timeline, lane); !s)
        return s;
    if (state.stagingBytes < l.seriesBytes - l.gap()) {
        state.stagingBytes = withSpare(l.seriesBytes - l.gap());
        state.staging.reset(new unsigned char[state.stagingBytes]);
    }
    if (l.summaryBytes > 0) {
        if (Status s = fit(state.summaries, l.summaryBytes, stream, timeline, lane); !s)
            return s;
        return fit(state.hostSummaries, l.summaryBytes, state.copyStream, timeline, lane);
    }
    return fit(state.hostPower, l.powerBytes, state.copyStream, timeline, lane);
}

// The staging, section by section, in slot order; the previous call's upload has read it (a
// copy from pageable memory returns once the driver holds the data). Its sections are the
// device's, less the gap.
template <typename T>
void stageBatch(CudaBacking& cuda, CudaBatchState& state, Timeline* timeline,
                const BatchPlan<T>& batch, bool matrix)
{
    const BatchLayout& l = batch.layout;
    unsigned char* host = state.staging.get();
    auto* tH = reinterpret_cast<double*>(host);
    T* arraysH[2];
    for (int a = 0; a < 2; ++a)
        arraysH[a] = reinterpret_cast<T*>(host + l.tBytes + std::size_t(a) * l.arrayBytes);
    auto* offsetsH = reinterpret_cast<long long*>(host + l.offsetsAt() - l.gap());
    auto* yyH = reinterpret_cast<double*>(host + l.yyAt() - l.gap());
    auto* psdH = reinterpret_cast<double*>(host + l.psdAt() - l.gap());
    auto* matrixScaleH = reinterpret_cast<T*>(host + l.matrixScaleAt() - l.gap());
    const ScopedHostSpan span(timeline, cuda.hostLane(), "periodogram batch staging");
    long long at = 0;
    const std::size_t objects = batch.order.size();
    for (std::size_t s = 0; s < objects; ++s) {
        const PeriodogramPlan<T>& p = batch.plans[batch.order[s]];
        const std::size_t n = p.t.size();
        offsetsH[s] = at;
        std::memcpy(tH + at, p.tDouble.data(), n * sizeof(double));
        std::memcpy(arraysH[0] + at, p.w.data(), n * sizeof(T));
        std::memcpy(arraysH[1] + at, p.wy.data(), n * sizeof(T));
        yyH[s] = p.yy;
        psdH[s] = p.psdScale;
        if (matrix)
            matrixScaleH[s] = matrixScale(p);
        at += (long long)n;
    }
    offsetsH[objects] = at;
}

// The staging to the device, around the steps' gap, and the rotation steps computed there.
template <typename T>
Status uploadBatch(CudaBacking& cuda, CudaBatchState& state, const BatchPlan<T>& batch,
                   const PeriodogramOptions& options)
{
    const BatchLayout& l = batch.layout;
    const cudaStream_t stream = cuda.stream();
    unsigned char* host = state.staging.get();
    unsigned char* device = state.series.as<unsigned char>();
    if (Status s =
            cuda.recorded(stream, cuda.streamLane(), SpanKind::CopyHostToDevice, "batch series in",
                          l.seriesBytes - l.gap(),
                          [&] {
                              cudaError_t e = cudaMemcpyAsync(device, host, l.stepsAt(),
                                                              cudaMemcpyHostToDevice, stream);
                              if (e == cudaSuccess)
                                  e = cudaMemcpyAsync(device + l.stepsEnd(), host + l.stepsAt(),
                                                      l.seriesBytes - l.stepsEnd(),
                                                      cudaMemcpyHostToDevice, stream);
                              return cudaStatus(e, "Copying the batch's series to the GPU");
                          });
        !s)
        return s;
    auto* stepCos = reinterpret_cast<T*>(device + l.stepsAt());
    auto* stepSin = reinterpret_cast<T*>(device + l.stepsAt() + l.arrayBytes);
    return cuda.recorded(stream, cuda.streamLane(), SpanKind::Kernel, "rotation steps", 0, [&] {
        return cudaStatus(launchPeriodogramSteps(reinterpret_cast<const double*>(device),
                                                 (long long)batch.samples, options.grid.df, stepCos,
                                                 stepSin, stream),
                          "Launching the rotation steps");
    });
}

// The kernels' arguments over the uploaded sections.
template <typename T>
PeriodogramBatchArgs<T> batchArgs(CudaBatchState& state, const BatchLayout& l,
                                  const PeriodogramOptions& options)
{
    unsigned char* device = state.series.as<unsigned char>();
    PeriodogramBatchArgs<T> args{};
    args.t = reinterpret_cast<const double*>(device);
    args.w = reinterpret_cast<const T*>(device + l.tBytes);
    args.wy = reinterpret_cast<const T*>(device + l.tBytes + l.arrayBytes);
    args.stepCos = reinterpret_cast<const T*>(device + l.stepsAt());
    args.stepSin = reinterpret_cast<const T*>(device + l.stepsAt() + l.arrayBytes);
    args.offsets = reinterpret_cast<const long long*>(device + l.offsetsAt());
    args.yy = reinterpret_cast<const double*>(device + l.yyAt());
    args.psdScale = reinterpret_cast<const double*>(device + l.psdAt());
    args.fmin = options.grid.fmin;
    args.df = options.grid.df;
    args.count = options.grid.count;
    args.logGrid = options.grid.logarithmic;
    args.normalization = int(options.normalization);
    args.fitMean = options.fitMean;
    return args;
}

// One bucket's kernels (the periodograms, then their peaks when only peaks are asked for) on
// the context's stream.
template <typename T>
Status launchBucket(CudaBacking& cuda, CudaBatchState& state, const BatchPlan<T>& batch,
                    const BatchRequest& request, const PeriodogramBatchArgs<T>& args,
                    const Bucket& bucket, bool matrix)
{
    const PeriodogramOptions& options = *request.options;
    const cudaStream_t stream = cuda.stream();
    double* devicePower = state.power.as<double>();
    {
        const SpanScope span(
            cuda.recorder(), stream, cuda.streamLane(), SpanKind::Kernel,
            matrix ? "periodogram batch (tensor cores)" : "periodogram batch", 0,
            std::to_string(bucket.count) + " objects of up to " +
                std::to_string(batch.tiles(std::size_t(bucket.first)) * kTileSamples) +
                " samples x " + std::to_string(options.grid.count) + " frequencies");
        const auto* matrixScales = reinterpret_cast<const T*>(state.series.as<unsigned char>() +
                                                              batch.layout.matrixScaleAt());
        const cudaError_t launched =
            matrix ? launchPeriodogramMatrixBatch(args, matrixScales, bucket.first, bucket.count,
                                                  devicePower, stream)
                   : launchPeriodogramBatch(args, bucket.first, bucket.count,
                                            int(options.launch.blockThreads), devicePower, stream);
        if (Status s = cudaStatus(launched, "Launching the periodogram batch kernel"); !s)
            return s;
    }
    if (!request.peaks)
        return Status::success();
    const SpanScope span(
        cuda.recorder(), stream, cuda.streamLane(), SpanKind::Kernel, "periodogram batch peaks", 0,
        std::to_string(bucket.count) + " objects x " + std::to_string(request.maxPeaks) + " peaks");
    return cudaStatus(launchBatchPeaks(devicePower, options.grid.count, bucket.first, bucket.count,
                                       request.maxPeaks, state.summaries.as<BatchPeakSummary>(),
                                       stream),
                      "Launching the periodogram batch's peak search");
}

// One bucket's powers (or peaks) copied out on the copy stream once computed, while the next
// bucket is computed.
Status copyBucketOut(CudaBacking& cuda, CudaBatchState& state, const BatchRequest& request,
                     const Bucket& bucket, int copyLane)
{
    const bool peaksOnly = request.peaks != nullptr;
    const std::size_t count = std::size_t(request.options->grid.count);
    const std::size_t from =
        peaksOnly ? std::size_t(bucket.first) : std::size_t(bucket.first) * count;
    const std::size_t bytes = peaksOnly ? std::size_t(bucket.count) * sizeof(BatchPeakSummary)
                                        : std::size_t(bucket.count) * count * sizeof(double);
    return cuda.recorded(
        state.copyStream, copyLane, SpanKind::CopyDeviceToHost,
        peaksOnly ? "batch peaks out" : "batch power out", bytes, [&] {
            return cudaStatus(
                peaksOnly ? cudaMemcpyAsync(state.hostSummaries.as<BatchPeakSummary>() + from,
                                            state.summaries.as<BatchPeakSummary>() + from, bytes,
                                            cudaMemcpyDeviceToHost, state.copyStream)
                          : cudaMemcpyAsync(state.hostPower.as<double>() + from,
                                            state.power.as<double>() + from, bytes,
                                            cudaMemcpyDeviceToHost, state.copyStream),
                "Copying the batch's results to the host");
        });
}

// A copied bucket's rows (or peaks) into the request, by object, checked.
template <typename T>
void deliverBucket(CudaBacking& cuda, CudaBatchState& state, const BatchPlan<T>& batch,
                   BatchRequest& request, const Bucket& bucket)
{
    const PeriodogramOptions& options = *request.options;
    const std::size_t count = std::size_t(options.grid.count);
    const double* landing = state.hostPower.as<double>();
    const BatchPeakSummary* summaries = state.hostSummaries.as<BatchPeakSummary>();
    cuda.hostPool().parallelFor(
        std::size_t(bucket.count), [&](std::size_t first, std::size_t last, unsigned) {
            for (std::size_t s = std::size_t(bucket.first) + first;
                 s < std::size_t(bucket.first) + last; ++s) {
                const std::size_t object = request.valid[batch.order[s]];
                if (request.peaks) {
                    const BatchPeakSummary& summary = summaries[s];
                    std::vector<Peak>& peaks = (*request.peaks)[object];
                    for (int j = 0; j < summary.peaks; ++j)
                        peaks.push_back({summary.index[j], options.grid.frequency(summary.index[j]),
                                         summary.power[j]});
                    checkBatchPeaks(request, object, summary.nonFinite);
                    continue;
                }
                std::memcpy(request.power.data() + object * count, landing + s * count,
                            count * sizeof(double));
                checkBatchRow(request, object);
            }
        });
}

template <typename T>
Status runBatch(CudaBacking& cuda, CudaBatchState& state, Timeline* timeline,
                const std::string& role, BatchRequest& request, bool matrix, double& kernelMs)
{
    const PeriodogramOptions& options = *request.options;
    const cudaStream_t stream = cuda.stream();
    BatchPlan<T> batch;
    planBatch(cuda, timeline, request, matrix, batch);
    if (Status s = reserveBatch(cuda, state, timeline, batch.layout); !s)
        return s;
    stageBatch(cuda, state, timeline, batch, matrix);
    if (Status s = uploadBatch(cuda, state, batch, options); !s)
        return s;
    const PeriodogramBatchArgs<T> args = batchArgs<T>(state, batch.layout, options);
    ScopedEvents computed, copied;
    if (Status s = computed.create(batch.buckets.size()); !s)
        return s;
    if (Status s = copied.create(batch.buckets.size()); !s)
        return s;
    WS_CUDA_TRY(cudaEventRecord(state.start, stream));
    // Poison: any power the kernels do not write stays NaN and fails its object.
    WS_CUDA_TRY(cudaMemsetAsync(state.power.as<double>(), 0xff, batch.layout.powerBytes, stream));
    const int copyLane = cuda.recorder().recording() && timeline
                             ? timeline->lane("CUDA stream: " + role + " out")
                             : -1;
    for (std::size_t b = 0; b < batch.buckets.size(); ++b) {
        if (Status s = launchBucket(cuda, state, batch, request, args, batch.buckets[b], matrix);
            !s)
            return s;
        WS_CUDA_TRY(cudaEventRecord(computed.events[b], stream));
        WS_CUDA_TRY(cudaStreamWaitEvent(state.copyStream, computed.events[b]));
        if (Status s = copyBucketOut(cuda, state, request, batch.buckets[b], copyLane); !s)
            return s;
        WS_CUDA_TRY(cudaEventRecord(copied.events[b], state.copyStream));
    }
    WS_CUDA_TRY(cudaEventRecord(state.stop, stream));
    for (std::size_t b = 0; b < batch.buckets.size(); ++b) {
        WS_CUDA_TRY(cudaEventSynchronize(copied.events[b]));
        const ScopedHostSpan span(timeline, cuda.hostLane(), "periodogram batch to the caller");
        deliverBucket(cuda, state, batch, request, batch.buckets[b]);
    }
    WS_CUDA_TRY(cudaEventSynchronize(state.stop));
    float ms = 0.0f;
    WS_CUDA_TRY(cudaEventElapsedTime(&ms, state.start, state.stop));
    kernelMs = ms;
    return Status::success();
}

} // namespace

Status findBatchPeaksCuda(Context& context, std::span<const double> power, long long count,
                          int maxPeaks, std::vector<std::vector<Peak>>& peaks,
                          std::vector<long long>& nonFinite)
{
    if (count < 1 || power.size() % std::size_t(count) != 0)
        return Status::failure("The powers must be whole rows of count values");
    CudaBacking& cuda = cudaBacking(context);
    CudaBatchState& state = context.state<CudaBatchState>();
    if (Status s = cuda.activate(); !s)
        return s;
    const cudaStream_t stream = cuda.stream();
    const std::size_t rows = power.size() / std::size_t(count);
    if (Status s = state.power.grow(power.size_bytes(), stream); !s)
        return s;
    if (Status s = state.summaries.grow(rows * sizeof(BatchPeakSummary), stream); !s)
        return s;
    std::vector<BatchPeakSummary> summaries(rows);
    WS_CUDA_TRY(cudaMemcpyAsync(state.power.get(), power.data(), power.size_bytes(),
                                cudaMemcpyHostToDevice, stream));
    WS_CUDA_TRY(launchBatchPeaks(state.power.as<double>(), count, 0, (long long)rows, maxPeaks,
                                 state.summaries.as<BatchPeakSummary>(), stream));
    WS_CUDA_TRY(cudaMemcpyAsync(summaries.data(), state.summaries.get(),
                                rows * sizeof(BatchPeakSummary), cudaMemcpyDeviceToHost, stream));
    WS_CUDA_TRY(cudaStreamSynchronize(stream));
    peaks.assign(rows, {});
    nonFinite.assign(rows, 0);
    for (std::size_t r = 0; r < rows; ++r) {
        for (int j = 0; j < summaries[r].peaks; ++j)
            peaks[r].push_back({summaries[r].index[j], 0.0, summaries[r].power[j]});
        nonFinite[r] = summaries[r].nonFinite;
    }
    return Status::success();
}

Status computePeriodogramBatchCuda(Context& context, BatchRequest& request, double& kernelMs)
{
    CudaBacking& cuda = cudaBacking(context);
    const PeriodogramOptions& options = *request.options;
    if (options.method == PeriodogramMethod::Matrix) {
        if (options.grid.logarithmic)
            return Status::failure("The matrix products need evenly spaced frequencies; a "
                                   "logarithmic grid runs on the direct kernel (Method: Auto "
                                   "or Direct)");
        if (!periodogramMatrixSupported(cuda.info().ccMajor))
            return Status::failure("The matrix products need tensor cores with FP64 and FP16 "
                                   "(compute capability 8.0 or newer); " +
                                   cuda.name() + " has none");
    }
    // Auto takes the matrix products where the single periodogram's Auto does (evenly spaced
    // frequencies, tensor cores that run the precision at full rate): on the H100 they were
    // 1.7x the direct batch for W1 and 1.6x for W2 in float64.
    const bool matrix = options.method == PeriodogramMethod::Matrix ||
                        (options.method == PeriodogramMethod::Auto && !options.grid.logarithmic &&
                         periodogramMatrixPreferred(cuda.info().ccMajor, cuda.info().ccMinor,
                                                    options.precision == Precision::Float64));
    CudaBatchState& state = context.state<CudaBatchState>();
    {
        const ScopedHostSpan span(context.timeline(), cuda.hostLane(), "periodogram batch setup");
        if (Status s = cuda.activate(); !s)
            return s;
        if (Status s = state.prepare(); !s)
            return s;
    }
    Status status;
    try {
        status = request.options->precision == Precision::Float64
                     ? runBatch<double>(cuda, state, context.timeline(), context.role(), request,
                                        matrix, kernelMs)
                     : runBatch<float>(cuda, state, context.timeline(), context.role(), request,
                                       matrix, kernelMs);
    } catch (const std::bad_alloc&) {
        status = Status::failure("Out of host memory for the periodogram batch");
    }
    if (!status) {
        // Nothing queued may still read or write the buffers the next call reuses; the
        // failure already says what went wrong.
        cudaStreamSynchronize(cuda.stream());
        cudaStreamSynchronize(state.copyStream);
    }
    return status;
}

} // namespace warpscope::gpu
