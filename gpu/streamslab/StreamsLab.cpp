#include "warpscope/gpu/StreamsLab.h"

#include "streamslab/StreamsLabShared.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <new>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace warpscope::gpu {

std::vector<std::string> validateStreamsLab(const StreamsLabConfig& config)
{
    std::vector<std::string> problems;
    if (config.arrays < 1 || config.arrays > kStreamsLabMaxArrays)
        problems.push_back("The number of arrays must be between 1 and " +
                           std::to_string(kStreamsLabMaxArrays) + "; it is " +
                           std::to_string(config.arrays));
    if (config.length < 1 || config.length > kStreamsLabMaxLength)
        problems.push_back("The array length must be between 1 and " +
                           std::to_string(kStreamsLabMaxLength) + " values; it is " +
                           std::to_string(config.length));
    return problems;
}

std::uint64_t streamsLabHostBytes(const StreamsLabConfig& config)
{
    return 2 * std::uint64_t(std::max(0, config.arrays)) *
           std::uint64_t(std::max(0LL, config.length)) * sizeof(float);
}

float streamsLabInput(std::uint32_t seed, int array, std::uint64_t index)
{
    // SplitMix64 finaliser over (seed, array, index).
    std::uint64_t z =
        index + (std::uint64_t(array) << 40) + (std::uint64_t(seed) << 52) + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return 0.5f + float(z >> 40) * (1.0f / 16777216.0f);
}

Status checkStreamsLabHostMemory(const StreamsLabConfig& config)
{
    const std::uint64_t needed = streamsLabHostBytes(config);
    const long pages = sysconf(_SC_AVPHYS_PAGES);
    const long pageSize = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || pageSize <= 0)
        return Status::success();
    const std::uint64_t available = std::uint64_t(pages) * std::uint64_t(pageSize);
    // Leave a quarter of what is free to the rest of the system.
    if (needed > available / 4 * 3)
        return Status::failure("The streams lab needs " + std::to_string(needed >> 20) +
                               " MiB of host memory for its inputs and outputs; " +
                               std::to_string(available >> 20) +
                               " MiB are free. Use fewer or shorter arrays.");
    return Status::success();
}

void fillStreamsLabInputs(ThreadPool& pool, const StreamsLabConfig& config,
                          const std::vector<float*>& inputs)
{
    const std::uint64_t length = std::uint64_t(config.length);
    const std::uint64_t total = length * inputs.size();
    pool.parallelFor(total, [&](std::size_t begin, std::size_t end, unsigned) {
        for (std::size_t i = begin; i < end; ++i) {
            const int array = int(i / length);
            const std::uint64_t index = i % length;
            inputs[array][index] = streamsLabInput(config.seed, array, index);
        }
    });
}

void poisonStreamsLabOutputs(ThreadPool& pool, std::size_t length,
                             const std::vector<float*>& outputs)
{
    pool.parallelFor(outputs.size(), [&](std::size_t begin, std::size_t end, unsigned) {
        for (std::size_t a = begin; a < end; ++a) {
            float* out = outputs[a];
            std::size_t i = 0;
#ifdef __SSE2__
            // Streaming stores, which leave no dirty lines in the host's caches for the GPU's
            // copies out to write through afterwards.
            const __m128 nan = _mm_set1_ps(std::nanf(""));
            for (; i < length && reinterpret_cast<std::uintptr_t>(out + i) % 16 != 0; ++i)
                out[i] = std::nanf("");
            for (; i + 4 <= length; i += 4)
                _mm_stream_ps(out + i, nan);
            _mm_sfence();
#endif
            std::fill(out + i, out + length, std::nanf(""));
        }
    });
}

void checkStreamsLabOutputs(ThreadPool& pool, const StreamsLabConfig& config,
                            const std::vector<float*>& inputs, const std::vector<float*>& outputs,
                            StreamsLabResult& result)
{
    const std::size_t arrays = inputs.size();
    const std::size_t length = std::size_t(config.length);
    const std::size_t chunks = std::max<std::size_t>(1, pool.size()) * 4;
    const std::size_t tasks = arrays * chunks;
    std::vector<double> inSums(tasks, 0.0), outSums(tasks, 0.0);
    pool.parallelFor(tasks, [&](std::size_t begin, std::size_t end, unsigned) {
        for (std::size_t t = begin; t < end; ++t) {
            const std::size_t a = t / chunks, c = t % chunks;
            double in = 0.0, out = 0.0;
            for (std::size_t i = length * c / chunks; i < length * (c + 1) / chunks; ++i) {
                in += inputs[a][i];
                out += outputs[a][i];
            }
            inSums[t] = in;
            outSums[t] = out;
        }
    });
    std::vector<double> exactSums(arrays, 0.0);
    result.sums.assign(arrays, 0.0);
    for (std::size_t t = 0; t < tasks; ++t) {
        exactSums[t / chunks] += inSums[t];
        result.sums[t / chunks] += outSums[t];
    }
    std::vector<double> worst(tasks, 0.0);
    pool.parallelFor(tasks, [&](std::size_t begin, std::size_t end, unsigned) {
        for (std::size_t t = begin; t < end; ++t) {
            const std::size_t a = t / chunks, c = t % chunks;
            double w = 0.0;
            for (std::size_t i = length * c / chunks; i < length * (c + 1) / chunks; ++i) {
                const double expected = double(inputs[a][i]) / exactSums[a];
                const double error = std::abs(double(outputs[a][i]) - expected) / expected;
                // A NaN output (say, an element never written) must fail the check.
                w = std::isnan(error) ? std::numeric_limits<double>::infinity()
                                      : std::max(w, error);
            }
            worst[t] = w;
        }
    });
    result.worstElementError = *std::max_element(worst.begin(), worst.end());
    result.worstSumError = 0.0;
    for (const double sum : result.sums)
        result.worstSumError = std::isnan(sum)
                                   ? std::numeric_limits<double>::infinity()
                                   : std::max(result.worstSumError, std::abs(sum - 1.0));
    result.checked = true;
}

} // namespace warpscope::gpu
