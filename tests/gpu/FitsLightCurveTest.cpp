#include "TestSupport.h"
#include "warpscope/gpu/TimeSeriesIO.h"

#include <filesystem>
#include <gtest/gtest.h>

namespace warpscope::gpu::test {
namespace {

std::string fitsFixture(const std::string& name)
{
    return fixtureDir() + "/fits/" + name;
}

std::string bytesOf(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Loads fixture into s and r; its rows must be those its expected CSV (time, flux, flux error
// 2.0) says a reader keeps.
void expectLoadsRows(const std::string& fixture, const std::string& expectedCsv, TimeSeries& s,
                     LoadReport& r)
{
    const Status st = loadTimeSeries(fitsFixture(fixture), {}, s, r);
    ASSERT_TRUE(st.ok()) << st.message();
    std::ifstream in(fitsFixture(expectedCsv));
    std::string line;
    std::getline(in, line);
    std::vector<double> t, y;
    while (std::getline(in, line)) {
        const auto comma = line.find(',');
        t.push_back(std::stod(line.substr(0, comma)));
        y.push_back(std::stod(line.substr(comma + 1)));
    }
    ASSERT_FALSE(t.empty()) << expectedCsv;
    EXPECT_EQ(s.t, t);
    EXPECT_EQ(s.y, y);
    EXPECT_EQ(s.dy, std::vector<double>(t.size(), 2.0));
}

// The fixtures are written by tests/fixtures/generate_fits.py with astropy.io.fits; the
// expected rows are astropy's values, which float32 columns hold exactly as doubles.
TEST(FitsLightCurve, TessLightCurveKeepsGoodCadences)
{
    TimeSeries s;
    LoadReport r;
    expectLoadsRows("tess_lc.fits", "tess_lc_expected.csv", s, r);
    EXPECT_EQ(r.columns, (std::vector<std::string>{"TIME", "TIMECORR", "CADENCENO", "SAP_FLUX",
                                                   "SAP_FLUX_ERR", "SAP_BKG", "SAP_BKG_ERR",
                                                   "PDCSAP_FLUX", "PDCSAP_FLUX_ERR", "QUALITY"}));
    // Each column's TUNITn, as astropy wrote them ("" for the columns without one).
    EXPECT_EQ(r.units, (std::vector<std::string>{"BJD - 2457000, days", "d", "", "e-/s", "e-/s",
                                                 "e-/s", "e-/s", "e-/s", "e-/s", ""}));
    EXPECT_EQ(r.tColumn, 0);
    EXPECT_EQ(r.yColumn, 7);
    EXPECT_EQ(r.dyColumn, 8);
    EXPECT_EQ(r.flaggedRows, 5u); // one of them also has NaN flux: flagged first
    EXPECT_EQ(r.nonFiniteRows, 2u);
    EXPECT_EQ(r.firstSkipped, "row 21, PDCSAP_FLUX is NaN or infinite");
    EXPECT_EQ(r.timeFormat, TimeFormat::Btjd);
    EXPECT_EQ(r.timeUnit, TimeUnit::Day);
    EXPECT_EQ(r.timeLabel, "days (BTJD = BJD - 2457000, TDB; TESS)");
    EXPECT_NE(r.summary().find("5 rows with QUALITY flags skipped"), std::string::npos)
        << r.summary();

    // The same from memory, and SAP_FLUX when it is chosen by position.
    ColumnChoice c;
    c.byName = false;
    c.t = 0;
    c.y = 3;
    c.dy = 4;
    ASSERT_TRUE(parseFitsLightCurve(bytesOf(fitsFixture("tess_lc.fits")), c, s, r).ok());
    EXPECT_EQ(r.yColumn, 3);
    EXPECT_EQ(r.dyColumn, 4);
    EXPECT_EQ(s.t.size(), 113u);
}

// Only headers are searched for cards that would overflow cfitsio: bytes in the data that
// read as one, at a card's place, are data (two rows whose QUALITY they set).
TEST(FitsLightCurve, DataThatReadsLikeAHeaderCardIsData)
{
    TimeSeries s;
    LoadReport r;
    expectLoadsRows("card_like_data.fits", "card_like_data_expected.csv", s, r);
    EXPECT_EQ(r.flaggedRows, 7u);
    TimeSeries fromMemory;
    const Status parsed =
        parseFitsLightCurve(bytesOf(fitsFixture("card_like_data.fits")), {}, fromMemory, r);
    ASSERT_TRUE(parsed.ok()) << parsed.message();
    EXPECT_EQ(fromMemory.t, s.t);
    EXPECT_EQ(fromMemory.y, s.y);
}

TEST(FitsLightCurve, CompressedKeplerLightCurveFallsBackToSapFlux)
{
    TimeSeries s;
    LoadReport r;
    const Status st = loadTimeSeries(fitsFixture("kepler_lc.fits.gz"), {}, s, r);
    ASSERT_TRUE(st.ok()) << st.message();
    EXPECT_EQ(r.yColumn, 3); // SAP_FLUX
    EXPECT_EQ(r.dyColumn, 4);
    EXPECT_EQ(r.flaggedRows, 1u); // SAP_QUALITY
    EXPECT_EQ(s.t.size(), 59u);
    EXPECT_EQ(s.t.front(), 131.5);
    EXPECT_EQ(r.timeFormat, TimeFormat::Bkjd);
    EXPECT_EQ(r.timeLabel, "days (BKJD = BJD - 2454833, TDB; Kepler)");
}

TEST(FitsLightCurve, FilesThatAreNotLightCurvesAreExplained)
{
    const std::pair<const char*, const char*> cases[] = {
        {"missing_time.fits", "LIGHTCURVE has no TIME column (its columns: TIMECORR,"},
        {"string_time.fits", "LIGHTCURVE's column TIME holds text, not numbers"},
        {"nan_flux.fits", "no row of LIGHTCURVE is usable: 8 rows with NaN or infinity skipped"},
        {"truncated.fits", "has 120 rows but the data end after 30; the file is truncated"},
        {"empty_table.fits", "the table LIGHTCURVE has no rows"},
        {"image_extension.fits", "LIGHTCURVE is an image, not a table"},
        {"primary_only.fits", "holds no table"},
        {"overfull_card.fits",
         "the header card TTYPE1 (card 45 of the file) has an unquoted value"},
        {"overfull_card_later.fits",
         "the header card TTYPE1 (card 189 of the file) has an unquoted value"},
        {"random.fits", "is not a FITS file (FITS files start with the card SIMPLE)"},
    };
    for (const auto& [name, why] : cases) {
        TimeSeries s;
        LoadReport r;
        const Status st = loadTimeSeries(fitsFixture(name), {}, s, r);
        ASSERT_FALSE(st.ok()) << name;
        EXPECT_NE(st.message().find(why), std::string::npos) << name << ": " << st.message();
        EXPECT_TRUE(s.t.empty()) << name;
        // From memory too, with the same reason.
        const Status fromMemory = parseFitsLightCurve(bytesOf(fitsFixture(name)), {}, s, r);
        ASSERT_FALSE(fromMemory.ok()) << name;
        EXPECT_NE(fromMemory.message().find(why), std::string::npos)
            << name << ": " << fromMemory.message();
    }
    // The columns are listed when the chosen ones are missing, for the column pickers.
    TimeSeries s;
    LoadReport r;
    ASSERT_FALSE(loadTimeSeries(fitsFixture("missing_time.fits"), {}, s, r).ok());
    EXPECT_EQ(r.columns.size(), 9u);
    EXPECT_EQ(r.columns.front(), "TIMECORR");
}

// The card of tess_lc.fits whose keyword is key (its first in the file).
std::size_t cardOf(const std::string& bytes, const std::string& key)
{
    for (std::size_t at = 0; at + 80 <= bytes.size(); at += 80)
        if (bytes.compare(at, key.size(), key) == 0 && bytes[at + key.size()] == ' ')
            return at;
    ADD_FAILURE() << key << " not found";
    return 0;
}

// A size keyword that cfitsio cannot read as an integer, or one missing or out of order,
// made cfitsio go on with sizes it never set (found by fuzzing: huge allocations and reads
// past its buffers). Such headers are refused first, naming the card.
TEST(FitsLightCurve, MandatoryCardsMustBeInPlaceAndWhole)
{
    const std::string good = bytesOf(fitsFixture("tess_lc.fits"));
    const std::size_t naxis2 = cardOf(good, "NAXIS2");
    const std::size_t pcount = cardOf(good, "PCOUNT");
    std::string notWhole = good;
    notWhole.replace(naxis2, 10, "NAXIS2  =(");
    std::string newline = good;
    newline[naxis2 + 10] = '\n';
    newline[naxis2 + 29] = '\n';
    std::string swapped = good;
    swapped.replace(pcount, 80, good, pcount + 80, 80); // GCOUNT where PCOUNT is due
    swapped.replace(pcount + 80, 80, good, pcount, 80);
    std::string garbled = good;
    garbled.replace(cardOf(good, "NAXIS"), 8, "N\xd9\xd9\xd9\xd9\xd9\xd9\xd9");
    const std::pair<std::string, std::string> cases[] = {
        {notWhole, "the header card NAXIS2 (card " + std::to_string(naxis2 / 80 + 1) +
                       " of the file) does not hold a whole number, which is not valid FITS"},
        {newline, "the header card NAXIS2 (card " + std::to_string(naxis2 / 80 + 1) +
                      " of the file) does not hold a whole number"},
        {swapped, "the header card GCOUNT (card " + std::to_string(pcount / 80 + 1) +
                      " of the file) should be PCOUNT (card 6 of its header)"},
        {garbled, "the header card N??????? (card 3 of the file) should be NAXIS (card 3 of its "
                  "header)"},
    };
    for (const auto& [bytes, why] : cases) {
        TimeSeries s;
        LoadReport r;
        const Status st = parseFitsLightCurve(bytes, {}, s, r);
        ASSERT_FALSE(st.ok()) << why;
        EXPECT_NE(st.message().find(why), std::string::npos) << st.message();
        EXPECT_TRUE(s.t.empty());
    }
    // Keywords in their places with other cards between the mandatory ones' ends are fine:
    // the fixture itself (written by astropy) reads.
    TimeSeries s;
    LoadReport r;
    EXPECT_TRUE(parseFitsLightCurve(good, {}, s, r).ok());
}

TEST(FitsLightCurve, DatesCannotBeChosenForFitsTimes)
{
    TimeSeries s;
    LoadReport r;
    ColumnChoice c;
    c.timeFormat = TimeFormat::IsoDate;
    const Status st = loadTimeSeries(fitsFixture("tess_lc.fits"), c, s, r);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("tess_lc.fits: FITS light curves hold times as numbers, not as "
                                "dates, so the time format ISO 8601 date cannot apply"),
              std::string::npos)
        << st.message();
    c.timeFormat = TimeFormat::Number;
    ASSERT_TRUE(loadTimeSeries(fitsFixture("tess_lc.fits"), c, s, r).ok());
    EXPECT_EQ(r.timeFormat, TimeFormat::Number);
    EXPECT_EQ(r.timeLabel, "");
}

TEST(FitsLightCurve, TextLcFilesStayText)
{
    const auto dir = std::filesystem::temp_directory_path() / "warpscope-fits";
    std::filesystem::create_directories(dir);
    const std::string text = (dir / "hat.lc").string();
    std::ofstream(text) << "1 2\n3 4\n";
    TimeSeries s;
    LoadReport r;
    ASSERT_TRUE(loadTimeSeries(text, {}, s, r).ok());
    EXPECT_EQ(s.t, (std::vector<double>{1, 3}));
    // A FITS file named .lc is read as FITS by its first bytes.
    const std::string fitsLc = (dir / "tess.lc").string();
    std::filesystem::copy_file(fitsFixture("tess_lc.fits"), fitsLc,
                               std::filesystem::copy_options::overwrite_existing);
    ASSERT_TRUE(loadTimeSeries(fitsLc, {}, s, r).ok());
    EXPECT_EQ(r.timeFormat, TimeFormat::Btjd);
}

} // namespace
} // namespace warpscope::gpu::test
