#pragma once

#include "warpscope/gpu/Timeline.h"

#include <qcustomplot.h>
#include <vector>

namespace warpscope::ui {

// Draws the spans of one kind as bars: key is time in milliseconds, value is the row of the
// span's lane (row r is centred on value r). Nested spans are drawn thinner, on top of their
// parents. It culls to the visible time range and merges bars narrower than a pixel, so the cost of
// a repaint follows the pixels drawn rather than the span count.
class SpanPlottable : public QCPAbstractPlottable
{
public:
    SpanPlottable(QCPAxis* keyAxis, QCPAxis* valueAxis, gpu::SpanKind kind);

    gpu::SpanKind kind() const { return m_kind; }
    // Takes the spans of this plottable's kind from snapshot; rowOfLane[lane] is the row a
    // lane is drawn in.
    void setSpans(const gpu::TimelineSnapshot& snapshot, const std::vector<int>& rowOfLane);
    // The span drawn at (timeMs, row), preferring the most deeply nested, or null.
    const gpu::Span* spanAt(double timeMs, int row) const;
    // Bars drawn by the last repaint, after culling and merging.
    int barsDrawn() const { return m_barsDrawn; }

    double selectTest(const QPointF& pos, bool onlySelectable,
                      QVariant* details = nullptr) const override;
    QCPRange getKeyRange(bool& foundRange,
                         QCP::SignDomain inSignDomain = QCP::sdBoth) const override;
    QCPRange getValueRange(bool& foundRange, QCP::SignDomain inSignDomain = QCP::sdBoth,
                           const QCPRange& inKeyRange = QCPRange()) const override;

protected:
    void draw(QCPPainter* painter) override;
    void drawLegendIcon(QCPPainter* painter, const QRectF& rect) const override;

private:
    // The spans of one lane at one nesting depth, sorted by start, with the longest duration
    // so that a binary search on start finds every span overlapping a time range.
    struct Track
    {
        int row = 0;
        int depth = 0;
        std::vector<gpu::Span> spans;
        double longestUs = 0.0;
    };
    // The first span of track that may end after fromUs.
    static std::size_t firstVisible(const Track& track, double fromUs);
    QRectF barRect(int row, int depth, double x0, double x1) const;

    gpu::SpanKind m_kind;
    std::vector<Track> m_tracks; // by depth, then row
    int m_barsDrawn = 0;
};

QColor spanKindColor(gpu::SpanKind kind);

// Half the height of a top-level bar, in rows.
inline constexpr double kBarHalfHeight = 0.38;

} // namespace warpscope::ui
