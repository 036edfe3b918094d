#pragma once

namespace warpscope::gpu {

// The floating-point type a computation runs in.
enum class Precision
{
    Float32,
    Float64
};

} // namespace warpscope::gpu
