// The streams lab's entry point: the configuration is validated here, once, then run by the
// implementation for the context's device.
#include "streamslab/StreamsLabShared.h"

namespace warpscope::gpu {

Status runStreamsLab(Context& context, const StreamsLabConfig& config, StreamsLabResult& result)
{
    if (const auto problems = validateStreamsLab(config); !problems.empty())
        return Status::failure(problems.front());
    if (Status s = checkStreamsLabHostMemory(config); !s)
        return s;
    return context.isCuda() ? runStreamsLabCuda(context, config, result)
                            : runStreamsLabCpu(context, config, result);
}

} // namespace warpscope::gpu
