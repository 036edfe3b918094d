#include "BatchTable.h"

#include <algorithm>
#include <filesystem>
#include <fitsio.h>
#include <limits>

namespace warpscope::batch {
namespace {

gpu::Status replaceFile(const std::string& temporary, const std::string& path)
{
    std::error_code error;
    std::filesystem::rename(temporary, path, error);
    if (error) {
        std::filesystem::remove(temporary, error);
        return gpu::Status::failure("Cannot write " + path + ": " + error.message());
    }
    return gpu::Status::success();
}

std::string fitsError(int status)
{
    char text[FLEN_STATUS] = {};
    fits_get_errstatus(status, text);
    return text;
}

} // namespace

gpu::Status writeResultsFits(const std::string& path, const std::vector<BatchResult>& rows,
                             int peaks)
{
    const std::string temporary = path + ".writing";
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const std::string vector = std::to_string(std::max(peaks, 1)) + "D";
    std::size_t idWidth = 1, warningWidth = 1;
    for (const BatchResult& r : rows) {
        idWidth = std::max(idWidth, r.id.size());
        warningWidth = std::max(warningWidth, scene::warningsText(r).size());
    }
    const std::string idForm = std::to_string(idWidth) + "A";
    const std::string warningForm = std::to_string(warningWidth) + "A";
    const char* names[] = {"ID",          "STATUS",     "POINTS",   "BEST_FREQUENCY",
                           "BEST_PERIOD", "BEST_POWER", "BEST_FAP", "PEAK_PERIOD",
                           "PEAK_POWER",  "PEAK_FAP",   "WARNINGS"};
    const char* forms[] = {idForm.c_str(),
                           "6A",
                           "K",
                           "D",
                           "D",
                           "D",
                           "D",
                           vector.c_str(),
                           vector.c_str(),
                           vector.c_str(),
                           warningForm.c_str()};
    constexpr int columnCount = int(std::size(names));

    fitsfile* file = nullptr;
    int status = 0;
    const std::string create = "!" + temporary; // "!": replace a file left by a failed write
    fits_create_file(&file, create.c_str(), &status);
    if (status)
        return gpu::Status::failure("Cannot write " + path + ": " + fitsError(status));
    fits_create_tbl(file, BINARY_TBL, 0, columnCount, const_cast<char**>(names),
                    const_cast<char**>(forms), nullptr, "RESULTS", &status);
    // The table is written a few rows at a time, every column of them, as many rows as
    // cfitsio's buffers hold: written column after column, each column's pass over the whole
    // file would read back the blocks the previous pass had flushed (0.6 s for 100 000 rows).
    long block = 1;
    fits_get_rowsize(file, &block, &status);
    const std::size_t blockRows = std::size_t(std::max(block, 1L));
    const std::size_t peakCount = std::size_t(std::max(peaks, 1));
    std::vector<std::string> ids, states, warnings;
    std::vector<char*> pointers; // a text column's cells, as cfitsio takes them
    std::vector<long long> points;
    std::vector<double> best[4];
    std::vector<double> peakColumns[3];
    for (std::size_t first = 0; first < rows.size() && !status; first += blockRows) {
        const std::size_t count = std::min(blockRows, rows.size() - first);
        for (auto* cells : {&ids, &states, &warnings})
            cells->clear();
        points.clear();
        for (auto& c : best)
            c.clear();
        for (auto& c : peakColumns)
            c.clear();
        for (std::size_t i = first; i < first + count; ++i) {
            const BatchResult& r = rows[i];
            ids.push_back(r.id);
            states.push_back(r.failed ? "failed" : "ok");
            warnings.push_back(scene::warningsText(r));
            points.push_back(r.points);
            const BatchPeak* b = r.peaks.empty() ? nullptr : &r.peaks.front();
            best[0].push_back(b ? b->frequency : nan);
            best[1].push_back(b ? b->period : nan);
            best[2].push_back(b ? b->power : nan);
            best[3].push_back(b && b->fap ? *b->fap : nan);
            for (std::size_t j = 0; j < peakCount; ++j) {
                const BatchPeak* p = j < r.peaks.size() && int(j) < peaks ? &r.peaks[j] : nullptr;
                peakColumns[0].push_back(p ? p->period : nan);
                peakColumns[1].push_back(p ? p->power : nan);
                peakColumns[2].push_back(p && p->fap ? *p->fap : nan);
            }
        }
        const auto writeStrings = [&](int column, std::vector<std::string>& cells) {
            pointers.clear();
            for (std::string& c : cells)
                pointers.push_back(c.data());
            fits_write_col(file, TSTRING, column, (long long)first + 1, 1, (long long)count,
                           pointers.data(), &status);
        };
        const long long row = (long long)first + 1, n = (long long)count;
        writeStrings(1, ids);
        writeStrings(2, states);
        fits_write_col(file, TLONGLONG, 3, row, 1, n, points.data(), &status);
        for (int c = 0; c < 4; ++c)
            fits_write_col(file, TDOUBLE, 4 + c, row, 1, n, best[c].data(), &status);
        for (int c = 0; c < 3; ++c)
            fits_write_col(file, TDOUBLE, 8 + c, row, 1, n * (long long)peakCount,
                           peakColumns[c].data(), &status);
        writeStrings(11, warnings);
    }
    fits_write_key_str(file, "ORIGIN", "warpscope-batch", "periodograms of a catalogue", &status);
    const int written = status;
    fits_close_file(file, &status);
    if (written || status) {
        std::error_code ignored;
        std::filesystem::remove(temporary, ignored);
        return gpu::Status::failure("Cannot write " + path + ": " +
                                    fitsError(written ? written : status));
    }
    return replaceFile(temporary, path);
}

} // namespace warpscope::batch
