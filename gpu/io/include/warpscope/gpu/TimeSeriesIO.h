#pragma once

#include "warpscope/gpu/Status.h"
#include "warpscope/gpu/TimeSeries.h"

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace warpscope::gpu {

// How the time column is written. Calendar dates (IsoDate, YyyyMmDd) are converted to
// Modified Julian Dates, so that t is in days on an absolute scale that astropy and the
// literature share; every other format keeps the file's numbers and only names them.
enum class TimeFormat
{
    Auto,        // ColumnChoice only: detect from the header name and the values
    Number,      // plain numbers in a unit the file does not say
    IsoDate,     // 1958-03-29, 1958-03-29T12:00:00[.5][Z|+01:00], or with a blank for T; UTC
    YyyyMmDd,    // 19580329
    DecimalYear, // 1958.2371; stays in years
    Jd,          // Julian Date, about 2.4e6
    Mjd,         // Modified Julian Date, JD - 2400000.5
    Hjd,         // heliocentric JD (or an offset from it)
    Bjd,         // barycentric JD (or an offset from it, as BJD - 2450000)
    Btjd,        // TESS: BJD - 2457000
    Bkjd         // Kepler and K2: BJD - 2454833
};

enum class TimeUnit
{
    Unknown,
    Day,
    Year
};

// Which columns hold t, y and dy (0-based; dy -1: none). With byName, a header row's names
// choose instead when they are recognised (t/time/date/year/mjd/jd/bjd/btjd,
// y/flux/mag/value/rv, dy/err/error/sigma/*_err). FITS light curves are chosen by name from
// TIME, PDCSAP_FLUX (else SAP_FLUX, else FLUX) and its _ERR.
struct ColumnChoice
{
    int t = 0;
    int y = 1;
    int dy = 2; // used only when the file has a third column
    bool byName = true;
    TimeFormat timeFormat = TimeFormat::Auto; // another value overrides the detection
};

// What loading found, for the person who loaded the file.
struct LoadReport
{
    std::string delimiter;            // "comma", "tab", "semicolon" or "whitespace"; "" for FITS
    bool decimalComma = false;        // the numbers are written 2459000,5
    std::vector<std::string> columns; // the header's names, or "column 1", ...
    // Each column's unit where the file gives one (a FITS table's TUNITn, "" where it has
    // none): as many as columns, or none for text, whose header names carry their units.
    std::vector<std::string> units;
    int tColumn = 0, yColumn = 1, dyColumn = -1;
    std::size_t rows = 0;              // rows kept
    std::size_t nonNumericRows = 0;    // skipped: a chosen cell is not a number, or missing
    std::size_t outOfRangeRows = 0;    // skipped: a number beyond the range of a double
    std::size_t nonFiniteRows = 0;     // skipped: NaN or infinite t, y or dy
    std::size_t nonPositiveErrors = 0; // skipped: dy <= 0
    std::size_t invalidDates = 0;      // skipped: in a date column, 2021-02-30 or not a date
    std::size_t flaggedRows = 0;       // skipped: a FITS row whose QUALITY flags are set
    std::size_t duplicateTimes = 0;    // kept: rows whose time equals the previous row's
    bool sorted = false;               // the rows were out of time order and have been sorted
    TimeFormat timeFormat = TimeFormat::Number; // never Auto
    TimeUnit timeUnit = TimeUnit::Unknown;
    // t's unit for axis titles, for example "days (MJD from ISO 8601 dates)", "years" or
    // "days (BTJD = BJD - 2457000, TDB; TESS)"; "" when the unit is unknown.
    std::string timeLabel;
    // The first cell that made a row be skipped, for example
    // `line 7, column 2: "1.2.3" is not a number`; empty when none was.
    std::string firstSkipped;

    // One line for a status bar, for example "1000 rows; 3 non-numeric rows skipped (first:
    // line 7, column 2: "n/a" is not a number)".
    std::string summary() const;
};

// A short name for menus: "ISO 8601 date", "YYYYMMDD", "BTJD", ...
const char* timeFormatName(TimeFormat format);

// Called now and then with the fraction read; returning false cancels the load.
using LoadProgress = std::function<bool(double fraction)>;

// Parses comma-, tab-, semicolon- or whitespace-separated text: comment lines (#), an
// optional header row (a first line without numbers), quoted cells, and any number of
// columns. The time column may hold ISO 8601 dates or date-times, YYYYMMDD dates, decimal
// years (recognised only by a header name such as "year" or "decimal_date"), JD, MJD or
// BJD; see TimeFormat, and LoadReport's timeFormat, timeUnit and timeLabel for what was
// found. Dates that do not exist are skipped and counted. Numbers may use decimal commas
// (2459000,5) where the delimiter is not a comma, and Fortran's D exponents; parsing never depends
// on the process locale. Lines may end in LF, CRLF or CR, and a UTF-8 byte order mark is skipped.
// Rows that cannot be used are skipped and counted, however long; the rest are sorted by time.
// Fails, saying why, when nothing usable remains, the column choice does not exist, the text cannot
// be read unambiguously, or the progress callback cancels.
Status parseTimeSeries(std::string_view text, const ColumnChoice& columns, TimeSeries& series,
                       LoadReport& report, const LoadProgress& progress = {});

// Reads a FITS light curve as TESS and Kepler write them: the binary table named LIGHTCURVE,
// else the first extension, with TIME, a flux and its error, and QUALITY. Rows with QUALITY
// flags set are skipped and counted (flaggedRows), as are rows with NaN time, flux or error.
// The time system comes from the header (TELESCOP, TIMEREF, TIMESYS, BJDREFI, BJDREFF).
// report.columns lists the table's columns, also when the chosen ones are missing. Compressed
// files (.fits.gz) are read. parseFitsLightCurve reads the same from bytes in memory.
Status loadFitsLightCurve(const std::string& path, const ColumnChoice& columns, TimeSeries& series,
                          LoadReport& report, const LoadProgress& progress = {});
Status parseFitsLightCurve(std::string_view bytes, const ColumnChoice& columns, TimeSeries& series,
                           LoadReport& report, const LoadProgress& progress = {});

// Reads a file and parses it as above; folders, devices and binary files are refused. FITS
// files (.fits, .fit, .fts, .fits.gz, or any file that starts as FITS does, such as a
// FITS .lc) go to loadFitsLightCurve.
Status loadTimeSeries(const std::string& path, const ColumnChoice& columns, TimeSeries& series,
                      LoadReport& report, const LoadProgress& progress = {});

} // namespace warpscope::gpu
