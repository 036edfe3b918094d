#include "warpscope/gpu/TimeSeriesIO.h"

#include "TestSupport.h"

#include <filesystem>
#include <gtest/gtest.h>

namespace warpscope::gpu::test {
namespace {

TimeSeries parse(const std::string& text, LoadReport& report, ColumnChoice columns = {})
{
    TimeSeries s;
    const Status status = parseTimeSeries(text, columns, s, report);
    EXPECT_TRUE(status.ok()) << status.message();
    EXPECT_EQ(s.t.size(), s.y.size());
    EXPECT_TRUE(s.dy.empty() || s.dy.size() == s.t.size());
    return s;
}

TEST(TimeSeriesIO, CsvWithHeaderCommentsAndNamedColumns)
{
    LoadReport r;
    const TimeSeries s = parse("# a light curve\n"
                               "\n"
                               "quality,mjd,flux,flux_err\n"
                               "0,58000.5,1.25,0.1  # first\n"
                               "1,58001.0,-2e-1,0.2\r\n"
                               "0,58002.25,+3,0.3\n",
                               r);
    EXPECT_EQ(r.delimiter, "comma");
    EXPECT_EQ(r.columns, (std::vector<std::string>{"quality", "mjd", "flux", "flux_err"}));
    EXPECT_EQ(r.tColumn, 1);
    EXPECT_EQ(r.yColumn, 2);
    EXPECT_EQ(r.dyColumn, 3);
    EXPECT_EQ(s.t, (std::vector<double>{58000.5, 58001.0, 58002.25}));
    EXPECT_EQ(s.y, (std::vector<double>{1.25, -0.2, 3.0}));
    EXPECT_EQ(s.dy, (std::vector<double>{0.1, 0.2, 0.3}));
    EXPECT_EQ(r.summary(), "3 rows");
}

TEST(TimeSeriesIO, WhitespaceAndTabsWithoutHeader)
{
    LoadReport r;
    TimeSeries s = parse("1 10\n  2\t 20  \n3    30\n", r);
    EXPECT_EQ(r.delimiter, "whitespace");
    EXPECT_EQ(s.t, (std::vector<double>{1, 2, 3}));
    EXPECT_TRUE(s.dy.empty());
    s = parse("1\t10\t0.5\n2\t20\t0.5\n", r);
    EXPECT_EQ(r.delimiter, "tab");
    EXPECT_EQ(s.dy.size(), 2u);
    s = parse("1;10\n2;20\n", r);
    EXPECT_EQ(r.delimiter, "semicolon");
    EXPECT_EQ(s.y, (std::vector<double>{10, 20}));
}

TEST(TimeSeriesIO, ChosenColumnsOverridePositions)
{
    LoadReport r;
    ColumnChoice c;
    c.t = 2;
    c.y = 0;
    c.dy = -1;
    const TimeSeries s = parse("5,0.1,100\n6,0.2,101\n", r, c);
    EXPECT_EQ(s.t, (std::vector<double>{100, 101}));
    EXPECT_EQ(s.y, (std::vector<double>{5, 6}));
    EXPECT_TRUE(s.dy.empty());
    TimeSeries out;
    c.t = 7;
    const Status bad = parseTimeSeries("1,2\n3,4\n", c, out, r);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.message().find("2 columns"), std::string::npos) << bad.message();
}

TEST(TimeSeriesIO, BadRowsAreSkippedAndCounted)
{
    LoadReport r;
    const TimeSeries s = parse("t,y,dy\n"
                               "1,1,0.1\n"
                               "2,abc,0.1\n" // non-numeric
                               "3,nan,0.1\n" // NaN
                               "4,1,inf\n"   // infinite dy
                               "5,1\n"       // missing dy
                               "6,1,0\n"     // dy of 0
                               "7,1,-1\n"    // negative dy
                               "8,2,0.2\n"
                               "9,3,0.3,extra\n", // extra cells are fine
                               r);
    EXPECT_EQ(s.t, (std::vector<double>{1, 8, 9}));
    EXPECT_EQ(r.nonNumericRows, 2u);
    EXPECT_EQ(r.nonFiniteRows, 2u);
    EXPECT_EQ(r.nonPositiveErrors, 2u);
    EXPECT_NE(r.summary().find("2 non-numeric rows skipped"), std::string::npos) << r.summary();
    EXPECT_NE(r.summary().find("2 rows with NaN or infinity skipped"), std::string::npos);
}

TEST(TimeSeriesIO, UnsortedRowsAreSortedTogetherAndDuplicatesKept)
{
    LoadReport r;
    const TimeSeries s = parse("3,30,0.3\n1,10,0.1\n2,20,0.2\n2,21,0.25\n", r);
    EXPECT_TRUE(r.sorted);
    EXPECT_EQ(s.t, (std::vector<double>{1, 2, 2, 3}));
    EXPECT_EQ(s.y, (std::vector<double>{10, 20, 21, 30}));
    EXPECT_EQ(s.dy, (std::vector<double>{0.1, 0.2, 0.25, 0.3}));
    EXPECT_EQ(r.duplicateTimes, 1u);
    EXPECT_NE(r.summary().find("sorted by time"), std::string::npos);
    EXPECT_NE(r.summary().find("1 duplicate time kept"), std::string::npos);
}

TEST(TimeSeriesIO, NothingUsableFailsWithAMessage)
{
    TimeSeries s;
    LoadReport r;
    EXPECT_NE(parseTimeSeries("", {}, s, r).message().find("holds no data"), std::string::npos);
    EXPECT_NE(parseTimeSeries("# only\n\n", {}, s, r).message().find("holds no data"),
              std::string::npos);
    EXPECT_NE(parseTimeSeries("t,y\nx,y\n", {}, s, r).message().find("No row"), std::string::npos);
    EXPECT_FALSE(parseTimeSeries("1\n2\n", {}, s, r).ok()); // one column
}

TEST(TimeSeriesIO, ProgressIsReportedAndCanCancel)
{
    std::string text;
    for (int i = 0; i < 200000; ++i)
        text += std::to_string(i) + " " + std::to_string(i % 7) + "\n";
    TimeSeries s;
    LoadReport r;
    int calls = 0;
    double last = 0.0;
    ASSERT_TRUE(parseTimeSeries(text, {}, s, r, [&](double f) {
                    ++calls;
                    EXPECT_GE(f, last);
                    last = f;
                    return true;
                }).ok());
    EXPECT_GE(calls, 3);
    EXPECT_EQ(last, 1.0);
    EXPECT_EQ(s.t.size(), 200000u);
    const Status cancelled = parseTimeSeries(text, {}, s, r, [](double) { return false; });
    ASSERT_FALSE(cancelled.ok());
    EXPECT_NE(cancelled.message().find("cancelled"), std::string::npos);
}

TEST(TimeSeriesIO, FilesThatCannotBeReadAreExplained)
{
    TimeSeries s;
    LoadReport r;
    Status st = loadTimeSeries("/nonexistent/series.csv", {}, s, r);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("Cannot open /nonexistent/series.csv"), std::string::npos);
    const auto dir = std::filesystem::temp_directory_path() / "warpscope-io";
    std::filesystem::create_directories(dir);
    const std::string binary = (dir / "binary.dat").string();
    {
        std::ofstream out(binary, std::ios::binary);
        out.write("1,2\n\0\x01\x02", 7);
    }
    st = loadTimeSeries(binary, {}, s, r);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("not a text file"), std::string::npos);
    ASSERT_TRUE(loadTimeSeries(fixtureDir() + "/periodogram/series_B.csv", {}, s, r).ok());
    EXPECT_EQ(r.rows, 200u);
    EXPECT_EQ(s.dy.size(), 200u);
}

} // namespace
} // namespace warpscope::gpu::test
