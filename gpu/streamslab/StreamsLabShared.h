#pragma once

#include "runtime/ThreadPool.h"
#include "warpscope/gpu/Context.h"
#include "warpscope/gpu/Status.h"
#include "warpscope/gpu/StreamsLab.h"

#include <vector>

// The streams lab's implementations on each kind of device, reached through runStreamsLab
// once the configuration is validated, and the host-side parts they share.
namespace warpscope::gpu {

Status runStreamsLabCpu(Context& context, const StreamsLabConfig& config, StreamsLabResult& result);
Status runStreamsLabCuda(Context& context, const StreamsLabConfig& config,
                         StreamsLabResult& result);
Status measureStreamsLinkFloorCuda(Context& context, const StreamsLabConfig& config, int runs,
                                   StreamsLinkFloor& floor);

// Fails when the inputs and outputs would not fit in the host's free memory.
Status checkStreamsLabHostMemory(const StreamsLabConfig& config);

void fillStreamsLabInputs(ThreadPool& pool, const StreamsLabConfig& config,
                          const std::vector<float*>& inputs);

// Fills every output with NaN, so that an element the run never writes fails the check.
void poisonStreamsLabOutputs(ThreadPool& pool, std::size_t length,
                             const std::vector<float*>& outputs);

// Compares every output element with its input divided by the input's sum (in double), and
// sums every output; fills result's sums and errors.
void checkStreamsLabOutputs(ThreadPool& pool, const StreamsLabConfig& config,
                            const std::vector<float*>& inputs, const std::vector<float*>& outputs,
                            StreamsLabResult& result);

} // namespace warpscope::gpu
