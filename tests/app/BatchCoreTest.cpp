// The batch program's headless core: the results table's round trip and its refusals, and
// how a table of many objects is split into objects.
#include "BatchAnalysis.h"
#include "BatchRun.h"
#include "BatchTable.h"
#include "BatchTrace.h"
#include "HostPool.h"
#include "warpscope/gpu/Catalogue.h"
#include "warpscope/scene/BatchIds.h"
#include "warpscope/scene/BatchSource.h"
#include "warpscope/scene/PeriodogramCost.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <filesystem>
#include <fitsio.h>
#include <fstream>
#include <gtest/gtest.h>
#include <limits>
#include <random>
#include <sstream>
#include <thread>
#include <tuple>
#include <unistd.h>

using namespace warpscope;
using namespace warpscope::batch;

namespace {

// A folder of this process's own, so that builds testing at once do not meet; removed when
// the tests end.
std::filesystem::path scratchFolder()
{
    return std::filesystem::temp_directory_path() /
           ("warpscope-batch-core-" + std::to_string(::getpid()));
}

class RemoveScratch : public ::testing::Environment
{
    void TearDown() override
    {
        std::error_code ignored;
        std::filesystem::remove_all(scratchFolder(), ignored);
    }
};
const auto* g_removeScratch = ::testing::AddGlobalTestEnvironment(new RemoveScratch);

std::string scratch(const std::string& name)
{
    std::filesystem::create_directories(scratchFolder());
    return (scratchFolder() / name).string();
}

// Each table is refused, read whole and indexed alike, its reason in the message.
void expectRefusedBothWays(const std::vector<std::pair<std::string, std::string>>& cases)
{
    for (const auto& [path, why] : cases)
        for (const bool indexed : {false, true}) {
            gpu::Catalogue catalogue;
            const gpu::Status s =
                indexed ? gpu::Catalogue::indexTable(path, {}, gpu::TimeFormat::Auto, catalogue)
                        : gpu::Catalogue::openTable(path, {}, gpu::TimeFormat::Auto, catalogue);
            EXPECT_FALSE(s) << path;
            EXPECT_NE(s.message().find(why), std::string::npos) << s.message();
        }
}

std::string read(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

void write(const std::string& path, const std::string& text)
{
    std::ofstream(path, std::ios::binary) << text;
}

std::vector<BatchResult> hostileRows()
{
    BatchResult good{"star, \"the\" first", 120, false, {}, {}};
    good.peaks.push_back({0.25, 4.0, 0.8, 1e-30});
    good.peaks.push_back({1.0 / 3.0, 3.0, 0.1 + 0.2, std::nullopt});
    // A strong signal's false-alarm probability underflows to a subnormal number.
    good.peaks.push_back({0.5, 2.0, 0.9, 1e-310});
    good.warnings = {"rows skipped: 2 with NaN or infinite values"};
    BatchResult failed{"broken.csv", 0, true, {}, {"unreadable: not a text file"}};
    BatchResult quiet{"12345", 3, false, {}, {"no peak"}};
    return {good, failed, quiet};
}

} // namespace

TEST(BatchTable, CsvRoundTripKeepsEveryValueAndTheBytes)
{
    const std::string path = scratch("round.csv");
    const std::vector<BatchResult> rows = hostileRows();
    ASSERT_TRUE(writeResultsCsv(path, rows, 3));
    std::vector<BatchResult> back;
    ASSERT_TRUE(readResultsCsv(path, 3, back));
    ASSERT_EQ(back.size(), rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        EXPECT_EQ(back[i].id, rows[i].id);
        EXPECT_EQ(back[i].points, rows[i].points);
        EXPECT_EQ(back[i].failed, rows[i].failed);
        EXPECT_EQ(back[i].warnings, rows[i].warnings);
        ASSERT_EQ(back[i].peaks.size(), rows[i].peaks.size());
        for (std::size_t k = 0; k < rows[i].peaks.size(); ++k) {
            EXPECT_EQ(back[i].peaks[k].period, rows[i].peaks[k].period); // 17 digits: exact
            EXPECT_EQ(back[i].peaks[k].power, rows[i].peaks[k].power);
            EXPECT_EQ(back[i].peaks[k].fap, rows[i].peaks[k].fap);
        }
    }
    EXPECT_EQ(back[0].peaks[0].frequency, 0.25);
    std::vector<BatchResult> anyPeaks; // peaks 0: the header says how many (the app's reading)
    ASSERT_TRUE(readResultsCsv(path, 0, anyPeaks));
    EXPECT_EQ(anyPeaks, back);
    const std::string again = scratch("again.csv");
    ASSERT_TRUE(writeResultsCsv(again, back, 3));
    EXPECT_EQ(read(path), read(again));
    EXPECT_FALSE(std::filesystem::exists(path + ".writing"));
}

TEST(BatchTable, RefusesWhatItDidNotWrite)
{
    const std::string path = scratch("bad.csv");
    std::vector<BatchResult> rows;
    ASSERT_TRUE(writeResultsCsv(path, hostileRows(), 2));
    const gpu::Status otherPeaks = readResultsCsv(path, 3, rows);
    EXPECT_FALSE(otherPeaks);
    EXPECT_NE(otherPeaks.message().find("--peaks must match"), std::string::npos);

    std::string header;
    for (const std::string& c : resultColumns(1))
        header += (header.empty() ? "" : ",") + c;
    const std::vector<std::pair<std::string, std::string>> cases{
        {"a,ok,3", "expected 11 cells"},       {"a,maybe,3,,,,,,,,", "neither ok nor failed"},
        {"a,ok,2.5,,,,,,,,", "whole number"},  {"a,ok,-3,,,,,,,,", "whole number"},
        {"a,ok,3,0.5,2,0.9,,2,x,,", "peak 1"}, {"\"a,ok,3,,,,,,,,", "expected 11 cells"}};
    for (const auto& [row, why] : cases) {
        write(path, header + "\n" + row + "\n");
        const gpu::Status s = readResultsCsv(path, 1, rows);
        EXPECT_FALSE(s) << row;
        EXPECT_NE(s.message().find(why), std::string::npos) << row << ": " << s.message();
        EXPECT_NE(s.message().find("line 2"), std::string::npos) << s.message();
    }
    EXPECT_FALSE(readResultsCsv(scratch("missing.csv"), 1, rows));
}

TEST(BatchTable, FitsTableHoldsTheRowsWithNullsForMissingValues)
{
    const std::string path = scratch("round.fits");
    ASSERT_TRUE(writeResultsFits(path, hostileRows(), 2));
    fitsfile* file = nullptr;
    int status = 0;
    ASSERT_EQ(fits_open_table(&file, path.c_str(), READONLY, &status), 0);
    long long rows = 0;
    fits_get_num_rowsll(file, &rows, &status);
    EXPECT_EQ(rows, 3);
    int column = 0;
    fits_get_colnum(file, CASEINSEN, const_cast<char*>("PEAK_FAP"), &column, &status);
    double fap[6] = {};
    int anyNull = 0;
    fits_read_col(file, TDOUBLE, column, 1, 1, 6, nullptr, fap, &anyNull, &status);
    EXPECT_EQ(fap[0], 1e-30);
    EXPECT_TRUE(std::isnan(fap[1]));                       // no FAP: null
    EXPECT_TRUE(std::isnan(fap[2]) && std::isnan(fap[3])); // a failed row: nulls
    char id[64] = {}, *ids[] = {id};
    fits_get_colnum(file, CASEINSEN, const_cast<char*>("ID"), &column, &status);
    fits_read_col(file, TSTRING, column, 1, 1, 1, nullptr, ids, &anyNull, &status);
    EXPECT_STREQ(id, "star, \"the\" first");
    fits_close_file(file, &status);
    EXPECT_EQ(status, 0);
}

// Far more rows than cfitsio buffers at once, so that the table is written in many pieces:
// every cell of every row must come back, in its place.
TEST(BatchTable, FitsTableHoldsEveryRowOfALargeTable)
{
    constexpr int kRows = 7919, kPeaks = 3;
    std::vector<BatchResult> rows(kRows);
    for (int i = 0; i < kRows; ++i) {
        BatchResult& r = rows[std::size_t(i)];
        r.id = "object-" + std::to_string(i * 7);
        r.points = 100 + i;
        r.failed = i % 97 == 0;
        if (r.failed)
            r.warnings = {"warning " + std::to_string(i)};
        else
            for (int j = 0; j < kPeaks - i % 2; ++j)
                r.peaks.push_back({1.0 / (i + j + 1), double(i + j + 1), 0.5 + 1e-5 * i - 0.1 * j,
                                   j == 1 ? std::nullopt : std::optional<double>(1e-3 * j)});
    }
    const std::string path = scratch("large.fits");
    ASSERT_TRUE(writeResultsFits(path, rows, kPeaks));
    fitsfile* file = nullptr;
    int status = 0;
    ASSERT_EQ(fits_open_table(&file, path.c_str(), READONLY, &status), 0);
    long long count = 0;
    fits_get_num_rowsll(file, &count, &status);
    ASSERT_EQ(count, kRows);
    const auto column = [&](const char* name) {
        int number = 0;
        fits_get_colnum(file, CASEINSEN, const_cast<char*>(name), &number, &status);
        return number;
    };
    const auto numbers = [&](const char* name, long long perRow) {
        std::vector<double> values(std::size_t(kRows * perRow));
        int anyNull = 0;
        fits_read_col(file, TDOUBLE, column(name), 1, 1, kRows * perRow, nullptr, values.data(),
                      &anyNull, &status);
        return values;
    };
    const auto strings = [&](const char* name) {
        std::vector<std::string> values;
        char cell[64] = {}, *cells[] = {cell};
        int anyNull = 0;
        for (long long r = 1; r <= kRows; ++r) {
            fits_read_col(file, TSTRING, column(name), r, 1, 1, nullptr, cells, &anyNull, &status);
            // cfitsio reads an empty cell back as one blank.
            values.emplace_back(std::string(cell) == " " ? "" : cell);
        }
        return values;
    };
    const std::vector<std::string> ids = strings("ID"), states = strings("STATUS"),
                                   warnings = strings("WARNINGS");
    const std::vector<double> points = numbers("POINTS", 1), best = numbers("BEST_POWER", 1),
                              period = numbers("PEAK_PERIOD", kPeaks),
                              fap = numbers("PEAK_FAP", kPeaks);
    ASSERT_EQ(status, 0);
    const auto same = [](double written, double expected) {
        return std::isnan(expected) ? std::isnan(written) : written == expected;
    };
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (int i = 0; i < kRows; ++i) {
        const BatchResult& r = rows[std::size_t(i)];
        ASSERT_EQ(ids[std::size_t(i)], r.id) << i;
        ASSERT_EQ(states[std::size_t(i)], r.failed ? "failed" : "ok") << i;
        ASSERT_EQ(warnings[std::size_t(i)], warningsText(r)) << i;
        ASSERT_EQ(points[std::size_t(i)], double(r.points)) << i;
        ASSERT_TRUE(same(best[std::size_t(i)], r.peaks.empty() ? nan : r.peaks[0].power)) << i;
        for (std::size_t j = 0; j < std::size_t(kPeaks); ++j) {
            const BatchPeak* p = j < r.peaks.size() ? &r.peaks[j] : nullptr;
            const std::size_t at = std::size_t(i) * kPeaks + j;
            ASSERT_TRUE(same(period[at], p ? p->period : nan)) << i << " " << j;
            ASSERT_TRUE(same(fap[at], p && p->fap ? *p->fap : nan)) << i << " " << j;
        }
    }
    fits_close_file(file, &status);
    EXPECT_EQ(status, 0);
}

// A table given compressed, or a file that is no table at all, is named as such, read whole
// or indexed, instead of being parsed as text and its bytes shown as column names.
TEST(BatchCatalogue, CompressedAndBinaryFilesAreNamedAsSuch)
{
    const auto write = [](const std::string& name, const std::string& bytes) {
        const std::string path = scratch(name);
        std::ofstream(path, std::ios::binary) << bytes;
        return path;
    };
    const std::string gzip = write("table.fits.gz", std::string("\x1f\x8b\x08\x00rest", 8));
    const std::string binary = write("table.bin", std::string("\x7f"
                                                              "ELF\x02\x01\x01\n",
                                                              8));
    const std::vector<std::pair<std::string, std::string>> cases{
        {gzip, "is compressed with gzip"}, {binary, "is neither a FITS table nor a text table"}};
    expectRefusedBothWays(cases);
}

// A FITS table of columns id, time and flux (K, D, D) and, when given, note (56A: a row of 80
// bytes, each at a card's place in the data), with these rows.
std::string fitsTable(const std::string& name, const std::vector<long long>& ids,
                      const std::vector<double>& t, const std::vector<double>& y,
                      const std::vector<std::string>& notes = {})
{
    const std::string path = scratch(name);
    std::filesystem::remove(path);
    fitsfile* file = nullptr;
    int status = 0;
    fits_create_file(&file, path.c_str(), &status);
    const char* names[] = {"id", "time", "flux", "note"};
    const char* forms[] = {"K", "D", "D", "56A"};
    fits_create_tbl(file, BINARY_TBL, 0, notes.empty() ? 3 : 4, const_cast<char**>(names),
                    const_cast<char**>(forms), nullptr, "OBJECTS", &status);
    fits_write_col(file, TLONGLONG, 1, 1, 1, LONGLONG(ids.size()),
                   const_cast<long long*>(ids.data()), &status);
    fits_write_col(file, TDOUBLE, 2, 1, 1, LONGLONG(t.size()), const_cast<double*>(t.data()),
                   &status);
    fits_write_col(file, TDOUBLE, 3, 1, 1, LONGLONG(y.size()), const_cast<double*>(y.data()),
                   &status);
    std::vector<char*> text;
    for (const std::string& note : notes)
        text.push_back(const_cast<char*>(note.c_str()));
    if (!notes.empty())
        fits_write_col(file, TSTRING, 4, 1, 1, LONGLONG(text.size()), text.data(), &status);
    fits_close_file(file, &status);
    EXPECT_EQ(status, 0) << name;
    return path;
}

// A header card that would overflow cfitsio's buffer (not valid FITS) is refused before cfitsio
// reads the header; a table compressed in tiles by fpack, whose columns hold compressed bytes,
// is named as such.
TEST(BatchCatalogue, OverfullCardsAndTilesAreRefusedWithTheirReason)
{
    // cfitsio leaves a table of less than a block uncompressed: 2000 rows are compressed.
    std::vector<long long> ids(2000, 1);
    std::vector<double> t(ids.size()), y(ids.size());
    for (std::size_t i = 0; i < t.size(); ++i) {
        t[i] = double(i);
        y[i] = std::sin(0.1 * double(i));
    }
    const std::string plain = fitsTable("plain.fits", ids, t, y);
    const std::string packed = scratch("packed.fits");
    std::filesystem::remove(packed);
    fitsfile *in = nullptr, *out = nullptr;
    int status = 0;
    fits_open_file(&in, plain.c_str(), READONLY, &status);
    fits_create_file(&out, packed.c_str(), &status);
    fits_copy_hdu(in, out, 0, &status);
    fits_movabs_hdu(in, 2, nullptr, &status);
    fits_compress_table(in, out, &status);
    fits_close_file(out, &status);
    fits_close_file(in, &status);
    ASSERT_EQ(status, 0);
    expectRefusedBothWays(
        {{WARPSCOPE_FIXTURE_DIR "/fits/overfull_card.fits",
          "the header card TTYPE1 (card 45 of the file) has an unquoted value of more than 68"},
         {packed, "is a table compressed in tiles (by fpack)"}});
}

// Only the headers are searched for such cards: data bytes that read as one, at a card's
// place, are data. Here the id's first bytes, "ABCD=", begin the card.
TEST(BatchCatalogue, DataThatReadsLikeAHeaderCardIsData)
{
    const long long cardId = 0x414243443D787878LL;                  // "ABCD=xxx"
    const double xs = std::bit_cast<double>(0x7878787878787878ULL); // "xxxxxxxx"
    const std::string path =
        fitsTable("card.fits", {7, cardId, 7}, {1, xs, 2}, {3, xs, 4},
                  {std::string(56, 'a'), std::string(56, 'x'), std::string(56, 'b')});
    for (const bool indexed : {false, true}) {
        gpu::Catalogue catalogue;
        const gpu::Status s =
            indexed ? gpu::Catalogue::indexTable(path, {}, gpu::TimeFormat::Auto, catalogue)
                    : gpu::Catalogue::openTable(path, {}, gpu::TimeFormat::Auto, catalogue);
        ASSERT_TRUE(s) << s.message();
        ASSERT_EQ(catalogue.size(), 2u);
        EXPECT_EQ(catalogue.id(1), std::to_string(cardId));
        gpu::TimeSeries series;
        gpu::LoadReport report;
        ASSERT_TRUE(catalogue.load(1, series, report));
        EXPECT_EQ(series.t, std::vector<double>{xs});
        ASSERT_TRUE(catalogue.load(0, series, report));
        EXPECT_EQ(series.y, (std::vector<double>{3, 4}));
    }
}

TEST(BatchCatalogue, CsvTableGroupsRowsByIdInOrderOfFirstRow)
{
    const std::string path = scratch("table.csv");
    write(path, "# a comment\r\nobject\ttime\tflux\n"
                "b\t1\t2\nb\t2\t3\na\t5\t1\nb\t3\t1\na\t4\t2\na\t6\t4\nc\t1\tnan\n");
    gpu::TableColumns columns;
    columns.id = "OBJECT";
    gpu::Catalogue catalogue;
    ASSERT_TRUE(gpu::Catalogue::openTable(path, columns, gpu::TimeFormat::Auto, catalogue));
    ASSERT_EQ(catalogue.size(), 3u);
    EXPECT_EQ(catalogue.id(0), "b");
    EXPECT_EQ(catalogue.id(1), "a");
    gpu::TimeSeries series;
    gpu::LoadReport report;
    ASSERT_TRUE(catalogue.load(1, series, report));
    EXPECT_EQ(series.t, (std::vector<double>{4, 5, 6})); // sorted, as the app's reader does
    EXPECT_EQ(series.y, (std::vector<double>{2, 1, 4}));
    ASSERT_TRUE(catalogue.load(0, series, report));
    EXPECT_EQ(series.t.size(), 3u);
    EXPECT_FALSE(catalogue.load(2, series, report)); // nothing usable: said, not thrown

    columns.id = "name";
    const gpu::Status missing =
        gpu::Catalogue::openTable(path, columns, gpu::TimeFormat::Auto, catalogue);
    EXPECT_FALSE(missing);
    EXPECT_NE(missing.message().find("object, time, flux"), std::string::npos) << missing.message();
    columns = {};
    columns.id = "object";
    columns.t = "time";
    EXPECT_FALSE(gpu::Catalogue::openTable(path, columns, gpu::TimeFormat::Auto, catalogue));
    columns.y = "brightness";
    const gpu::Status noValue =
        gpu::Catalogue::openTable(path, columns, gpu::TimeFormat::Auto, catalogue);
    EXPECT_NE(noValue.message().find("no value column 'brightness'"), std::string::npos);
}

// The app opens one object of a long table: its rows alone, as the whole catalogue has them.
TEST(BatchCatalogue, OneObjectOfACsvTable)
{
    const std::string path = scratch("one-of-table.csv");
    write(path, "object,time,flux\nb,1,2\nb,2,3\na,5,1\nb,3,1\na,4,2\na,6,4\n");
    gpu::TableColumns columns;
    columns.id = "object";
    const std::string a = "a", nobody = "z";
    gpu::Catalogue catalogue;
    ASSERT_TRUE(gpu::Catalogue::openTable(path, columns, gpu::TimeFormat::Auto, catalogue, &a));
    ASSERT_EQ(catalogue.size(), 1u);
    EXPECT_EQ(catalogue.id(0), "a");
    gpu::TimeSeries series;
    gpu::LoadReport report;
    ASSERT_TRUE(catalogue.load(0, series, report));
    EXPECT_EQ(series.t, (std::vector<double>{4, 5, 6}));
    EXPECT_EQ(series.y, (std::vector<double>{2, 1, 4}));
    const gpu::Status missing =
        gpu::Catalogue::openTable(path, columns, gpu::TimeFormat::Auto, catalogue, &nobody);
    EXPECT_FALSE(missing);
    EXPECT_NE(missing.message().find("no object 'z'"), std::string::npos) << missing.message();
}

// The fixture's FITS table (generate_batch.py): star02 has 150 rows, gappy 90 of which 3 have
// NaN flux; the ids are strings.
TEST(BatchCatalogue, OneObjectOfAFitsTable)
{
    const std::string path = WARPSCOPE_FIXTURE_DIR "/batch/catalogue.fits";
    const gpu::TableColumns columns;
    gpu::Catalogue catalogue;
    gpu::TimeSeries series;
    gpu::LoadReport report;
    for (const auto& [id, points, skipped] :
         {std::tuple{std::string("star02"), 150u, 0u}, std::tuple{std::string("gappy"), 87u, 3u}}) {
        ASSERT_TRUE(
            gpu::Catalogue::openTable(path, columns, gpu::TimeFormat::Auto, catalogue, &id));
        ASSERT_EQ(catalogue.size(), 1u);
        EXPECT_EQ(catalogue.id(0), id);
        ASSERT_TRUE(catalogue.load(0, series, report));
        EXPECT_EQ(series.t.size(), points) << id;
        EXPECT_EQ(series.dy.size(), points) << id;
        EXPECT_EQ(report.nonFiniteRows, skipped) << id;
        EXPECT_TRUE(std::is_sorted(series.t.begin(), series.t.end()));
    }
    const std::string nobody = "star99";
    EXPECT_FALSE(
        gpu::Catalogue::openTable(path, columns, gpu::TimeFormat::Auto, catalogue, &nobody));
}

// A survey's FITS table with whole-number ids (as warpscope-bench writes W1), an object's
// rows in two runs: its runs alone are read, in order, and the id must be written as the
// catalogue writes numbers.
TEST(BatchCatalogue, OneObjectOfAFitsTableWithNumericIds)
{
    const std::string path = scratch("numeric.fits");
    std::filesystem::remove(path);
    fitsfile* file = nullptr;
    int status = 0;
    ASSERT_EQ(fits_create_file(&file, path.c_str(), &status), 0);
    const char* names[] = {"id", "time", "flux", "flux_err"};
    const char* forms[] = {"K", "D", "D", "D"};
    fits_create_tbl(file, BINARY_TBL, 0, 4, const_cast<char**>(names), const_cast<char**>(forms),
                    nullptr, "OBJECTS", &status);
    long long id[] = {7, 7, 42, 7, 42, 9};
    double t[] = {3, 1, 5, 2, 6, 1}, y[] = {1, 2, 3, 4, 5, 6}, dy[] = {1, 1, 1, -1, 1, 1};
    fits_write_col(file, TLONGLONG, 1, 1, 1, 6, id, &status);
    fits_write_col(file, TDOUBLE, 2, 1, 1, 6, t, &status);
    fits_write_col(file, TDOUBLE, 3, 1, 1, 6, y, &status);
    fits_write_col(file, TDOUBLE, 4, 1, 1, 6, dy, &status);
    fits_close_file(file, &status);
    ASSERT_EQ(status, 0);

    const gpu::TableColumns columns;
    gpu::Catalogue catalogue;
    gpu::TimeSeries series;
    gpu::LoadReport report;
    const std::string seven = "7";
    ASSERT_TRUE(gpu::Catalogue::openTable(path, columns, gpu::TimeFormat::Auto, catalogue, &seven));
    ASSERT_EQ(catalogue.size(), 1u);
    EXPECT_EQ(catalogue.id(0), "7");
    ASSERT_TRUE(catalogue.load(0, series, report));
    EXPECT_EQ(series.t, (std::vector<double>{1, 3})); // rows 1 and 2; row 4 has dy < 0
    EXPECT_EQ(series.y, (std::vector<double>{2, 1}));
    EXPECT_EQ(report.nonPositiveErrors, 1u);
    const std::string fortyTwo = "42";
    ASSERT_TRUE(
        gpu::Catalogue::openTable(path, columns, gpu::TimeFormat::Auto, catalogue, &fortyTwo));
    ASSERT_TRUE(catalogue.load(0, series, report));
    EXPECT_EQ(series.t, (std::vector<double>{5, 6}));
    for (const std::string other : {"007", "7.0", "x", ""})
        EXPECT_FALSE(
            gpu::Catalogue::openTable(path, columns, gpu::TimeFormat::Auto, catalogue, &other))
            << other;
}

// Hostile FITS tables: a time column of two values a row would be read across rows, and a
// text flux column not at all; both are refused when the table is opened, whole or indexed,
// with the column named, rather than failing object after object.
TEST(BatchCatalogue, FitsColumnsMustHoldOneNumberARow)
{
    const auto table = [](const std::string& name, const char* timeForm, const char* fluxForm) {
        const std::string path = scratch(name);
        std::filesystem::remove(path);
        fitsfile* file = nullptr;
        int status = 0;
        fits_create_file(&file, path.c_str(), &status);
        const char* names[] = {"id", "time", "flux"};
        const char* forms[] = {"K", timeForm, fluxForm};
        fits_create_tbl(file, BINARY_TBL, 0, 3, const_cast<char**>(names),
                        const_cast<char**>(forms), nullptr, "OBJECTS", &status);
        long long id[] = {1, 1, 1, 2};
        fits_write_col(file, TLONGLONG, 1, 1, 1, 4, id, &status);
        fits_close_file(file, &status);
        EXPECT_EQ(status, 0);
        return path;
    };
    const std::vector<std::pair<std::string, std::string>> cases{
        {table("vector-time.fits", "2D", "D"), "'time' holds 2 values a row"},
        {table("text-flux.fits", "D", "8A"), "'flux' does not hold numbers"}};
    expectRefusedBothWays(cases);
}

// Text ids are cut from the rows' bytes: wherever the id column lies, after columns of every
// kind of size (bits, bytes, a vector, complex numbers, a variable-length array), padded with
// blanks on either side or ended early by a NUL, each object gets its rows. An id column of
// several texts a row is refused.
TEST(BatchCatalogue, FitsTextIdsAreCutFromTheirRowsWhereverTheColumnLies)
{
    const std::string path = scratch("text-ids.fits");
    std::filesystem::remove(path);
    fitsfile* file = nullptr;
    int status = 0;
    fits_create_file(&file, path.c_str(), &status);
    const char* names[] = {"flags", "b", "pair", "z", "heap", "name", "time", "flux"};
    const char* forms[] = {"13X", "B", "3J", "M", "1PE(4)", "10A", "D", "D"};
    fits_create_tbl(file, BINARY_TBL, 0, 8, const_cast<char**>(names), const_cast<char**>(forms),
                    nullptr, "OBJECTS", &status);
    std::string text[] = {"  alpha", "alpha  ", "beta", "beta", " gamma "};
    std::vector<char*> pointers;
    for (std::string& t : text)
        pointers.push_back(t.data());
    fits_write_col(file, TSTRING, 6, 1, 1, 5, pointers.data(), &status);
    // Row 4's id ends at a NUL with bytes after it, written as they are: the columns before
    // it take 2 + 1 + 12 + 16 + 8 bytes.
    unsigned char ended[] = {'b', 'e', 't', 'a', 0, 'x', 'y', 'z', ' ', ' '};
    fits_write_tblbytes(file, 4, 40, 10, ended, &status);
    double time[] = {1.0, 2.0, 3.0, 4.0, 5.0}, flux[] = {10.0, 20.0, 30.0, 40.0, 50.0};
    fits_write_col(file, TDOUBLE, 7, 1, 1, 5, time, &status);
    fits_write_col(file, TDOUBLE, 8, 1, 1, 5, flux, &status);
    float heap[] = {1.0f, 2.0f};
    fits_write_col(file, TFLOAT, 5, 2, 1, 2, heap, &status);
    fits_close_file(file, &status);
    ASSERT_EQ(status, 0);
    for (const bool indexed : {false, true}) {
        SCOPED_TRACE(indexed ? "indexed" : "read whole");
        gpu::Catalogue catalogue;
        const gpu::TableColumns columns{"name", "", "", "-"};
        ASSERT_TRUE(
            indexed ? gpu::Catalogue::indexTable(path, columns, gpu::TimeFormat::Auto, catalogue)
                    : gpu::Catalogue::openTable(path, columns, gpu::TimeFormat::Auto, catalogue));
        ASSERT_EQ(catalogue.size(), 3u);
        const std::vector<std::pair<std::string, std::vector<double>>> want{
            {"alpha", {1.0, 2.0}}, {"beta", {3.0, 4.0}}, {"gamma", {5.0}}};
        for (std::size_t i = 0; i < want.size(); ++i) {
            EXPECT_EQ(catalogue.id(i), want[i].first);
            gpu::TimeSeries series;
            gpu::LoadReport report;
            ASSERT_TRUE(catalogue.load(i, series, report));
            EXPECT_EQ(series.t, want[i].second) << want[i].first;
        }
    }

    const std::string several = scratch("text-ids-two-a-row.fits");
    std::filesystem::remove(several);
    fits_create_file(&file, several.c_str(), &status);
    const char* twoNames[] = {"id", "time", "flux"};
    const char* twoForms[] = {"12A6", "D", "D"};
    fits_create_tbl(file, BINARY_TBL, 0, 3, const_cast<char**>(twoNames),
                    const_cast<char**>(twoForms), nullptr, "OBJECTS", &status);
    fits_close_file(file, &status);
    ASSERT_EQ(status, 0);
    expectRefusedBothWays({{several, "holds 2 texts a row"}});
}

// A whole FITS table over many of the blocks its columns are read in, and long enough to be
// read in ranges by several threads: every row lands in its object, in order, with the rows
// of an object that comes back later (in another range) appended and the unusable ones
// counted; objects keep the order of their first row. Numeric ids and string ids alike.
TEST(BatchCatalogue, FitsTableOfManyBlocksKeepsEveryRowInItsObject)
{
    constexpr long long kRows = 600'000;
    std::vector<long long> id(kRows);
    std::vector<double> t(kRows), y(kRows), dy(kRows);
    for (long long r = 0; r < kRows; ++r) {
        // Runs of 37 rows for objects 0..99, then the same objects again.
        id[std::size_t(r)] = (r / 37) % 100;
        t[std::size_t(r)] = double(r);
        y[std::size_t(r)] = double(r) * 0.5;
        dy[std::size_t(r)] = r % 1001 == 0 ? 0.0 : 1.0 + double(r % 7);
    }
    std::vector<gpu::TimeSeries> want(100);
    std::vector<std::size_t> skipped(100);
    for (long long r = 0; r < kRows; ++r) {
        const auto i = std::size_t(id[std::size_t(r)]);
        if (dy[std::size_t(r)] <= 0.0) {
            ++skipped[i];
            continue;
        }
        want[i].t.push_back(t[std::size_t(r)]);
        want[i].y.push_back(y[std::size_t(r)]);
        want[i].dy.push_back(dy[std::size_t(r)]);
    }
    for (const bool numeric : {true, false}) {
        SCOPED_TRACE(numeric ? "numeric ids" : "string ids");
        const std::string path = scratch("blocks.fits");
        std::filesystem::remove(path);
        fitsfile* file = nullptr;
        int status = 0;
        ASSERT_EQ(fits_create_file(&file, path.c_str(), &status), 0);
        const char* names[] = {"id", "time", "flux", "flux_err"};
        const char* forms[] = {numeric ? "K" : "6A", "D", "D", "D"};
        fits_create_tbl(file, BINARY_TBL, 0, 4, const_cast<char**>(names),
                        const_cast<char**>(forms), nullptr, "OBJECTS", &status);
        if (numeric) {
            fits_write_col(file, TLONGLONG, 1, 1, 1, kRows, id.data(), &status);
        } else {
            std::vector<std::string> text(kRows);
            std::vector<char*> pointers(kRows);
            for (long long r = 0; r < kRows; ++r) {
                text[std::size_t(r)] = "s" + std::to_string(id[std::size_t(r)]);
                pointers[std::size_t(r)] = text[std::size_t(r)].data();
            }
            fits_write_col(file, TSTRING, 1, 1, 1, kRows, pointers.data(), &status);
        }
        fits_write_col(file, TDOUBLE, 2, 1, 1, kRows, t.data(), &status);
        fits_write_col(file, TDOUBLE, 3, 1, 1, kRows, y.data(), &status);
        fits_write_col(file, TDOUBLE, 4, 1, 1, kRows, dy.data(), &status);
        fits_close_file(file, &status);
        ASSERT_EQ(status, 0);

        // Read whole, and indexed with every object loaded by eight threads at once (each
        // load on a handle of its own).
        gpu::Catalogue whole, indexed;
        ASSERT_TRUE(
            gpu::Catalogue::openTable(path, gpu::TableColumns{}, gpu::TimeFormat::Auto, whole));
        ASSERT_TRUE(
            gpu::Catalogue::indexTable(path, gpu::TableColumns{}, gpu::TimeFormat::Auto, indexed));
        for (const gpu::Catalogue* catalogue : {&whole, &indexed}) {
            ASSERT_EQ(catalogue->size(), 100u);
            std::vector<gpu::TimeSeries> got(catalogue->size());
            std::vector<gpu::LoadReport> reports(catalogue->size());
            std::atomic<int> failed{0};
            {
                std::vector<std::jthread> threads;
                for (int k = 0; k < 8; ++k)
                    threads.emplace_back([&, k] {
                        for (std::size_t i = std::size_t(k); i < got.size(); i += 8)
                            failed += !catalogue->load(i, got[i], reports[i]);
                    });
            }
            EXPECT_EQ(failed.load(), 0);
            for (std::size_t i = 0; i < catalogue->size(); ++i) {
                ASSERT_EQ(catalogue->id(i), (numeric ? "" : "s") + std::to_string(i));
                EXPECT_EQ(got[i].t, want[i].t) << i;
                EXPECT_EQ(got[i].y, want[i].y) << i;
                EXPECT_EQ(got[i].dy, want[i].dy) << i;
                EXPECT_EQ(reports[i].nonPositiveErrors, skipped[i]) << i;
            }
        }
    }
}

// The run's host threads: loops from several workers at once, each index once, whatever the
// number of threads (one: the callers alone).
TEST(BatchHostPool, LoopsOfSeveralCallersCallEveryIndexOnce)
{
    for (const unsigned threads : {1u, 2u, 5u}) {
        HostPool pool(threads);
        constexpr std::size_t kCallers = 4, kCount = 1000;
        std::vector<std::vector<std::atomic<int>>> calls(kCallers);
        for (auto& c : calls)
            c = std::vector<std::atomic<int>>(kCount);
        std::vector<std::thread> callers;
        for (std::size_t c = 0; c < kCallers; ++c)
            callers.emplace_back([&, c] {
                for (int round = 0; round < 20; ++round)
                    pool.forEach(kCount / (1 + std::size_t(round % 3)),
                                 [&](std::size_t i) { ++calls[c][i]; });
            });
        for (std::thread& t : callers)
            t.join();
        for (std::size_t c = 0; c < kCallers; ++c)
            for (std::size_t i = 0; i < kCount; ++i) {
                // Rounds of kCount, kCount / 2 and kCount / 3 indices, 20 in turn.
                const int want = 7 + (i < kCount / 2 ? 7 : 0) + (i < kCount / 3 ? 6 : 0);
                ASSERT_EQ(calls[c][i].load(), want) << threads << " threads, caller " << c;
            }
        std::size_t none = 0;
        pool.forEach(0, [&](std::size_t) { ++none; });
        EXPECT_EQ(none, 0u);
    }
}

// Opens the table whole and indexed (into indexed): every object must load alike both ways,
// the same rows, skipped rows, report and failures.
void expectIndexedLoadsLikeWhole(const std::string& path, gpu::Catalogue& indexed)
{
    const gpu::TableColumns columns;
    gpu::Catalogue whole;
    ASSERT_TRUE(gpu::Catalogue::openTable(path, columns, gpu::TimeFormat::Auto, whole));
    ASSERT_TRUE(gpu::Catalogue::indexTable(path, columns, gpu::TimeFormat::Auto, indexed));
    ASSERT_EQ(indexed.size(), whole.size());
    for (std::size_t i = 0; i < whole.size(); ++i) {
        SCOPED_TRACE(whole.id(i));
        ASSERT_EQ(indexed.find(whole.id(i)), i);
        gpu::TimeSeries a, b;
        gpu::LoadReport ra, rb;
        const gpu::Status sa = whole.load(i, a, ra), sb = indexed.load(i, b, rb);
        ASSERT_EQ(bool(sa), bool(sb));
        EXPECT_EQ(sa.message(), sb.message());
        EXPECT_EQ(a.t, b.t);
        EXPECT_EQ(a.y, b.y);
        EXPECT_EQ(a.dy, b.dy);
        EXPECT_EQ(ra.summary(), rb.summary());
        EXPECT_EQ(ra.columns, rb.columns);
    }
}

// The app's index of a text table: every object loads as the whole catalogue has it (the
// fixture's star02 150 rows, gappy 87 of 90), reading only its lines; a table changed since
// is refused.
TEST(BatchCatalogue, IndexedCsvTableLoadsEachObjectAsTheCatalogueDoes)
{
    const std::string path = scratch("indexed.csv");
    std::filesystem::copy_file(WARPSCOPE_FIXTURE_DIR "/batch/catalogue.csv", path,
                               std::filesystem::copy_options::overwrite_existing);
    gpu::Catalogue indexed;
    ASSERT_NO_FATAL_FAILURE(expectIndexedLoadsLikeWhole(path, indexed));
    gpu::TimeSeries series;
    gpu::LoadReport report;
    ASSERT_TRUE(indexed.load(indexed.find("star02"), series, report));
    EXPECT_EQ(series.t.size(), 150u);
    ASSERT_TRUE(indexed.load(indexed.find("gappy"), series, report));
    EXPECT_EQ(series.t.size(), 87u);
    EXPECT_EQ(indexed.find("star99"), indexed.size());

    std::ofstream(path, std::ios::app) << "star02,200,10,0.5\n";
    const gpu::Status changed = indexed.load(indexed.find("star02"), series, report);
    EXPECT_FALSE(changed);
    EXPECT_NE(changed.message().find("changed since"), std::string::npos) << changed.message();
}

// An indexed FITS table (its id column read, each object's rows read by its load) gives every
// object as the whole table's reading does: the same rows, the same skipped ones, the same
// failures; and says so when the file changed since.
TEST(BatchCatalogue, IndexedFitsTableLoadsEachObjectAsTheCatalogueDoes)
{
    const std::string path = scratch("indexed.fits");
    std::filesystem::copy_file(WARPSCOPE_FIXTURE_DIR "/batch/catalogue.fits", path,
                               std::filesystem::copy_options::overwrite_existing);
    gpu::Catalogue indexed;
    ASSERT_NO_FATAL_FAILURE(expectIndexedLoadsLikeWhole(path, indexed));
    gpu::TimeSeries series;
    gpu::LoadReport report;
    ASSERT_TRUE(indexed.load(indexed.find("gappy"), series, report));
    EXPECT_EQ(series.t.size(), 87u);
    EXPECT_EQ(report.nonFiniteRows, 3u);

    std::ofstream(path, std::ios::app) << std::string(2880, ' ');
    const gpu::Status changed = indexed.load(indexed.find("star02"), series, report);
    EXPECT_FALSE(changed);
    EXPECT_NE(changed.message().find("changed since"), std::string::npos) << changed.message();
}

TEST(BatchSource, WrittenBesideTheResultsAndReadBack)
{
    const std::string results = scratch("source-results.csv");
    scene::BatchSource source;
    source.input = "/data/survey.fits";
    source.table = true;
    source.columns.id = "objid";
    source.columns.t = "mjd";
    source.columns.y = "mag";
    source.columns.dy = "-";
    source.timeFormat = gpu::TimeFormat::Mjd;
    source.scene.gridMode = scene::GridMode::Linear;
    source.scene.fmin = 0.05;
    source.scene.fmax = 2.0;
    source.scene.count = 3000;
    source.scene.masks.push_back({10.0, 12.5});
    source.peaks = 5;
    EXPECT_EQ(scene::batchSourcePath(results), scratch("source-results.source.json"));
    ASSERT_TRUE(scene::writeBatchSource(results, source));
    scene::BatchSource back;
    bool found = false;
    ASSERT_TRUE(scene::readBatchSource(results, back, found));
    EXPECT_TRUE(found);
    EXPECT_EQ(back, source);

    // Results of an older run have no source: readable, nothing found.
    found = true;
    EXPECT_TRUE(scene::readBatchSource(scratch("older.csv"), back, found));
    EXPECT_FALSE(found);
    // A source that is not one says so, naming the file.
    write(scratch("broken.source.json"), "{\"format\": \"warpscope-scene\"}");
    const gpu::Status broken = scene::readBatchSource(scratch("broken.csv"), back, found);
    EXPECT_FALSE(broken);
    EXPECT_NE(broken.message().find("broken.source.json"), std::string::npos) << broken.message();
    write(scratch("broken.source.json"), std::string("\0\x01binary", 8));
    EXPECT_FALSE(scene::readBatchSource(scratch("broken.csv"), back, found));
}

TEST(BatchSource, ObjectFilesOfARunOverFiles)
{
    scene::BatchSource source;
    source.input = "/data/curves";
    EXPECT_EQ(scene::batchObjectFile(source, "a.csv"), "/data/curves/a.csv");
    source.input = "/data/curves/*.csv"; // a glob: its folder
    EXPECT_EQ(scene::batchObjectFile(source, "a.csv"), "/data/curves/a.csv");
    EXPECT_EQ(scene::batchObjectFile(source, "/data/other/a.csv"), "/data/other/a.csv");
    source.table = true; // a table's objects are rows, not files
    EXPECT_EQ(scene::batchObjectFile(source, "a.csv"), "");
}

TEST(BatchCatalogue, FolderListsLightCurvesSortedAndNothingElse)
{
    const std::filesystem::path folder = scratch("folder");
    std::filesystem::create_directories(folder / "sub.csv");
    write((folder / "b.csv").string(), "t,y\n1,2\n2,3\n3,1\n");
    write((folder / "a.fits").string(), "not really FITS");
    write((folder / "notes.md").string(), "# notes");
    gpu::Catalogue catalogue;
    ASSERT_TRUE(gpu::Catalogue::openFiles(folder.string(), gpu::TimeFormat::Auto, catalogue));
    ASSERT_EQ(catalogue.size(), 2u);
    EXPECT_EQ(catalogue.id(0), "a.fits");
    EXPECT_EQ(catalogue.id(1), "b.csv");
    gpu::TimeSeries series;
    gpu::LoadReport report;
    EXPECT_FALSE(catalogue.load(0, series, report));
    EXPECT_TRUE(catalogue.load(1, series, report));
    EXPECT_FALSE(gpu::Catalogue::openFiles((folder / "none*.csv").string(), gpu::TimeFormat::Auto,
                                           catalogue));
}

// Objects of more points than a batch takes run one at a time. With only the peaks wanted,
// they take the app's own call (its peaks found where the powers are); with the powers asked
// for (to be written, or as the benchmark's baseline), the powers come to the host and are
// searched there. Both rows must be the same.
TEST(BatchAnalysis, LargeObjectsGiveTheSameRowWhetherTheirPowersComeBackOrNot)
{
    std::unique_ptr<gpu::Context> context;
    ASSERT_TRUE(gpu::Context::open({gpu::DeviceKind::Cpu, 0}, context));
    HostPool pool(2);
    std::mt19937_64 rng(17);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<BatchObject> objects(2);
    for (std::size_t k = 0; k < objects.size(); ++k) {
        objects[k].id = "long" + std::to_string(k);
        gpu::TimeSeries& s = objects[k].series;
        for (int i = 0; i < 5000; ++i) {
            s.t.push_back(200.0 * u(rng));
            s.y.push_back(std::sin(2.0 * M_PI * s.t.back() / (3.1 + k)) + 0.5 * u(rng));
            s.dy.push_back(0.2 + 0.1 * u(rng));
        }
    }
    const auto rows = [&](bool powersToHost) {
        BatchSettings settings;
        settings.scene.gridMode = scene::GridMode::Linear;
        settings.scene.fmin = 0.05;
        settings.scene.fmax = 2.0;
        settings.scene.count = 20000;
        settings.powersToHost = powersToHost;
        std::vector<BatchObject> copy = objects;
        std::vector<PreparedObject> prepared = prepareObjects(settings, copy, pool, nullptr);
        bool cancelled = true;
        const auto result = analyseObjects(*context, settings, prepared, pool, nullptr, cancelled);
        EXPECT_FALSE(cancelled);
        return result;
    };
    const std::vector<BatchResult> peaksOnly = rows(false);
    const std::vector<BatchResult> written = rows(true);
    ASSERT_EQ(peaksOnly.size(), 2u);
    ASSERT_EQ(written.size(), 2u);
    for (std::size_t k = 0; k < 2; ++k) {
        EXPECT_FALSE(peaksOnly[k].failed) << peaksOnly[k].id;
        EXPECT_EQ(peaksOnly[k].points, 5000);
        ASSERT_EQ(peaksOnly[k].peaks.size(), 3u) << peaksOnly[k].id;
        ASSERT_EQ(written[k].peaks.size(), peaksOnly[k].peaks.size());
        for (std::size_t j = 0; j < peaksOnly[k].peaks.size(); ++j) {
            EXPECT_EQ(peaksOnly[k].peaks[j].frequency, written[k].peaks[j].frequency);
            EXPECT_EQ(peaksOnly[k].peaks[j].power, written[k].peaks[j].power);
            EXPECT_EQ(peaksOnly[k].peaks[j].fap, written[k].peaks[j].fap);
        }
        // The signal, near 1 / (3.1 + k), is the best peak.
        EXPECT_NEAR(peaksOnly[k].peaks[0].frequency, 1.0 / (3.1 + double(k)), 2e-3);
    }
}

TEST(BatchTrace, CoveredFractionCountsOverlapsOnceAndOnlyInsideTheRun)
{
    // [0, 10]: 2-5 and 4-6 overlap (4 covered), 8-12 is clipped at 10 (2), -3-1 at 0 (1).
    EXPECT_DOUBLE_EQ(coveredFraction({{4, 6}, {2, 5}, {8, 12}, {-3, 1}}, 0, 10), 0.7);
    EXPECT_DOUBLE_EQ(coveredFraction({{1, 9}, {2, 3}}, 0, 10), 0.8);
    EXPECT_DOUBLE_EQ(coveredFraction({}, 0, 10), 0.0);
    EXPECT_DOUBLE_EQ(coveredFraction({{0, 1}}, 5, 5), 0.0);
}

TEST(BatchTrace, EachRankWritesItsOwnFile)
{
    Ranks one;
    EXPECT_EQ(rankTracePath("/runs/w1.json", one), "/runs/w1.json");
    Ranks two;
    two.size = 2;
    two.rank = 1;
    EXPECT_EQ(rankTracePath("/runs/w1.json", two), "/runs/w1.rank1.json");
    EXPECT_EQ(rankTracePath("w1.trace.json", two), "w1.trace.rank1.json");
}

// A spreadsheet opening results.csv must show every id as text, never run it (OWASP's CSV
// injection rule: a cell starting with = + - @, a tab or a CR gains a leading quote and is
// quoted); the table reads each id back exactly, and the FITS table holds the ids as they are.
TEST(BatchTable, IdsASpreadsheetWouldRunAreWrittenAsText)
{
    const std::vector<std::pair<std::string, std::string>> cases{
        {"=cmd|' /C calc'!A0", "\"'=cmd|' /C calc'!A0\","},
        {"@SUM(A1)", "\"'@SUM(A1)\","},
        {"+1", "\"'+1\","},
        {"-2", "\"'-2\","},
        {"\tleading tab", "\"'\tleading tab\","},
        {"'quoted", "\"''quoted\","},
        {"=1,2", "\"'=1,2\","},
        {"a=b", "a=b,"},
        {"2", "2,"}};
    std::vector<BatchResult> rows;
    for (const auto& [id, line] : cases)
        rows.push_back({id, 10, true, {}, {"-1 is no warning a spreadsheet should run"}});
    const std::string path = scratch("injection.csv");
    ASSERT_TRUE(writeResultsCsv(path, rows, 1));
    std::istringstream text(read(path));
    std::string line;
    std::getline(text, line); // the header
    for (const auto& [id, start] : cases) {
        ASSERT_TRUE(std::getline(text, line));
        EXPECT_EQ(line.rfind(start, 0), 0u) << line;
        EXPECT_NE(line.find(",\"'-1 is no warning"), std::string::npos) << line;
    }
    std::vector<BatchResult> back;
    ASSERT_TRUE(readResultsCsv(path, 1, back));
    EXPECT_EQ(back, rows);

    const std::string fits = scratch("injection.fits");
    ASSERT_TRUE(writeResultsFits(fits, rows, 1));
    fitsfile* file = nullptr;
    int status = 0;
    ASSERT_EQ(fits_open_table(&file, fits.c_str(), READONLY, &status), 0);
    int column = 0, anyNull = 0;
    fits_get_colnum(file, CASEINSEN, const_cast<char*>("ID"), &column, &status);
    for (std::size_t i = 0; i < cases.size(); ++i) {
        char id[64] = {}, *ids[] = {id};
        fits_read_col(file, TSTRING, column, (long long)i + 1, 1, 1, nullptr, ids, &anyNull,
                      &status);
        EXPECT_EQ(std::string(id), cases[i].first);
    }
    fits_close_file(file, &status);
    EXPECT_EQ(status, 0);
}

TEST(BatchTable, AnEmptyIdIsARowOfItsOwn)
{
    const std::string path = scratch("empty-id.csv");
    const std::vector<BatchResult> rows{{"", 0, true, {}, {"refused"}},
                                        {"(no id)", 3, true, {}, {"too few"}}};
    ASSERT_TRUE(writeResultsCsv(path, rows, 1));
    std::vector<BatchResult> back;
    ASSERT_TRUE(readResultsCsv(path, 1, back));
    EXPECT_EQ(back, rows);
}

TEST(BatchIds, PeriodogramFilesAreNamedOneForEachIdAndGiveItBack)
{
    const std::vector<std::pair<std::string, std::string>> cases{
        {"star02", "star02.periodogram.csv"},
        {"a/b", "a%2Fb.periodogram.csv"},
        {"a_b", "a_b.periodogram.csv"},
        {"a\\b", "a%5Cb.periodogram.csv"},
        {"a%2Fb", "a%252Fb.periodogram.csv"},
        {"..", "%2E..periodogram.csv"},
        {".hidden", "%2Ehidden.periodogram.csv"},
        {"lc.v2.csv", "lc.v2.csv.periodogram.csv"},
        {"x y:z", "x%20y%3Az.periodogram.csv"},
        {"\xc3\xa9", "%C3%A9.periodogram.csv"},
        {std::string("n\0ul", 4), "n%00ul.periodogram.csv"}};
    for (const auto& [id, name] : cases) {
        EXPECT_EQ(scene::periodogramFileName(id), name);
        EXPECT_EQ(scene::periodogramFileId(name), std::optional<std::string>(id)) << name;
    }
    EXPECT_EQ(scene::periodogramFileName(""), "");
    // Names that no id gives: each id has exactly one name.
    for (const char* name :
         {"a%2fb.periodogram.csv", "%41.periodogram.csv", "a b.periodogram.csv",
          ".x.periodogram.csv", "a%2.periodogram.csv", "a.csv", ".periodogram.csv"})
        EXPECT_FALSE(scene::periodogramFileId(name)) << name;
}

namespace {

// A periodic object of 40 points.
BatchObject sineObject(const std::string& id)
{
    BatchObject o;
    o.id = id;
    for (int i = 0; i < 40; ++i) {
        o.series.t.push_back(0.37 * i + 0.01 * (i % 3));
        o.series.y.push_back(std::sin(2.0 * M_PI * o.series.t.back() / 2.5));
    }
    return o;
}

} // namespace

// Ids that a file name would once have made alike each get a periodogram of their own, and
// an existing file is kept, the row saying so.
TEST(BatchAnalysis, PeriodogramFilesNeverReplaceOneAnother)
{
    const std::string folder = scratch("periodograms");
    std::filesystem::create_directories(folder);
    write(folder + "/old.periodogram.csv", "an earlier run's\n");
    std::unique_ptr<gpu::Context> context;
    ASSERT_TRUE(gpu::Context::open({gpu::DeviceKind::Cpu, 0}, context));
    HostPool pool(2);
    BatchSettings settings;
    settings.scene.gridMode = scene::GridMode::Linear;
    settings.scene.fmin = 0.05;
    settings.scene.fmax = 1.0;
    settings.scene.count = 500;
    settings.periodogramFolder = folder;
    std::vector<BatchObject> objects{sineObject("a/b"), sineObject("a_b"), sineObject("old")};
    std::vector<PreparedObject> prepared = prepareObjects(settings, objects, pool, nullptr);
    bool cancelled = true;
    const auto rows = analyseObjects(*context, settings, prepared, pool, nullptr, cancelled);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_TRUE(rows[0].warnings.empty());
    EXPECT_TRUE(rows[1].warnings.empty());
    const std::string slash = read(folder + "/a%2Fb.periodogram.csv");
    EXPECT_EQ(std::count(slash.begin(), slash.end(), '\n'), 501); // a header, 500 frequencies
    EXPECT_EQ(slash, read(folder + "/a_b.periodogram.csv"));      // two objects of one series
    EXPECT_EQ(read(folder + "/old.periodogram.csv"), "an earlier run's\n");
    ASSERT_EQ(rows[2].warnings.size(), 1u);
    EXPECT_NE(rows[2].warnings[0].find("periodogram not written"), std::string::npos);
    EXPECT_NE(rows[2].warnings[0].find("already exists"), std::string::npos);
    EXPECT_FALSE(rows[2].failed); // its row is computed all the same
}

// A table's rows with an empty id are kept apart from an object called "(no id)", and
// refused in a row of their own.
TEST(BatchCatalogue, RowsWithAnEmptyIdAreAnObjectApartAndRefused)
{
    const std::string path = scratch("empty-ids.csv");
    write(path, "id,time,flux\n,1,2\n(no id),1,5\n,2,3\n(no id),2,6\n,3,1\n(no id),3,4\n");
    for (const bool indexed : {false, true}) {
        gpu::Catalogue catalogue;
        ASSERT_TRUE(indexed
                        ? gpu::Catalogue::indexTable(path, {}, gpu::TimeFormat::Auto, catalogue)
                        : gpu::Catalogue::openTable(path, {}, gpu::TimeFormat::Auto, catalogue));
        ASSERT_EQ(catalogue.size(), 2u);
        EXPECT_EQ(catalogue.id(0), "");
        EXPECT_EQ(catalogue.id(1), "(no id)");
        gpu::TimeSeries series;
        gpu::LoadReport report;
        ASSERT_TRUE(catalogue.load(1, series, report));
        EXPECT_EQ(series.y, (std::vector<double>{5, 6, 4}));

        HostPool pool(1);
        std::vector<BatchObject> objects(2);
        for (std::size_t i = 0; i < 2; ++i) {
            objects[i].id = catalogue.id(i);
            objects[i].loaded = catalogue.load(i, objects[i].series, objects[i].report);
        }
        const auto prepared = prepareObjects(BatchSettings{}, objects, pool, nullptr);
        ASSERT_EQ(prepared.size(), 2u);
        EXPECT_TRUE(prepared[0].row.failed);
        ASSERT_EQ(prepared[0].row.warnings.size(), 1u);
        EXPECT_NE(prepared[0].row.warnings[0].find("empty id"), std::string::npos);
        EXPECT_EQ(prepared[1].row.id, "(no id)");
        EXPECT_EQ(prepared[1].row.points, 3);
    }
}

// The batch's progress line has no rate before an object is done: its ETA is unknown, not 0s.
TEST(BatchRun, EtaIsUnknownUntilARateIsMeasured)
{
    EXPECT_EQ(etaText(0, 10, 0.0), "unknown");
    EXPECT_EQ(etaText(0, 10, 300.0), "unknown");
    EXPECT_EQ(etaText(2, 10, 4.0), "16s");
    EXPECT_EQ(etaText(1, 61, 2.0), "2m00s");
}

TEST(PeriodogramCost, EstimatesTermsAndTimeFromTheBackendsRate)
{
    // The command line's 10-million-point file on its automatic grid of 25 million.
    const scene::PeriodogramCost big =
        scene::periodogramCost(10'000'000, 25'000'000, 1, false, gpu::Precision::Float64, 2);
    EXPECT_EQ(big.terms, 2.5e14);
    EXPECT_EQ(big.rate, 2e9); // 1e9 terms a second a thread
    EXPECT_EQ(big.seconds, 1.25e5);
    EXPECT_TRUE(scene::isLong(big));
    EXPECT_NE(scene::costText(big).find("10000000 points x 25000000 frequencies x 1 term = "
                                        "2.5e+14 terms: about 34h43m"),
              std::string::npos)
        << scene::costText(big);
    const scene::PeriodogramCost harmonics =
        scene::periodogramCost(300'000, 100'000, 3, true, gpu::Precision::Float64, 2);
    EXPECT_EQ(harmonics.terms, 9e10);
    EXPECT_EQ(harmonics.seconds, 9.0); // 1e10 terms a second in float64 on CUDA
    EXPECT_TRUE(scene::isLong(harmonics));
    EXPECT_EQ(scene::periodogramCost(300'000, 100'000, 1, true, gpu::Precision::Float32, 2).rate,
              2e11);
    EXPECT_FALSE(
        scene::isLong(scene::periodogramCost(500, 100'000, 1, false, gpu::Precision::Float64, 1)));
    EXPECT_EQ(scene::durationText(59.4), "59s");
    EXPECT_EQ(scene::durationText(3600.0 * 50), "50h00m");
}
