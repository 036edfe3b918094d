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

Status measureStreamsLinkFloor(Context& context, const StreamsLabConfig& config, int runs,
                               StreamsLinkFloor& floor)
{
    if (const auto problems = validateStreamsLab(config); !problems.empty())
        return Status::failure(problems.front());
    if (!config.pinned)
        return Status::failure("The link floor is measured from pinned memory");
    if (runs < 1)
        return Status::failure("The link floor needs at least one run");
    if (!context.isCuda())
        return Status::failure("The CPU has no link to measure: the floor needs a GPU");
    if (Status s = checkStreamsLabHostMemory(config); !s)
        return s;
    return measureStreamsLinkFloorCuda(context, config, runs, floor);
}

} // namespace warpscope::gpu
