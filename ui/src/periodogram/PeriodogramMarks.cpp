#include "PeriodogramMarks.h"

#include "LabelPlacer.h"
#include "warpscope/ui/SpectrumView.h"

#include <QEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>

namespace warpscope::ui {

PeriodogramMarks::PeriodogramMarks(SpectrumView* view) : QWidget(view), m_view(view)
{
    setObjectName("periodogramMarks");
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setAttribute(Qt::WA_NoSystemBackground);
    resize(view->size());
    // The view zooms and pans on these; repainting after them keeps the marks on its axes.
    view->installEventFilter(this);
}

bool PeriodogramMarks::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_view) {
        switch (event->type()) {
        case QEvent::Resize:
            resize(m_view->size());
            break;
        case QEvent::Wheel:
        case QEvent::MouseMove:
        case QEvent::MouseButtonRelease:
        case QEvent::MouseButtonDblClick:
        case QEvent::KeyPress:
            update();
            break;
        default:
            break;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void PeriodogramMarks::setAxis(bool period, double frequencyScale)
{
    m_period = period;
    m_scale = frequencyScale;
    update();
}

void PeriodogramMarks::setLevels(std::vector<Level> levels)
{
    m_levels = std::move(levels);
    update();
}

void PeriodogramMarks::setLines(std::vector<Line> lines)
{
    m_lines = std::move(lines);
    update();
}

double PeriodogramMarks::frequencyAt(double x) const
{
    return m_period ? 1.0 / x : x / m_scale;
}

void PeriodogramMarks::paintEvent(QPaintEvent*)
{
    m_painted.clear();
    m_paintedLevels.clear();
    const auto& spectrum = m_view->spectrum();
    if (!spectrum || (m_levels.empty() && m_lines.empty()))
        return;
    // The plot's edges from the view's own mapping: x from its visible range, y from the
    // range it fits to the spectrum (from the lower of 0 and the least power, to 1.1 times
    // the span above it).
    const auto [xMin, xMax] = m_view->xRange();
    const double a = m_view->xPixel(frequencyAt(xMin)), b = m_view->xPixel(frequencyAt(xMax));
    const double left = std::min(a, b), right = std::max(a, b);
    const double low = std::min(0.0, spectrum->minPower());
    const double high =
        spectrum->maxPower() > low ? low + 1.1 * (spectrum->maxPower() - low) : low + 1.0;
    const double bottom = m_view->yPixel(low), top = m_view->yPixel(high);
    if (!std::isfinite(left) || !std::isfinite(right) || !std::isfinite(top) ||
        !std::isfinite(bottom))
        return;
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    QFont font = painter.font();
    font.setPointSizeF(font.pointSizeF() * 0.85);
    painter.setFont(font);
    const QFontMetricsF metrics(font);
    // Levels come lowest first and often lie close: lines within a label's height of each
    // other share one label, above the highest of them ("FAP 1 %, 0.1 %"); the others
    // alternate under and above their lines, and none goes below the plot.
    struct LevelLabel
    {
        double y;
        QString text;
    };
    std::vector<LevelLabel> labels;
    for (const Level& level : m_levels) {
        const double y = m_view->yPixel(level.power);
        if (!(y >= top && y <= bottom))
            continue;
        painter.setPen(QPen(QColor(0xc0, 0x39, 0x2b, 200), 1.0, Qt::DashLine));
        painter.drawLine(QPointF(left, y), QPointF(right, y));
        if (!labels.empty() && std::abs(labels.back().y - y) < metrics.height()) {
            labels.back().y = std::min(labels.back().y, y);
            labels.back().text += ", " + QString(level.label).remove("FAP ");
        } else {
            labels.push_back({y, level.label});
        }
    }
    // Every label keeps clear of the peaks' markers and numbers and of the other labels.
    LabelPlacer placer(QRectF(QPointF(left, top), QPointF(right, bottom)), 3.0);
    const SpectrumView::PeakMarks peaks = m_view->peakMarks();
    for (const QRectF& marker : peaks.markers)
        placer.keepFree(marker);
    for (const SpectrumView::PeakLabel& label : peaks.labels)
        placer.keepFree(label.rect);
    const auto paint = [&](const QRectF& r, const QString& text) {
        painter.drawText(QPointF(r.left(), r.top() + metrics.ascent()), text);
        m_painted.push_back({text, r});
    };
    // At the right edge, under or above its line by turns, else on the other side, else
    // stacked higher above it; each moved left past what it would cover if need be.
    bool under = labels.size() > 1;
    for (const LevelLabel& label : labels) {
        const QSizeF size(metrics.horizontalAdvance(label.text), metrics.height());
        const double below = label.y + 1.0, above = label.y - 3.0 - metrics.ascent();
        std::vector<QRectF> candidates;
        for (int step = 0; step < 4; ++step) {
            const double x = right - size.width() - 4.0 - step * (size.width() + 8.0);
            for (const double y : {under ? below : above, under ? above : below,
                                   above - size.height(), above - 2.0 * size.height()})
                candidates.emplace_back(QPointF(x, y), size);
        }
        under = !under;
        if (const std::optional<QRectF> r = placer.place(candidates)) {
            m_paintedLevels << label.text;
            paint(*r, label.text);
        }
    }
    // Lines closer than a few pixels (f - 1/yr and f + 1/yr on a wide grid) share one label.
    struct Placed
    {
        double x;
        QString label;
    };
    std::vector<Placed> placed;
    std::vector<std::pair<double, QString>> shown;
    for (const Line& line : m_lines) {
        const double x = m_view->xPixel(line.frequency);
        if (x >= left && x <= right)
            shown.emplace_back(x, line.label);
    }
    std::sort(shown.begin(), shown.end(),
              [](const auto& p, const auto& q) { return p.first < q.first; });
    for (const auto& [x, label] : shown) {
        painter.setPen(QPen(QColor(0x6a, 0x1b, 0x9a, 110), 1.0, Qt::DotLine));
        painter.drawLine(QPointF(x, top), QPointF(x, bottom));
        if (!placed.empty() && x - placed.back().x < 4.0)
            placed.back().label += ", " + label;
        else
            placed.push_back({x, label});
    }
    // Each label right of its line, or left of it where it would leave the plot, on the
    // highest of kRows rows where it is clear; one that fits no row is left to the list under
    // the plot.
    constexpr int kRows = 4;
    painter.setPen(QColor(0x6a, 0x1b, 0x9a, 220));
    for (const Placed& p : placed) {
        const QSizeF size(metrics.horizontalAdvance(p.label), metrics.height());
        const double x0 = p.x + 3.0 + size.width() <= right ? p.x + 3.0 : p.x - 3.0 - size.width();
        std::vector<QRectF> candidates;
        for (int row = 0; row < kRows; ++row)
            candidates.emplace_back(QPointF(x0, top + 2.0 + row * metrics.height()), size);
        if (const std::optional<QRectF> r = placer.place(candidates))
            paint(*r, p.label);
    }
}

} // namespace warpscope::ui
