#include "periodogram/LabelPlacer.h"

#include <gtest/gtest.h>

// Where the periodogram's labels go: the first place offered that is inside the plot and
// clear of the others, or none.
namespace warpscope::ui {
namespace {

const QRectF kPlot(0, 0, 200, 100);

TEST(LabelPlacer, ALabelTakesTheFirstPlaceClearOfTheOthers)
{
    LabelPlacer placer(kPlot, 2.0);
    const QRectF first(50, 50, 10, 10), above(50, 36, 10, 10), right(64, 50, 10, 10);
    EXPECT_EQ(placer.place({first}), first);
    // The same place is taken; the place 4 px above is clear by more than the gap.
    EXPECT_EQ(placer.place({first, above}), above);
    // 4 px right of the first: clear of it by more than the gap, so taken.
    EXPECT_EQ(placer.place({right}), right);
    // 1 px right of the first is within its gap.
    EXPECT_FALSE(placer.place({QRectF(61, 50, 10, 10)}));
}

TEST(LabelPlacer, AreasKeptFreeAndThePlotsEdgesAreRespected)
{
    LabelPlacer placer(kPlot, 0.0);
    placer.keepFree(QRectF(0, 0, 20, 20));
    EXPECT_FALSE(placer.place({QRectF(5, 5, 5, 5)}));      // on a marker
    EXPECT_FALSE(placer.place({QRectF(195, 50, 10, 10)})); // past the plot's right edge
    EXPECT_FALSE(placer.place({QRectF(50, -5, 10, 10)}));  // above its top
    const QRectF inside(20, 0, 10, 10);                    // touching the kept area
    EXPECT_EQ(placer.place({QRectF(5, 5, 5, 5), inside}), inside);
    EXPECT_FALSE(placer.place({}));
}

} // namespace
} // namespace warpscope::ui
