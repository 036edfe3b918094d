// libFuzzer target for the FITS light-curve reader: any bytes either fail with a message or
// give a series that the periodogram can take, as the text loader's target checks.
#include "warpscope/gpu/TimeSeriesIO.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>

// cfitsio sizes some buffers from header values and checks that the allocation succeeded;
// a size beyond any memory must fail there as it does outside the fuzzer, not stop the run.
extern "C" const char* __asan_default_options()
{
    return "allocator_may_return_null=1";
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace warpscope::gpu;
    ColumnChoice choice;
    // Files start with "SIMPLE", so the last byte, when there is one, varies the choice.
    if (size > 0) {
        const std::uint8_t b = data[size - 1];
        choice.t = b % 3;
        choice.y = (b / 3) % 3;
        choice.dy = (b / 9) % 4 - 1;
        choice.byName = (b & 0x80) == 0;
    }
    TimeSeries s;
    LoadReport r;
    const Status status =
        parseFitsLightCurve({reinterpret_cast<const char*>(data), size}, choice, s, r);
    if (!status.ok()) {
        if (status.message().empty() || !s.t.empty())
            std::abort();
        return 0;
    }
    const bool consistent =
        !s.t.empty() && s.y.size() == s.t.size() && (s.dy.empty() || s.dy.size() == s.t.size()) &&
        r.rows == s.t.size() && std::is_sorted(s.t.begin(), s.t.end()) &&
        r.timeFormat != TimeFormat::Auto &&
        std::all_of(s.t.begin(), s.t.end(), [](double v) { return std::isfinite(v); }) &&
        std::all_of(s.y.begin(), s.y.end(), [](double v) { return std::isfinite(v); }) &&
        std::all_of(s.dy.begin(), s.dy.end(), [](double v) { return std::isfinite(v) && v > 0; });
    if (!consistent)
        std::abort();
    return 0;
}
