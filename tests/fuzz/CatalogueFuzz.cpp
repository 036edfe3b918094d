// libFuzzer target for FITS tables of many objects: any bytes either fail to open with a
// message, or open both ways (read whole, and indexed with each object's rows read by its
// load) into the same objects, whose every load gives the same series or the same failure.
// The two ways share cfitsio but not the code that reads the rows into objects.
// The batch's handling of ids is fuzzed too, on the objects' ids and on the bytes' lines:
// each id's results-table cell is safe in a spreadsheet and reads back as the id, and its
// periodogram file's name is a plain name that gives the id back (so distinct ids never share
// a file).
#include "warpscope/gpu/Catalogue.h"
#include "warpscope/scene/BatchIds.h"
#include "warpscope/scene/BatchResults.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <unistd.h>
#include <vector>

// cfitsio sizes some buffers from header values and checks that the allocation succeeded;
// a size beyond any memory must fail there as it does outside the fuzzer, not stop the run.
extern "C" const char* __asan_default_options()
{
    return "allocator_may_return_null=1";
}

namespace {

bool sane(const warpscope::gpu::TimeSeries& s)
{
    return !s.t.empty() && s.y.size() == s.t.size() &&
           (s.dy.empty() || s.dy.size() == s.t.size()) && std::is_sorted(s.t.begin(), s.t.end()) &&
           std::all_of(s.t.begin(), s.t.end(), [](double v) { return std::isfinite(v); }) &&
           std::all_of(s.y.begin(), s.y.end(), [](double v) { return std::isfinite(v); }) &&
           std::all_of(s.dy.begin(), s.dy.end(),
                       [](double v) { return std::isfinite(v) && v > 0; });
}

// The checks of one id that need no file; its periodogram file's name joins names.
void checkId(const std::string& id, std::set<std::string>& names)
{
    using namespace warpscope::scene;
    const std::string cell = spreadsheetSafe(id);
    if (!cell.empty() && std::string("=+-@\t\r").find(cell.front()) != std::string::npos)
        std::abort();
    if (fromSpreadsheetSafe(cell) != id)
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

// A results table of these ids (none with a line break, which the table writes as a blank)
// reads back as written, and no row starts with a cell a spreadsheet would run.
void checkTable(const std::vector<std::string>& ids, const std::string& path)
{
    using namespace warpscope::scene;
    std::vector<BatchResult> rows;
    for (const std::string& id : ids) {
        // The id as a warning too, where it reads back as one ("; " parts warnings).
        const bool warning = !id.empty() && id.find("; ") == std::string::npos;
        rows.push_back(
            {id, 1, true, {}, warning ? std::vector<std::string>{id} : std::vector<std::string>{}});
    }
    if (!writeResultsCsv(path, rows, 1))
        std::abort();
    std::vector<BatchResult> back;
    if (!readResultsCsv(path, 1, back) || back != rows)
        std::abort();
    std::ifstream in(path, std::ios::binary);
    std::string line;
    std::getline(in, line); // the header
    while (std::getline(in, line)) {
        const std::size_t first = !line.empty() && line.front() == '"' ? 1 : 0;
        if (first < line.size() && std::string("=+-@\t\r").find(line[first]) != std::string::npos)
            std::abort();
    }
}

// The ids of the bytes: each line one, and the whole.
void checkIds(const std::uint8_t* data, std::size_t size, const std::string& path)
{
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    std::set<std::string> ids{bytes};
    for (std::size_t start = 0; start <= size;) {
        const std::size_t end = std::min(bytes.find('\n', start), size);
        ids.insert(bytes.substr(start, end - start));
        start = end + 1;
    }
    std::set<std::string> names;
    std::vector<std::string> tableIds;
    for (const std::string& id : ids) {
        checkId(id, names);
        if (id.find_first_of("\r\n") == std::string::npos)
            tableIds.push_back(id);
    }
    checkTable(tableIds, path);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace warpscope::gpu;
    // The catalogue reads files: the bytes go to one of this process's own, removed when
    // the run ends.
    struct Scratch
    {
        std::string path = "/tmp/warpscope-catalogue-fuzz-" + std::to_string(::getpid()) + ".fits";
        ~Scratch() { std::remove(path.c_str()); }
    };
    static const Scratch scratch,
        table{"/tmp/warpscope-catalogue-fuzz-" + std::to_string(::getpid()) + ".results.csv"};
    const std::string& path = scratch.path;
    checkIds(data, size, table.path);

    std::FILE* file = std::fopen(path.c_str(), "wb");
    if (!file)
        std::abort();
    if (size > 0 && std::fwrite(data, 1, size, file) != size)
        std::abort();
    std::fclose(file);

    Catalogue whole, indexed;
    const Status a = Catalogue::openTable(path, TableColumns{}, TimeFormat::Auto, whole);
    const Status b = Catalogue::indexTable(path, TableColumns{}, TimeFormat::Auto, indexed);
    if ((!a && a.message().empty()) || (!b && b.message().empty()))
        std::abort();
    if (!a || !b)
        return 0;
    if (whole.size() != indexed.size() || whole.size() == 0)
        std::abort();
    std::set<std::string> names;
    for (std::size_t i = 0; i < std::min<std::size_t>(whole.size(), 64); ++i) {
        if (whole.id(i) != indexed.id(i))
            std::abort();
        checkId(whole.id(i), names); // a catalogue's ids are distinct
        TimeSeries sa, sb;
        LoadReport ra, rb;
        const Status la = whole.load(i, sa, ra), lb = indexed.load(i, sb, rb);
        if (la.ok() != lb.ok() || la.message() != lb.message())
            std::abort();
        if (la.ok() && (!sane(sa) || sa.t != sb.t || sa.y != sb.y || sa.dy != sb.dy ||
                        ra.summary() != rb.summary()))
            std::abort();
    }
    return 0;
}
