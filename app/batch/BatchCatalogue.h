#pragma once

#include "warpscope/gpu/Status.h"
#include "warpscope/gpu/TimeSeriesIO.h"

#include <string>
#include <vector>

namespace warpscope::batch {

// The columns of a table holding many objects, by name (case does not matter): the object's
// id, and t, y and dy. An empty t, y or dy takes the names the app recognises (time, flux,
// mag, ..., *_err); dy "-" uses no errors.
struct TableColumns
{
    std::string id = "id";
    std::string t, y, dy;
};

// The objects of a run, in their input order (the results table's order), each loaded on
// demand, from any thread.
class Catalogue
{
public:
    // Every light-curve file of a folder (.csv, .tsv, .txt, .dat, .fits, .fit, .fts,
    // .fits.gz, .lc), or the files a glob pattern names, sorted by path; each object's id is
    // its file name. Files are read as the app reads them (gpu::loadTimeSeries).
    static gpu::Status openFiles(const std::string& folderOrGlob, gpu::TimeFormat timeFormat,
                                 Catalogue& catalogue);
    // One table of many objects: CSV or TSV text (each object's rows are parsed as the app
    // parses a file) or a FITS binary table (the first table extension). Objects are in the
    // order of their first row.
    static gpu::Status openTable(const std::string& path, const TableColumns& columns,
                                 gpu::TimeFormat timeFormat, Catalogue& catalogue);

    std::size_t size() const { return m_objects.size(); }
    const std::string& id(std::size_t i) const { return m_objects[i].id; }
    // The object's series, as the app would load it, or why it cannot be read.
    gpu::Status load(std::size_t i, gpu::TimeSeries& series, gpu::LoadReport& report) const;

private:
    struct Object
    {
        std::string id;
        std::string path; // a file of its own; else text or series below
        std::string text; // its rows of a CSV table, under the table's header
        bool fromFits = false;
        gpu::TimeSeries series; // its rows of a FITS table
        gpu::LoadReport report;
    };
    std::vector<Object> m_objects;
    gpu::ColumnChoice m_choice;
    int m_idColumn = -1; // a CSV table's, which the recognised names must not choose
};

} // namespace warpscope::batch
