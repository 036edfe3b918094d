#include "PeriodogramMarks.h"

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
    // Levels come lowest first and often lie close: the first label goes under its line,
    // the next above its own, so that they never overlap.
    bool under = true;
    for (const Level& level : m_levels) {
        const double y = m_view->yPixel(level.power);
        const double labelY = under ? y + metrics.ascent() + 1.0 : y - 3.0;
        under = !under;
        if (!(y >= top && y <= bottom))
            continue;
        painter.setPen(QPen(QColor(0xc0, 0x39, 0x2b, 200), 1.0, Qt::DashLine));
        painter.drawLine(QPointF(left, y), QPointF(right, y));
        const double width = metrics.horizontalAdvance(level.label);
        painter.drawText(QPointF(right - width - 4.0, labelY), level.label);
    }
    int row = 0;
    for (const Line& line : m_lines) {
        const double x = m_view->xPixel(line.frequency);
        if (!(x >= left && x <= right))
            continue;
        painter.setPen(QPen(QColor(0x6a, 0x1b, 0x9a, 110), 1.0, Qt::DotLine));
        painter.drawLine(QPointF(x, top), QPointF(x, bottom));
        painter.setPen(QColor(0x6a, 0x1b, 0x9a, 200));
        // Labels step down so that neighbouring aliases stay readable.
        painter.drawText(
            QPointF(x + 3.0, top + metrics.ascent() + 2.0 + (row++ % 3) * metrics.height()),
            line.label);
    }
}

} // namespace warpscope::ui
