#pragma once

#include "warpscope/gpu/Status.h"
#include "warpscope/gpu/TimeSeriesIO.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace warpscope::gpu {

// The columns of a table holding many objects, by name (case does not matter): the object's
// id, and t, y and dy. An empty t, y or dy takes the names the app recognises (time, flux,
// mag, ..., *_err); dy "-" uses no errors.
struct TableColumns
{
    std::string id = "id";
    std::string t, y, dy;
    bool operator==(const TableColumns&) const = default;
};

// The objects of a survey, in their input order (warpscope-batch's results table's order),
// each loaded on demand, from any thread. The batch reads whole catalogues; the app reads one
// object of a table the batch ran on, with the same columns, so that it sees the same series.
class Catalogue
{
public:
    // Every light-curve file of a folder (.csv, .tsv, .txt, .dat, .fits, .fit, .fts,
    // .fits.gz, .lc), or the files a glob pattern names, sorted by path; each object's id is
    // its file name. Files are read as the app reads them (loadTimeSeries).
    static Status openFiles(const std::string& folderOrGlob, TimeFormat timeFormat,
                            Catalogue& catalogue);
    // One table of many objects: CSV or TSV text (each object's rows are parsed as the app
    // parses a file) or a FITS binary table (the first table extension). Objects are in the
    // order of their first row. With onlyId, the catalogue holds that object alone, the
    // other rows being skipped as they are read (a FITS table's columns are read for its
    // rows only), and fails, saying so, when the table has no such object.
    static Status openTable(const std::string& path, const TableColumns& columns,
                            TimeFormat timeFormat, Catalogue& catalogue,
                            const std::string* onlyId = nullptr);
    // A table's objects with where their rows lie in the file instead of the rows: a CSV or
    // TSV table read once, or a FITS table's id column alone; then each load reads its
    // object's rows alone, from any thread (a FITS table through handles of its own, one per
    // load at once). warpscope-batch computes the first objects while the others wait in the
    // file, and holds only those in flight; the app chooses object after object of a survey.
    // A load fails, saying so, when the file changed since.
    static Status indexTable(const std::string& path, const TableColumns& columns,
                             TimeFormat timeFormat, Catalogue& catalogue);
    // Whether path starts as a FITS file does (openTable then reads a binary table).
    static bool isFits(const std::string& path);

    std::size_t size() const { return m_objects.size(); }
    const std::string& id(std::size_t i) const { return m_objects[i].id; }
    // The object of that id, or size() when there is none.
    std::size_t find(const std::string& id) const;
    // The object's series, as the app would load it, or why it cannot be read.
    Status load(std::size_t i, TimeSeries& series, LoadReport& report) const;

private:
    struct RowRange
    {
        long long first = 0, count = 0; // rows from 0
    };
    struct Object
    {
        std::string id;
        std::string path;                 // a file of its own; else text or series below
        std::string text;                 // its rows of a CSV table, under the table's header
        std::vector<std::uint64_t> lines; // or where they start in m_indexed
        bool fromFits = false;
        TimeSeries series; // its rows of a FITS table
        LoadReport report;
        std::vector<RowRange> rows; // or where they lie in m_indexed, a FITS table
    };
    // An indexed FITS table's columns and its open handles (defined with cfitsio's types).
    struct FitsSource;
    std::vector<Object> m_objects;
    std::shared_ptr<FitsSource> m_fits;
    ColumnChoice m_choice;
    int m_idColumn = -1; // a CSV table's, which the recognised names must not choose
    // An indexed table: the file, its header line, and its size and time when indexed.
    std::string m_indexed, m_header;
    std::uintmax_t m_indexedBytes = 0;
    std::filesystem::file_time_type m_indexedTime{};

    static Status open(const std::string& path, const TableColumns& columns, TimeFormat timeFormat,
                       Catalogue& catalogue, const std::string* onlyId, bool linesOnly);
    // open's parts for FITS and text tables (Catalogue.cpp), which fill the objects.
    struct TableReader;
    // Whether the indexed file is as it was when indexed.
    Status unchanged() const;
    // An indexed FITS object's rows, read from the file.
    Status readFitsObject(const Object& o, TimeSeries& series, LoadReport& report) const;
};

} // namespace warpscope::gpu
