#include "warpscope/ui/SpectrumView.h"

#include "LabelPlacer.h"
#include "OpeningRange.h"
#include "common/AfterFrame.h"
#include "common/ValueText.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QPainter>
#include <QTimer>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

namespace warpscope::ui {
namespace {

constexpr double kLeft = 70.0, kRight = 16.0, kTop = 14.0, kBottom = 46.0;
const QColor kLine(0x25, 0x63, 0xeb);
const QColor kSelected(0xe5, 0x48, 0x4d);

// About `target` round-numbered ticks (1, 2 or 5 times a power of ten) within [lo, hi].
std::vector<double> linearTicks(double lo, double hi, int target)
{
    std::vector<double> ticks;
    const double span = hi - lo;
    if (!(span > 0.0) || !std::isfinite(span))
        return ticks;
    const double raw = span / std::max(1, target);
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    double step = magnitude;
    for (const double m : {1.0, 2.0, 5.0, 10.0})
        if (raw <= m * magnitude) {
            step = m * magnitude;
            break;
        }
    for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step)
        ticks.push_back(std::abs(t) < step * 1e-9 ? 0.0 : t);
    return ticks;
}

// Decades, with 2 and 5 between them when the range spans few decades.
std::vector<double> logTicks(double lo, double hi)
{
    std::vector<double> ticks;
    if (!(lo > 0.0) || !(hi > lo) || !std::isfinite(hi))
        return ticks;
    const int first = int(std::floor(std::log10(lo)));
    const int last = int(std::ceil(std::log10(hi)));
    const bool fine = last - first <= 3;
    for (int e = first; e <= last; ++e)
        for (const double m : fine ? std::vector<double>{1, 2, 5} : std::vector<double>{1}) {
            const double t = m * std::pow(10.0, e);
            if (t >= lo * (1 - 1e-12) && t <= hi * (1 + 1e-12))
                ticks.push_back(t);
        }
    if (ticks.size() < 2)
        return linearTicks(lo, hi, 5);
    return ticks;
}

} // namespace

SpectrumView::SpectrumView(std::shared_ptr<gpu::DevicePool> devices, QWidget* parent)
    : QOpenGLWidget(parent), m_devices(std::move(devices))
{
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(320, 200);
    setToolTip(tr("Wheel or +/-: zoom · drag or arrows: pan · double click or Home: the whole "
                  "grid · click a peak: fold at it"));
}

SpectrumView::~SpectrumView()
{
    if (context()) {
        // The base class destroys the context after this object's members are gone, and the
        // context's aboutToBeDestroyed would then call releaseGl on a destroyed view.
        disconnect(context(), nullptr, this, nullptr);
        makeCurrent();
        releaseGl();
        doneCurrent();
    }
}

void SpectrumView::initializeGL()
{
    connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, [this] {
        makeCurrent();
        releaseGl();
        doneCurrent();
    });
    if (gpu::Status s = m_renderer.initialize(); !s) {
        m_error = QString::fromStdString(s.message());
        afterFrame(this, [this, error = m_error] { emit message(error); });
        return;
    }
    openContext();
}

void SpectrumView::openContext()
{
    m_interop.reset();
    m_context.reset();
    m_filledAxis.reset();
    m_generation = m_devices->generation();
    std::string why;
    gpu::Status s =
        m_devices->openDisplay("periodogram view", render::glCudaDevices(), true, m_context, why);
    if (!s) // an explicit request that cannot be met here; the line is still drawn
        s = gpu::Context::open({gpu::DeviceKind::Cpu, 0}, m_context);
    if (!s) {
        m_error = QString::fromStdString(s.message());
        afterFrame(this, [this, error = m_error] { emit message(error); });
        return;
    }
    m_interop = std::make_unique<render::GlInterop>(*m_context);
    m_pathText = m_interop->interop() ? tr("interop") : tr("host copy");
}

void SpectrumView::releaseGl()
{
    m_interop.reset(); // its registrations go before the buffer they name
    m_renderer.release();
    m_context.reset();
    m_filledAxis.reset();
}

QRectF SpectrumView::plotRect() const
{
    return QRectF(kLeft, kTop, std::max(1.0, width() - kLeft - kRight),
                  std::max(1.0, height() - kTop - kBottom));
}

double SpectrumView::toUnit(double x) const
{
    return m_logX ? (std::log(x) - std::log(m_xMin)) / (std::log(m_xMax) - std::log(m_xMin))
                  : (x - m_xMin) / (m_xMax - m_xMin);
}

double SpectrumView::fromUnit(double u) const
{
    return m_logX ? m_xMin * std::pow(m_xMax / m_xMin, u) : m_xMin + u * (m_xMax - m_xMin);
}

double SpectrumView::axisValue(double frequency) const
{
    return m_period ? 1.0 / frequency : frequency * m_scale;
}

std::pair<double, double> SpectrumView::dataRange() const
{
    if (!m_spectrum)
        return {m_xMin, m_xMax};
    const gpu::FrequencyGrid& g = m_spectrum->grid();
    const double a = axisValue(g.fmin), b = axisValue(g.fmax());
    if (a == b) // one frequency: a little room around it
        return {a * 0.9, a * 1.1};
    return {std::min(a, b), std::max(a, b)};
}

double SpectrumView::xPixel(double frequency) const
{
    const QRectF plot = plotRect();
    return plot.left() + toUnit(axisValue(frequency)) * plot.width();
}

std::pair<double, double> SpectrumView::yRange() const
{
    const double bottom = m_spectrum ? std::min(0.0, m_spectrum->minPower()) : 0.0;
    const double top = m_spectrum ? m_spectrum->maxPower() : 1.0;
    if (!(top > bottom))
        return {bottom, bottom + 1.0};
    // Room above the highest peak for its mark, from halves so that powers near double's
    // limit do not overflow to infinity (and leave the plot blank).
    const double room = 0.2 * (0.5 * top - 0.5 * bottom);
    const double largest = std::numeric_limits<double>::max();
    return {bottom, top < largest - room ? top + room : largest};
}

double SpectrumView::yPixel(double power) const
{
    const QRectF plot = plotRect();
    const auto [bottom, top] = yRange();
    return plot.bottom() -
           (0.5 * power - 0.5 * bottom) / (0.5 * top - 0.5 * bottom) * plot.height();
}

void SpectrumView::setSpectrum(std::shared_ptr<const gpu::Spectrum> spectrum, double peakWidth)
{
    const bool sameGrid = m_spectrum && spectrum && m_spectrum->grid() == spectrum->grid();
    m_spectrum = std::move(spectrum);
    m_peakWidth = peakWidth;
    m_filledAxis.reset(); // the vertex buffer holds the old spectrum's line
    if (!sameGrid) {
        const auto [lo, hi] = openingRange();
        setXRange(lo, hi);
        m_openedZoomed = std::pair(lo, hi) != dataRange();
    }
    update();
}

std::pair<double, double> SpectrumView::openingRange() const
{
    const auto whole = dataRange();
    if (!m_spectrum || m_period || m_logX)
        return whole;
    const gpu::FrequencyGrid& g = m_spectrum->grid();
    const FrequencyRange r = ui::openingRange(m_spectrum->peaks(), g.fmin, g.fmax(), m_peakWidth);
    if (r == FrequencyRange{g.fmin, g.fmax()})
        return whole;
    return {axisValue(r.lo), axisValue(r.hi)};
}

void SpectrumView::setAxis(bool period, bool logX, double frequencyScale, const QString& xLabel)
{
    const bool changed = period != m_period || logX != m_logX || frequencyScale != m_scale;
    m_period = period;
    m_logX = logX;
    m_scale = frequencyScale;
    m_xLabel = xLabel;
    if (changed)
        fit();
    update();
}

void SpectrumView::setPeriodUnit(const QString& unit)
{
    m_periodUnit = unit;
}

void SpectrumView::setYLabel(const QString& label)
{
    m_yLabel = label;
    update();
}

void SpectrumView::setPeaks(const std::vector<gpu::Peak>& peaks, int selected)
{
    m_peaks = peaks;
    m_selected = selected;
    update();
}

void SpectrumView::fit()
{
    m_openedZoomed = false;
    auto [lo, hi] = dataRange();
    // With no spectrum yet, a logarithmic axis still needs a positive range.
    if (m_logX && !(lo > 0.0))
        std::tie(lo, hi) = hi > 0.0 ? std::pair(hi * 1e-3, hi) : std::pair(0.1, 1.0);
    setXRange(lo, hi);
}

void SpectrumView::setXRange(double lo, double hi)
{
    m_openedZoomed = false;
    if (!(lo < hi) || !std::isfinite(lo) || !std::isfinite(hi) || (m_logX && !(lo > 0.0)))
        return;
    // Below a millionth of its value the float32 columns cannot resolve the range.
    if ((hi - lo) < 1e-6 * std::max(std::abs(lo), std::abs(hi)))
        return;
    m_xMin = lo;
    m_xMax = hi;
    update();
}

void SpectrumView::paintGL()
{
    QPainter painter(this);
    painter.fillRect(rect(), Qt::white);
    const QRectF plot = plotRect();
    const qreal ratio = devicePixelRatioF();
    if (m_renderer.initialized() && m_devices->generation() != m_generation)
        openContext(); // the person chose another device
    if (m_interop && m_spectrum && m_renderer.initialized()) {
        gpu::SpectrumAxis axis;
        axis.xMin = m_xMin;
        axis.xMax = m_xMax;
        axis.period = m_period;
        axis.logX = m_logX;
        axis.frequencyScale = m_scale;
        axis.columns =
            std::clamp(int(std::lround(plot.width() * ratio)), 1, gpu::kSpectrumMaxColumns);
        painter.beginNativePainting();
        if (m_filledAxis != axis) {
            const std::size_t floats = std::size_t(axis.columns) * gpu::kSpectrumFloatsPerColumn;
            if (floats > m_renderer.floats() && m_renderer.buffer())
                m_interop->forget(m_renderer.buffer()); // its storage is about to change
            gpu::Status s = m_renderer.reserve(axis.columns);
            if (s) {
                render::GlWriteScope scope(*m_interop, m_renderer.buffer(), floats * sizeof(float));
                s = scope.status();
                if (s)
                    s = gpu::writeSpectrumLine(*m_context, *m_spectrum, axis, scope.view<float>());
                if (s)
                    s = scope.commit();
            }
            m_filledAxis = s ? std::optional(axis) : std::nullopt;
            // The line's spans resolve once the device is done: collect them a little later
            // rather than on every paint (a hover repaints without touching the GPU).
            QTimer::singleShot(250, this, [this] {
                if (m_context)
                    m_context->collectTimeline();
            });
            const QString error = s ? QString() : QString::fromStdString(s.message());
            if (error != m_error && !error.isEmpty())
                afterFrame(this, [this, error] { emit message(error); });
            m_error = error;
        }
        if (m_filledAxis) {
            const auto [bottom, top] = yRange();
            const int fbHeight = int(std::lround(height() * ratio));
            const render::Viewport viewport{int(std::lround(plot.left() * ratio)),
                                            fbHeight - int(std::lround(plot.bottom() * ratio)),
                                            axis.columns, int(std::lround(plot.height() * ratio))};
            m_renderer.draw(
                axis.columns, bottom, top, viewport,
                {float(kLine.redF()), float(kLine.greenF()), float(kLine.blueF()), 1.0f});
            // The hovered column's power, read back from the line itself (16 bytes).
            m_hoverPower.reset();
            float v[gpu::kSpectrumFloatsPerColumn];
            if (m_hover && plot.contains(*m_hover) &&
                m_renderer.readColumn(
                    std::clamp(int((m_hover->x() - plot.left()) * ratio), 0, axis.columns - 1), v))
                m_hoverPower = std::pair(std::min(v[1], v[3]), std::max(v[1], v[3]));
        }
        painter.endNativePainting();
    }
    paintAxes(painter, plot);
}

void SpectrumView::paintAxes(QPainter& painter, const QRectF& plot)
{
    painter.setRenderHint(QPainter::Antialiasing, false);
    const QPen axisPen(QColor(0x44, 0x44, 0x44));
    const QPen gridPen(QColor(0, 0, 0, 28));
    const QFontMetricsF metrics(painter.font());
    // x ticks
    for (const double t :
         m_logX ? logTicks(m_xMin, m_xMax) : linearTicks(m_xMin, m_xMax, int(plot.width() / 90))) {
        const double x = plot.left() + toUnit(t) * plot.width();
        if (x < plot.left() - 0.5 || x > plot.right() + 0.5)
            continue;
        painter.setPen(gridPen);
        painter.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        painter.setPen(axisPen);
        painter.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 4));
        const QString text = QString::number(t, 'g', 5);
        painter.drawText(
            QPointF(x - metrics.horizontalAdvance(text) / 2, plot.bottom() + 6 + metrics.ascent()),
            text);
    }
    // y ticks
    const auto [bottom, top] = yRange();
    for (const double t : linearTicks(bottom, top, int(plot.height() / 50))) {
        const double y = yPixel(t);
        painter.setPen(gridPen);
        painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
        painter.setPen(axisPen);
        painter.drawLine(QPointF(plot.left() - 4, y), QPointF(plot.left(), y));
        const QString text = QString::number(t, 'g', 4);
        painter.drawText(QPointF(plot.left() - 6 - metrics.horizontalAdvance(text),
                                 y + metrics.ascent() / 2 - 1),
                         text);
    }
    painter.setPen(axisPen);
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(plot);
    painter.drawText(
        QRectF(plot.left(), height() - metrics.height() - 2, plot.width(), metrics.height()),
        Qt::AlignHCenter, xTitle());
    painter.save();
    painter.translate(metrics.height() / 2 + 2, plot.center().y());
    painter.rotate(-90);
    painter.drawText(
        QRectF(-plot.height() / 2, -metrics.height() / 2, plot.height(), metrics.height()),
        Qt::AlignHCenter, m_yLabel);
    painter.restore();

    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setClipRect(plot);
    if (m_spectrum) {
        for (int i = int(m_peaks.size()) - 1; i >= 0; --i) {
            const gpu::Peak& p = m_peaks[std::size_t(i)];
            const QPointF at(xPixel(p.frequency), yPixel(p.power));
            const bool selected = i == m_selected;
            painter.setPen(selected ? QPen(kSelected, 1.5, Qt::DashLine) : Qt::NoPen);
            if (selected)
                painter.drawLine(QPointF(at.x(), plot.top()), QPointF(at.x(), plot.bottom()));
            painter.setPen(Qt::NoPen);
            painter.setBrush(selected ? kSelected : QColor(0xf5, 0x9e, 0x0b));
            const QPolygonF marker(
                {at + QPointF(0, -2), at + QPointF(-5, -10), at + QPointF(5, -10)});
            painter.drawPolygon(marker);
        }
        painter.setPen(QColor(0x33, 0x33, 0x33));
        for (const PeakLabel& label : peakMarks().labels)
            painter.drawText(label.rect, Qt::AlignLeft | Qt::AlignVCenter,
                             QString::number(label.number));
    }
    if (m_hover && plot.contains(*m_hover)) {
        const double x = fromUnit((m_hover->x() - plot.left()) / plot.width());
        const double f = m_period ? 1.0 / x : x / m_scale;
        painter.setPen(QPen(QColor(0, 0, 0, 90), 1, Qt::DotLine));
        painter.drawLine(QPointF(m_hover->x(), plot.top()), QPointF(m_hover->x(), plot.bottom()));
        QString text = tr("f = %1 · period = %2").arg(f, 0, 'g', 7).arg(1.0 / f, 0, 'g', 7);
        if (!m_periodUnit.isEmpty())
            text += ' ' + m_periodUnit;
        const auto power = [](double v) {
            return valueText(v, [](double p) { return QString::number(p, 'g', 5); });
        };
        if (m_hoverPower && !std::isnan(m_hoverPower->first))
            text += m_hoverPower->first == m_hoverPower->second
                        ? tr(" · power %1").arg(power(m_hoverPower->first))
                        : tr(" · power %1 to %2")
                              .arg(power(m_hoverPower->first))
                              .arg(power(m_hoverPower->second));
        m_readout = text;
        const QRectF box(plot.right() - metrics.horizontalAdvance(text) - 14, plot.top() + 4,
                         metrics.horizontalAdvance(text) + 10, metrics.height() + 4);
        painter.setPen(Qt::NoPen);
        painter.setBrush(QColor(255, 255, 255, 220));
        painter.drawRect(box);
        painter.setPen(QColor(0x22, 0x22, 0x22));
        painter.drawText(box, Qt::AlignCenter, text);
    }
    if (!m_error.isEmpty()) {
        painter.setPen(kSelected);
        painter.drawText(plot.adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap, m_error);
    } else if (const QString why = undrawable(); !why.isEmpty()) {
        painter.setPen(kSelected);
        painter.drawText(plot.adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap, why);
    }
}

SpectrumView::PeakMarks SpectrumView::peakMarks() const
{
    PeakMarks marks;
    if (!m_spectrum)
        return marks;
    const QRectF plot = plotRect();
    const auto markerAt = [&](const gpu::Peak& p) {
        const QPointF at(xPixel(p.frequency), yPixel(p.power));
        return QRectF(at.x() - 5.0, at.y() - 10.0, 10.0, 8.0); // the triangle paintAxes draws
    };
    LabelPlacer placer(plot, 1.0);
    for (const gpu::Peak& p : m_peaks)
        if (const QRectF m = markerAt(p); plot.intersects(m)) {
            marks.markers.push_back(m);
            placer.keepFree(m);
        }
    const QFontMetricsF metrics(font());
    const int numbered = std::min(int(m_peaks.size()), kNumberedPeaks);
    for (int i = 0; i < numbered; ++i) {
        const QRectF m = markerAt(m_peaks[std::size_t(i)]);
        const QString text = QString::number(i + 1);
        const QSizeF size(metrics.horizontalAdvance(text) + 2.0, metrics.height());
        // Right of the marker's top, then beside it and under it (a peak near the top of a
        // short plot), then stacked higher; then the same on its left.
        const double h = size.height();
        std::vector<QRectF> candidates;
        for (const double x : {m.right() + 2.0, m.left() - 2.0 - size.width()})
            for (const double centre : {m.top(), m.center().y(), m.bottom() + 0.5 * h, m.top() - h,
                                        m.top() - 2.0 * h, m.top() - 3.0 * h})
                candidates.emplace_back(QPointF(x, centre - 0.5 * h), size);
        if (const std::optional<QRectF> r = placer.place(candidates))
            marks.labels.push_back({i + 1, *r});
    }
    return marks;
}

QString SpectrumView::xTitle() const
{
    if (!m_openedZoomed || !m_spectrum)
        return m_xLabel;
    const auto [lo, hi] = dataRange();
    return tr("%1 · opened where the power is: double click or Home shows all, to %2")
        .arg(m_xLabel)
        .arg(hi, 0, 'g', 4);
}

QString SpectrumView::undrawable() const
{
    // The line is decimated into float32 vertices: a power beyond float32's range becomes
    // infinite there and its column is not drawn.
    const double limit = std::numeric_limits<float>::max();
    if (!m_spectrum || (m_spectrum->maxPower() <= limit && m_spectrum->minPower() >= -limit))
        return {};
    return tr("The powers reach %1, beyond the %2 the plot's line can hold, so it is not drawn; "
              "the peaks are listed")
        .arg(std::max(m_spectrum->maxPower(), -m_spectrum->minPower()), 0, 'g', 3)
        .arg(limit, 0, 'g', 3);
}

void SpectrumView::wheelEvent(QWheelEvent* event)
{
    const QRectF plot = plotRect();
    const double u = std::clamp((event->position().x() - plot.left()) / plot.width(), 0.0, 1.0);
    zoomAround(u, std::pow(0.85, event->angleDelta().y() / 120.0));
    event->accept();
}

void SpectrumView::keyPressEvent(QKeyEvent* event)
{
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomAround(0.5, 0.8);
        break;
    case Qt::Key_Minus:
        zoomAround(0.5, 1.25);
        break;
    case Qt::Key_Left:
        pan(-0.1);
        break;
    case Qt::Key_Right:
        pan(0.1);
        break;
    case Qt::Key_Home:
        fit();
        break;
    default:
        QOpenGLWidget::keyPressEvent(event);
        return;
    }
    event->accept();
}

void SpectrumView::pan(double fraction)
{
    if (m_logX) {
        const double shift = fraction * (std::log(m_xMax) - std::log(m_xMin));
        setXRange(m_xMin * std::exp(shift), m_xMax * std::exp(shift));
    } else {
        const double shift = fraction * (m_xMax - m_xMin);
        setXRange(m_xMin + shift, m_xMax + shift);
    }
}

void SpectrumView::zoomAround(double u, double factor)
{
    if (m_logX) {
        const double at = std::log(fromUnit(u));
        const double lo = at - (at - std::log(m_xMin)) * factor;
        const double hi = at + (std::log(m_xMax) - at) * factor;
        setXRange(std::exp(lo), std::exp(hi));
    } else {
        const double at = fromUnit(u);
        setXRange(at - (at - m_xMin) * factor, at + (m_xMax - at) * factor);
    }
}

void SpectrumView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return;
    m_pressAt = event->position();
    m_dragFrom = event->position();
    m_dragXMin = m_xMin;
    m_dragXMax = m_xMax;
}

void SpectrumView::mouseMoveEvent(QMouseEvent* event)
{
    m_hover = event->position();
    if (m_dragFrom && (event->buttons() & Qt::LeftButton)) {
        const double du = (event->position().x() - m_dragFrom->x()) / plotRect().width();
        if (m_logX) {
            const double shift = du * (std::log(m_dragXMax) - std::log(m_dragXMin));
            setXRange(m_dragXMin * std::exp(-shift), m_dragXMax * std::exp(-shift));
        } else {
            const double shift = du * (m_dragXMax - m_dragXMin);
            setXRange(m_dragXMin - shift, m_dragXMax - shift);
        }
    }
    update();
}

void SpectrumView::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return;
    m_dragFrom.reset();
    if ((event->position() - m_pressAt).manhattanLength() < 4)
        emit clicked(event->position());
}

void SpectrumView::mouseDoubleClickEvent(QMouseEvent*)
{
    fit();
}

void SpectrumView::leaveEvent(QEvent*)
{
    m_hover.reset();
    update();
}

} // namespace warpscope::ui
