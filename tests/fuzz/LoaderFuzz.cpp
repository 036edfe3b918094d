// libFuzzer target for the time-series loader: any bytes either fail with a message or give
// a series that the periodogram can take: equal lengths, finite values, sorted times,
// positive uncertainties, and a time format that was decided.
#include "warpscope/gpu/TimeSeriesIO.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace warpscope::gpu;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    ColumnChoice choice;
    // The first byte, when there is one, also varies the column choice.
    if (size > 0) {
        choice.t = data[0] % 3;
        choice.y = (data[0] / 3) % 3;
        choice.dy = (data[0] / 9) % 4 - 1;
        choice.byName = (data[0] & 0x80) == 0;
        // Files starting with a digit detect the time format; others override it.
        choice.timeFormat = (data[0] & 0x40) ? TimeFormat(data[0] % 11) : TimeFormat::Auto;
    }
    TimeSeries s;
    LoadReport r;
    if (!parseTimeSeries(text, choice, s, r).ok())
        return 0;
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
