#pragma once

// What the text and FITS readers share: they fill the same series and report.

#include "warpscope/gpu/TimeSeriesIO.h"

#include <string>

namespace warpscope::gpu::detail {

// "1 row", "3 rows".
std::string plural(std::size_t n, const char* one, const char* many);

// The skipped rows' counts and the first one's cause, "" when none was skipped.
std::string skippedRows(const LoadReport& report);

// The axis label of a format and unit, as in LoadReport::timeLabel.
std::string timeLabel(TimeFormat format, TimeUnit unit);

// Sorts the kept rows by time (stably, t, y and dy together) and counts equal times; sets
// report.rows, report.sorted and report.duplicateTimes.
void orderByTime(TimeSeries& series, LoadReport& report);

} // namespace warpscope::gpu::detail
