#include "streamslab/StreamsLabShared.h"

namespace warpscope::gpu {

// Builds without nvcc open no CUDA context, so this is never reached.
Status runStreamsLabCuda(Context&, const StreamsLabConfig&, StreamsLabResult&)
{
    return Status::failure("This build has no CUDA backend");
}

Status measureStreamsLinkFloorCuda(Context&, const StreamsLabConfig&, int, StreamsLinkFloor&)
{
    return Status::failure("This build has no CUDA backend");
}

} // namespace warpscope::gpu
