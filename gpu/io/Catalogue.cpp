#include "warpscope/gpu/Catalogue.h"

#include "io/FitsHeaders.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fitsio.h>
#include <fstream>
#include <glob.h>
#include <limits>
#include <mutex>
#include <numeric>
#include <sstream>
#include <string_view>
#include <system_error>
#include <thread>
#include <unordered_map>

namespace warpscope::gpu {
namespace {

std::string lower(std::string text)
{
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return text;
}

bool endsWith(const std::string& text, const std::string& tail)
{
    return text.size() >= tail.size() &&
           text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

bool isLightCurveFile(const std::string& name)
{
    const std::string n = lower(name);
    for (const char* e :
         {".csv", ".tsv", ".txt", ".dat", ".fits", ".fit", ".fts", ".fits.gz", ".lc"})
        if (endsWith(n, e))
            return true;
    return false;
}

std::string_view trimmed(std::string_view text)
{
    const auto first = text.find_first_not_of(" \t\r");
    if (first == std::string_view::npos)
        return {};
    return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

std::string trim(std::string_view text)
{
    return std::string(trimmed(text));
}

// The cells of one line: split at delimiter outside quotes (quotes removed), or at runs of
// blanks when delimiter is ' '.
std::vector<std::string> splitLine(const std::string& line, char delimiter)
{
    std::vector<std::string> cells;
    if (delimiter == ' ') {
        std::istringstream in(line);
        for (std::string cell; in >> cell;)
            cells.push_back(cell);
        return cells;
    }
    cells.emplace_back();
    bool quoted = false;
    for (char c : line) {
        if (c == '"')
            quoted = !quoted;
        else if (c == delimiter && !quoted)
            cells.emplace_back();
        else
            cells.back() += c;
    }
    for (std::string& cell : cells)
        cell = trim(cell);
    return cells;
}

int findName(const std::vector<std::string>& names, const std::string& wanted)
{
    for (std::size_t i = 0; i < names.size(); ++i)
        if (lower(names[i]) == lower(wanted))
            return int(i);
    return -1;
}

std::string listNames(const std::vector<std::string>& names)
{
    std::string text;
    for (const std::string& n : names)
        text += (text.empty() ? "" : ", ") + n;
    return text;
}

Status missingColumn(const std::string& path, const std::string& what, const std::string& name,
                     const std::vector<std::string>& names)
{
    return Status::failure(path + " has no " + what + " column '" + name + "'; its columns are " +
                           listNames(names));
}

std::string fitsError(int status)
{
    char text[FLEN_STATUS] = {};
    fits_get_errstatus(status, text);
    return text;
}

Status noSuchObject(const std::string& path, const std::string& id)
{
    return Status::failure(path + " has no object '" + id +
                           "' (the table changed since the batch ran?)");
}

// The FITS table's column for what: the name given, else the first recognised one.
int fitsColumn(const std::vector<std::string>& names, const std::string& given,
               std::initializer_list<const char*> recognised)
{
    if (!given.empty())
        return findName(names, given);
    for (const char* r : recognised)
        if (int i = findName(names, r); i >= 0)
            return i;
    return -1;
}

// A FITS table's objects as its rows are read: each object's id, its finite rows and the
// rows skipped.
struct FitsObject
{
    std::string id;
    TimeSeries series;
    LoadReport report;
};

// A text id column: every row's id, trimmed, end to end in a buffer for each part of the
// rows that was read at once. A survey's table has tens of millions of rows, and a string
// (and a buffer) a row took gigabytes.
struct TextIds
{
    struct Part
    {
        long long firstRow = 0;
        std::vector<char> text;
        std::vector<std::size_t> ends; // the part's k-th id is text[ends[k - 1], ends[k])
    };
    std::vector<Part> parts; // in row order

    bool empty() const { return parts.empty(); }
    std::string_view at(std::size_t row) const
    {
        // The last part that starts at or before the row (parts are few: up to 16).
        const auto after =
            std::upper_bound(parts.begin(), parts.end(), (long long)row,
                             [](long long r, const Part& part) { return r < part.firstRow; });
        const Part& part = *(after - 1);
        const std::size_t k = row - std::size_t(part.firstRow);
        const std::size_t begin = k > 0 ? part.ends[k - 1] : 0;
        return {part.text.data() + begin, part.ends[k] - begin};
    }
};

// Which columns hold what (0-based), and the ids when they are text (read first).
struct FitsRows
{
    const std::string& path;
    int idColumn, tColumn, yColumn, dyColumn;
    bool numeric;
    const TextIds* ids;
};

struct RowRun
{
    long long first = 0, count = 0;
};

// Opens a FITS file's first table, or returns why not. cfitsio can leave a handle behind a
// failed open (a table cut short, for one); it is closed here.
int openFitsTable(fitsfile** file, const std::string& path)
{
    int status = 0;
    if (fits_open_table(file, path.c_str(), READONLY, &status) && *file) {
        int closing = 0;
        fits_close_file(*file, &closing);
        *file = nullptr;
    }
    return status;
}

// Keeps one row as the app's FITS reader would, or counts why it is skipped. dy: null when
// the table has no error column.
void keepRow(FitsObject& o, double t, double y, const double* dy)
{
    if (!std::isfinite(t) || !std::isfinite(y) || (dy && !std::isfinite(*dy))) {
        ++o.report.nonFiniteRows;
        return;
    }
    if (dy && *dy <= 0.0) {
        ++o.report.nonPositiveErrors;
        return;
    }
    o.series.t.push_back(t);
    o.series.y.push_back(y);
    if (dy)
        o.series.dy.push_back(*dy);
}

// Reads t, y and dy (and the numeric ids, with readNumbers) of the runs of rows a block at a
// time, of the rows cfitsio's buffers hold: the rows are stored whole, so each block is read
// from the file once for every column instead of once a column. Hands each block to
// onBlock(first row from 0, rows, ids or null, t, y, dy or null, whether it starts its run).
// Returns cfitsio's status.
// Runs: RowRuns, or an indexed object's rows (anything with first and count).
template <class Runs, class OnBlock>
int readBlocks(fitsfile* file, const FitsRows& c, const Runs& runs, bool readNumbers,
               OnBlock&& onBlock)
{
    int status = 0;
    long block = 0;
    fits_get_rowsize(file, &block, &status);
    block = std::max(block, 1L);
    const std::size_t blockRows = std::size_t(block);
    std::vector<long long> numbers(readNumbers ? blockRows : 0);
    std::vector<double> t(blockRows), y(blockRows), dy(c.dyColumn >= 0 ? blockRows : 0);
    double nan = std::numeric_limits<double>::quiet_NaN();
    int anyNull = 0;
    for (const auto& run : runs)
        for (long long r = 0; r < run.count && !status; r += block) {
            const long long n = std::min<long long>(block, run.count - r);
            const long long first = run.first + r; // the block's first row, from 0
            if (readNumbers)
                fits_read_col(file, TLONGLONG, c.idColumn + 1, first + 1, 1, n, nullptr,
                              numbers.data(), &anyNull, &status);
            fits_read_col(file, TDOUBLE, c.tColumn + 1, first + 1, 1, n, &nan, t.data(), &anyNull,
                          &status);
            fits_read_col(file, TDOUBLE, c.yColumn + 1, first + 1, 1, n, &nan, y.data(), &anyNull,
                          &status);
            if (c.dyColumn >= 0)
                fits_read_col(file, TDOUBLE, c.dyColumn + 1, first + 1, 1, n, &nan, dy.data(),
                              &anyNull, &status);
            if (status)
                break;
            onBlock(first, std::size_t(n), readNumbers ? numbers.data() : nullptr, t.data(),
                    y.data(), dy.empty() ? nullptr : dy.data(), r == 0);
        }
    return status;
}

// Reads the runs of rows into objects, new ids appended in the order of their first row.
// Each block's rows go to their objects at once, so the table's columns are never held whole
// beside the objects' series. numbers: the whole table's numeric ids, or null to read them
// with the block. Returns cfitsio's status.
int readFitsRows(fitsfile* file, const FitsRows& c, const std::vector<RowRun>& runs,
                 const long long* numbers, std::vector<FitsObject>& objects)
{
    std::unordered_map<std::string, std::size_t> index;
    std::size_t current = 0;
    long long previous = 0; // the last row's number, for numeric ids
    return readBlocks(file, c, runs, c.numeric && !numbers,
                      [&](long long first, std::size_t n, const long long* blockNumbers,
                          const double* t, const double* y, const double* dy, bool runStarts) {
                          const long long* number = numbers ? numbers + first : blockNumbers;
                          for (std::size_t k = 0; k < n; ++k) {
                              const std::size_t row = std::size_t(first) + k;
                              // An object's rows usually follow each other: look its id up when it
                              // changes.
                              const bool same = (!runStarts || k > 0) &&
                                                (c.numeric ? number[k] == previous
                                                           : c.ids->at(row) == c.ids->at(row - 1));
                              if (c.numeric)
                                  previous = number[k];
                              if (!same) {
                                  const std::string id = c.numeric ? std::to_string(number[k])
                                                                   : std::string(c.ids->at(row));
                                  auto [found, added] = index.try_emplace(id, objects.size());
                                  current = found->second;
                                  if (added)
                                      objects.push_back({id, {}, {}});
                              }
                              keepRow(objects[current], t[k], y[k], dy ? dy + k : nullptr);
                          }
                      });
}

// Every row of the table, in ranges read at once by threads of their own, each with its own
// handle on the file (cfitsio built reentrant, as Debian's is; otherwise one range). The
// ranges' objects are then joined in row order: an object whose rows fall in several ranges
// gets them in order, and objects stay in the order of their first row.
// How many parts a table of these rows is read in at once: one per core, up to 16, of at
// least 2^18 rows each; one where cfitsio is not built reentrant (Debian's is).
int tableParts(long long rows)
{
    constexpr long long kMinPartRows = 1 << 18;
    const long long most = std::max(1LL, rows / kMinPartRows);
    const int cores = fits_is_reentrant()
                          ? int(std::clamp<long long>(std::thread::hardware_concurrency(), 1, 16))
                          : 1;
    return int(std::min<long long>(cores, most));
}

// Calls readPart(handle, part, first row, end row) for the parts of the table's rows at once,
// on threads of their own, each with its own handle on the file. Returns cfitsio's status.
template <class ReadPart>
int inParts(fitsfile* file, const std::string& path, long long rows, int parts, ReadPart&& readPart)
{
    std::vector<int> statuses(std::size_t(parts), 0);
    auto one = [&](int p) {
        const long long first = rows * p / parts, last = rows * (p + 1) / parts;
        int& status = statuses[std::size_t(p)];
        if (p == 0) {
            status = readPart(file, 0, first, last);
            return;
        }
        fitsfile* own = nullptr;
        if ((status = openFitsTable(&own, path)))
            return;
        status = readPart(own, p, first, last);
        int closing = 0;
        fits_close_file(own, &closing);
    };
    std::vector<std::thread> threads;
    try {
        for (int p = 1; p < parts; ++p)
            threads.emplace_back(one, p);
    } catch (const std::system_error&) { // no thread to be had: this one reads the rest
        for (int p = int(threads.size()) + 1; p < parts; ++p)
            one(p);
    }
    one(0);
    for (std::thread& t : threads)
        t.join();
    for (const int status : statuses)
        if (status)
            return status;
    return 0;
}

// The whole-number ids of every row, in parts at once, a block of rows (as many as
// cfitsio's buffers hold) at a time: read in one call, the column would be taken a value at
// a time, several times slower.
int readFitsNumbers(fitsfile* file, const std::string& path, int idColumn, long long rows,
                    std::vector<long long>& numbers)
{
    numbers.resize(std::size_t(std::max(rows, 0LL)));
    return inParts(file, path, rows, tableParts(rows),
                   [&](fitsfile* handle, int, long long first, long long last) {
                       int status = 0, anyNull = 0;
                       long block = 0;
                       fits_get_rowsize(handle, &block, &status);
                       block = std::max(block, 1L);
                       for (long long r = first; r < last && !status; r += block)
                           fits_read_col(handle, TLONGLONG, idColumn + 1, r + 1, 1,
                                         std::min<long long>(block, last - r), nullptr,
                                         numbers.data() + r, &anyNull, &status);
                       return status;
                   });
}

// Where a binary table's column starts in its rows, in bytes, from the sizes of the columns
// before it; -1 where the columns do not add up to the rows' length (NAXIS1).
long long columnOffset(fitsfile* file, int column, long long& rowBytes)
{
    int status = 0, columns = 0;
    fits_get_num_cols(file, &columns, &status);
    fits_read_key(file, TLONGLONG, "NAXIS1", &rowBytes, nullptr, &status);
    long long at = 0, offset = -1;
    for (int c = 0; c < columns && !status; ++c) {
        if (c == column)
            offset = at;
        int type = 0;
        long repeat = 0, width = 0;
        fits_get_coltype(file, c + 1, &type, &repeat, &width, &status);
        if (type < 0) { // a variable-length array's descriptor: 8 bytes (P) or 16 (Q)
            char key[FLEN_KEYWORD], form[FLEN_VALUE] = {};
            fits_make_keyn("TFORM", c + 1, key, &status);
            fits_read_key_str(file, key, form, nullptr, &status);
            at += std::strchr(form, 'Q') ? 16 : 8;
        } else if (type == TSTRING) {
            at += repeat;
        } else if (type == TBIT) {
            at += (repeat + 7) / 8;
        } else {
            at += (long long)repeat * width;
        }
    }
    return !status && at == rowBytes ? offset : -1;
}

// The text ids of every row (a column chars characters wide), in parts at once, a block of
// rows at a time, each part's ids trimmed into a buffer of its own.
// The rows are read as bytes and the ids cut from them: cfitsio reads a text column a row at
// a time, seventeen times slower. Returns cfitsio's status, or BAD_ROW_WIDTH where the columns
// do not fill the rows.
int readFitsText(fitsfile* file, const std::string& path, int idColumn, long long rows, long chars,
                 TextIds& ids)
{
    long long rowBytes = 0;
    const long long offset = columnOffset(file, idColumn, rowBytes);
    if (offset < 0)
        return BAD_ROW_WIDTH; // cfitsio's own code: "sum of column widths not = NAXIS1"
    const std::size_t width = std::size_t(std::max(chars, 0L));
    const int parts = tableParts(rows);
    ids.parts.assign(static_cast<std::size_t>(parts), {});
    if (const int failed = inParts(
            file, path, rows, parts, [&](fitsfile* handle, int p, long long first, long long last) {
                int status = 0;
                long block = 0;
                fits_get_rowsize(handle, &block, &status);
                block = std::max(block, 1L);
                TextIds::Part& part = ids.parts[std::size_t(p)];
                part.firstRow = first;
                // At most the column's own bytes: the part is filled without a copy.
                part.text.reserve(std::size_t(last - first) * width);
                part.ends.reserve(std::size_t(last - first));
                std::vector<unsigned char> bytes(static_cast<std::size_t>(block * rowBytes));
                for (long long r = first; r < last && !status; r += block) {
                    const long long n = std::min<long long>(block, last - r);
                    if (fits_read_tblbytes(handle, r + 1, 1, n * rowBytes, bytes.data(), &status))
                        break;
                    for (long long k = 0; k < n; ++k) {
                        const char* cell =
                            reinterpret_cast<const char*>(bytes.data() + k * rowBytes + offset);
                        const std::string_view id = trimmed({cell, ::strnlen(cell, width)});
                        part.text.insert(part.text.end(), id.begin(), id.end());
                        part.ends.push_back(part.text.size());
                    }
                }
                return status;
            }))
        return failed;
    return 0;
}

// Every row of the table, in parts read at once (inParts). The parts' objects are then joined
// in row order: an object whose rows fall in several parts gets them in order, and objects
// stay in the order of their first row.
int readFitsTable(fitsfile* file, const FitsRows& c, long long rows,
                  std::vector<FitsObject>& objects)
{
    const int parts = tableParts(rows);
    std::vector<std::vector<FitsObject>> read(static_cast<std::size_t>(parts));
    if (const int status = inParts(file, c.path, rows, parts,
                                   [&](fitsfile* handle, int p, long long first, long long last) {
                                       return readFitsRows(handle, c, {{first, last - first}},
                                                           nullptr, read[std::size_t(p)]);
                                   }))
        return status;
    std::unordered_map<std::string, std::size_t> index;
    for (std::vector<FitsObject>& part : read)
        for (FitsObject& o : part) {
            auto [found, added] = index.try_emplace(o.id, objects.size());
            if (added) {
                objects.push_back(std::move(o));
                continue;
            }
            FitsObject& joined = objects[found->second];
            auto append = [](std::vector<double>& to, const std::vector<double>& from) {
                to.insert(to.end(), from.begin(), from.end());
            };
            append(joined.series.t, o.series.t);
            append(joined.series.y, o.series.y);
            append(joined.series.dy, o.series.dy);
            joined.report.nonFiniteRows += o.report.nonFiniteRows;
            joined.report.nonPositiveErrors += o.report.nonPositiveErrors;
        }
    return 0;
}

// Every header is checked before cfitsio parses one (FitsHeaders.h); the data between them
// are skipped, not read.
Status checkFitsCards(std::ifstream& in, const std::string& path)
{
    in.clear();
    in.seekg(0, std::ios::end);
    const std::uint64_t fileBytes = std::uint64_t(std::max<std::streamoff>(0, in.tellg()));
    const FitsCardReader readCard = [&in](std::uint64_t offset, char* card) {
        in.clear();
        in.seekg(std::streamoff(offset));
        return bool(in.read(card, 80));
    };
    if (const std::optional<BadFitsCard> bad = badHeaderCard(readCard, fileBytes)) {
        char card[80] = {};
        readCard(bad->offset, card);
        return Status::failure(badCardMessage(path, std::string_view(card, 80), *bad));
    }
    return Status::success();
}

// A FITS table's column names and the columns (from 0; -1: none) of the id, t, y and dy.
struct FitsColumns
{
    std::vector<std::string> names;
    int id = -1, t = -1, y = -1, dy = -1;
};

// The columns' names and the columns chosen by name or recognised. status: cfitsio's.
FitsColumns findFitsColumns(fitsfile* file, int columnCount, const TableColumns& columns,
                            int& status)
{
    FitsColumns found;
    for (int c = 1; c <= columnCount && !status; ++c) {
        char key[FLEN_KEYWORD], value[FLEN_VALUE] = {};
        fits_make_keyn("TTYPE", c, key, &status);
        fits_read_key_str(file, key, value, nullptr, &status);
        found.names.push_back(trim(value));
    }
    found.id = findName(found.names, columns.id);
    found.t = fitsColumn(found.names, columns.t, {"time", "t", "mjd", "bjd", "jd"});
    found.y = fitsColumn(found.names, columns.y, {"flux", "mag", "y", "pdcsap_flux", "value"});
    found.dy =
        columns.dy == "-"
            ? -1
            : fitsColumn(found.names, columns.dy,
                         {"flux_err", "mag_err", "dy", "err", "error", "pdcsap_flux_err", "sigma"});
    return found;
}

// Why a column cannot be read: the time, value and error must be one number a row, and so
// must a numeric id; a vector column would be read across rows, a text column not at all.
Status checkFitsColumnType(fitsfile* file, const std::string& path, const std::string& name,
                           int column, bool isId)
{
    int type = 0, status = 0;
    long repeat = 0, width = 0;
    fits_get_coltype(file, column + 1, &type, &repeat, &width, &status);
    const bool text = type == TSTRING;
    if (status)
        return Status::failure("Cannot read the FITS table " + path + ": " + fitsError(status));
    if ((text && !isId) || type == TLOGICAL || type == TBIT || type < 0 || type == TCOMPLEX ||
        type == TDBLCOMPLEX)
        return Status::failure(path + ": the column '" + name + "' does not hold numbers");
    if (!text && repeat != 1)
        return Status::failure(path + ": the column '" + name + "' holds " +
                               std::to_string(repeat) +
                               " values a row; choose a column of one number a row");
    if (text && width > 0 && width < repeat)
        return Status::failure(path + ": the id column '" + name + "' holds " +
                               std::to_string(repeat / width) +
                               " texts a row; choose a column of one id a row");
    return Status::success();
}

// Why the table cannot give the objects' rows, if it cannot. status: cfitsio's so far.
Status checkFitsColumns(fitsfile* file, const std::string& path, const TableColumns& columns,
                        const FitsColumns& c, int status)
{
    if (status)
        return Status::failure("Cannot read the FITS table " + path + ": " + fitsError(status));
    if (c.id < 0)
        return missingColumn(path, "id", columns.id, c.names);
    if (c.t < 0)
        return missingColumn(path, "time", columns.t.empty() ? "time" : columns.t, c.names);
    if (c.y < 0)
        return missingColumn(path, "value", columns.y.empty() ? "flux" : columns.y, c.names);
    if (!columns.dy.empty() && columns.dy != "-" && c.dy < 0)
        return missingColumn(path, "error", columns.dy, c.names);
    for (const int column : {c.t, c.y, c.dy, c.id})
        if (column >= 0)
            if (Status s = checkFitsColumnType(file, path, c.names[std::size_t(column)], column,
                                               column == c.id);
                !s)
                return s;
    return Status::success();
}

// A FITS table's ids, as far as an open needs them before the rows: the text ids, the
// numeric ones where an index or one object needs them alone, and the runs of one object's
// rows. Whole-number ids stay numbers until an object starts: a survey table has millions of
// rows.
struct FitsIds
{
    bool numeric = false;
    TextIds text;
    std::vector<long long> numbers;
    std::vector<RowRun> runs;
};

// The runs of the rows whose id is onlyId. A numeric id compares as a number, as it is
// written (std::to_string).
std::vector<RowRun> runsOf(const FitsIds& ids, long long rows, const std::string& onlyId)
{
    long long wanted = 0;
    const auto [end, error] = std::from_chars(onlyId.data(), onlyId.data() + onlyId.size(), wanted);
    const bool wantedNumber = error == std::errc() && end == onlyId.data() + onlyId.size() &&
                              std::to_string(wanted) == onlyId;
    std::vector<RowRun> runs;
    for (long long r = 0; r < rows; ++r) {
        const bool match = ids.text.empty() ? wantedNumber && ids.numbers[std::size_t(r)] == wanted
                                            : ids.text.at(std::size_t(r)) == onlyId;
        if (!match)
            continue;
        if (!runs.empty() && runs.back().first + runs.back().count == r)
            ++runs.back().count;
        else
            runs.push_back({r, 1});
    }
    return runs;
}

// Reads the ids an open needs first (FitsIds). Returns cfitsio's status.
int readFitsIds(fitsfile* file, const std::string& path, int idColumn, long long rows,
                const std::string* onlyId, bool linesOnly, FitsIds& ids)
{
    int type = 0, status = 0;
    long repeat = 0, width = 0;
    fits_get_coltype(file, idColumn + 1, &type, &repeat, &width, &status);
    if (type == TSTRING && !status)
        status = readFitsText(file, path, idColumn, rows, repeat, ids.text);
    ids.numeric = type != TSTRING;
    // The whole table's numbers are read with its other columns, later, unless they are all
    // an index needs or one object is looked for.
    if (ids.numeric && (onlyId || linesOnly) && !status)
        status = readFitsNumbers(file, path, idColumn, rows, ids.numbers);
    if (onlyId && !status)
        ids.runs = runsOf(ids, rows, *onlyId);
    return status;
}

} // namespace

struct Catalogue::FitsSource
{
    int idColumn = -1, tColumn = -1, yColumn = -1, dyColumn = -1; // from 0
    std::vector<std::string> names;
    std::mutex mutex;            // guards idle
    std::vector<fitsfile*> idle; // open handles no load is using
    std::mutex serial;           // held by each load where cfitsio is not reentrant
    FitsSource() = default;
    FitsSource(const FitsSource&) = delete;
    FitsSource& operator=(const FitsSource&) = delete;
    ~FitsSource()
    {
        for (fitsfile* file : idle) {
            int status = 0;
            fits_close_file(file, &status);
        }
    }
};

Status Catalogue::openFiles(const std::string& folderOrGlob, TimeFormat timeFormat,
                            Catalogue& catalogue)
{
    catalogue = {};
    catalogue.m_choice.timeFormat = timeFormat;
    std::vector<std::string> paths;
    std::error_code error;
    if (std::filesystem::is_directory(folderOrGlob, error)) {
        for (const auto& entry : std::filesystem::directory_iterator(folderOrGlob, error))
            if (!entry.is_directory() && isLightCurveFile(entry.path().filename().string()))
                paths.push_back(entry.path().string());
        if (error)
            return Status::failure("Cannot list " + folderOrGlob + ": " + error.message());
    } else {
        glob_t found{};
        const int result = ::glob(folderOrGlob.c_str(), 0, nullptr, &found);
        for (std::size_t i = 0; result == 0 && i < found.gl_pathc; ++i)
            if (!std::filesystem::is_directory(found.gl_pathv[i], error))
                paths.push_back(found.gl_pathv[i]);
        globfree(&found);
    }
    if (paths.empty())
        return Status::failure("No light-curve files in " + folderOrGlob);
    std::sort(paths.begin(), paths.end());
    std::unordered_map<std::string, int> seen;
    for (const std::string& path : paths) {
        Object object;
        object.path = path;
        object.id = std::filesystem::path(path).filename().string();
        if (seen[object.id]++ > 0) // a glob over folders may name two files alike
            object.id = path;
        catalogue.m_objects.push_back(std::move(object));
    }
    return Status::success();
}

bool Catalogue::isFits(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    char magic[9] = {};
    in.read(magic, 9);
    return std::string(magic, std::size_t(in.gcount())) == "SIMPLE  =";
}

std::size_t Catalogue::find(const std::string& id) const
{
    for (std::size_t i = 0; i < m_objects.size(); ++i)
        if (m_objects[i].id == id)
            return i;
    return m_objects.size();
}

Status Catalogue::openTable(const std::string& path, const TableColumns& columns,
                            TimeFormat timeFormat, Catalogue& catalogue, const std::string* onlyId)
{
    return open(path, columns, timeFormat, catalogue, onlyId, false);
}

Status Catalogue::indexTable(const std::string& path, const TableColumns& columns,
                             TimeFormat timeFormat, Catalogue& catalogue)
{
    std::error_code error;
    const std::uintmax_t bytes = std::filesystem::file_size(path, error);
    const std::filesystem::file_time_type time = std::filesystem::last_write_time(path, error);
    if (error)
        return Status::failure("Cannot read " + path + ": " + error.message());
    if (Status s = open(path, columns, timeFormat, catalogue, nullptr, true); !s)
        return s;
    catalogue.m_indexed = path;
    catalogue.m_indexedBytes = bytes;
    catalogue.m_indexedTime = time;
    return Status::success();
}

// How open reads a table into a catalogue's objects.
struct Catalogue::TableReader
{
    static Status openFits(std::ifstream& in, const std::string& path, const TableColumns& columns,
                           Catalogue& catalogue, const std::string* onlyId, bool linesOnly);
    static Status readFits(fitsfile* file, const std::string& path, const FitsColumns& c,
                           long long rows, Catalogue& catalogue, const std::string* onlyId,
                           bool linesOnly);
    static void indexFits(const FitsColumns& c, const FitsIds& ids, std::size_t rowCount,
                          Catalogue& catalogue);
    static Status openText(std::ifstream& in, const std::string& path, const TableColumns& columns,
                           Catalogue& catalogue, const std::string* onlyId, bool linesOnly);
    static Status textHeader(const std::string& line, const std::string& path,
                             const TableColumns& columns, Catalogue& catalogue, char& delimiter);
};

Status Catalogue::open(const std::string& path, const TableColumns& columns, TimeFormat timeFormat,
                       Catalogue& catalogue, const std::string* onlyId, bool linesOnly)
{
    catalogue = {};
    catalogue.m_choice.timeFormat = timeFormat;
    if (columns.t.empty() != columns.y.empty())
        return Status::failure("Name both the time and the value columns, or neither");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Status::failure("Cannot read " + path);
    char start[2] = {};
    in.read(start, 2);
    if (in.gcount() == 2 && static_cast<unsigned char>(start[0]) == 0x1f &&
        static_cast<unsigned char>(start[1]) == 0x8b)
        return Status::failure(path + " is compressed with gzip. A table of many objects is read "
                                      "where each object's rows lie in the file: decompress it "
                                      "first (gunzip)");
    in.clear();
    in.seekg(0);
    if (isFits(path))
        return TableReader::openFits(in, path, columns, catalogue, onlyId, linesOnly);
    return TableReader::openText(in, path, columns, catalogue, onlyId, linesOnly);
}

Status Catalogue::TableReader::openFits(std::ifstream& in, const std::string& path,
                                        const TableColumns& columns, Catalogue& catalogue,
                                        const std::string* onlyId, bool linesOnly)
{
    if (Status cards = checkFitsCards(in, path); !cards)
        return cards;
    in.close();
    fitsfile* file = nullptr;
    int status = 0;
    if ((status = openFitsTable(&file, path)))
        return Status::failure("Cannot read the FITS table " + path + ": " + fitsError(status));
    if (isTileCompressedTable(file)) {
        fits_close_file(file, &status);
        return Status::failure(path + " is a table compressed in tiles (by fpack). A table of "
                                      "many objects is read where each object's rows lie in "
                                      "the file: decompress it first (funpack)");
    }
    int columnCount = 0;
    long long rows = 0;
    fits_get_num_cols(file, &columnCount, &status);
    fits_get_num_rowsll(file, &rows, &status);
    const FitsColumns c = findFitsColumns(file, columnCount, columns, status);
    Status problem = checkFitsColumns(file, path, columns, c, status);
    if (problem && rows > 0)
        problem = readFits(file, path, c, rows, catalogue, onlyId, linesOnly);
    int closing = 0;
    fits_close_file(file, &closing);
    if (!problem)
        return problem;
    if (onlyId && catalogue.m_objects.empty())
        return noSuchObject(path, *onlyId);
    if (catalogue.m_objects.empty())
        return Status::failure(path + " has no rows");
    return Status::success();
}

// The objects of a table whose columns were checked: read whole, or onlyId's, or indexed.
Status Catalogue::TableReader::readFits(fitsfile* file, const std::string& path,
                                        const FitsColumns& c, long long rows, Catalogue& catalogue,
                                        const std::string* onlyId, bool linesOnly)
{
    FitsIds ids;
    int status = readFitsIds(file, path, c.id, rows, onlyId, linesOnly, ids);
    if (linesOnly && !status)
        indexFits(c, ids, std::size_t(rows), catalogue);
    const FitsRows layout{
        path, c.id, c.t, c.y, c.dy, ids.numeric, ids.text.empty() ? nullptr : &ids.text};
    std::vector<FitsObject> objects;
    if (!status && !linesOnly)
        status = onlyId ? readFitsRows(file, layout, ids.runs, ids.numbers.data(), objects)
                        : readFitsTable(file, layout, rows, objects);
    for (FitsObject& read : objects) {
        Object object;
        object.id = std::move(read.id);
        object.fromFits = true;
        object.series = std::move(read.series);
        object.report = std::move(read.report);
        object.report.columns = c.names;
        object.report.tColumn = c.t;
        object.report.yColumn = c.y;
        object.report.dyColumn = c.dy;
        catalogue.m_objects.push_back(std::move(object));
    }
    if (status) {
        catalogue.m_objects.clear();
        return Status::failure("Cannot read the FITS table " + path + ": " + fitsError(status));
    }
    return Status::success();
}

// Each object's runs of rows, in the order of its first row, from the ids alone, and the
// columns its loads read.
void Catalogue::TableReader::indexFits(const FitsColumns& c, const FitsIds& ids,
                                       std::size_t rowCount, Catalogue& catalogue)
{
    std::unordered_map<std::string, std::size_t> index;
    std::size_t current = 0;
    for (std::size_t r = 0; r < rowCount; ++r) {
        const bool same = r > 0 && (ids.numeric ? ids.numbers[r] == ids.numbers[r - 1]
                                                : ids.text.at(r) == ids.text.at(r - 1));
        if (!same) {
            std::string id =
                ids.numeric ? std::to_string(ids.numbers[r]) : std::string(ids.text.at(r));
            const auto [found, added] = index.try_emplace(id, catalogue.m_objects.size());
            current = found->second;
            if (added) {
                Object object;
                object.id = std::move(id);
                object.fromFits = true;
                catalogue.m_objects.push_back(std::move(object));
            }
        }
        std::vector<RowRange>& runs = catalogue.m_objects[current].rows;
        if (!runs.empty() && runs.back().first + runs.back().count == (long long)r)
            ++runs.back().count;
        else
            runs.push_back({(long long)r, 1});
    }
    auto source = std::make_shared<FitsSource>();
    source->idColumn = c.id;
    source->tColumn = c.t;
    source->yColumn = c.y;
    source->dyColumn = c.dy;
    source->names = c.names;
    catalogue.m_fits = std::move(source);
}

// CSV or TSV: each object's rows go under the table's header, and are parsed as a file.
Status Catalogue::TableReader::openText(std::ifstream& in, const std::string& path,
                                        const TableColumns& columns, Catalogue& catalogue,
                                        const std::string* onlyId, bool linesOnly)
{
    std::string header;
    char delimiter = ',';
    std::unordered_map<std::string, std::size_t> index;
    std::uint64_t next = 0; // where the next line starts
    for (std::string line; std::getline(in, line);) {
        const std::uint64_t start = next;
        next += line.size() + 1;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        const std::string content = trim(line);
        if (content.empty() || content[0] == '#')
            continue;
        if (header.empty()) {
            if (Status s = textHeader(line, path, columns, catalogue, delimiter); !s)
                return s;
            header = line;
            continue;
        }
        const std::vector<std::string> cells = splitLine(line, delimiter);
        // An empty id stays empty, its rows an object apart (as a FITS table's blank ids are):
        // no name given to it could not also be a real object's.
        const std::size_t idColumn = std::size_t(catalogue.m_idColumn);
        const std::string id = idColumn < cells.size() ? cells[idColumn] : std::string();
        if (onlyId && id != *onlyId)
            continue;
        auto [at, added] = index.try_emplace(id, catalogue.m_objects.size());
        if (added) {
            Object object;
            object.id = id;
            if (!linesOnly)
                object.text = header + "\n";
            catalogue.m_objects.push_back(std::move(object));
        }
        if (linesOnly)
            catalogue.m_objects[at->second].lines.push_back(start);
        else
            catalogue.m_objects[at->second].text += line + "\n";
    }
    if (linesOnly)
        catalogue.m_header = header;
    if (header.empty())
        return Status::failure(path + " is empty");
    if (onlyId && catalogue.m_objects.empty())
        return noSuchObject(path, *onlyId);
    if (catalogue.m_objects.empty())
        return Status::failure(path + " has a header but no rows");
    if (columns.dy == "-")
        catalogue.m_choice.dy = -1;
    return Status::success();
}

// A text table's header line: its delimiter, its id column and the columns chosen by name.
Status Catalogue::TableReader::textHeader(const std::string& line, const std::string& path,
                                          const TableColumns& columns, Catalogue& catalogue,
                                          char& delimiter)
{
    // Control characters: a binary file, whose "names" would only garble the message.
    if (std::any_of(line.begin(), line.end(), [](char c) {
            const auto byte = static_cast<unsigned char>(c);
            return (byte < 0x20 && c != '\t') || byte == 0x7f;
        }))
        return Status::failure(path + " is neither a FITS table nor a text table (CSV or "
                                      "TSV): its first line holds bytes that are not text");
    delimiter = line.find('\t') != std::string::npos  ? '\t'
                : line.find(',') != std::string::npos ? ','
                : line.find(';') != std::string::npos ? ';'
                                                      : ' ';
    const std::vector<std::string> names = splitLine(line, delimiter);
    catalogue.m_idColumn = findName(names, columns.id);
    if (catalogue.m_idColumn < 0)
        return missingColumn(path, "id", columns.id, names);
    if (columns.t.empty())
        return Status::success();
    ColumnChoice& choice = catalogue.m_choice;
    choice.byName = false;
    choice.t = findName(names, columns.t);
    choice.y = findName(names, columns.y);
    choice.dy = columns.dy.empty() || columns.dy == "-" ? -1 : findName(names, columns.dy);
    if (choice.t < 0)
        return missingColumn(path, "time", columns.t, names);
    if (choice.y < 0)
        return missingColumn(path, "value", columns.y, names);
    if (choice.dy < 0 && !columns.dy.empty() && columns.dy != "-")
        return missingColumn(path, "error", columns.dy, names);
    return Status::success();
}

Status Catalogue::load(std::size_t i, TimeSeries& series, LoadReport& report) const
{
    const Object& o = m_objects[i];
    series = {};
    report = {};
    Status status;
    if (!o.path.empty()) {
        status = loadTimeSeries(o.path, m_choice, series, report);
    } else if (o.fromFits) {
        if (o.rows.empty()) {
            report = o.report;
            series = o.series;
        } else if (Status s = readFitsObject(o, series, report); !s) {
            return s;
        }
        // Sorted by time, as the app's readers leave a series.
        std::vector<std::size_t> order(series.t.size());
        std::iota(order.begin(), order.end(), std::size_t(0));
        if (!std::is_sorted(series.t.begin(), series.t.end())) {
            std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
                return series.t[a] < series.t[b];
            });
            TimeSeries sorted;
            for (std::size_t k : order) {
                sorted.t.push_back(series.t[k]);
                sorted.y.push_back(series.y[k]);
                if (!series.dy.empty())
                    sorted.dy.push_back(series.dy[k]);
            }
            series = std::move(sorted);
            report.sorted = true;
        }
        report.rows = series.t.size();
        if (series.t.empty())
            status = Status::failure("No usable rows: every row has a NaN or a non-positive error");
    } else {
        std::string text;
        if (!o.lines.empty()) {
            // An indexed table: the object's lines, read where the index found them.
            if (Status s = unchanged(); !s)
                return s;
            std::ifstream in(m_indexed, std::ios::binary);
            text = m_header + "\n";
            for (const std::uint64_t at : o.lines) {
                std::string line;
                if (!in.seekg(std::streamoff(at)) || !std::getline(in, line))
                    return Status::failure("Cannot read " + m_indexed);
                if (!line.empty() && line.back() == '\r')
                    line.pop_back();
                text += line + "\n";
            }
        }
        status = parseTimeSeries(o.lines.empty() ? o.text : text, m_choice, series, report);
        if (status && m_choice.byName)
            if (report.tColumn == m_idColumn || report.yColumn == m_idColumn)
                status = Status::failure("The id column cannot be the time or the value; "
                                         "name them with --time and --value");
    }
    return status;
}

Status Catalogue::unchanged() const
{
    std::error_code error;
    if (std::filesystem::file_size(m_indexed, error) != m_indexedBytes || error ||
        std::filesystem::last_write_time(m_indexed, error) != m_indexedTime)
        return Status::failure(m_indexed + " changed since it was read; open it again");
    return Status::success();
}

Status Catalogue::readFitsObject(const Object& o, TimeSeries& series, LoadReport& report) const
{
    if (Status s = unchanged(); !s)
        return s;
    FitsSource& source = *m_fits;
    std::unique_lock serial(source.serial, std::defer_lock);
    if (!fits_is_reentrant())
        serial.lock();
    fitsfile* file = nullptr;
    int status = 0;
    {
        const std::lock_guard lock(source.mutex);
        if (!source.idle.empty()) {
            file = source.idle.back();
            source.idle.pop_back();
        }
    }
    if (!file && (status = openFitsTable(&file, m_indexed)))
        return Status::failure("Cannot read the FITS table " + m_indexed + ": " +
                               fitsError(status));
    const FitsRows layout{
        m_indexed, source.idColumn, source.tColumn, source.yColumn, source.dyColumn, true, nullptr};
    FitsObject read;
    status = readBlocks(file, layout, o.rows, false,
                        [&](long long, std::size_t n, const long long*, const double* t,
                            const double* y, const double* dy, bool) {
                            for (std::size_t k = 0; k < n; ++k)
                                keepRow(read, t[k], y[k], dy ? dy + k : nullptr);
                        });
    if (status) { // a handle that failed is not used again
        int closing = 0;
        fits_close_file(file, &closing);
        return Status::failure("Cannot read the FITS table " + m_indexed + ": " +
                               fitsError(status));
    }
    {
        const std::lock_guard lock(source.mutex);
        source.idle.push_back(file);
    }
    series = std::move(read.series);
    report = std::move(read.report);
    report.columns = source.names;
    report.tColumn = source.tColumn;
    report.yColumn = source.yColumn;
    report.dyColumn = source.dyColumn;
    return Status::success();
}

} // namespace warpscope::gpu
