#include "LabelPlacer.h"

#include <algorithm>

namespace warpscope::ui {

bool LabelPlacer::fits(const QRectF& r) const
{
    if (!m_bounds.contains(r))
        return false;
    const QRectF padded = r.adjusted(-m_gap, -m_gap, m_gap, m_gap);
    return std::none_of(m_taken.begin(), m_taken.end(),
                        [&](const QRectF& t) { return padded.intersects(t); });
}

std::optional<QRectF> LabelPlacer::place(const std::vector<QRectF>& candidates)
{
    for (const QRectF& r : candidates)
        if (fits(r)) {
            m_taken.push_back(r);
            return r;
        }
    return std::nullopt;
}

} // namespace warpscope::ui
