#include "runtime/CudaContext.h"
#include "streamslab/StreamsLabKernels.cuh"
#include "streamslab/StreamsLabShared.h"

#include <algorithm>
#include <cmath>
#include <new>
#include <vector>

namespace warpscope::gpu {
namespace {

// The lab's streams, device arrays and host arrays, kept between runs.
class CudaLabState : public SliceState
{
public:
    explicit CudaLabState(Context& context) : m_cuda(cudaBacking(context)) {}
    ~CudaLabState() override
    {
        cudaSetDevice(m_cuda.ordinal());
        for (const CudaStream& stream : streams)
            cudaStreamSynchronize(stream);
        releaseHost();
    }

    // Allocates and fills the host arrays, unless the last run's still fit.
    Status prepareHost(const StreamsLabConfig& config);
    void releaseHost()
    {
        cudaFreeHost(pinned);
        pinned = nullptr;
        pageable.clear();
        inputs.clear();
        outputs.clear();
    }

    CudaBacking& m_cuda;
    std::vector<CudaStream> streams;
    CudaBuffer device{"the streams lab's arrays", false};
    CudaBuffer sums{"the streams lab's sums", false};
    StreamsLabConfig config;
    std::vector<float*> inputs, outputs;
    float* pinned = nullptr;
    std::vector<std::vector<float>> pageable;
};

Status CudaLabState::prepareHost(const StreamsLabConfig& wanted)
{
    const auto arrays = std::size_t(wanted.arrays);
    const auto length = std::size_t(wanted.length);
    if (inputs.size() == arrays && config.length == wanted.length &&
        config.pinned == wanted.pinned && config.seed == wanted.seed)
        return Status::success();
    releaseHost();
    if (wanted.pinned) {
        const std::size_t bytes = 2 * arrays * length * sizeof(float);
        if (const cudaError_t e = cudaMallocHost(reinterpret_cast<void**>(&pinned), bytes);
            e != cudaSuccess) {
            cudaGetLastError();
            pinned = nullptr;
            return Status::failure("Could not pin " + std::to_string(bytes >> 20) +
                                   " MiB of host memory (" + cudaGetErrorString(e) +
                                   "). Use pageable memory, or fewer or shorter arrays.");
        }
        for (std::size_t a = 0; a < arrays; ++a) {
            inputs.push_back(pinned + a * length);
            outputs.push_back(pinned + (arrays + a) * length);
        }
    } else {
        try {
            pageable.assign(2 * arrays, std::vector<float>(length));
        } catch (const std::bad_alloc&) {
            releaseHost();
            return Status::failure("Out of host memory for the streams lab's arrays");
        }
        for (std::size_t a = 0; a < arrays; ++a) {
            inputs.push_back(pageable[a].data());
            outputs.push_back(pageable[arrays + a].data());
        }
    }
    fillStreamsLabInputs(m_cuda.hostPool(), wanted, inputs);
    config = wanted;
    return Status::success();
}

// Where the lab's arrays lie on the device, and its launch.
struct LabLayout
{
    std::size_t pitch = 0; // values from one array's start to the next
    int blocks = 0;        // of the partial sums and the divide
    std::size_t sumsPerArray = 0;
};

// Sizes the device and host arrays for config, unless the last run's still fit, and makes
// at least streamCount streams.
Status prepareLab(CudaBacking& cuda, CudaLabState& state, const StreamsLabConfig& config,
                  std::size_t streamCount, LabLayout& layout)
{
    const auto arrays = std::size_t(config.arrays);
    const auto length = std::size_t(config.length);
    // Arrays start 16 bytes apart at least, for the kernels' 16-byte loads.
    layout.pitch = (length + 3) / 4 * 4;
    // Four blocks per SM keep enough loads in flight; short arrays need fewer.
    layout.blocks = int(std::clamp<std::size_t>((length / 4 + kLabThreads - 1) / kLabThreads, 1,
                                                std::size_t(4 * cuda.info().smCount)));
    layout.sumsPerArray = std::size_t(layout.blocks) + 1; // partial sums, then the sum
    const std::size_t deviceBytes = arrays * layout.pitch * sizeof(float);
    const std::size_t sumsBytes = arrays * layout.sumsPerArray * sizeof(double);

    std::size_t freeBytes = 0, totalBytes = 0;
    WS_CUDA_TRY(cudaMemGetInfo(&freeBytes, &totalBytes));
    freeBytes += state.device.bytes() + state.sums.bytes();
    if (deviceBytes + sumsBytes > freeBytes)
        return Status::failure(
            "The streams lab needs " + std::to_string((deviceBytes + sumsBytes) >> 20) +
            " MiB of GPU memory; " + std::to_string(freeBytes >> 20) + " MiB are free on " +
            cuda.name() + ". Use fewer or shorter arrays.");
    if (Status s = state.device.grow(deviceBytes, cuda.stream()); !s)
        return s;
    if (Status s = state.sums.grow(sumsBytes, cuda.stream()); !s)
        return s;
    if (Status s = state.prepareHost(config); !s)
        return s;
    while (state.streams.size() < streamCount) {
        CudaStream stream;
        WS_CUDA_TRY(stream.create());
        state.streams.push_back(std::move(stream));
    }
    return Status::success();
}

} // namespace

Status runStreamsLabCuda(Context& context, const StreamsLabConfig& config, StreamsLabResult& result)
{
    CudaBacking& cuda = cudaBacking(context);
    if (Status s = cuda.activate(); !s)
        return s;
    CudaLabState& state = context.state<CudaLabState>();
    CudaSpanRecorder& recorder = cuda.recorder();
    Timeline* timeline = recorder.timeline();
    const auto arrays = std::size_t(config.arrays);
    const auto length = std::size_t(config.length);
    const std::size_t arrayBytes = length * sizeof(float);
    // Copies in order: one stream for the copies in, one for the kernels and one for the
    // copies out, so each direction's copies run back to back on their engine, each array
    // arriving whole, and leaving, as early as the link allows. Otherwise each array's work
    // goes on its own stream (or all on one).
    const bool engines = config.multiStream && config.orderCopies;
    const std::size_t streamCount = engines ? 1 : config.multiStream ? arrays : 1;
    const std::size_t totalStreams = streamCount + (engines ? 2 : 0);
    LabLayout layout;
    if (Status s = prepareLab(cuda, state, config, totalStreams, layout); !s)
        return s;
    const std::size_t pitch = layout.pitch;
    const int blocks = layout.blocks;
    const std::size_t sumsPerArray = layout.sumsPerArray;
    WS_CUDA_TRY(loadStreamsLabKernels());
    std::vector<int> lanes(totalStreams, -1);
    const int hostLane = timeline ? timeline->lane("Host: lab thread") : -1;
    if (recorder.recording())
        for (std::size_t k = 0; k < totalStreams; ++k) {
            static const char* const roles[] = {": lab kernels", ": lab copies in",
                                                ": lab copies out"};
            lanes[k] = timeline->lane("CUDA stream " + std::to_string(k + 1) +
                                      (engines ? roles[k] : ": lab"));
        }
    poisonStreamsLabOutputs(cuda.hostPool(), length, state.outputs);

    // Event 0 starts the job, 1 ends it, 2 .. 2 + totalStreams let stream 0 wait for the
    // others; with copies in order, the rest mark each array's arrival, then its results.
    ScopedEvents events;
    if (Status s = events.create(2 + totalStreams + (engines ? 2 * arrays : 0)); !s)
        return s;
    const CudaEvent* arrived = engines ? events.events.data() + 2 + totalStreams : nullptr;
    const CudaEvent* divided = engines ? arrived + arrays : nullptr;
    cudaStream_t first = state.streams[0];
    WS_CUDA_TRY(cudaEventRecord(events.events[0], first));
    for (std::size_t k = 1; k < totalStreams; ++k)
        WS_CUDA_TRY(cudaStreamWaitEvent(state.streams[k], events.events[0]));

    auto* device = state.device.as<float>();
    auto* sums = state.sums.as<double>();
    for (std::size_t a = 0; a < arrays; ++a) {
        cudaStream_t stream = state.streams[a % streamCount];
        const int lane = lanes[a % streamCount];
        float* data = device + a * pitch;
        double* partial = sums + a * sumsPerArray;
        const std::string tag = " " + std::to_string(a);
        // How long the host takes to queue an array's work: a copy from pageable memory, or
        // a full queue, holds the host here.
        const ScopedHostSpan queueing(timeline, hostLane, "queue array" + tag);
        cudaStream_t inStream = engines ? state.streams[streamCount] : stream;
        const int inLane = engines ? lanes[streamCount] : lane;
        if (Status s = cuda.recorded(
                inStream, inLane, SpanKind::CopyHostToDevice, "copy in" + tag, arrayBytes,
                [&] {
                    return cudaStatus(cudaMemcpyAsync(data, state.inputs[a], arrayBytes,
                                                      cudaMemcpyHostToDevice, inStream),
                                      "Copying an array to the GPU");
                });
            !s)
            return s;
        if (engines) {
            WS_CUDA_TRY(cudaEventRecord(arrived[a], inStream));
            WS_CUDA_TRY(cudaStreamWaitEvent(stream, arrived[a]));
        }
        const std::string launch =
            "grid " + std::to_string(blocks) + ", block " + std::to_string(kLabThreads);
        int token = recorder.begin(stream, lane, SpanKind::Kernel, "partial sums" + tag, 0, launch);
        Status launched = cudaStatus(launchPartialSums(data, length, partial, blocks, stream),
                                     "Launching the partial sums");
        recorder.end(token, stream);
        if (!launched)
            return launched;
        token = recorder.begin(stream, lane, SpanKind::Kernel, "final sum" + tag, 0,
                               "grid 1, block " + std::to_string(kLabThreads));
        launched = cudaStatus(launchFinalSum(partial, blocks, partial + blocks, stream),
                              "Launching the final sum");
        recorder.end(token, stream);
        if (!launched)
            return launched;
        token = recorder.begin(stream, lane, SpanKind::Kernel, "divide" + tag, 0, launch);
        launched = cudaStatus(launchDivide(data, length, partial + blocks, blocks, stream),
                              "Launching the division");
        recorder.end(token, stream);
        if (!launched)
            return launched;
        cudaStream_t outStream = engines ? state.streams[streamCount + 1] : stream;
        const int outLane = engines ? lanes[streamCount + 1] : lane;
        if (engines) {
            WS_CUDA_TRY(cudaEventRecord(divided[a], stream));
            WS_CUDA_TRY(cudaStreamWaitEvent(outStream, divided[a]));
        }
        if (Status s = cuda.recorded(
                outStream, outLane, SpanKind::CopyDeviceToHost, "copy out" + tag, arrayBytes,
                [&] {
                    return cudaStatus(cudaMemcpyAsync(state.outputs[a], data, arrayBytes,
                                                      cudaMemcpyDeviceToHost, outStream),
                                      "Copying an array back to the host");
                });
            !s)
            return s;
    }
    for (std::size_t k = 1; k < totalStreams; ++k) {
        WS_CUDA_TRY(cudaEventRecord(events.events[2 + k], state.streams[k]));
        WS_CUDA_TRY(cudaStreamWaitEvent(first, events.events[2 + k]));
    }
    WS_CUDA_TRY(cudaEventRecord(events.events[1], first));
    WS_CUDA_TRY(cudaEventSynchronize(events.events[1]));
    float ms = 0.0f;
    WS_CUDA_TRY(cudaEventElapsedTime(&ms, events.events[0], events.events[1]));

    result = StreamsLabResult{};
    result.totalMs = ms;
    result.streams = int(totalStreams);
    result.jobStartUs = recorder.hostUs(events.events[0]);
    result.jobEndUs = recorder.hostUs(events.events[1]);
    checkStreamsLabOutputs(cuda.hostPool(), config, state.inputs, state.outputs, result);
    return Status::success();
}

Status measureStreamsLinkFloorCuda(Context& context, const StreamsLabConfig& config, int runs,
                                   StreamsLinkFloor& floor)
{
    CudaBacking& cuda = cudaBacking(context);
    if (Status s = cuda.activate(); !s)
        return s;
    CudaLabState& state = context.state<CudaLabState>();
    LabLayout layout;
    if (Status s = prepareLab(cuda, state, config, 2, layout); !s)
        return s;
    const auto arrays = std::size_t(config.arrays);
    const std::size_t arrayBytes = std::size_t(config.length) * sizeof(float);
    const cudaStream_t in = state.streams[0], out = state.streams[1];
    auto* device = state.device.as<float>();
    // Events: 0 starts, 1 ends the copies in, 2 ends the copies out, 3 ends the job.
    ScopedEvents events;
    if (Status s = events.create(4); !s)
        return s;
    const CudaEvent* e = events.events.data();
    auto copyIn = [&](std::size_t a) {
        return cudaMemcpyAsync(device + a * layout.pitch, state.inputs[a], arrayBytes,
                               cudaMemcpyHostToDevice, in);
    };
    auto copyOut = [&](std::size_t a, cudaStream_t stream) {
        return cudaMemcpyAsync(state.outputs[a], device + a * layout.pitch, arrayBytes,
                               cudaMemcpyDeviceToHost, stream);
    };
    // The copies out read arrays that copies in are writing: their values do not matter here,
    // and the next lab run poisons the outputs before it checks them.
    std::vector<double> inOnly, duplex;
    for (int run = -1; run < runs; ++run) { // one warm-up
        float ms = 0.0f;
        WS_CUDA_TRY(cudaEventRecord(e[0], in));
        for (std::size_t a = 0; a < arrays; ++a)
            WS_CUDA_TRY(copyIn(a));
        WS_CUDA_TRY(cudaEventRecord(e[1], in));
        WS_CUDA_TRY(cudaEventSynchronize(e[1]));
        WS_CUDA_TRY(cudaEventElapsedTime(&ms, e[0], e[1]));
        if (run >= 0)
            inOnly.push_back(ms);

        WS_CUDA_TRY(cudaEventRecord(e[0], in));
        WS_CUDA_TRY(cudaStreamWaitEvent(out, e[0]));
        for (std::size_t a = 0; a < arrays; ++a)
            WS_CUDA_TRY(copyIn(a));
        for (std::size_t a = 0; a + 1 < arrays; ++a)
            WS_CUDA_TRY(copyOut(a, out));
        WS_CUDA_TRY(cudaEventRecord(e[2], out));
        WS_CUDA_TRY(copyOut(arrays - 1, in));
        WS_CUDA_TRY(cudaStreamWaitEvent(in, e[2]));
        WS_CUDA_TRY(cudaEventRecord(e[3], in));
        WS_CUDA_TRY(cudaEventSynchronize(e[3]));
        WS_CUDA_TRY(cudaEventElapsedTime(&ms, e[0], e[3]));
        if (run >= 0)
            duplex.push_back(ms);
    }
    auto median = [](std::vector<double>& v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    floor.inMs = median(inOnly);
    floor.duplexMs = median(duplex);
    return Status::success();
}

} // namespace warpscope::gpu
