#include "warpscope/ui/FoldView.h"

#include "ValueAxis.h"
#include "common/PlotDecade.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace warpscope::ui {
namespace {

// Error bars for more points than this would cost more to draw than they show.
constexpr std::size_t kMaxErrorBars = 20'000;
// Samples of the model line over the two cycles.
constexpr int kModelSamples = 400;
// Pixels a phase tick label needs, with room on either side.
constexpr int kPixelsPerPhaseTick = 70;

} // namespace

double FoldModel::at(double phase) const
{
    if (box) {
        const double distance = std::abs(std::remainder(phase - box->centre, 1.0));
        return offset - (distance < box->halfWidth ? box->depth : 0.0);
    }
    const double x = 2.0 * std::numbers::pi * phase;
    double y = offset;
    for (std::size_t k = 0; k < harmonics.size(); ++k) {
        const double kx = double(k + 1) * x;
        y += harmonics[k].first * std::cos(kx) + harmonics[k].second * std::sin(kx);
    }
    return y;
}

double FoldView::phaseOf(double t, double epoch, double frequency)
{
    const double cycles = (t - epoch) * frequency;
    const double phase = cycles - std::floor(cycles);
    return phase < 1.0 ? phase : 0.0; // a tiny negative cycles rounds up to 1
}

FoldView::FoldView(QWidget* parent) : QCustomPlot(parent)
{
    // Narrower, the tick labels of two cycles and the axis titles run together.
    setMinimumSize(320, 220);
    addGraph(); // the points, twice
    graph(0)->setName(tr("data"));
    graph(0)->setLineStyle(QCPGraph::lsNone);
    graph(0)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 3));
    graph(0)->setPen(QPen(QColor(0x1f, 0x77, 0xb4, 110)));
    m_errors = new QCPErrorBars(xAxis, yAxis);
    m_errors->setDataPlottable(graph(0));
    m_errors->setPen(QPen(QColor(0x1f, 0x77, 0xb4, 45)));
    m_errors->setWhiskerWidth(0);
    addGraph(); // the bins' means
    graph(1)->setName(tr("binned mean"));
    graph(1)->setPen(QPen(QColor(0x22, 0x22, 0x22), 1.0));
    graph(1)->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDiamond, QColor(0x22, 0x22, 0x22), Qt::white, 7));
    addGraph(); // the model
    graph(2)->setName(tr("model"));
    graph(2)->setPen(QPen(QColor(0xe5, 0x48, 0x4d), 2.0));
    // The parameters in a row of their own above the axes: over the data they would hide it.
    plotLayout()->insertRow(0);
    m_caption = new QCPTextElement(this, QString(), QFont(font().family(), font().pointSize()));
    m_caption->setTextFlags(Qt::AlignLeft | Qt::AlignVCenter);
    m_caption->setMargins(QMargins(8, 4, 8, 0));
    plotLayout()->addElement(0, 0, m_caption);
    xAxis->setTicker(QSharedPointer<QCPAxisTickerFixed>::create());
    xAxis->setRange(0.0, 2.0);
    xAxis->setLabel(tr("phase"));
    yAxis->setLabel(tr("y"));
    setToolTip(tr("The data folded at the selected period, over two cycles: points (with error "
                  "bars), the weighted mean of each phase bin (diamonds) and the fitted model "
                  "(red)"));
    clearFold(tr("Select a peak to fold the data at its period"));
}

void FoldView::setBins(int bins)
{
    m_bins = std::max(1, bins);
    if (!m_empty)
        redraw();
}

void FoldView::clearFold(const QString& why)
{
    m_empty = true;
    m_series = {};
    m_model = {};
    m_skipped = 0;
    for (int g = 0; g < graphCount(); ++g)
        graph(g)->data()->clear();
    m_errors->data()->clear();
    m_lines = QStringList{why};
    xAxis->setRange(0.0, 2.0);
    yAxis->setRange(0.0, 1.0);
    showCaption();
    fitTicks();
    replot(QCustomPlot::rpQueuedReplot);
}

void FoldView::setFold(const gpu::TimeSeries& series, double frequency, const FoldModel& model,
                       const QString& periodText, const QString& yLabel)
{
    if (!(std::isfinite(frequency) && frequency > 0.0) || !std::isfinite(model.epoch))
        return clearFold(tr("No fold: the frequency is not a positive number"));
    m_series = series;
    m_frequency = frequency;
    m_model = model;
    m_periodText = periodText;
    m_yLabel = yLabel;
    m_empty = false;
    redraw();
}

void FoldView::redraw()
{
    const gpu::TimeSeries& s = m_series;
    const std::size_t n = std::min(s.t.size(), s.y.size());
    const bool withErrors = s.dy.size() == s.t.size() && !s.dy.empty();
    // The points kept: finite, and with a positive dy where dy weighs them.
    QVector<double> phase, value, error;
    m_skipped = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double dy = withErrors ? s.dy[i] : 1.0;
        if (!std::isfinite(s.t[i]) || !std::isfinite(s.y[i]) || !(std::isfinite(dy) && dy > 0.0)) {
            ++m_skipped;
            continue;
        }
        phase.push_back(phaseOf(s.t[i], m_model.epoch, m_frequency));
        value.push_back(s.y[i]);
        error.push_back(dy);
    }
    m_skipped += std::max(s.t.size(), s.y.size()) - n;
    // Weights 1/dy^2 taken as (dyMin/dy)^2, so that they neither overflow nor underflow.
    const double dyMin = error.isEmpty() ? 1.0 : *std::min_element(error.begin(), error.end());
    QVector<double> weight;
    for (const double dy : error)
        weight.push_back((dyMin / dy) * (dyMin / dy));
    QVector<double> modelX, modelY;
    bool modelFinite = std::isfinite(m_model.offset);
    for (const auto& [a, b] : m_model.harmonics)
        modelFinite = modelFinite && std::isfinite(a) && std::isfinite(b);
    if (modelFinite)
        for (int i = 0; i <= kModelSamples; ++i) {
            const double p = 2.0 * i / kModelSamples;
            const double y = m_model.at(p);
            if (!std::isfinite(y)) {
                modelFinite = false;
                break;
            }
            modelX.push_back(p);
            modelY.push_back(y);
        }
    if (!modelFinite) {
        modelX.clear();
        modelY.clear();
    }

    // Values near double's limits are drawn in units of a power of ten (PlotDecade.h).
    double largest = 0.0;
    for (const QVector<double>* values : {&value, &modelY})
        for (const double v : *values)
            largest = std::max(largest, std::abs(v));
    const int decade = plotDecade(largest);
    for (QVector<double>* values : {&value, &error, &modelY})
        scaleToDecade(*values, decade);
    // The weighted mean of each bin of one cycle, of the values as drawn (so the sums stay
    // finite); empty bins are left out rather than drawn as gaps of NaN.
    std::vector<double> sumW(std::size_t(m_bins), 0.0), sumWY(std::size_t(m_bins), 0.0);
    for (qsizetype i = 0; i < phase.size(); ++i) {
        const std::size_t b = std::min(std::size_t(phase[i] * m_bins), std::size_t(m_bins - 1));
        sumW[b] += weight[i];
        sumWY[b] += weight[i] * value[i];
    }
    QVector<double> binX, binY;
    for (int cycle = 0; cycle < 2; ++cycle)
        for (int b = 0; b < m_bins; ++b) {
            if (!(sumW[std::size_t(b)] > 0.0))
                continue;
            const double mean = sumWY[std::size_t(b)] / sumW[std::size_t(b)];
            if (std::isfinite(mean)) {
                binX.push_back(cycle + (b + 0.5) / m_bins);
                binY.push_back(mean);
            }
        }

    // Two cycles: every point at its phase and one cycle later.
    const qsizetype kept = phase.size();
    QVector<double> x2(2 * kept), y2(2 * kept), e2(2 * kept);
    for (qsizetype i = 0; i < kept; ++i) {
        x2[i] = phase[i];
        x2[kept + i] = phase[i] + 1.0;
        y2[i] = y2[kept + i] = value[i];
        e2[i] = e2[kept + i] = error[i];
    }
    graph(0)->setData(x2, y2);
    if (withErrors && std::size_t(kept) <= kMaxErrorBars)
        m_errors->setData(e2);
    else
        m_errors->data()->clear();
    graph(1)->setData(binX, binY, true);
    graph(2)->setData(modelX, modelY, true);

    xAxis->setLabel(m_periodText.isEmpty() ? tr("phase")
                                           : tr("phase at period %1").arg(m_periodText));
    setValueAxis(yAxis, decadeLabel(m_yLabel, decade));
    // The y range of the points (with their error bars where drawn), the bins and the model.
    const bool bars = m_errors->dataCount() > 0;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (qsizetype i = 0; i < kept; ++i) {
        lo = std::min(lo, value[i] - (bars ? error[i] : 0.0));
        hi = std::max(hi, value[i] + (bars ? error[i] : 0.0));
    }
    for (const QVector<double>* values : {&binY, &modelY})
        for (const double v : *values) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    QCPRange range(lo, hi);
    if (!(lo <= hi) || !std::isfinite(range.size()))
        range = QCPRange(-1.0, 1.0);
    if (!(range.size() > 0.0))
        range = QCPRange(range.lower - 1.0, range.upper + 1.0);
    const double pad = 0.05 * range.size();
    yAxis->setRange(range.lower - pad, range.upper + pad);
    xAxis->setRange(0.0, 2.0);

    m_lines = m_model.parameters;
    if (kept == 0)
        m_lines << tr("No finite point to fold");
    if (m_skipped > 0)
        m_lines << (m_skipped == 1 ? tr("1 point not finite, left out")
                                   : tr("%1 points not finite, left out").arg(m_skipped));
    if (!modelFinite)
        m_lines << tr("The model is not finite and is not drawn");
    if (withErrors && std::size_t(kept) > kMaxErrorBars)
        m_lines << tr("Error bars hidden for more than %1 points").arg(kMaxErrorBars);
    showCaption();
    fitTicks();
    replot(QCustomPlot::rpQueuedReplot);
}

QString FoldView::caption() const
{
    return m_caption->text();
}

// The caption's items joined on as few lines as the width holds.
void FoldView::showCaption()
{
    const QFontMetrics metrics(m_caption->font());
    const int room = std::max(100, width() - 24);
    const QString gap = QStringLiteral("    ");
    QStringList lines;
    for (const QString& item : m_lines) {
        if (!lines.isEmpty() && metrics.horizontalAdvance(lines.back() + gap + item) <= room)
            lines.back() += gap + item;
        else
            lines << item;
    }
    m_caption->setText(lines.join('\n'));
    m_caption->setVisible(!lines.isEmpty());
}

// Ticks every half or quarter cycle, as the width allows; values as many as fit the height.
void FoldView::fitTicks()
{
    auto ticker = qSharedPointerCast<QCPAxisTickerFixed>(xAxis->ticker());
    // The axis rectangle is laid out at the next replot: the widget's width less the margins.
    const int ticks = std::max(2, (width() - 80) / kPixelsPerPhaseTick);
    ticker->setTickStep(ticks >= 8 ? 0.25 : ticks >= 4 ? 0.5 : 1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssNone);
    yAxis->ticker()->setTickCount(std::clamp(height() / 60, 3, 8));
}

void FoldView::resizeEvent(QResizeEvent* event)
{
    QCustomPlot::resizeEvent(event);
    showCaption();
    fitTicks();
}

} // namespace warpscope::ui
