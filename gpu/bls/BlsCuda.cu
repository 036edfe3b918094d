// Box least squares on a CUDA device: a block per trial period (grid-stride over periods),
// binning the folded points of each duration into shared memory (or into the block's own
// global scratch when a period needs more bins than fit), then each thread summing boxes
// from the bins and the block keeping the best.
#include "bls/BlsImpl.h"
#include "bls/BlsShared.h"
#include "runtime/CudaContext.h"
#include "runtime/WarpReduce.cuh"

#include <climits>
#include <string>

namespace warpscope::gpu {
namespace {

constexpr int kBlsThreads = 256;
constexpr int kBlsWarps = kBlsThreads / 32;
// The figures written per period, each an array of the periods' count.
constexpr int kBlsOutputs = 7;

struct BlsKernelArgs
{
    const double* t;
    const double* w;
    const double* wy;
    int n;
    const double* periods;
    long long count;
    const double* durations;
    int durationCount;
    int oversample;
    bool likelihood;
    double wTotal, wyTotal, tRef;
    double* scratch; // maxSums doubles per block, when the sums are not in shared memory
    long long maxSums;
    double* out; // kBlsOutputs arrays of count values
};

struct BlockBest
{
    math::BlsCandidate box;
    long long order = LLONG_MAX;
    double duration = 0.0;
    double transitTime = 0.0;
};

// Bins one duration's folded points into w and wy and the boxes' corrections into boxW and
// boxWy, which follow them (all zeroed here).
__device__ void binPoints(const BlsKernelArgs& a, const math::BlsBinning& b, double* w)
{
    double* wy = w + b.bins;
    double* boxW = wy + b.bins;
    double* boxWy = boxW + b.phases;
    for (long long j = threadIdx.x; j < math::blsSums(b.phases, b.oversample); j += blockDim.x)
        w[j] = 0.0;
    __syncthreads();
    for (int i = threadIdx.x; i < a.n; i += blockDim.x) {
        const double t = a.t[i], wi = a.w[i], wyi = a.wy[i];
        math::blsBinPoint(
            b, t, math::blsPhase(t, b.period),
            [&](long long bin) {
                atomicAdd(&w[bin], wi);
                atomicAdd(&wy[bin], wyi);
            },
            [&](long long k, double sign) {
                atomicAdd(&boxW[k], sign * wi);
                atomicAdd(&boxWy[k], sign * wyi);
            });
    }
    __syncthreads();
}

// The block's best box: the (objective, order) pair every thread agrees on, or LLONG_MAX.
__device__ long long blockWinner(const BlockBest& best)
{
    __shared__ double objectives[kBlsWarps];
    __shared__ long long orders[kBlsWarps];
    __shared__ long long winner;
    const auto before = [](double v, long long i, double ov, long long oi) {
        return math::blsBefore(v, i, ov, oi);
    };
    double objective = best.box.objective;
    long long order = best.order;
    warpBest(objective, order, before);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) {
        objectives[warp] = objective;
        orders[warp] = order;
    }
    __syncthreads();
    if (warp == 0) {
        objective = lane < kBlsWarps ? objectives[lane] : -INFINITY;
        order = lane < kBlsWarps ? orders[lane] : LLONG_MAX;
        warpBest(objective, order, before);
        if (lane == 0)
            winner = order;
    }
    __syncthreads();
    const long long w = winner;
    __syncthreads(); // the next period's reduction may overwrite it
    return w;
}

template <bool SharedBins> __global__ void __launch_bounds__(kBlsThreads) blsKernel(BlsKernelArgs a)
{
    extern __shared__ double sharedBins[];
    double* bins = SharedBins ? sharedBins : a.scratch + a.maxSums * blockIdx.x;
    for (long long p = blockIdx.x; p < a.count; p += gridDim.x) {
        const double period = a.periods[p];
        BlockBest best;
        for (int d = 0; d < a.durationCount; ++d) {
            const math::BlsBinning b = math::blsBinning(period, a.durations[d], a.oversample);
            const double* w = bins;
            const double* wy = bins + b.bins;
            const double* boxW = wy + b.bins;
            const double* boxWy = boxW + b.phases;
            binPoints(a, b, bins);
            const long long run = 2LL * a.oversample;
            for (long long k = threadIdx.x; k < b.phases; k += blockDim.x) {
                double wIn = boxW[k], wyIn = boxWy[k];
                for (long long j = 2 * k; j < 2 * k + run; ++j) {
                    wIn += w[j];
                    wyIn += wy[j];
                }
                const math::BlsCandidate c =
                    math::blsEvaluate(wIn, wyIn, a.wTotal, a.wyTotal, a.likelihood);
                const long long order = math::blsOrder(d, k);
                if (math::blsBefore(c.objective, order, best.box.objective, best.order))
                    best = {c, order, a.durations[d], math::blsTransitTime(b, k)};
            }
            __syncthreads(); // the bins are zeroed for the next duration
        }
        const long long winner = blockWinner(best);
        const bool none = winner == LLONG_MAX;
        if ((!none && best.order == winner) || (none && threadIdx.x == 0)) {
            const double figures[kBlsOutputs] = {none ? 0.0 : best.box.objective,
                                                 best.box.depth,
                                                 best.box.depthErr,
                                                 none ? a.durations[0] : best.duration,
                                                 (none ? 0.0 : best.transitTime) + a.tRef,
                                                 best.box.snr,
                                                 best.box.logLikelihood};
            for (int c = 0; c < kBlsOutputs; ++c)
                a.out[c * a.count + p] = figures[c];
        }
    }
}

// What a CUDA context keeps for box least squares between calls, grow-only.
class CudaBlsState : public SliceState
{
public:
    CudaBuffer input{"box least squares' series", false};
    CudaBuffer output{"box least squares' results", false};
    CudaBuffer scratch{"box least squares' bins", false};
    CudaEvent start, stop;
};

Status upload(CudaBacking& cuda, CudaBlsState& state, const BlsPlan& plan, BlsKernelArgs& a)
{
    const cudaStream_t stream = cuda.stream();
    const std::size_t n = plan.t.size(), periods = plan.periods.size();
    const std::size_t values = 3 * n + periods + plan.durations.size();
    if (Status s = state.input.grow(values * sizeof(double), stream); !s)
        return s;
    double* d = state.input.as<double>();
    a.t = d;
    a.w = d + n;
    a.wy = d + 2 * n;
    a.periods = d + 3 * n;
    a.durations = d + 3 * n + periods;
    return cuda.recorded(stream, cuda.streamLane(), SpanKind::CopyHostToDevice,
                         "box least squares series in", values * sizeof(double), [&] {
                             const std::pair<const double*, std::size_t> parts[] = {
                                 {plan.t.data(), n},
                                 {plan.w.data(), n},
                                 {plan.wy.data(), n},
                                 {plan.periods.data(), periods},
                                 {plan.durations.data(), plan.durations.size()}};
                             double* at = d;
                             for (const auto& [from, count] : parts) {
                                 WS_CUDA_TRY(cudaMemcpyAsync(at, from, count * sizeof(double),
                                                             cudaMemcpyHostToDevice, stream));
                                 at += count;
                             }
                             return Status::success();
                         });
}

} // namespace

Status computeBoxLeastSquaresCuda(Context& context, const BlsPlan& plan, BlsResult& result,
                                  double& ms)
{
    if (plan.cancel && plan.cancel->load())
        return Status::failure("Box least squares was cancelled");
    CudaBacking& cuda = cudaBacking(context);
    if (Status s = cuda.activate(); !s)
        return s;
    CudaBlsState& state = context.state<CudaBlsState>();
    for (CudaEvent* e : {&state.start, &state.stop})
        if (!*e)
            WS_CUDA_TRY(e->create());
    const cudaStream_t stream = cuda.stream();
    const DeviceInfo& info = cuda.info();

    BlsKernelArgs a{};
    if (Status s = upload(cuda, state, plan, a); !s)
        return s;
    a.n = int(plan.t.size());
    a.count = (long long)plan.periods.size();
    a.durationCount = int(plan.durations.size());
    a.oversample = plan.oversample;
    a.likelihood = plan.likelihood;
    a.wTotal = plan.wTotal;
    a.wyTotal = plan.wyTotal;
    a.tRef = plan.tRef;
    a.maxSums = plan.maxSums;

    const std::size_t outBytes = kBlsOutputs * std::size_t(a.count) * sizeof(double);
    if (Status s = state.output.grow(outBytes, stream); !s)
        return s;
    a.out = state.output.as<double>();
    // Poison: a period no block wrote stays NaN, which the entry point refuses.
    WS_CUDA_TRY(cudaMemsetAsync(a.out, 0xff, outBytes, stream));

    const std::size_t binBytes = std::size_t(plan.maxSums) * sizeof(double);
    // The sums go to shared memory where they fit beside the kernel's own (its reduction).
    cudaFuncAttributes attributes{};
    WS_CUDA_TRY(cudaFuncGetAttributes(&attributes, blsKernel<true>));
    const bool shared =
        (long long)(binBytes + attributes.sharedSizeBytes) <= info.sharedPerBlockOptin;
    long long blocks = std::min<long long>(a.count, std::max(1, info.smCount) * 8LL);
    if (shared) {
        WS_CUDA_TRY(cudaFuncSetAttribute(
            blsKernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(binBytes)));
    } else {
        // Each resident block needs its own sums; at most a quarter of the device's memory.
        const long long fit = (long long)(info.totalMemory / 4 / (long long)binBytes);
        blocks = std::max(1LL, std::min(blocks, fit));
        if (Status s = state.scratch.grow(std::size_t(blocks) * binBytes, stream); !s)
            return s;
        a.scratch = state.scratch.as<double>();
    }

    WS_CUDA_TRY(cudaEventRecord(state.start, stream));
    if (Status s = cuda.recorded(
            stream, cuda.streamLane(), SpanKind::Kernel, "box least squares", 0,
            [&] {
                if (shared)
                    blsKernel<true><<<unsigned(blocks), kBlsThreads, binBytes, stream>>>(a);
                else
                    blsKernel<false><<<unsigned(blocks), kBlsThreads, 0, stream>>>(a);
                return cudaStatus(cudaGetLastError(), "Launching box least squares");
            });
        !s)
        return s;
    WS_CUDA_TRY(cudaEventRecord(state.stop, stream));

    std::vector<double> host(kBlsOutputs * std::size_t(a.count));
    if (Status s =
            cuda.recorded(stream, cuda.streamLane(), SpanKind::CopyDeviceToHost,
                          "box least squares results out", outBytes,
                          [&] {
                              return cudaStatus(cudaMemcpyAsync(host.data(), a.out, outBytes,
                                                                cudaMemcpyDeviceToHost, stream),
                                                "Copying the results from the GPU");
                          });
        !s)
        return s;
    WS_CUDA_TRY(cudaStreamSynchronize(stream));
    float elapsed = 0.0f;
    WS_CUDA_TRY(cudaEventElapsedTime(&elapsed, state.start, state.stop));
    ms = elapsed;
    std::vector<double>* outputs[kBlsOutputs] = {
        &result.power,       &result.depth,    &result.depthErr,     &result.duration,
        &result.transitTime, &result.depthSnr, &result.logLikelihood};
    for (int c = 0; c < kBlsOutputs; ++c)
        std::copy(host.begin() + c * a.count, host.begin() + (c + 1) * a.count,
                  outputs[c]->begin());
    return Status::success();
}

} // namespace warpscope::gpu
