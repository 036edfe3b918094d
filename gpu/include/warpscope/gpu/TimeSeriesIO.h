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
    bool decimalComma = false;        // the numbers are written 2459000,5
    std::vector<std::string> columns; // the header's names, or "column 1", ...
    int tColumn = 0, yColumn = 1, dyColumn = -1;
    std::size_t rows = 0;              // rows kept
    std::size_t nonNumericRows = 0;    // skipped: a chosen cell is not a number, or missing
    std::size_t outOfRangeRows = 0;    // skipped: a number beyond the range of a double
    std::size_t nonFiniteRows = 0;     // skipped: NaN or infinite t, y or dy
    std::size_t nonPositiveErrors = 0; // skipped: dy <= 0
    std::size_t duplicateTimes = 0;    // kept: rows whose time equals the previous row's
    bool sorted = false;               // the rows were out of time order and have been sorted
    // The first cell that made a row be skipped, for example
    // `line 7, column 2: "1.2.3" is not a number`; empty when none was.
    std::string firstSkipped;

    // One line for a status bar, for example "1000 rows; 3 non-numeric rows skipped (first:
    // line 7, column 2: "n/a" is not a number)".
    std::string summary() const;
};

// Called now and then with the fraction read; returning false cancels the load.
using LoadProgress = std::function<bool(double fraction)>;

// Parses comma-, tab-, semicolon- or whitespace-separated text: comment lines (#), an
// optional header row (a first line without numbers), quoted cells, and any number of
// columns. Numbers may use decimal commas (2459000,5) where the delimiter is not a comma,
// and Fortran's D exponents; parsing never depends on the process locale. Lines may end in
// LF, CRLF or CR, and a UTF-8 byte order mark is skipped. Rows that cannot be used are
// skipped and counted, however long; the rest are sorted by time. Fails, saying why, when
// nothing usable remains, the column choice does not exist, the text cannot be read
// unambiguously, or the progress callback cancels.
Status parseTimeSeries(std::string_view text, const ColumnChoice& columns, TimeSeries& series,
                       LoadReport& report, const LoadProgress& progress = {});

// Reads a file and parses it as above; folders, devices and binary files are refused.
Status loadTimeSeries(const std::string& path, const ColumnChoice& columns, TimeSeries& series,
                      LoadReport& report, const LoadProgress& progress = {});

} // namespace warpscope::gpu
