#pragma once

#include <QRectF>
#include <optional>
#include <vector>

namespace warpscope::ui {

// Places labels on a plot so that none covers another: each label is offered a few places,
// best first, and takes the first that is inside the plot and clear of every label placed
// and every area kept free (a peak's marker) by at least the gap; a label with no such place
// is left out.
class LabelPlacer
{
public:
    LabelPlacer(const QRectF& bounds, double gap) : m_bounds(bounds), m_gap(gap) {}

    // An area no label may cover.
    void keepFree(const QRectF& area) { m_taken.push_back(area); }
    // The first of the candidates that fits, now taken; none when none fits.
    std::optional<QRectF> place(const std::vector<QRectF>& candidates);

private:
    bool fits(const QRectF& r) const;

    QRectF m_bounds;
    double m_gap;
    std::vector<QRectF> m_taken;
};

} // namespace warpscope::ui
