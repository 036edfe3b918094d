#pragma once

#include "warpscope/gpu/Backend.h"

#include <memory>
#include <string>

namespace warpscope::ui {

// Creates, on first use, the backend a panel's worker thread computes with (without a GL
// context, so CUDA computes into its own memory), recording into timeline under role.
// Called on the worker; fails with the factory's reason.
inline gpu::Status ensureWorkerBackend(std::unique_ptr<gpu::Backend>& backend,
                                       gpu::BackendKind requested,
                                       const std::shared_ptr<gpu::Timeline>& timeline,
                                       const std::string& role)
{
    if (backend)
        return gpu::Status::success();
    gpu::BackendSelection selection = gpu::createBackend(requested);
    if (!selection.backend)
        return gpu::Status::failure(selection.reason);
    backend = std::move(selection.backend);
    if (timeline)
        backend->setTimeline(timeline, role);
    return gpu::Status::success();
}

} // namespace warpscope::ui
