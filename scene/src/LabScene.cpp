#include "warpscope/scene/LabScene.h"

namespace warpscope::scene {

gpu::StreamsLabConfig LabScene::config() const
{
    gpu::StreamsLabConfig c;
    c.arrays = arrays;
    c.length = length;
    c.multiStream = multiStream;
    c.pinned = pinned;
    c.orderCopies = orderCopies;
    c.seed = seed;
    return c;
}

LabScene LabScene::from(const gpu::StreamsLabConfig& c)
{
    return {c.arrays, c.length, c.multiStream, c.pinned, c.orderCopies, c.seed};
}

gpu::Status validate(const LabScene& lab)
{
    std::string message;
    for (const std::string& problem : gpu::validateStreamsLab(lab.config()))
        message += (message.empty() ? "" : "; ") + problem;
    return message.empty() ? gpu::Status::success() : gpu::Status::failure(message);
}

} // namespace warpscope::scene
