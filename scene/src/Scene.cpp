#include "warpscope/scene/Scene.h"

namespace warpscope::scene {

gpu::Status validate(const Scene& scene)
{
    const std::pair<const char*, gpu::Status> parts[] = {
        {"field", validate(scene.field)},
        {"periodogram", validate(scene.periodogram)},
        {"lab", validate(scene.lab)},
        {"kernel", validate(scene.kernel)}};
    for (const auto& [name, status] : parts)
        if (!status)
            return gpu::Status::failure(std::string(name) + ": " + status.message());
    return gpu::Status::success();
}

} // namespace warpscope::scene
