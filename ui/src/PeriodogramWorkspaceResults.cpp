#include "PeriodogramMarks.h"
#include "ValueText.h"
#include "warpscope/scene/PeriodogramUnits.h"
#include "warpscope/ui/FoldView.h"
#include "warpscope/ui/PeriodogramWorkspace.h"
#include "warpscope/ui/SpectrumView.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QToolButton>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <qcustomplot.h>

namespace warpscope::ui {

// The fold's period goes from an eighth to eight times the selected peak's.
constexpr int kMaxFoldDoublings = 3;

void PeriodogramWorkspace::replot()
{
    const bool period = m_xAxis->currentIndex() == 1;
    const double scale = m_frequencyUnit->currentIndex() == 1 ? 2.0 * std::numbers::pi : 1.0;
    const QString periodUnit = scene::periodUnitText(m_shownUnit);
    QString label;
    if (period)
        label = periodUnit.isEmpty() ? tr("period") : tr("period (%1)").arg(periodUnit);
    else if (scale > 1.0)
        label = tr("angular frequency ω (%1)")
                    .arg(m_shownUnit == gpu::TimeUnit::Unknown
                             ? tr("rad per unit time")
                             : scene::frequencyUnitText(m_shownUnit, true));
    else
        label = tr("frequency f (%1)").arg(scene::frequencyUnitText(m_shownUnit));
    m_view->setAxis(period, m_logX->isChecked(), scale, label);
    m_view->setPeriodUnit(periodUnit);
    const scene::PeriodogramMethodTraits traits = shownTraits();
    m_view->setYLabel(
        traits.falseAlarm || traits.foldHarmonics > 0
            ? tr("power (%1)")
                  .arg(QString::fromUtf8(gpu::normalizationName(m_shownOptions.normalization)))
            : QString::fromStdString(traits.statistic));
    // A peak is about 1 / baseline wide: the view opens on the highest peaks with room for it.
    m_view->setSpectrum(m_spectrum, 1.0 / gpu::timeBaseline(m_analysed));
    m_marks->setAxis(period, scale);
    showWindow();
}

scene::PeriodogramMethodTraits PeriodogramWorkspace::shownTraits() const
{
    return m_session ? m_session->traits() : scene::periodogramTraits(m_shownOptions);
}

QString PeriodogramWorkspace::refinedText(std::size_t i) const
{
    if (i >= m_peakDetails.refined.size() || !m_peakDetails.refined[i])
        return {};
    const scene::RefinedPeak& r = *m_peakDetails.refined[i];
    return tr(" (refined: %1 ± %2, %3)")
        .arg(scene::periodText(1.0 / r.frequency, m_shownUnit))
        .arg(r.error / (r.frequency * r.frequency), 0, 'g', 2)
        .arg(QString::fromStdString(r.how));
}

QString PeriodogramWorkspace::boxText(std::size_t i) const
{
    const auto figure = [&](const char* name) {
        return m_peakDetails.detail(i, name).value_or(std::nan(""));
    };
    return tr("a box %1 deep (± %2, S/N %3), %4 long, mid-transit at %5")
        .arg(figure("depth"), 0, 'g', 4)
        .arg(figure("depth_err"), 0, 'g', 2)
        .arg(figure("depth_snr"), 0, 'f', 1)
        .arg(scene::periodText(figure("duration"), m_shownUnit))
        .arg(figure("transit_time"), 0, 'f', 5);
}

void PeriodogramWorkspace::showPeaks()
{
    scene::ReportedPeaks reported;
    if (m_spectrum)
        reported = m_session->peaks(m_peakCount->value());
    m_peaks = reported.peaks;
    m_falseAlarm = reported.falseAlarm;
    m_peakDetails = std::move(reported);
    // The frequencies as the axis shows them, in the file's unit where it has one.
    const bool angular = m_frequencyUnit->currentIndex() == 1;
    const double scale = angular ? 2.0 * std::numbers::pi : 1.0;
    const QString periodUnit = scene::periodUnitText(m_shownUnit);
    const bool unknown = m_shownUnit == gpu::TimeUnit::Unknown;
    m_peakTable->setHorizontalHeaderLabels(
        {angular   ? tr("ω (%1)").arg(unknown ? tr("rad per unit time")
                                              : scene::frequencyUnitText(m_shownUnit, true))
         : unknown ? tr("frequency")
                   : tr("frequency (%1)").arg(scene::frequencyUnitText(m_shownUnit)),
         unknown ? tr("period") : tr("period (%1)").arg(periodUnit), tr("power"), tr("FAP")});
    m_peakTable->setRowCount(int(m_peaks.size()));
    for (int i = 0; i < int(m_peaks.size()); ++i) {
        const gpu::Peak& p = m_peaks[std::size_t(i)];
        const std::optional<double>& fap = m_falseAlarm[std::size_t(i)];
        const std::optional<scene::RefinedPeak>& refined =
            m_peakDetails.refined.size() > std::size_t(i) ? m_peakDetails.refined[std::size_t(i)]
                                                          : std::nullopt;
        // A refined peak lists its refined period, with its error.
        const QString periodCell =
            refined
                ? QStringLiteral("%1 ± %2")
                      .arg(1.0 / refined->frequency, 0, 'g', 8)
                      .arg(refined->error / (refined->frequency * refined->frequency), 0, 'g', 2)
                : QString::number(1.0 / p.frequency, 'g', 8);
        const QStringList cells{QString::number(p.frequency * scale, 'g', 8), periodCell,
                                QString::number(p.power, 'g', 6),
                                fap ? falseAlarmText(*fap) : tr("n/a")};
        QString tip;
        for (const gpu::Alias& a : gpu::aliasFrequencies(p.frequency, m_shownUnit, m_shownSampling))
            tip += tr("\n%1 at %2")
                       .arg(QString::fromStdString(a.label))
                       .arg(a.frequency * scale, 0, 'g', 6);
        tip = tip.isEmpty() ? tr("No alias expected from the time unit or the sampling")
                            : tr("Where this peak's aliases fall:") + tip;
        // Above the Nyquist frequency of regular times a peak only mirrors one below it.
        const bool alias = m_shownSampling && p.frequency > m_shownSampling->nyquist;
        if (alias)
            tip =
                tr("Above the Nyquist frequency of the regular sampling (%1): an alias of the "
                   "peak at %2")
                    .arg(m_shownSampling->nyquist * scale, 0, 'g', 6)
                    .arg(std::abs(std::remainder(p.frequency, 1.0 / m_shownSampling->step)) * scale,
                         0, 'g', 6);
        for (int c = 0; c < 4; ++c) {
            auto* item =
                new QTableWidgetItem(c == 1 && alias ? cells[c] + tr(" (alias)") : cells[c]);
            item->setToolTip(c == 3 && fap ? tr("False-alarm probability (Baluev 2008) of a "
                                                "peak this high, from noise alone")
                                           : tip);
            if (alias)
                item->setForeground(QColor(0x88, 0x88, 0x88));
            m_peakTable->setItem(i, c, item);
        }
    }
    if (m_peaks.empty()) {
        const std::size_t points = usedSeries().t.size();
        const int parameters = gpu::periodogramParameters(m_shownOptions);
        // As many parameters as points: the model passes through every point at every
        // frequency, so the power is the same everywhere.
        m_fap->setText(points <= std::size_t(parameters)
                           ? tr("No peak: too few points (%1) for a model of %2 parameters, "
                                "which fits them exactly at every frequency")
                                 .arg(points)
                                 .arg(parameters)
                           : tr("No peak"));
    } else if (!(m_shownOptions.fitMean || m_shownOptions.centerData)) {
        m_fap->setText(tr("The false-alarm probability needs centred data"));
    } else if (shownTraits().foldBox) {
        m_fap->setText(
            tr("Highest peak: period %1, %2")
                .arg(scene::periodText(1.0 / m_peaks[0].frequency, m_shownUnit), boxText(0)));
    } else if (!shownTraits().falseAlarm && shownTraits().foldHarmonics == 0) {
        m_fap->setText(tr("Highest peak: period %1 (%2; no false-alarm probability, which "
                          "Baluev gives for Lomb-Scargle)")
                           .arg(scene::periodText(1.0 / m_peaks[0].frequency, m_shownUnit),
                                QString::fromStdString(shownTraits().statistic)));
    } else if (!shownTraits().falseAlarm) {
        m_fap->setText(tr("Highest peak: period %1 (%2 terms: no false-alarm probability, which "
                          "Baluev gives for one term)")
                           .arg(scene::periodText(1.0 / m_peaks[0].frequency, m_shownUnit))
                           .arg(m_shownOptions.nterms));
    } else {
        const gpu::TimeSeries used = usedSeries();
        const std::optional<double> fap = gpu::falseAlarmProbability(
            m_peaks[0].power, grid().fmax(), used, m_shownOptions.normalization);
        const QString period =
            scene::periodText(1.0 / m_peaks[0].frequency, m_shownUnit) + refinedText(0);
        if (fap)
            m_fap->setText(tr("Highest peak: period %1, false-alarm probability %2 (Baluev 2008)")
                               .arg(period)
                               .arg(falseAlarmText(*fap)));
        else if (used.t.size() < gpu::kFalseAlarmMinPoints)
            m_fap->setText(tr("Highest peak: period %1; too few points (%2) for the false-alarm "
                              "probability: Baluev's approximation needs at least %3")
                               .arg(period)
                               .arg(used.t.size())
                               .arg(gpu::kFalseAlarmMinPoints));
        else
            m_fap->setText(tr("Highest peak: period %1; its false-alarm probability cannot be "
                              "computed (Baluev's approximation breaks down at power %2)")
                               .arg(period)
                               .arg(m_peaks[0].power, 0, 'g', 6));
    }
    showLevels();
    showPrewhitening();
    if (!m_peaks.empty())
        m_peakTable->setCurrentCell(0, 0);
    showFold(m_peaks.empty() ? -1 : 0);
}

void PeriodogramWorkspace::showLevels()
{
    std::vector<PeriodogramMarks::Level> levels;
    if (!m_spectrum) {
        m_levels->clear();
    } else if (!(m_shownOptions.fitMean || m_shownOptions.centerData)) {
        m_levels->setText(tr("False-alarm levels need centred data or a floating mean"));
    } else if (shownTraits().foldBox) {
        m_levels->setText(tr("False-alarm levels are for Lomb-Scargle (Baluev 2008); a "
                             "transit's depth S/N says how well it is measured"));
    } else if (!shownTraits().falseAlarm && shownTraits().foldHarmonics == 0) {
        m_levels->setText(tr("False-alarm levels are for Lomb-Scargle (Baluev 2008)"));
    } else if (!shownTraits().falseAlarm) {
        m_levels->setText(tr("False-alarm levels are for the one-term model (Baluev 2008); "
                             "this periodogram fits %1 terms")
                              .arg(m_shownOptions.nterms));
    } else {
        const gpu::TimeSeries used = usedSeries();
        QStringList text;
        for (const double probability : {0.01, 0.001}) {
            const std::optional<double> level = gpu::falseAlarmLevel(
                probability, grid().fmax(), used, m_shownOptions.normalization);
            const QString percent = QString::number(100.0 * probability, 'g', 3) + " %";
            if (!level)
                continue;
            levels.push_back({*level, tr("FAP %1").arg(percent)});
            text << tr("%1 at power %2").arg(percent).arg(*level, 0, 'g', 4);
        }
        if (text.isEmpty())
            m_levels->setText(
                used.t.size() < gpu::kFalseAlarmMinPoints
                    ? tr("Too few points (%1) for false-alarm levels").arg(used.t.size())
                    : tr("The false-alarm levels cannot be computed for these data"));
        else
            m_levels->setText(tr("False-alarm levels (Baluev 2008, dashed on the plot): %1")
                                  .arg(text.join(", ")));
    }
    m_marks->setLevels(std::move(levels));
}

void PeriodogramWorkspace::showAliases(int peak)
{
    std::vector<PeriodogramMarks::Line> lines;
    QStringList text;
    const double scale = m_frequencyUnit->currentIndex() == 1 ? 2.0 * std::numbers::pi : 1.0;
    if (peak >= 0 && peak < int(m_peaks.size())) {
        const double f = m_peaks[std::size_t(peak)].frequency;
        for (const gpu::Alias& a : gpu::aliasFrequencies(f, m_shownUnit, m_shownSampling)) {
            const QString label = QString::fromStdString(a.label);
            lines.push_back({a.frequency, label});
            text << tr("%1 (%2)").arg(a.frequency * scale, 0, 'g', 6).arg(label);
        }
    }
    if (m_spectrum && m_shownSampling && grid().fmax() > m_shownSampling->nyquist)
        lines.push_back({m_shownSampling->nyquist, tr("Nyquist")});
    m_aliases->setText(
        text.isEmpty()
            ? QString()
            : tr("Aliases of the selected peak (dotted on the plot): %1").arg(text.join(", ")));
    m_aliases->setVisible(!text.isEmpty());
    m_marks->setLines(std::move(lines));
}

void PeriodogramWorkspace::showWindow()
{
    const bool shown = m_showWindow->isChecked() && m_window;
    m_windowPlot->setVisible(shown);
    if (!shown)
        return;
    // The window's line as the periodogram's is drawn, a minimum and maximum per column,
    // over its whole grid, so a grid of millions of frequencies stays a few thousand points.
    const gpu::FrequencyGrid& g = m_window->grid();
    gpu::SpectrumAxis axis;
    axis.xMin = g.fmin;
    axis.xMax = g.count > 1 ? g.fmax() : g.fmin * 1.1;
    axis.logX = g.logarithmic;
    axis.columns = int(std::clamp<long long>(g.count, 1, 2000));
    std::vector<float> vertices(std::size_t(axis.columns) * gpu::kSpectrumFloatsPerColumn);
    if (const gpu::Status s = m_window->decimate(axis, vertices); !s) {
        setError(
            tr("The spectral window cannot be drawn: %1").arg(QString::fromStdString(s.message())));
        m_windowPlot->setVisible(false);
        return;
    }
    const bool period = m_xAxis->currentIndex() == 1;
    const double scale = m_frequencyUnit->currentIndex() == 1 ? 2.0 * std::numbers::pi : 1.0;
    QVector<double> keys, values;
    for (std::size_t v = 0; v < vertices.size(); v += 2) {
        if (!std::isfinite(vertices[v + 1]))
            continue;
        const double u = double(vertices[v]) / axis.columns;
        const double f = g.logarithmic ? axis.xMin * std::pow(axis.xMax / axis.xMin, u)
                                       : axis.xMin + u * (axis.xMax - axis.xMin);
        keys.push_back(period ? 1.0 / f : f * scale);
        values.push_back(vertices[v + 1]);
    }
    m_windowPlot->graph(0)->setData(keys, values);
    m_windowPlot->xAxis->setScaleType(m_logX->isChecked() ? QCPAxis::stLogarithmic
                                                          : QCPAxis::stLinear);
    m_windowPlot->xAxis->setLabel(m_view->xLabel());
    const auto [lo, hi] = m_view->xRange();
    m_windowPlot->xAxis->setRange(lo, hi);
    m_windowPlot->yAxis->setRange(0.0, 1.05);
    m_windowPlot->replot(QCustomPlot::rpQueuedReplot);
}

QStringList PeriodogramWorkspace::markLabels() const
{
    QStringList labels;
    for (const PeriodogramMarks::Level& l : m_marks->levels())
        labels << l.label;
    for (const PeriodogramMarks::Line& l : m_marks->lines())
        labels << l.label;
    return labels;
}

QStringList PeriodogramWorkspace::paintedLevelLabels() const
{
    return m_marks->paintedLevelLabels();
}

void PeriodogramWorkspace::showFold(int peak)
{
    m_view->setPeaks(m_peaks, peak);
    showAliases(peak);
    if (peak < 0 || peak >= int(m_peaks.size()))
        return m_fold->clearFold(m_spectrum ? tr("No peak to fold: select one in the table")
                                            : tr("The fold shows once a periodogram has peaks"));
    // The model the periodogram fits at the peak: as many harmonics as its terms, with the
    // epoch in the middle of the data so that large times keep the phase exact.
    // At the refined frequency where the peak has one: the grid's sample is up to half a step
    // off, which smears a long series' fold.
    const std::optional<scene::RefinedPeak>& refined =
        std::size_t(peak) < m_peakDetails.refined.size() ? m_peakDetails.refined[std::size_t(peak)]
                                                         : std::nullopt;
    const double f = std::ldexp(refined ? refined->frequency : m_peaks[std::size_t(peak)].frequency,
                                -m_foldDoublings);
    m_foldDouble->setEnabled(m_foldDoublings < kMaxFoldDoublings);
    m_foldHalve->setEnabled(m_foldDoublings > -kMaxFoldDoublings);
    const gpu::TimeSeries& used = m_session->prepared().series;
    if (shownTraits().foldBox && m_foldDoublings == 0)
        return showBoxFold(std::size_t(peak));
    const int nterms = m_session->traits().foldHarmonics;
    const gpu::HarmonicFit fit = m_session->fold(f);
    FoldModel model;
    model.epoch = fit.epoch;
    model.offset = fit.offset;
    model.harmonics = fit.harmonics;
    const QString period = scene::periodText(1.0 / f, m_shownUnit);
    model.parameters << (m_foldDoublings == 0
                             ? tr("period %1").arg(period)
                             : tr("period %1 (%2 the peak's)")
                                   .arg(period, m_foldDoublings > 0
                                                    ? QString("%1\u00d7").arg(1 << m_foldDoublings)
                                                    : QString("1/%1").arg(1 << -m_foldDoublings)));
    if (nterms == 0) {
        // A statistic without a model (phase dispersion, conditional entropy): the binned
        // means alone, no line.
        model.offset = std::nan("");
        model.parameters << tr("binned means");
    } else if (fit.harmonics.empty()) {
        model.parameters << tr("no model: the data's phases cannot be told apart");
    } else {
        // One term: the sinusoid's amplitude; more: half the model's peak-to-peak range.
        double amplitude = std::hypot(fit.harmonics[0].first, fit.harmonics[0].second);
        if (nterms > 1) {
            double lo = model.at(0.0), hi = lo;
            for (int i = 1; i < 1000; ++i) {
                const double y = model.at(i / 1000.0);
                lo = std::min(lo, y);
                hi = std::max(hi, y);
            }
            amplitude = 0.5 * (hi - lo);
        }
        if (std::isfinite(amplitude) && std::isfinite(fit.offset)) {
            model.parameters << (nterms > 1 ? tr("half peak-to-peak %1 (%2 harmonics)")
                                                  .arg(amplitude, 0, 'g', 5)
                                                  .arg(nterms)
                                            : tr("amplitude %1").arg(amplitude, 0, 'g', 5));
            model.parameters << tr("offset %1").arg(fit.offset, 0, 'g', 6);
        }
    }
    model.parameters << tr("%1 points").arg(used.t.size());
    QString yLabel = valueLabel();
    // The fold is of what the periodogram saw: after the trend and the prewhitened sinusoids.
    if (!m_session->prepared().trend.empty() || !m_prewhitened.empty())
        yLabel = tr("%1, residuals").arg(yLabel);
    m_fold->setFold(used, f, model, period, yLabel);
}

// A transit's fold: the best box at the peak, mid-transit in the middle of the plot's cycle,
// drawn at the level of the points outside it.
void PeriodogramWorkspace::showBoxFold(std::size_t peak)
{
    const gpu::TimeSeries& used = m_session->prepared().series;
    const double f = m_peaks[peak].frequency, period = 1.0 / f;
    const double duration = m_peakDetails.detail(peak, "duration").value_or(0.0);
    const double transit = m_peakDetails.detail(peak, "transit_time").value_or(0.0);
    FoldModel model;
    model.epoch = transit - 0.5 * period;
    double w = 0.0, wy = 0.0;
    for (std::size_t i = 0; i < used.t.size(); ++i) {
        if (std::abs(std::remainder(used.t[i] - transit, period)) < 0.5 * duration)
            continue;
        const double weight = used.dy.empty() ? 1.0 : 1.0 / (used.dy[i] * used.dy[i]);
        w += weight;
        wy += weight * used.y[i];
    }
    model.offset = w > 0.0 ? wy / w : 0.0;
    model.box =
        FoldModel::Box{m_peakDetails.detail(peak, "depth").value_or(0.0), 0.5, 0.5 * duration * f};
    const QString periodText = scene::periodText(period, m_shownUnit);
    model.parameters << tr("period %1").arg(periodText) << boxText(peak)
                     << tr("%1 points").arg(used.t.size());
    QString yLabel = valueLabel();
    if (!m_session->prepared().trend.empty() || !m_prewhitened.empty())
        yLabel = tr("%1, residuals").arg(yLabel);
    m_fold->setFold(used, f, model, periodText, yLabel);
}

void PeriodogramWorkspace::scaleFoldPeriod(int step)
{
    m_foldDoublings = std::clamp(m_foldDoublings + step, -kMaxFoldDoublings, kMaxFoldDoublings);
    showFold(m_peakTable->currentRow());
}

void PeriodogramWorkspace::clickPlot(const QPointF& pos)
{
    int best = -1;
    double bestScore = 12.0; // pixels
    for (int i = 0; i < int(m_peaks.size()); ++i) {
        const gpu::Peak& p = m_peaks[std::size_t(i)];
        const double x = m_view->xPixel(p.frequency);
        const double y = m_view->yPixel(p.power);
        // Anywhere on a peak's stem counts; above its top, the distance grows. Within a pixel
        // the taller peak wins (peaks are sorted tallest first).
        const double score = std::hypot(x - pos.x(), std::max(0.0, y - pos.y())) + 0.01 * i;
        if (score < bestScore) {
            bestScore = score;
            best = i;
        }
    }
    if (best >= 0)
        m_peakTable->setCurrentCell(best, 0);
}

} // namespace warpscope::ui
