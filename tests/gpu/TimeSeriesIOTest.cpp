#include "warpscope/gpu/TimeSeriesIO.h"

#include "TestSupport.h"

#include <algorithm>
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

TEST(TimeSeriesIO, OverlongLinesAreReadWhenValidAndCountedWhenNot)
{
    const std::string longText(5u << 20, 'x');
    LoadReport r;
    // A valid first row with 5 MB of notes after its numbers is a row, not a header.
    TimeSeries s = parse("1,2," + longText + "\n3,4\n5,6\n", r);
    EXPECT_EQ(s.t, (std::vector<double>{1, 3, 5}));
    EXPECT_EQ(r.summary(), "3 rows");
    // A first line holding one 5 MB number is counted, not taken for a header.
    s = parse(std::string(5u << 20, '7') + ",2\n3,4\n5,6\n", r);
    EXPECT_EQ(s.t, (std::vector<double>{3, 5}));
    EXPECT_NE(r.summary().find("1 row with a number beyond"), std::string::npos) << r.summary();
    // A 5 MB line of text among the rows is counted and shown.
    s = parse("1,2\n" + longText + "\n3,4\n", r);
    EXPECT_EQ(s.t, (std::vector<double>{1, 3}));
    EXPECT_NE(r.summary().find("1 non-numeric row skipped; first skipped: line 2"),
              std::string::npos)
        << r.summary().substr(0, 200);
    EXPECT_LT(r.summary().size(), 200u); // the cell is shortened, not repeated
}

TEST(TimeSeriesIO, DecimalCommasAreReadWhereTheDelimiterIsNotAComma)
{
    LoadReport r;
    TimeSeries s = parse("t;flux;err\n"
                         "2459000,5;1,234;0,01\n"
                         "2459001,25;-1,5E-1;0,02\n"
                         "2459002;3;1e-2\n",
                         r);
    EXPECT_EQ(r.delimiter, "semicolon");
    EXPECT_EQ(s.t, (std::vector<double>{2459000.5, 2459001.25, 2459002}));
    EXPECT_EQ(s.y, (std::vector<double>{1.234, -0.15, 3}));
    EXPECT_EQ(s.dy, (std::vector<double>{0.01, 0.02, 0.01}));
    EXPECT_NE(r.summary().find("decimal commas"), std::string::npos) << r.summary();
    // Spreadsheets' tab-separated exports and whitespace columns use them too.
    s = parse("2459000,5\t1,25\n2459001,5\t2,5\n", r);
    EXPECT_EQ(r.delimiter, "tab");
    EXPECT_EQ(s.y, (std::vector<double>{1.25, 2.5}));
    s = parse("2459000,5  1,25\n2459001,5  2,5\n", r);
    EXPECT_EQ(r.delimiter, "whitespace");
    EXPECT_EQ(s.t, (std::vector<double>{2459000.5, 2459001.5}));
    // Commas after numbers are still field delimiters.
    s = parse("1, 2\n3, 4\n", r);
    EXPECT_EQ(r.delimiter, "comma");
    EXPECT_EQ(s.y, (std::vector<double>{2, 4}));
}

TEST(TimeSeriesIO, NumbersThatCannotBeReadAreExplained)
{
    TimeSeries s;
    LoadReport r;
    // Decimal commas in a comma-separated file cannot be told from the delimiters.
    Status st = parseTimeSeries("t,flux,err\n2459000,5,1,25,0,01\n2459001,5,1,5,0,02\n", {}, s, r);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("decimal commas"), std::string::npos) << st.message();
    // Thousands separators are not guessed at; the message shows the cell.
    st = parseTimeSeries("t;y\n2.459.000,5;1,5\n2.459.001,5;1,5\n", {}, s, r);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("\"2.459.000,5\""), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("line 2"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("thousands separators"), std::string::npos) << st.message();
    // A quoted decimal comma between commas.
    st = parseTimeSeries("\"1,5\",\"2,5\"\n\"2,5\",\"3,5\"\n", {}, s, r);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("decimal commas are read only"), std::string::npos) << st.message();
}

TEST(TimeSeriesIO, TheFirstRowIsAHeaderOnlyWhenItHoldsNoNumbers)
{
    LoadReport r;
    TimeSeries s = parse("1,2,NA\n3,4,0.1\n5,6,0.2\n", r);
    EXPECT_EQ(s.t, (std::vector<double>{3, 5}));
    EXPECT_EQ(r.nonNumericRows, 1u);
    EXPECT_EQ(r.columns, (std::vector<std::string>{"column 1", "column 2", "column 3"}));
    s = parse("1,1e400\n2,3\n4,5\n", r);
    EXPECT_EQ(s.t, (std::vector<double>{2, 4}));
    EXPECT_NE(r.summary().find("1 row with a number beyond"), std::string::npos) << r.summary();
    // A one-cell title line is not a header of a two-column file.
    s = parse("My light curve\n1 2\n3 4\n", r);
    EXPECT_EQ(s.t, (std::vector<double>{1, 3}));
    EXPECT_EQ(r.nonNumericRows, 1u);
}

TEST(TimeSeriesIO, ExportsFromOtherSystemsAreRead)
{
    LoadReport r;
    // A UTF-8 byte order mark before a header or a first row.
    TimeSeries s = parse("\xEF\xBB\xBFt,y\n1,2\n3,4\n", r);
    EXPECT_EQ(r.columns, (std::vector<std::string>{"t", "y"}));
    s = parse("\xEF\xBB\xBF"
              "1,2\n3,4\n",
              r);
    EXPECT_EQ(s.t, (std::vector<double>{1, 3}));
    // Classic Mac line endings: carriage returns alone.
    s = parse("t,y\r1,2\r3,4\r", r);
    EXPECT_EQ(s.y, (std::vector<double>{2, 4}));
    s = parse("1,2\r\n3,4\r\n", r);
    EXPECT_EQ(s.y, (std::vector<double>{2, 4}));
    // Spreadsheets' trailing delimiters are no extra column.
    s = parse("1;2;\n3;4;\n", r);
    EXPECT_EQ(s.t, (std::vector<double>{1, 3}));
    EXPECT_TRUE(s.dy.empty());
    // Fortran's double-precision exponents.
    s = parse("1.0D+00 2.5D-01\n2.0d0 3.0D-01\n", r);
    EXPECT_EQ(s.t, (std::vector<double>{1, 2}));
    EXPECT_EQ(s.y, (std::vector<double>{0.25, 0.3}));
    // Quoted cells, with the delimiter inside a quoted name.
    s = parse("\"time\",\"flux, corrected\"\n\"1\",\"2\"\n\"3\",\"4\"\n", r);
    EXPECT_EQ(r.columns, (std::vector<std::string>{"time", "flux, corrected"}));
    EXPECT_EQ(s.y, (std::vector<double>{2, 4}));
    // A comma inside a tab-separated header does not make the file comma-separated.
    s = parse("time\tflux (e-, corrected)\n1\t2\n3\t4\n", r);
    EXPECT_EQ(r.delimiter, "tab");
    EXPECT_EQ(s.y, (std::vector<double>{2, 4}));
}

TEST(TimeSeriesIO, Windows1252NamesAreShownAsUtf8)
{
    LoadReport r;
    const TimeSeries s = parse("BJD \x96 2450000;Flu\xDF (\xB5Jy)\n1;2\n3;4\n", r);
    EXPECT_EQ(r.columns,
              (std::vector<std::string>{"BJD \xE2\x80\x93 2450000", "Flu\xC3\x9F (\xC2\xB5Jy)"}));
    EXPECT_EQ(s.y, (std::vector<double>{2, 4}));
}

TEST(TimeSeriesIO, HeadersWithUnitsChooseTheirColumns)
{
    LoadReport r;
    TimeSeries s = parse("mag [mag]  time [d]  err [mag]\n10 1 0.1\n11 2 0.2\n", r);
    EXPECT_EQ(r.columns, (std::vector<std::string>{"mag [mag]", "time [d]", "err [mag]"}));
    EXPECT_EQ(s.t, (std::vector<double>{1, 2}));
    EXPECT_EQ(s.y, (std::vector<double>{10, 11}));
    EXPECT_EQ(s.dy, (std::vector<double>{0.1, 0.2}));
    s = parse("Flux (e/s),BJD_TDB,e_Flux\n5,100.5,0.5\n6,101.5,0.5\n", r);
    EXPECT_EQ(r.tColumn, 1);
    EXPECT_EQ(r.yColumn, 0);
    EXPECT_EQ(r.dyColumn, 2);
    EXPECT_EQ(s.t, (std::vector<double>{100.5, 101.5}));
}

TEST(TimeSeriesIO, ANothingUsableMessageSaysWhy)
{
    TimeSeries s;
    LoadReport r;
    // A third column of zero flags, taken for dy by position.
    Status st = parseTimeSeries("1 2 0\n3 4 0\n", {}, s, r);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("2 rows with dy <= 0"), std::string::npos) << st.message();
    st = parseTimeSeries("t,y\n", {}, s, r);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("header but no data"), std::string::npos) << st.message();
    st = parseTimeSeries(std::string("\xFF\xFE"
                                     "1\0,\0"
                                     "2\0\n\0",
                                     10),
                         {}, s, r);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("UTF-16"), std::string::npos) << st.message();
    // A first line of millions of cells is refused before it becomes millions of names.
    std::string wide;
    for (int i = 0; i < 2000000; ++i)
        wide += "x,";
    st = parseTimeSeries(wide + "\n1,2\n", {}, s, r);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("2000000 cells"), std::string::npos) << st.message();
}

TEST(TimeSeriesIO, FoldersAreNotFiles)
{
    TimeSeries s;
    LoadReport r;
    const auto dir = std::filesystem::temp_directory_path() / "warpscope-io-folder";
    std::filesystem::create_directories(dir);
    const Status st = loadTimeSeries(dir.string(), {}, s, r);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("is a folder"), std::string::npos) << st.message();
    const Status device = loadTimeSeries("/dev/null", {}, s, r);
    ASSERT_FALSE(device.ok());
    EXPECT_NE(device.message().find("not a regular file"), std::string::npos) << device.message();
}

// The numbers of a fixture's CSV column, below its header.
std::vector<double> fixtureColumn(const std::string& name, std::size_t column)
{
    std::ifstream in(fixtureDir() + "/" + name);
    EXPECT_TRUE(in) << name;
    std::string line;
    std::getline(in, line);
    std::vector<double> values;
    while (std::getline(in, line)) {
        std::stringstream cells(line);
        std::string cell;
        for (std::size_t i = 0; i <= column; ++i)
            std::getline(cells, cell, ',');
        values.push_back(std::stod(cell));
    }
    return values;
}

// astropy.time's MJD and JD of each date (tests/fixtures/generate_dates.py). 1e-9 day
// (86 us) is a few units in the last place of a JD near 2.4e6; the loader's MJD is the
// day count plus the seconds over 86400, as astropy's for days without a leap second.
TEST(TimeSeriesIO, IsoDatesBecomeTheMjdsOfAstropy)
{
    TimeSeries s;
    LoadReport r;
    ASSERT_TRUE(loadTimeSeries(fixtureDir() + "/dates/iso_dates.csv", {}, s, r).ok());
    const std::vector<double> mjd = fixtureColumn("dates/iso_dates_expected.csv", 0);
    const std::vector<double> jd = fixtureColumn("dates/iso_dates_expected.csv", 1);
    ASSERT_EQ(s.t.size(), mjd.size());
    for (std::size_t i = 0; i < mjd.size(); ++i) {
        EXPECT_NEAR(s.t[i], mjd[i], 1e-9) << "row " << i;
        EXPECT_NEAR(s.t[i] + 2400000.5, jd[i], 1e-9) << "row " << i;
        EXPECT_EQ(s.y[i], double(i)); // in the file's order: the dates are in time order
    }
    EXPECT_EQ(r.timeFormat, TimeFormat::IsoDate);
    EXPECT_EQ(r.timeUnit, TimeUnit::Day);
    EXPECT_EQ(r.timeLabel, "days (MJD from ISO 8601 dates)");
    EXPECT_EQ(r.summary(),
              std::to_string(mjd.size()) + " rows; t in days (MJD from ISO 8601 dates)");
}

TEST(TimeSeriesIO, WeeklyYyyyMmDdDatesShowTheirYearlyCycle)
{
    TimeSeries s;
    LoadReport r;
    ASSERT_TRUE(loadTimeSeries(fixtureDir() + "/dates/weekly_yyyymmdd.csv", {}, s, r).ok());
    EXPECT_EQ(r.timeFormat, TimeFormat::YyyyMmDd);
    EXPECT_EQ(r.timeLabel, "days (MJD from YYYYMMDD dates)");
    const std::vector<double> mjd = fixtureColumn("dates/weekly_yyyymmdd_expected.csv", 0);
    ASSERT_EQ(s.t, mjd); // whole days: exact
    // The sinusoid's period, 365.25 days, is where the periodogram peaks, to within one step
    // of a grid of a tenth of the inverse baseline.
    PeriodogramOptions o;
    const double baseline = s.t.back() - s.t.front();
    o.grid = frequencyGrid(0.1 / baseline, 0.05, 20000, false);
    std::vector<double> power(std::size_t(o.grid.count));
    auto cpuOwner = cpuContext(1);
    Context& cpu = *cpuOwner;
    ASSERT_TRUE(computePeriodogram(cpu, s, o, std::span<double>(power)).ok());
    const auto peak = std::max_element(power.begin(), power.end()) - power.begin();
    EXPECT_NEAR(o.grid.frequency(peak), 1.0 / 365.25, o.grid.df);
    EXPECT_GT(power[std::size_t(peak)], 0.99); // a sinusoid without noise
}

TEST(TimeSeriesIO, DatesThatDoNotExistAreSkippedWithTheirCause)
{
    LoadReport r;
    TimeSeries s = parse("date,value\n"
                         "1958-03-29,1\n"
                         "2021-02-30,2\n"
                         "1958-13-01,3\n"
                         "2016-12-31T23:59:60Z,4\n"
                         "2021-03-01T24:00:00,5\n"
                         "1958-04-05,6\n",
                         r);
    EXPECT_EQ(s.y, (std::vector<double>{1, 6}));
    EXPECT_EQ(r.invalidDates, 4u);
    EXPECT_EQ(r.firstSkipped,
              "line 3, column 1: \"2021-02-30\" is not a date (2021-02 has 28 days)");
    EXPECT_NE(r.summary().find("4 rows with an invalid date skipped"), std::string::npos)
        << r.summary();
    s = parse("date,value\n1958-13-01,1\n1958-04-05,2\n", r);
    EXPECT_EQ(r.firstSkipped,
              "line 2, column 1: \"1958-13-01\" is not a date (months run from 01 to 12)");
    s = parse("date,value\n1958-04-05,1\n1958-04-06 noon,2\n", r);
    EXPECT_NE(r.firstSkipped.find("\"1958-04-06 noon\" is not a date (dates are read as"),
              std::string::npos)
        << r.firstSkipped;

    // Eight-digit numbers are dates when most of those at the top are.
    s = parse("19580329,1\n00000000,2\n19580405,3\n19580431,4\n19580412,5\n", r);
    EXPECT_EQ(r.timeFormat, TimeFormat::YyyyMmDd);
    EXPECT_EQ(s.y, (std::vector<double>{1, 3, 5}));
    EXPECT_EQ(r.invalidDates, 2u);
    EXPECT_EQ(r.firstSkipped, "line 2, column 1: \"00000000\" is not a date (dates are read as "
                              "YYYYMMDD, 19580329)");
}

TEST(TimeSeriesIO, EmptyCellsAreSkippedAndNamed)
{
    LoadReport r;
    const TimeSeries s = parse("date,co2,sigma\n1958-03-29,,0.5\n1958-04-05,316,0.5\n", r);
    EXPECT_EQ(s.y, (std::vector<double>{316}));
    EXPECT_EQ(r.nonNumericRows, 1u);
    EXPECT_EQ(r.firstSkipped, "line 2, column 2 is empty");
}

TEST(TimeSeriesIO, DateTimesAreReadInEveryIsoSpelling)
{
    LoadReport r;
    // Between blanks, a date and its time of day are one cell; offsets from UTC are applied.
    TimeSeries s = parse("1958-03-29 12:00:00 1.5\n"
                         "1958-03-30T06:00:00+06:00 2.5\n"
                         "1958-03-30T18:30-0530 3.5\n"
                         "\"1958-03-31T00:00:00.000z\" 4.5\n",
                         r);
    EXPECT_EQ(r.delimiter, "whitespace");
    EXPECT_EQ(r.timeFormat, TimeFormat::IsoDate);
    // 1958-03-29 is MJD 36291 (JD 2436291.5).
    EXPECT_EQ(s.t, (std::vector<double>{36291.5, 36292.0, 36293.0, 36293.0}));
    s = parse("date;value\n2024-02-29;1,5\n2024-03-01;2,5\n", r);
    EXPECT_TRUE(r.decimalComma);
    EXPECT_EQ(s.t, (std::vector<double>{60369, 60370}));
}

TEST(TimeSeriesIO, DecimalYearsAreKnownOnlyByTheirColumnName)
{
    LoadReport r;
    // NOAA's monthly Mauna Loa CO2: the decimal date is the time, not the year.
    TimeSeries s = parse("year,month,decimal date,value\n"
                         "1958,3,1958.2027,315.70\n"
                         "1958,4,1958.2877,317.45\n",
                         r);
    EXPECT_EQ(r.tColumn, 2);
    EXPECT_EQ(r.timeFormat, TimeFormat::DecimalYear);
    EXPECT_EQ(r.timeUnit, TimeUnit::Year);
    EXPECT_EQ(r.timeLabel, "years");
    EXPECT_EQ(s.t, (std::vector<double>{1958.2027, 1958.2877}));
    EXPECT_EQ(r.summary(), "2 rows"); // the file's own numbers: nothing to say
    s = parse("year,value\n1958,1\n1959,2\n", r);
    EXPECT_EQ(r.timeFormat, TimeFormat::DecimalYear);
    // Numbers that could be years are numbers without a name that says so.
    s = parse("t,y\n1958.2,1\n1959.3,2\n", r);
    EXPECT_EQ(r.timeFormat, TimeFormat::Number);
    EXPECT_EQ(r.timeUnit, TimeUnit::Unknown);
    EXPECT_EQ(r.timeLabel, "");
    s = parse("1958.2,1\n1959.3,2\n", r);
    EXPECT_EQ(r.timeFormat, TimeFormat::Number);
    // A year column outside the calendar's range is not one of decimal years.
    s = parse("year,value\n0.5,1\n1.5,2\n", r);
    EXPECT_EQ(r.timeFormat, TimeFormat::Number);
}

TEST(TimeSeriesIO, JulianDateScalesAreNamedByHeaderOrValue)
{
    const std::pair<const char*, TimeFormat> cases[] = {
        {"t,y\n2459000.5,1\n2459001.5,2\n", TimeFormat::Jd},
        {"2459000.5 1\n2459001.5 2\n", TimeFormat::Jd},
        {"mjd,flux\n59000.5,1\n59001.5,2\n", TimeFormat::Mjd},
        {"BJD_TDB,flux\n2459000.5,1\n2459001.5,2\n", TimeFormat::Bjd},
        {"bjd-2450000,flux\n9000.5,1\n9001.5,2\n", TimeFormat::Bjd},
        {"btjd,flux\n1325.5,1\n1326.5,2\n", TimeFormat::Btjd},
        {"time (BKJD),flux\n131.5,1\n132.5,2\n", TimeFormat::Bkjd},
        {"HJD-2450000,mag\n9000.5,1\n9001.5,2\n", TimeFormat::Hjd},
        {"time [MJD],flux\n59000.5,1\n59001.5,2\n", TimeFormat::Mjd},
    };
    for (const auto& [text, format] : cases) {
        LoadReport r;
        parse(text, r);
        EXPECT_EQ(r.timeFormat, format) << text;
        EXPECT_EQ(r.timeUnit, TimeUnit::Day) << text;
    }
    LoadReport r;
    parse("t,y\n2459000.5,1\n2459001.5,2\n", r);
    EXPECT_EQ(r.timeLabel, "days (JD)");
    parse("btjd,flux\n1325.5,1\n1326.5,2\n", r);
    EXPECT_EQ(r.timeLabel, "days (BTJD = BJD - 2457000)");
    // A unit in the header names the unit of plain numbers.
    parse("time [d],flux\n0.5,1\n1.5,2\n", r);
    EXPECT_EQ(r.timeFormat, TimeFormat::Number);
    EXPECT_EQ(r.timeUnit, TimeUnit::Day);
    EXPECT_EQ(r.timeLabel, "days");
    parse("t (yr),flux\n0.5,1\n1.5,2\n", r);
    EXPECT_EQ(r.timeUnit, TimeUnit::Year);
    // Seconds near 2.4e6 are not JDs.
    parse("time [s],flux\n2459000.5,1\n2459001.5,2\n", r);
    EXPECT_EQ(r.timeFormat, TimeFormat::Number);
}

TEST(TimeSeriesIO, TheTimeFormatCanBeChosen)
{
    LoadReport r;
    ColumnChoice c;
    c.timeFormat = TimeFormat::DecimalYear;
    TimeSeries s = parse("1958.2,1\n1959.3,2\n", r, c);
    EXPECT_EQ(r.timeFormat, TimeFormat::DecimalYear);
    EXPECT_EQ(r.timeUnit, TimeUnit::Year);
    c.timeFormat = TimeFormat::Number;
    s = parse("t,y\n2459000.5,1\n2459001.5,2\n", r, c);
    EXPECT_EQ(r.timeFormat, TimeFormat::Number);
    EXPECT_EQ(r.timeLabel, "");
    // Eight-digit counters read as dates only when asked to.
    s = parse("t,y\n10000001,1\n10000002,2\n", r);
    EXPECT_EQ(r.timeFormat, TimeFormat::Number);
    c.timeFormat = TimeFormat::YyyyMmDd;
    s = parse("t,y\n20000101,1\n20000102,2\n", r, c);
    EXPECT_EQ(s.t, (std::vector<double>{51544, 51545}));
    c.timeFormat = TimeFormat::IsoDate;
    TimeSeries out;
    const Status st = parseTimeSeries("1,2\n3,4\n", c, out, r);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("2 rows with an invalid date skipped"), std::string::npos)
        << st.message();
    EXPECT_STREQ(timeFormatName(TimeFormat::Btjd), "BTJD");
}

} // namespace
} // namespace warpscope::gpu::test
