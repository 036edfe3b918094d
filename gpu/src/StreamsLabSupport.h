#pragma once

#include "cpu/ThreadPool.h"
#include "warpscope/gpu/Status.h"
#include "warpscope/gpu/StreamsLab.h"

#include <vector>

// Host-side parts of the streams lab that both backends share.
namespace warpscope::gpu {

// Fails when the inputs and outputs would not fit in the host's free memory.
Status checkStreamsLabHostMemory(const StreamsLabConfig& config);

void fillStreamsLabInputs(ThreadPool& pool, const StreamsLabConfig& config,
                          const std::vector<float*>& inputs);

// Compares every output element with its input divided by the input's sum (in double), and
// sums every output; fills result's sums and errors.
void checkStreamsLabOutputs(ThreadPool& pool, const StreamsLabConfig& config,
                            const std::vector<float*>& inputs, const std::vector<float*>& outputs,
                            StreamsLabResult& result);

} // namespace warpscope::gpu
