#include "runtime/CpuContext.h"
#include "streamslab/StreamsLabShared.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <new>

namespace warpscope::gpu {
namespace {

// The lab's arrays, kept while the configuration stays the same.
struct CpuLabState : SliceState
{
    StreamsLabConfig config;
    std::vector<std::vector<float>> inputs, outputs;
};

// The same steps as on the GPU, as nested spans: partial sums over blocks of the array, the
// final sum of the partial sums, then the division.
void normaliseArray(Timeline* timeline, int lane, const float* in, float* out, std::size_t length)
{
    constexpr std::size_t kBlocks = 64;
    std::vector<double> partial(kBlocks, 0.0);
    {
        const ScopedHostSpan span(timeline, lane, "partial sums", SpanKind::Kernel);
        for (std::size_t b = 0; b < kBlocks; ++b)
            for (std::size_t i = length * b / kBlocks; i < length * (b + 1) / kBlocks; ++i)
                partial[b] += in[i];
    }
    double sum = 0.0;
    {
        const ScopedHostSpan span(timeline, lane, "final sum", SpanKind::Kernel);
        for (const double p : partial)
            sum += p;
    }
    const ScopedHostSpan span(timeline, lane, "divide", SpanKind::Kernel);
    const float divisor = float(sum);
    for (std::size_t i = 0; i < length; ++i)
        out[i] = in[i] / divisor;
}

} // namespace

Status runStreamsLabCpu(Context& context, const StreamsLabConfig& config, StreamsLabResult& result)
{
    CpuBacking& cpu = cpuBacking(context);
    ThreadPool& pool = cpu.hostPool();
    Timeline* timeline = context.timeline();
    CpuLabState& state = context.state<CpuLabState>();
    const auto arrays = std::size_t(config.arrays);
    const auto length = std::size_t(config.length);
    const bool sameInputs = state.inputs.size() == arrays && !state.inputs.empty() &&
                            state.inputs.front().size() == length &&
                            state.config.seed == config.seed;
    std::vector<float*> inputs, outputs;
    try {
        if (!sameInputs) {
            state.inputs.assign(arrays, std::vector<float>(length));
            state.outputs.assign(arrays, std::vector<float>(length));
        }
    } catch (const std::bad_alloc&) {
        state.inputs.clear();
        state.outputs.clear();
        return Status::failure("Out of host memory for the streams lab's arrays");
    }
    for (std::size_t a = 0; a < arrays; ++a) {
        inputs.push_back(state.inputs[a].data());
        outputs.push_back(state.outputs[a].data());
        std::fill(state.outputs[a].begin(), state.outputs[a].end(), std::nanf(""));
    }
    if (!sameInputs)
        fillStreamsLabInputs(pool, config, inputs);
    state.config = config;

    // Host memory has no copies and no pinning; streams map to threads: one thread takes
    // every array in turn, or the arrays are spread over all threads.
    result = StreamsLabResult{};
    result.streams = config.multiStream ? int(std::min<std::size_t>(arrays, pool.size())) : 1;
    const auto start = std::chrono::steady_clock::now();
    auto normaliseRange = [&](std::size_t begin, std::size_t end, unsigned worker) {
        for (std::size_t a = begin; a < end; ++a) {
            const int lane = cpu.workerLane(worker);
            const ScopedHostSpan span(timeline, lane, "normalise array " + std::to_string(a));
            normaliseArray(timeline, lane, inputs[a], outputs[a], length);
        }
    };
    if (config.multiStream)
        pool.parallelFor(arrays, normaliseRange);
    else
        normaliseRange(0, arrays, 0);
    const auto stop = std::chrono::steady_clock::now();
    result.totalMs = std::chrono::duration<double, std::milli>(stop - start).count();
    if (timeline) {
        result.jobStartUs = timeline->toUs(start);
        result.jobEndUs = timeline->toUs(stop);
    }
    checkStreamsLabOutputs(pool, config, inputs, outputs, result);
    return Status::success();
}

} // namespace warpscope::gpu
