#pragma once

#include "warpscope/gpu/Status.h"
#include "warpscope/gpu/StreamsLab.h"

#include <cstdint>

namespace warpscope::scene {

// The streams lab's settings (gpu::StreamsLabConfig's fields, comparable).
struct LabScene
{
    int arrays = gpu::StreamsLabConfig{}.arrays;
    long long length = gpu::StreamsLabConfig{}.length;
    bool multiStream = gpu::StreamsLabConfig{}.multiStream;
    bool pinned = gpu::StreamsLabConfig{}.pinned;
    bool orderCopies = gpu::StreamsLabConfig{}.orderCopies;
    std::uint32_t seed = gpu::StreamsLabConfig{}.seed;

    gpu::StreamsLabConfig config() const;
    static LabScene from(const gpu::StreamsLabConfig& config);
    bool operator==(const LabScene&) const = default;
};

// gpu::validateStreamsLab's problems, in one message.
gpu::Status validate(const LabScene& lab);

} // namespace warpscope::scene
