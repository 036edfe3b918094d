// The batch program's headless core: the results table's round trip and its refusals, and
// how a table of many objects is split into objects.
#include "BatchCatalogue.h"
#include "BatchTable.h"

#include <filesystem>
#include <fitsio.h>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
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
        {"a,ok,2.5,,,,,,,,", "whole number"},  {",ok,3,,,,,,,,", "no id"},
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

TEST(BatchCatalogue, CsvTableGroupsRowsByIdInOrderOfFirstRow)
{
    const std::string path = scratch("table.csv");
    write(path, "# a comment\r\nobject\ttime\tflux\n"
                "b\t1\t2\nb\t2\t3\na\t5\t1\nb\t3\t1\na\t4\t2\na\t6\t4\nc\t1\tnan\n");
    TableColumns columns;
    columns.id = "OBJECT";
    Catalogue catalogue;
    ASSERT_TRUE(Catalogue::openTable(path, columns, gpu::TimeFormat::Auto, catalogue));
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
        Catalogue::openTable(path, columns, gpu::TimeFormat::Auto, catalogue);
    EXPECT_FALSE(missing);
    EXPECT_NE(missing.message().find("object, time, flux"), std::string::npos) << missing.message();
    columns = {};
    columns.id = "object";
    columns.t = "time";
    EXPECT_FALSE(Catalogue::openTable(path, columns, gpu::TimeFormat::Auto, catalogue));
    columns.y = "brightness";
    const gpu::Status noValue =
        Catalogue::openTable(path, columns, gpu::TimeFormat::Auto, catalogue);
    EXPECT_NE(noValue.message().find("no value column 'brightness'"), std::string::npos);
}

TEST(BatchCatalogue, FolderListsLightCurvesSortedAndNothingElse)
{
    const std::filesystem::path folder = scratch("folder");
    std::filesystem::create_directories(folder / "sub.csv");
    write((folder / "b.csv").string(), "t,y\n1,2\n2,3\n3,1\n");
    write((folder / "a.fits").string(), "not really FITS");
    write((folder / "notes.md").string(), "# notes");
    Catalogue catalogue;
    ASSERT_TRUE(Catalogue::openFiles(folder.string(), gpu::TimeFormat::Auto, catalogue));
    ASSERT_EQ(catalogue.size(), 2u);
    EXPECT_EQ(catalogue.id(0), "a.fits");
    EXPECT_EQ(catalogue.id(1), "b.csv");
    gpu::TimeSeries series;
    gpu::LoadReport report;
    EXPECT_FALSE(catalogue.load(0, series, report));
    EXPECT_TRUE(catalogue.load(1, series, report));
    EXPECT_FALSE(
        Catalogue::openFiles((folder / "none*.csv").string(), gpu::TimeFormat::Auto, catalogue));
}
