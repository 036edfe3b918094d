#pragma once

// The warp reductions of every kernel: one shuffle tree, lane 0 ending with the warp's result.
// Each step folds the lane 16, 8, 4, 2 and then 1 above into a lane's value as
// combine(value, other), so a kernel's own operation (fmin, an integer max, a NaN-aware
// minimum, a peak order) keeps its argument order and its results bit for bit.

namespace warpscope::gpu {

inline constexpr unsigned kFullWarpMask = 0xffffffffu;

// The warp's value folded with combine, in lane 0 (the other lanes hold partial results).
// Every lane of the warp takes part.
template <typename T, typename Combine> __device__ T warpReduce(T value, Combine combine)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        value = combine(value, __shfl_down_sync(kFullWarpMask, value, offset));
    return value;
}

// The warp's sum, in lane 0.
template <typename T> __device__ T warpSum(T value)
{
    return warpReduce(value, [](T a, T b) { return a + b; });
}

// The warp's first (value, index) pair in the order before(value, index, otherValue,
// otherIndex) gives, in lane 0: an argmax (or argmin) with ties broken by the index.
template <typename T, typename Index, typename Before>
__device__ void warpBest(T& value, Index& index, Before before)
{
    for (int offset = 16; offset > 0; offset >>= 1) {
        const T otherValue = __shfl_down_sync(kFullWarpMask, value, offset);
        const Index otherIndex = __shfl_down_sync(kFullWarpMask, index, offset);
        if (before(otherValue, otherIndex, value, index)) {
            value = otherValue;
            index = otherIndex;
        }
    }
}

} // namespace warpscope::gpu
