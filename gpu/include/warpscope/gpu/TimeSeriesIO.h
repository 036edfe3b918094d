#pragma once

#include "warpscope/gpu/Periodogram.h"
#include "warpscope/gpu/Status.h"

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace warpscope::gpu {

// Which columns hold t, y and dy (0-based; dy -1: none). With byName, a header row's names
// choose instead when they are recognised (t/time/mjd/jd/bjd, y/flux/mag/value/rv,
// dy/err/error/sigma/*_err).
struct ColumnChoice
{
    int t = 0;
    int y = 1;
    int dy = 2; // used only when the file has a third column
    bool byName = true;
};

// What loading found, for the person who loaded the file.
struct LoadReport
{
    std::string delimiter;            // "comma", "tab", "semicolon" or "whitespace"
    std::vector<std::string> columns; // the header's names, or "column 1", ...
    int tColumn = 0, yColumn = 1, dyColumn = -1;
    std::size_t rows = 0;              // rows kept
    std::size_t nonNumericRows = 0;    // skipped: a chosen cell is not a number, or missing
    std::size_t nonFiniteRows = 0;     // skipped: NaN or infinite t, y or dy
    std::size_t nonPositiveErrors = 0; // skipped: dy <= 0
    std::size_t duplicateTimes = 0;    // kept: rows whose time equals the previous row's
    bool sorted = false;               // the rows were out of time order and have been sorted

    // One line for a status bar, for example "1000 rows; 3 non-numeric rows skipped".
    std::string summary() const;
};

// Called now and then with the fraction read; returning false cancels the load.
using LoadProgress = std::function<bool(double fraction)>;

// Parses comma-, tab-, semicolon- or whitespace-separated text: comment lines (#), an
// optional header row, and any number of columns. Rows that cannot be used are skipped and
// counted; the rest are sorted by time. Fails only when nothing usable remains, the column
// choice does not exist, or the progress callback cancels.
Status parseTimeSeries(std::string_view text, const ColumnChoice& columns, TimeSeries& series,
                       LoadReport& report, const LoadProgress& progress = {});

// Reads a file and parses it as above.
Status loadTimeSeries(const std::string& path, const ColumnChoice& columns, TimeSeries& series,
                      LoadReport& report, const LoadProgress& progress = {});

} // namespace warpscope::gpu
