#pragma once

#include "warpscope/gpu/Context.h"
#include "warpscope/gpu/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace warpscope::gpu {

// The classic streams lesson: normalise K host arrays of L float32 values so each sums to 1.
// Per array: copy in, partial sums, final sum, divide, copy out. With one stream every step
// waits for the one before; with K streams the copies of one array overlap the work and the
// copies of the others.
struct StreamsLabConfig
{
    int arrays = 10;               // K
    long long length = 10'000'000; // L
    bool multiStream = true;       // K streams, or 1
    bool pinned = true;            // page-locked host memory, or ordinary (pageable)
    // With K streams, queue the copies in on one stream, the kernels on a second and the
    // copies out on a third, each in array order, so that each direction's copies run back
    // to back (GPU only); otherwise each array's work goes on its own stream and the copy
    // engines interleave the arrays' copies.
    bool orderCopies = false;
    std::uint32_t seed = 1; // the input values
};

// Each normalised array must sum to 1 within this, and each element must equal its input
// divided by the input's exact sum within this relative error. The sums are accumulated in
// double, so what remains is float32 rounding of the sum and the quotient (a few 1e-8).
inline constexpr double kStreamsLabTolerance = 1e-5;

struct StreamsLabResult
{
    double totalMs = 0.0; // first copy in to last copy out: CUDA events, or the CPU's clock
    int streams = 0;
    std::vector<double> sums;       // per array, the sum of the output, in double
    double worstSumError = 0.0;     // max |sum - 1|
    double worstElementError = 0.0; // max relative error of an element
    bool checked = false;           // the outputs were compared with the inputs
    // When the job ran, on the timeline's clock (microseconds); both 0 without a timeline.
    double jobStartUs = 0.0, jobEndUs = 0.0;

    bool passed() const
    {
        return checked && worstSumError <= kStreamsLabTolerance &&
               worstElementError <= kStreamsLabTolerance;
    }
};

inline constexpr int kStreamsLabMaxArrays = 64;
inline constexpr long long kStreamsLabMaxLength = 1LL << 32;

// Runs the lab on context's device and checks its outputs; blocks until done. The spans of
// the run go to the context's timeline. Fails, with nothing run, when the configuration is
// invalid or the arrays do not fit in host or device memory. The arrays are kept in the
// context for the next run with the same sizes.
Status runStreamsLab(Context& context, const StreamsLabConfig& config, StreamsLabResult& result);

// What the link between host and GPU allows the lab's copies, with no kernels at all, timed
// with CUDA events from the same pinned arrays:
// - inMs: every array in, back to back, the link carrying one direction;
// - duplexMs: every array in while all but the last go out at the same time on another
//   stream, then the last out. No schedule of the lab can move its data faster than this,
//   since each array must arrive whole before it can leave and the last one leaves alone.
struct StreamsLinkFloor
{
    double inMs = 0.0, duplexMs = 0.0;
};

// Measures the link floor for a pinned configuration on a GPU context (medians of runs);
// fails on the CPU, which has no link, and for an invalid configuration.
Status measureStreamsLinkFloor(Context& context, const StreamsLabConfig& config, int runs,
                               StreamsLinkFloor& floor);

// Problems with the configuration itself, one message per problem (empty when valid).
// Whether it fits a machine's memory is checked by the backend that runs it.
std::vector<std::string> validateStreamsLab(const StreamsLabConfig& config);

// Bytes of host memory the lab needs: an input and an output array per array.
std::uint64_t streamsLabHostBytes(const StreamsLabConfig& config);

// The input value of element index of array, in [0.5, 1.5): a hash, so any thread can make
// any part of the input and runs are repeatable.
float streamsLabInput(std::uint32_t seed, int array, std::uint64_t index);

} // namespace warpscope::gpu
