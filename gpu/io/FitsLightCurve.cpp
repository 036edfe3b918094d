#include "io/FitsHeaders.h"
#include "io/TimeSeriesLoad.h"
#include "warpscope/gpu/TimeSeriesIO.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fitsio.h>
#include <limits>
#include <memory>
#include <optional>
#include <vector>
#include <zlib.h>

namespace warpscope::gpu {
namespace {

using detail::plural;

// Rows read from the table at a time: progress is reported and memory grows per chunk, so
// a header that promises more rows than the file holds fails at the first missing chunk
// instead of allocating for all of them.
constexpr long long kChunkRows = 1 << 16;
// FITS files are made of blocks of this many bytes.
constexpr std::size_t kFitsBlock = 2880;
// Larger files (after decompression) are refused rather than read into memory.
constexpr std::size_t kMaxFileBytes = std::size_t(4) << 30;
// TESS and Kepler's reference Julian dates for BTJD and BKJD.
constexpr double kTessBjdRef = 2457000.0, kKeplerBjdRef = 2454833.0;

struct FitsCloser
{
    void operator()(fitsfile* file) const
    {
        int status = 0;
        fits_close_file(file, &status);
    }
};
using FitsFile = std::unique_ptr<fitsfile, FitsCloser>;

// cfitsio's short description of a status, which also empties its message stack so that
// the next file's errors are its own.
std::string fitsError(int status)
{
    std::array<char, FLEN_STATUS> text{};
    fits_get_errstatus(status, text.data());
    fits_clear_errmsg();
    return text.data();
}

std::string upper(std::string s)
{
    for (char& c : s)
        if (c >= 'a' && c <= 'z')
            c = char(c - 'a' + 'A');
    return s;
}

std::string trimmed(const char* s)
{
    std::string_view v(s);
    while (!v.empty() && v.front() == ' ')
        v.remove_prefix(1);
    while (!v.empty() && v.back() == ' ')
        v.remove_suffix(1);
    return std::string(v);
}

// A keyword's string value, or none when the header lacks it or it is not a string.
std::optional<std::string> stringKey(fitsfile* file, const char* name)
{
    std::array<char, FLEN_VALUE> value{};
    int status = 0;
    if (fits_read_key(file, TSTRING, name, value.data(), nullptr, &status)) {
        fits_clear_errmsg();
        return std::nullopt;
    }
    return trimmed(value.data());
}

std::optional<double> numberKey(fitsfile* file, const char* name)
{
    double value = 0;
    int status = 0;
    if (fits_read_key(file, TDOUBLE, name, &value, nullptr, &status) || !std::isfinite(value)) {
        fits_clear_errmsg();
        return std::nullopt;
    }
    return value;
}

// Why a column cannot give one number a row, or "" when it can.
std::string columnProblem(fitsfile* file, int column, const std::string& name)
{
    int type = 0, status = 0;
    long repeat = 0, width = 0;
    if (fits_get_coltype(file, column, &type, &repeat, &width, &status))
        return "column " + name + " cannot be read (" + fitsError(status) + ")";
    if (type == TSTRING)
        return "column " + name + " holds text, not numbers";
    if (type < 0)
        return "column " + name + " holds arrays of varying length, not numbers";
    if (type == TLOGICAL || type == TBIT || type == TCOMPLEX || type == TDBLCOMPLEX)
        return "column " + name + " does not hold real numbers";
    if (repeat != 1)
        return "column " + name + " holds " + std::to_string(repeat) + " values a row; one is read";
    return {};
}

// The whole file, decompressed when gzip compressed it (zlib reads other files as they are).
Status readWholeFile(const std::string& path, std::string& bytes)
{
    gzFile in = gzopen(path.c_str(), "rb");
    if (!in)
        return Status::failure("Cannot open " + path + ": " + std::strerror(errno));
    std::vector<char> chunk(std::size_t(1) << 16);
    for (;;) {
        const int n = gzread(in, chunk.data(), unsigned(chunk.size()));
        if (n < 0) {
            int code = 0;
            const std::string why = gzerror(in, &code);
            gzclose(in);
            return Status::failure(path + " cannot be read (" + why + ")");
        }
        if (n == 0)
            break;
        if (bytes.size() + std::size_t(n) > kMaxFileBytes) {
            gzclose(in);
            return Status::failure(path + " holds more than 4 GiB");
        }
        bytes.append(chunk.data(), std::size_t(n));
    }
    gzclose(in);
    return Status::success();
}

// The time scale the header gives, with what gave it, for LoadReport::timeLabel.
void readTimeSystem(fitsfile* file, const std::string& timeUnit, LoadReport& report)
{
    std::optional<std::string> telescope = stringKey(file, "TELESCOP");
    const std::optional<std::string> timeRef = stringKey(file, "TIMEREF");
    const std::optional<std::string> timeSys = stringKey(file, "TIMESYS");
    const std::optional<double> refInt = numberKey(file, "BJDREFI");
    const std::optional<double> refFrac = numberKey(file, "BJDREFF");
    if (!telescope) {
        // TESS and Kepler name the telescope in the primary header too; either will do.
        int status = 0;
        if (fits_movabs_hdu(file, 1, nullptr, &status) == 0)
            telescope = stringKey(file, "TELESCOP");
        fits_clear_errmsg();
    }
    const std::string mission = upper(telescope.value_or(""));
    const bool barycentric = !timeRef || upper(*timeRef) == "SOLARSYSTEM";
    std::string detail = timeSys ? ", " + *timeSys : "";
    if (!mission.empty())
        detail += "; " + *telescope;
    report.timeUnit = TimeUnit::Day;
    if ((refInt || refFrac) && barycentric) {
        const double ref = refInt.value_or(0.0) + refFrac.value_or(0.0);
        if (ref == kTessBjdRef) {
            report.timeFormat = TimeFormat::Btjd;
            report.timeLabel = "days (BTJD = BJD - 2457000" + detail + ")";
        } else if (ref == kKeplerBjdRef) {
            report.timeFormat = TimeFormat::Bkjd;
            report.timeLabel = "days (BKJD = BJD - 2454833" + detail + ")";
        } else {
            report.timeFormat = TimeFormat::Bjd;
            char number[32];
            std::snprintf(number, sizeof number, "%.6g", ref);
            report.timeLabel =
                (ref == 0.0 ? std::string("days (BJD") : "days (BJD - " + std::string(number)) +
                detail + ")";
        }
    } else if (mission == "TESS") {
        report.timeFormat = TimeFormat::Btjd;
        report.timeLabel = "days (BTJD = BJD - 2457000; assumed for TESS, the header has no "
                           "barycentric BJDREFI)";
    } else if (mission == "KEPLER" || mission == "K2") {
        report.timeFormat = TimeFormat::Bkjd;
        report.timeLabel = "days (BKJD = BJD - 2454833; assumed for " + *telescope +
                           ", the header has no barycentric BJDREFI)";
    } else {
        const std::string unit = upper(timeUnit);
        report.timeFormat = TimeFormat::Number;
        report.timeUnit =
            unit == "D" || unit.starts_with("DAY") ? TimeUnit::Day : TimeUnit::Unknown;
        report.timeLabel = detail::timeLabel(report.timeFormat, report.timeUnit);
    }
}

// A failure, named by the file it is about.
Status failure(const std::string& source, const std::string& why)
{
    return Status::failure(source + ": " + why);
}

// Moves to the light curve's table and names it: TESS and Kepler name theirs LIGHTCURVE;
// other light curves are the first table. status: cfitsio's, which a failure that is not
// reported here leaves set for the next call to report.
Status findLightCurveTable(fitsfile* file, const std::string& source, std::string& table,
                           int& status)
{
    int hdus = 0;
    if (fits_get_num_hdus(file, &hdus, &status))
        return failure(source, "cannot be read as FITS (" + fitsError(status) + ")");
    if (hdus < 2)
        return failure(source, "holds no table; light curves are binary tables in an extension, "
                               "and this file has only a primary HDU");
    if (fits_movnam_hdu(file, ANY_HDU, const_cast<char*>("LIGHTCURVE"), 0, &status)) {
        fits_clear_errmsg();
        status = 0;
        if (fits_movabs_hdu(file, 2, nullptr, &status))
            return failure(source, "the first extension cannot be read (" + fitsError(status) +
                                       "); the file may be truncated");
    }
    table = stringKey(file, "EXTNAME").value_or("the first extension");
    int hduType = 0;
    fits_get_hdu_type(file, &hduType, &status);
    if (hduType == IMAGE_HDU)
        return failure(source, table + " is an image, not a table; light curves are binary tables");
    if (isTileCompressedTable(file))
        return failure(source, table + " is a table compressed in tiles (by fpack): decompress "
                                       "the file first (funpack)");
    return Status::success();
}

// The columns a light curve is read from (from 0; -1: none).
struct LightCurveColumns
{
    int t = -1, y = -1, dy = -1, quality = -1;
};

// The table's columns' names and units into report, and the columns of t, y, dy and QUALITY:
// by name, or as chosen (QUALITY always by name: its flags mark the cadences not to be
// trusted).
Status chooseColumns(fitsfile* file, const std::string& source, const std::string& table,
                     const ColumnChoice& choice, int columnCount, LoadReport& report,
                     LightCurveColumns& chosen)
{
    for (int i = 1; i <= columnCount; ++i) {
        const std::string key = "TTYPE" + std::to_string(i);
        const std::optional<std::string> name = stringKey(file, key.c_str());
        report.columns.push_back(name && !name->empty() ? *name : "column " + std::to_string(i));
        const std::string unitKey = "TUNIT" + std::to_string(i);
        report.units.push_back(stringKey(file, unitKey.c_str()).value_or(""));
    }
    auto find = [&](const char* name) {
        for (std::size_t i = 0; i < report.columns.size(); ++i)
            if (upper(report.columns[i]) == name)
                return int(i);
        return -1;
    };

    int tCol = choice.t, yCol = choice.y, dyCol = -1;
    if (choice.byName) {
        tCol = find("TIME");
        yCol = find("PDCSAP_FLUX");
        for (const char* flux : {"SAP_FLUX", "FLUX"})
            yCol = yCol >= 0 ? yCol : find(flux);
        std::string names;
        for (const std::string& c : report.columns)
            names += (names.empty() ? "" : ", ") + c;
        if (tCol < 0)
            return failure(source, table + " has no TIME column (its columns: " + names +
                                       "); choose the time column by position");
        if (yCol < 0)
            return failure(source, table +
                                       " has no PDCSAP_FLUX, SAP_FLUX or FLUX column (its "
                                       "columns: " +
                                       names + "); choose the flux column by position");
        dyCol = find((upper(report.columns[std::size_t(yCol)]) + "_ERR").c_str());
    } else if (choice.dy >= 0 && choice.dy < columnCount && choice.dy != tCol &&
               choice.dy != yCol) {
        dyCol = choice.dy;
    }
    if (tCol < 0 || yCol < 0 || tCol == yCol || tCol >= columnCount || yCol >= columnCount)
        return failure(source, table + " has " +
                                   plural(std::size_t(columnCount), "column", "columns") +
                                   "; columns " + std::to_string(tCol + 1) + " (t) and " +
                                   std::to_string(yCol + 1) + " (y) cannot be used");
    int qualityCol = find("QUALITY");
    if (qualityCol < 0)
        qualityCol = find("SAP_QUALITY");
    report.tColumn = tCol;
    report.yColumn = yCol;
    report.dyColumn = dyCol;
    for (int c : {tCol, yCol, dyCol, qualityCol})
        if (c >= 0)
            if (std::string why = columnProblem(file, c + 1, report.columns[std::size_t(c)]);
                !why.empty())
                return failure(source, table + "'s " + why);
    chosen = {tCol, yCol, dyCol, qualityCol};
    return Status::success();
}

// The bytes a row's columns take by their TFORMs: bits rounded up to bytes, text a byte a
// character, variable-length arrays their descriptor (P 8 bytes, Q 16), others repeat x width.
Status rowWidth(fitsfile* file, const std::string& source, const std::string& table,
                long long& bytes)
{
    int columns = 0, status = 0;
    if (fits_get_num_cols(file, &columns, &status))
        return failure(source, table + " cannot be read (" + fitsError(status) + ")");
    bytes = 0;
    for (int c = 1; c <= columns; ++c) {
        int type = 0;
        long long repeat = 0, width = 0;
        if (fits_get_coltypell(file, c, &type, &repeat, &width, &status))
            return failure(source, "column " + std::to_string(c) + " of " + table +
                                       " cannot be read (" + fitsError(status) + ")");
        const std::string form =
            stringKey(file, ("TFORM" + std::to_string(c)).c_str()).value_or("");
        const long long column = type < 0          ? (form.find('Q') != std::string::npos ? 16 : 8)
                                 : type == TBIT    ? (repeat + 7) / 8
                                 : type == TSTRING ? repeat
                                                   : repeat * width;
        if (column < 0 || bytes > std::numeric_limits<long long>::max() - column)
            return failure(source, "the columns of " + table + " are too wide");
        bytes += column;
    }
    return Status::success();
}

// Whether the file holds the table's rows: rows past its end (fileBytes) would read as the
// zeros that its copy in memory is padded with.
Status checkRowsHeld(fitsfile* file, const std::string& source, const std::string& table,
                     long long rowCount, std::size_t fileBytes)
{
    int status = 0;
    long long headerStart = 0, dataStart = 0, dataEnd = 0, rowBytes = 0;
    if (fits_get_hduaddrll(file, &headerStart, &dataStart, &dataEnd, &status) ||
        fits_read_key(file, TLONGLONG, "NAXIS1", &rowBytes, nullptr, &status))
        return failure(source, table + " cannot be read (" + fitsError(status) + ")");
    // The columns must lie within a row: cfitsio reads each at the offset its TFORMs give,
    // and a header whose columns run past NAXIS1 would read past the table's end.
    long long columnBytes = 0;
    if (Status s = rowWidth(file, source, table, columnBytes); !s)
        return s;
    if (columnBytes > rowBytes)
        return failure(source, "the table " + table + "'s columns take " +
                                   std::to_string(columnBytes) +
                                   " bytes a row but its rows "
                                   "(NAXIS1) are " +
                                   std::to_string(rowBytes) + " bytes; the header is inconsistent");
    const long long held = std::max(0LL, (long long)fileBytes - dataStart);
    if (rowBytes > 0 && rowCount > held / rowBytes)
        return failure(source, "the table " + table + " has " + std::to_string(rowCount) +
                                   " rows but the data end after " +
                                   std::to_string(held / rowBytes) + "; the file is truncated");
    return Status::success();
}

// The usable rows into series: a finite time, value and error, the error positive, no
// QUALITY flag; the others counted in report, the first of them named.
Status readRows(fitsfile* file, const std::string& source, const std::string& table,
                const LightCurveColumns& columns, long long rowCount, TimeSeries& series,
                LoadReport& report, const LoadProgress& progress)
{
    const auto [tCol, yCol, dyCol, qualityCol] = columns;
    // NaN for cfitsio's nulls too (integer columns with TNULL), so they are counted as NaN.
    double nan = std::numeric_limits<double>::quiet_NaN();
    const int chosen[4] = {tCol, yCol, dyCol, qualityCol};
    std::vector<double> buffers[4];
    int status = 0;
    for (long long first = 1; first <= rowCount; first += kChunkRows) {
        if (progress && !progress(double(first - 1) / double(rowCount)))
            return Status::failure("Loading was cancelled");
        const long long n = std::min(kChunkRows, rowCount - first + 1);
        for (int k = 0; k < 4; ++k) {
            if (chosen[k] < 0)
                continue;
            buffers[k].resize(std::size_t(n));
            int anyNull = 0;
            if (fits_read_col(file, TDOUBLE, chosen[k] + 1, first, 1, n, &nan, buffers[k].data(),
                              &anyNull, &status))
                return failure(source, "row " + std::to_string(first) + " of " + table +
                                           " cannot be read (" + fitsError(status) +
                                           "); the file may be truncated");
        }
        for (std::size_t i = 0; i < std::size_t(n); ++i) {
            const double t = buffers[0][i], y = buffers[1][i];
            const double dy = dyCol >= 0 ? buffers[2][i] : 1.0;
            int bad = -1; // the column that makes the row unusable
            if (qualityCol >= 0 && !(buffers[3][i] == 0.0)) {
                ++report.flaggedRows;
                continue;
            }
            if (!std::isfinite(t) || !std::isfinite(y) || !std::isfinite(dy)) {
                ++report.nonFiniteRows;
                bad = !std::isfinite(t) ? tCol : !std::isfinite(y) ? yCol : dyCol;
            } else if (dyCol >= 0 && !(dy > 0.0)) {
                ++report.nonPositiveErrors;
                bad = dyCol;
            } else {
                series.t.push_back(t);
                series.y.push_back(y);
                if (dyCol >= 0)
                    series.dy.push_back(dy);
                continue;
            }
            if (report.firstSkipped.empty())
                report.firstSkipped =
                    "row " + std::to_string(first + (long long)i) + ", " +
                    report.columns[std::size_t(bad)] +
                    (bad == dyCol && dy <= 0.0 ? " is not positive" : " is NaN or infinite");
        }
    }
    if (progress && !progress(1.0))
        return Status::failure("Loading was cancelled");
    return Status::success();
}

// The series' time format and unit: read from the file's time system, or as chosen.
void setTimeFormat(fitsfile* file, const std::string& timeUnit, const ColumnChoice& choice,
                   LoadReport& report)
{
    if (choice.timeFormat == TimeFormat::Auto) {
        readTimeSystem(file, timeUnit, report);
        return;
    }
    report.timeFormat = choice.timeFormat;
    report.timeUnit = choice.timeFormat == TimeFormat::DecimalYear ? TimeUnit::Year
                      : choice.timeFormat == TimeFormat::Number    ? TimeUnit::Unknown
                                                                   : TimeUnit::Day;
    report.timeLabel = detail::timeLabel(report.timeFormat, report.timeUnit);
}

// fileBytes: the file's size.
Status readLightCurve(fitsfile* file, const std::string& source, const ColumnChoice& choice,
                      TimeSeries& series, LoadReport& report, const LoadProgress& progress,
                      std::size_t fileBytes)
{
    int status = 0;
    std::string table;
    if (Status found = findLightCurveTable(file, source, table, status); !found)
        return found;
    int columnCount = 0;
    long long rowCount = 0;
    if (fits_get_num_cols(file, &columnCount, &status) ||
        fits_get_num_rowsll(file, &rowCount, &status))
        return failure(source, table + " cannot be read (" + fitsError(status) + ")");
    LightCurveColumns columns;
    if (Status chosen = chooseColumns(file, source, table, choice, columnCount, report, columns);
        !chosen)
        return chosen;
    if (rowCount <= 0)
        return failure(source, "the table " + table + " has no rows");
    if (Status held = checkRowsHeld(file, source, table, rowCount, fileBytes); !held)
        return held;
    const std::string timeUnit = report.units[std::size_t(columns.t)];
    if (Status read = readRows(file, source, table, columns, rowCount, series, report, progress);
        !read)
        return read;
    if (series.t.empty())
        return failure(source, "no row of " + table + " is usable: " + detail::skippedRows(report));
    setTimeFormat(file, timeUnit, choice, report);
    detail::orderByTime(series, report);
    return Status::success();
}

// Opens the bytes of a whole FITS file with cfitsio and reads the light curve; source
// names the file in messages.
Status readBytes(std::string_view bytes, const std::string& source, const ColumnChoice& choice,
                 TimeSeries& series, LoadReport& report, const LoadProgress& progress)
{
    series = TimeSeries{};
    report = LoadReport{};
    if (choice.timeFormat == TimeFormat::IsoDate || choice.timeFormat == TimeFormat::YyyyMmDd)
        return Status::failure(source + ": FITS light curves hold times as numbers, not as " +
                               "dates, so the time format " + timeFormatName(choice.timeFormat) +
                               " cannot apply");
    if (const std::optional<BadFitsCard> bad = badHeaderCard(bytes))
        return Status::failure(badCardMessage(source, bytes.substr(bad->offset, 80), *bad));
    // cfitsio reads memory in whole FITS blocks, past the end of a buffer of any other
    // size, so the bytes are copied into whole blocks; zeros fill the last, as they would
    // in a file cut short. Opened read-only, cfitsio neither writes to it nor grows it.
    std::vector<char> blocks(
        std::max<std::size_t>(1, (bytes.size() + kFitsBlock - 1) / kFitsBlock) * kFitsBlock);
    std::copy(bytes.begin(), bytes.end(), blocks.begin());
    void* data = blocks.data();
    std::size_t size = blocks.size();
    fitsfile* raw = nullptr;
    int status = 0;
    if (fits_open_memfile(&raw, "memory", READONLY, &data, &size, 0, nullptr, &status))
        return Status::failure(source + " is not a FITS file that can be read (" +
                               fitsError(status) + ")");
    const FitsFile file(raw);
    Status result =
        readLightCurve(file.get(), source, choice, series, report, progress, bytes.size());
    if (!result.ok())
        series = TimeSeries{};
    return result;
}

} // namespace

Status loadFitsLightCurve(const std::string& path, const ColumnChoice& columns, TimeSeries& series,
                          LoadReport& report, const LoadProgress& progress)
{
    series = TimeSeries{};
    report = LoadReport{};
    // Read here rather than by cfitsio, so that the headers are checked first and the name
    // is only a path: cfitsio's extended syntax ("file.fits[1]", "-", "mem://") would
    // otherwise turn names into filters or other files.
    std::string bytes;
    if (Status status = readWholeFile(path, bytes); !status.ok())
        return status;
    return readBytes(bytes, path, columns, series, report, progress);
}

Status parseFitsLightCurve(std::string_view bytes, const ColumnChoice& columns, TimeSeries& series,
                           LoadReport& report, const LoadProgress& progress)
{
    return readBytes(bytes, "The FITS data", columns, series, report, progress);
}

} // namespace warpscope::gpu
