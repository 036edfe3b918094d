#pragma once

#include "warpscope/gpu/BufferView.h"
#include "warpscope/gpu/Context.h"
#include "warpscope/gpu/DistanceParams.h"
#include "warpscope/gpu/Status.h"

#include <optional>
#include <span>

// The distance field: for every node of a latitude/longitude mesh, the great-circle
// distance to the nearest reference point (haversine), with the field's minimum and maximum
// in the two stats slots after the nodes (FieldLayout). Computed in params.precision.
namespace warpscope::gpu {

struct FieldStats
{
    double min = 0.0; // of the finite nodes (0 when there are none)
    double max = 0.0;
    long long nonFinite = 0; // nodes that are NaN or infinite (a user's kernel can write them)
};

// What a field's computation reports once the device has finished it.
struct FieldResult
{
    double kernelMs = 0.0; // the kernel alone (CUDA events; the CPU's steady clock)
    FieldStats stats;
};

// Checks that a field with these parameters fits the device's memory, beside its display
// buffer of float32 values. staged: the results also pass through a device buffer of their
// own (the display is on another device, or the results go to the host).
Status checkDistanceCapacity(Context& context, const DistanceParams& params, bool staged);

// Computes the field into host memory laid out as layoutFor(params), stats included, and
// waits for it.
Status computeDistance(Context& context, const DistanceParams& params, std::span<float> out);
Status computeDistance(Context& context, const DistanceParams& params, std::span<double> out);

// Queues the field, as float32, into out (host memory, or the context's device memory such
// as a mapped OpenGL buffer), stats slots included, and returns without waiting on a GPU.
// fieldResult() has its figures once the device has finished.
Status launchDistance(Context& context, const DistanceParams& params, BufferView<float> out);

// The figures of the last field computed on context (distance or teaching kernel), without
// blocking: std::nullopt while the device has not finished it (an event, checked), or
// before the first. The first call after a launch into a mapped GL buffer queues the small
// copy of the figures, so make it after the buffer is handed back (GlWriteScope::commit).
std::optional<FieldResult> fieldResult(Context& context);

// Median time of the distance kernel over repeated launches into the context's own memory,
// after one warm-up launch (CUDA events; the CPU's steady clock). For benchmarks.
Status timeDistanceKernel(Context& context, const DistanceParams& params, int repetitions,
                          double& medianMs);

} // namespace warpscope::gpu
