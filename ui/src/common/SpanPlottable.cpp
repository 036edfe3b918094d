#include "SpanPlottable.h"

#include <algorithm>
#include <limits>

namespace warpscope::ui {
namespace {

constexpr double kNestInset = 0.1; // each level of nesting is this much thinner per side

} // namespace

QColor spanKindColor(gpu::SpanKind kind)
{
    switch (kind) {
    case gpu::SpanKind::CopyHostToDevice:
        return QColor(0x3b, 0x82, 0xf6); // blue
    case gpu::SpanKind::CopyDeviceToHost:
        return QColor(0xa8, 0x55, 0xf7); // violet
    case gpu::SpanKind::Kernel:
        return QColor(0x22, 0xc5, 0x5e); // green
    case gpu::SpanKind::Interop:
        return QColor(0xf5, 0x9e, 0x0b); // amber
    case gpu::SpanKind::GlDraw:
        return QColor(0xef, 0x44, 0x44); // red
    case gpu::SpanKind::Host:
        break;
    }
    return QColor(0x94, 0xa3, 0xb8); // slate
}

SpanPlottable::SpanPlottable(QCPAxis* keyAxis, QCPAxis* valueAxis, gpu::SpanKind kind)
    : QCPAbstractPlottable(keyAxis, valueAxis), m_kind(kind)
{
    setName(QString::fromUtf8(gpu::spanKindName(kind)));
    const QColor color = spanKindColor(kind);
    setBrush(color);
    setPen(QPen(color.darker(140), 0));
    setSelectable(QCP::stNone);
}

void SpanPlottable::setSpans(const gpu::TimelineSnapshot& snapshot,
                             const std::vector<int>& rowOfLane)
{
    m_tracks.clear();
    auto trackFor = [this](int row, int depth) -> Track& {
        for (Track& t : m_tracks)
            if (t.row == row && t.depth == depth)
                return t;
        m_tracks.push_back(Track{row, depth, {}, 0.0});
        return m_tracks.back();
    };
    // The snapshot is sorted by start, so each track is too.
    for (const gpu::Span& s : snapshot.spans) {
        if (s.kind != m_kind || s.lane < 0 || std::size_t(s.lane) >= rowOfLane.size())
            continue;
        Track& t = trackFor(rowOfLane[std::size_t(s.lane)], s.depth);
        t.spans.push_back(s);
        t.longestUs = std::max(t.longestUs, s.durationUs());
    }
    std::sort(m_tracks.begin(), m_tracks.end(), [](const Track& a, const Track& b) {
        return std::tie(a.depth, a.row) < std::tie(b.depth, b.row);
    });
}

std::size_t SpanPlottable::firstVisible(const Track& track, double fromUs)
{
    const double earliestStart = fromUs - track.longestUs;
    return std::size_t(
        std::lower_bound(track.spans.begin(), track.spans.end(), earliestStart,
                         [](const gpu::Span& s, double t) { return s.startUs < t; }) -
        track.spans.begin());
}

QRectF SpanPlottable::barRect(int row, int depth, double x0, double x1) const
{
    const double half = std::max(0.08, kBarHalfHeight - kNestInset * depth);
    const double yTop = mValueAxis->coordToPixel(row + half);
    const double yBottom = mValueAxis->coordToPixel(row - half);
    return QRectF(QPointF(x0, std::min(yTop, yBottom)), QPointF(x1, std::max(yTop, yBottom)));
}

void SpanPlottable::draw(QCPPainter* painter)
{
    m_barsDrawn = 0;
    if (!mKeyAxis || !mValueAxis)
        return;
    const QCPRange keys = mKeyAxis->range();
    const double fromUs = keys.lower * 1000.0, toUs = keys.upper * 1000.0;
    for (const Track& track : m_tracks) {
        // Nested spans are darker than their parents, so both stay readable.
        painter->setBrush(mBrush.color().darker(100 + 30 * std::min(track.depth, 4)));
        // Adjacent bars closer than a pixel are drawn as one, so thousands of tiny spans cost
        // a few rectangles. The outline is left off on merged and sub-pixel bars.
        double runStart = 0.0, runEnd = -std::numeric_limits<double>::infinity();
        bool runMerged = false;
        auto flush = [&] {
            if (runEnd < runStart)
                return;
            const bool thin = runMerged || runEnd - runStart < 3.0;
            painter->setPen(thin ? Qt::NoPen : mPen);
            painter->drawRect(
                barRect(track.row, track.depth, runStart, std::max(runEnd, runStart + 1.0)));
            ++m_barsDrawn;
        };
        for (std::size_t i = firstVisible(track, fromUs); i < track.spans.size(); ++i) {
            const gpu::Span& s = track.spans[i];
            if (s.startUs > toUs)
                break;
            if (s.endUs < fromUs)
                continue;
            const double x0 = mKeyAxis->coordToPixel(s.startUs / 1000.0);
            const double x1 = mKeyAxis->coordToPixel(s.endUs / 1000.0);
            const bool narrow = x1 - x0 < 2.0 || runEnd - runStart < 2.0;
            if (narrow && x0 <= runEnd + 1.0) {
                runEnd = std::max(runEnd, x1);
                runMerged = true;
                continue;
            }
            flush();
            runStart = x0;
            runEnd = x1;
            runMerged = false;
        }
        flush();
    }
}

void SpanPlottable::drawLegendIcon(QCPPainter* painter, const QRectF& rect) const
{
    painter->setBrush(mBrush);
    painter->setPen(mPen);
    painter->drawRect(rect.adjusted(1, 3, -1, -3));
}

const gpu::Span* SpanPlottable::spanAt(double timeMs, int row) const
{
    const double us = timeMs * 1000.0;
    const gpu::Span* found = nullptr;
    for (const Track& track : m_tracks) { // by depth, so deeper spans win
        if (track.row != row)
            continue;
        for (std::size_t i = firstVisible(track, us); i < track.spans.size(); ++i) {
            const gpu::Span& s = track.spans[i];
            if (s.startUs > us)
                break;
            if (s.endUs >= us)
                found = &s;
        }
    }
    return found;
}

double SpanPlottable::selectTest(const QPointF& pos, bool onlySelectable, QVariant*) const
{
    if (onlySelectable || !mKeyAxis || !mValueAxis)
        return -1;
    const double timeMs = mKeyAxis->pixelToCoord(pos.x());
    const int row = int(std::lround(mValueAxis->pixelToCoord(pos.y())));
    return spanAt(timeMs, row) ? 0.0 : -1.0;
}

QCPRange SpanPlottable::getKeyRange(bool& foundRange, QCP::SignDomain) const
{
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const Track& t : m_tracks)
        for (const gpu::Span& s : t.spans) {
            lo = std::min(lo, s.startUs / 1000.0);
            hi = std::max(hi, s.endUs / 1000.0);
        }
    foundRange = lo <= hi;
    return foundRange ? QCPRange(lo, hi) : QCPRange();
}

QCPRange SpanPlottable::getValueRange(bool& foundRange, QCP::SignDomain, const QCPRange&) const
{
    int lo = std::numeric_limits<int>::max(), hi = std::numeric_limits<int>::min();
    for (const Track& t : m_tracks) {
        lo = std::min(lo, t.row);
        hi = std::max(hi, t.row);
    }
    foundRange = lo <= hi;
    return foundRange ? QCPRange(lo - 0.5, hi + 0.5) : QCPRange();
}

} // namespace warpscope::ui
