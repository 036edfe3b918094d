#pragma once
// The batch's rules for ids, checked by the fuzz targets (each check aborts on a breach):
// each id's results-table cell is safe in a spreadsheet and reads back as the id, and its
// periodogram file's name is a plain name that gives the id back, so that distinct ids never
// share a file.
#include "warpscope/scene/BatchIds.h"
#include "warpscope/scene/BatchResults.h"

#include <cstdlib>
#include <set>
#include <string>
#include <vector>

namespace warpscope::fuzz {

// The cells a spreadsheet would run: those starting with one of these.
inline bool runnable(const std::string& cell, std::size_t first = 0)
{
    return first < cell.size() && std::string("=+-@\t\r").find(cell[first]) != std::string::npos;
}

// The checks of one id that need no file; its periodogram file's name joins names.
inline void checkId(const std::string& id, std::set<std::string>& names)
{
    using namespace warpscope::scene;
    const std::string cell = spreadsheetSafe(id);
    if (runnable(cell) || fromSpreadsheetSafe(cell) != id)
        std::abort();
    const std::string name = periodogramFileName(id);
    if (id.empty()) {
        if (!name.empty())
            std::abort();
        return;
    }
    if (name.empty() || name.front() == '.' || name.find('/') != std::string::npos ||
        name.find('\0') != std::string::npos || periodogramFileId(name) != id)
        std::abort();
    if (!names.insert(name).second) // each id is checked once: a name met again is shared
        std::abort();
}

// The results table's row of the id (with the id as its warning too, where it reads back as
// one: "; " parts warnings) is one line, starts with no cell a spreadsheet would run, and
// reads back as written. An id with a line break is written with a blank (every row is one
// line), so it reads back otherwise: only its line is checked.
inline void checkRow(const std::string& id)
{
    using namespace warpscope::scene;
    const bool warning = !id.empty() && id.find("; ") == std::string::npos;
    const BatchResult row{
        id, 1, true, {}, warning ? std::vector<std::string>{id} : std::vector<std::string>{}};
    std::string line;
    appendResultsCsvRow(line, row, 1);
    if (line.empty() || line.find_first_of("\r\n") != line.size() - 1 ||
        runnable(line, line.front() == '"' ? 1 : 0))
        std::abort();
    line.pop_back();
    BatchResult back;
    if (!parseResultsCsvRow(line, 1, back))
        std::abort();
    if (id.find_first_of("\r\n") == std::string::npos && back != row)
        std::abort();
}

// Every check on distinct ids.
inline void checkIds(const std::set<std::string>& ids)
{
    std::set<std::string> names;
    for (const std::string& id : ids) {
        checkId(id, names);
        checkRow(id);
    }
}

} // namespace warpscope::fuzz
