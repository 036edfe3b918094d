#include "LightCurveView.h"

#include "ValueAxis.h"
#include "common/PlotDecade.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace warpscope::ui {
namespace {

// Error bars for more points than this would cost more to draw than they show.
constexpr std::size_t kMaxErrorBars = 20'000;
// A press and release closer than this, in pixels, is a click, not a drag.
constexpr int kClickPixels = 4;

const QColor kMaskColour(0xe5, 0x48, 0x4d, 50);

} // namespace

LightCurveView::LightCurveView(QWidget* parent) : QCustomPlot(parent)
{
    setMinimumSize(160, 140); // QCustomPlot warns when laid out at zero size
    setToolTip(tr("Shift+drag to mask a time range (its points are left out of the trend and "
                  "the periodogram); click a shaded range to unmask it. Wheel to zoom, drag to "
                  "pan."));
    addGraph(); // the points used
    graph(0)->setLineStyle(QCPGraph::lsNone);
    graph(0)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 3));
    graph(0)->setPen(QPen(QColor(0x1f, 0x77, 0xb4)));
    addGraph(); // the points masked
    graph(1)->setLineStyle(QCPGraph::lsNone);
    graph(1)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 3));
    graph(1)->setPen(QPen(QColor(0xaa, 0xaa, 0xaa)));
    addGraph(); // the trend
    graph(2)->setPen(QPen(QColor(0xe5, 0x48, 0x4d), 2.0));
    m_errors = new QCPErrorBars(xAxis, yAxis);
    m_errors->setDataPlottable(graph(0));
    m_errors->setPen(QPen(QColor(0x1f, 0x77, 0xb4, 90)));
    m_rubberBand = shade(0.0, 0.0, QColor(0xe5, 0x48, 0x4d, 90));
    m_rubberBand->setVisible(false);
    yAxis->setLabel(tr("y"));
    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    axisRect()->setRangeDrag(Qt::Horizontal);
    axisRect()->setRangeZoom(Qt::Horizontal);
}

QCPItemRect* LightCurveView::shade(double t0, double t1, const QColor& colour)
{
    // x in t, y across the whole axis rectangle, so the shade spans any zoom.
    auto* rect = new QCPItemRect(this);
    rect->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
    rect->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
    rect->topLeft->setCoords(t0, 0.0);
    rect->bottomRight->setCoords(t1, 1.0);
    rect->setPen(Qt::NoPen);
    rect->setBrush(colour);
    rect->setSelectable(false);
    return rect;
}

void LightCurveView::setTimeLabel(const QString& label)
{
    xAxis->setLabel(label);
}

void LightCurveView::setValueLabel(const QString& label)
{
    m_valueLabel = label;
    setValueAxis(yAxis, label);
}

void LightCurveView::setData(const gpu::TimeSeries& series,
                             const std::vector<gpu::TimeRange>& masks, const gpu::TimeSeries& kept,
                             const std::vector<double>& trend)
{
    m_masks = masks;
    for (QCPItemRect* s : m_shades)
        removeItem(s);
    m_shades.clear();
    for (const gpu::TimeRange& m : masks)
        m_shades.push_back(shade(m.t0, m.t1, kMaskColour));

    QVector<double> t, y, errors, maskedT, maskedY;
    std::size_t k = 0;
    // kept is series without the masked points, in the same order: walk both together.
    for (std::size_t i = 0; i < series.t.size(); ++i) {
        if (k < kept.t.size() && kept.t[k] == series.t[i] && kept.y[k] == series.y[i]) {
            t.push_back(series.t[i]);
            y.push_back(series.y[i]);
            if (!series.dy.empty())
                errors.push_back(series.dy[i]);
            ++k;
        } else {
            maskedT.push_back(series.t[i]);
            maskedY.push_back(series.y[i]);
        }
    }
    // The trend as a line through the kept times in time order.
    std::vector<std::size_t> order(trend.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::sort(order.begin(), order.end(),
              [&kept](std::size_t a, std::size_t b) { return kept.t[a] < kept.t[b]; });
    QVector<double> trendT, trendY;
    for (const std::size_t i : order) {
        trendT.push_back(kept.t[i]);
        trendY.push_back(trend[i]);
    }
    // Values near double's limits are drawn in units of a power of ten (PlotDecade.h).
    double largest = 0.0;
    for (const QVector<double>* values : {&y, &maskedY, &trendY})
        for (const double v : *values)
            if (std::isfinite(v))
                largest = std::max(largest, std::abs(v));
    const int decade = plotDecade(largest);
    for (QVector<double>* values : {&y, &errors, &maskedY, &trendY})
        scaleToDecade(*values, decade);
    setValueAxis(yAxis, decadeLabel(m_valueLabel, decade));
    graph(0)->setData(t, y);
    graph(1)->setData(maskedT, maskedY);
    if (errors.size() == t.size() && std::size_t(t.size()) <= kMaxErrorBars)
        m_errors->setData(errors);
    else
        m_errors->data()->clear();
    graph(2)->setData(trendT, trendY, true);
    rescaleAxes();
    replot(QCustomPlot::rpQueuedReplot);
}

void LightCurveView::mousePressEvent(QMouseEvent* event)
{
    m_pressPos = event->pos();
    if (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ShiftModifier)) {
        m_dragStart = xAxis->pixelToCoord(event->pos().x());
        m_rubberBand->topLeft->setCoords(*m_dragStart, 0.0);
        m_rubberBand->bottomRight->setCoords(*m_dragStart, 1.0);
        m_rubberBand->setVisible(true);
        event->accept();
        return;
    }
    QCustomPlot::mousePressEvent(event);
}

void LightCurveView::mouseMoveEvent(QMouseEvent* event)
{
    if (!m_dragStart) {
        QCustomPlot::mouseMoveEvent(event);
        return;
    }
    m_rubberBand->bottomRight->setCoords(xAxis->pixelToCoord(event->pos().x()), 1.0);
    replot(QCustomPlot::rpQueuedReplot);
}

void LightCurveView::mouseReleaseEvent(QMouseEvent* event)
{
    const bool click = (event->pos() - m_pressPos).manhattanLength() < kClickPixels;
    if (m_dragStart) {
        const double start = *m_dragStart, end = xAxis->pixelToCoord(event->pos().x());
        m_dragStart.reset();
        m_rubberBand->setVisible(false);
        replot(QCustomPlot::rpQueuedReplot);
        if (!click && std::isfinite(start) && std::isfinite(end))
            emit maskAdded({std::min(start, end), std::max(start, end)});
        return;
    }
    QCustomPlot::mouseReleaseEvent(event);
    if (!click || event->button() != Qt::LeftButton)
        return;
    // The last range drawn over the click, as it is the one on top.
    const double t = xAxis->pixelToCoord(event->pos().x());
    for (int i = int(m_masks.size()) - 1; i >= 0; --i)
        if (m_masks[std::size_t(i)].contains(t)) {
            emit maskRemoved(i);
            return;
        }
}

} // namespace warpscope::ui
