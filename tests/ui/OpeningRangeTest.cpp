#include "periodogram/OpeningRange.h"

#include <cmath>
#include <gtest/gtest.h>

// The range a periodogram opens on, each expected range worked out by hand from the rule in
// OpeningRange.h.
namespace warpscope::ui {
namespace {

gpu::Peak peak(double frequency, double power)
{
    return {0, frequency, power};
}

// A 4.217-day spot signal and its harmonic, 27 days at a 2-minute cadence: the grid runs to
// 360 cycles a day. The range starts at the grid's start and runs half as far again beyond the
// harmonic: 0.4742 + 0.5 (0.4742 - 0.004) = 0.7093.
TEST(OpeningRange, ASlowStarOpensFromTheGridsStartPastItsHarmonic)
{
    const std::vector<gpu::Peak> peaks{peak(0.2371, 0.9), peak(0.4742, 0.1), peak(250.0, 0.05)};
    const FrequencyRange r = openingRange(peaks, 0.004, 360.0, 1.0 / 27.0);
    EXPECT_DOUBLE_EQ(r.lo, 0.004);
    EXPECT_NEAR(r.hi, 0.7093, 1e-12);
}

// A pulsator's two modes at 10 and 12 cycles a day, far from the grid's start: their spread of
// 2 with a quarter of it on each side. A peak under a tenth of the highest is left out.
TEST(OpeningRange, FarPeaksOpenWithAQuarterOfTheirSpreadOnEachSide)
{
    const std::vector<gpu::Peak> peaks{peak(10.0, 1.0), peak(12.0, 0.6), peak(0.5, 0.09)};
    const FrequencyRange r = openingRange(peaks, 0.01, 360.0, 0.04);
    EXPECT_NEAR(r.lo, 9.5, 1e-12);
    EXPECT_NEAR(r.hi, 12.5, 1e-12);
}

// A lone peak is shown three peak widths to each side, never narrower.
TEST(OpeningRange, ALonePeakOpensAFewPeakWidthsWide)
{
    const FrequencyRange r = openingRange({peak(50.0, 1.0)}, 0.0, 100.0, 0.1);
    EXPECT_NEAR(r.lo, 49.7, 1e-12);
    EXPECT_NEAR(r.hi, 50.3, 1e-12);
}

// Only the five highest peaks count: a sixth, however high, does not widen the range. Peaks
// from 49.9 to 50.2, three widths (0.3) beyond each.
TEST(OpeningRange, OnlyTheHighestFivePeaksCount)
{
    const std::vector<gpu::Peak> peaks{peak(50.0, 1.0), peak(50.1, 0.9),  peak(50.2, 0.8),
                                       peak(49.9, 0.7), peak(50.05, 0.6), peak(90.0, 0.5)};
    const FrequencyRange r = openingRange(peaks, 0.0, 100.0, 0.1);
    EXPECT_NEAR(r.lo, 49.6, 1e-12);
    EXPECT_NEAR(r.hi, 50.5, 1e-12);
}

// Peaks across most of the grid, no peak, no power, no width: the whole grid.
TEST(OpeningRange, TheWholeGridWhereZoomingWouldNotHelp)
{
    const FrequencyRange whole{0.0, 100.0};
    EXPECT_EQ(openingRange({peak(20.0, 1.0), peak(80.0, 0.9)}, 0.0, 100.0, 0.1), whole);
    EXPECT_EQ(openingRange({}, 0.0, 100.0, 0.1), whole);
    EXPECT_EQ(openingRange({peak(20.0, 0.0)}, 0.0, 100.0, 0.1), whole);
    EXPECT_EQ(openingRange({peak(20.0, std::nan(""))}, 0.0, 100.0, 0.1), whole);
    EXPECT_EQ(openingRange({peak(20.0, 1.0)}, 0.0, 100.0, 0.0), whole);
    EXPECT_EQ(openingRange({peak(20.0, 1.0)}, 0.0, 100.0, INFINITY), whole);
}

} // namespace
} // namespace warpscope::ui
