#include "warpscope/scene/PeriodogramUnits.h"

#include "warpscope/scene/methods/PeriodogramMethod.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cstdio>

namespace warpscope::scene {

QString frequencyUnitText(gpu::TimeUnit unit, bool angular)
{
    const QString per = unit == gpu::TimeUnit::Day    ? QStringLiteral("day")
                        : unit == gpu::TimeUnit::Year ? QStringLiteral("year")
                                                      : QStringLiteral("unit time");
    return (angular ? QStringLiteral("radians per ") : QStringLiteral("cycles per ")) + per;
}

QString periodUnitText(gpu::TimeUnit unit)
{
    switch (unit) {
    case gpu::TimeUnit::Day:
        return QStringLiteral("days");
    case gpu::TimeUnit::Year:
        return QStringLiteral("years");
    case gpu::TimeUnit::Unknown:
        break;
    }
    return {};
}

QString periodText(double period, gpu::TimeUnit unit, int digits)
{
    const QString number = QString::number(period, 'g', digits);
    const QString name = periodUnitText(unit);
    return name.isEmpty() ? number : number + ' ' + name;
}

QString detrendText(const gpu::DetrendOptions& detrend, gpu::TimeUnit unit)
{
    switch (detrend.method) {
    case gpu::DetrendMethod::Polynomial:
        return QStringLiteral("a degree-%1 polynomial").arg(detrend.degree);
    case gpu::DetrendMethod::RunningMedian:
        return QStringLiteral("a running median over %1").arg(periodText(detrend.window, unit));
    case gpu::DetrendMethod::None:
        break;
    }
    return QStringLiteral("no trend");
}

QString samplingNote(const std::optional<gpu::RegularSampling>& sampling, gpu::TimeUnit unit,
                     double gridFmax, bool stopped)
{
    if (!sampling || (!stopped && !(gridFmax > sampling->nyquist)))
        return {};
    const QString step = periodText(sampling->step, unit);
    const QString gaps = sampling->singleSteps == sampling->intervals
                             ? QString()
                             : QStringLiteral(" (%1 of %2 intervals one step, the others whole "
                                              "steps)")
                                   .arg(sampling->singleSteps)
                                   .arg(sampling->intervals);
    const QString head =
        QStringLiteral("Regular sampling every %1%2: Nyquist frequency %3 %4")
            .arg(step, gaps, QString::number(sampling->nyquist, 'g', 6), frequencyUnitText(unit));
    if (stopped)
        return head + QStringLiteral("; the automatic grid stops there, since above it the "
                                     "periodogram only mirrors what lies below. A manual grid "
                                     "can go further.");
    return head + QStringLiteral("; the grid goes beyond it, where every peak is an alias of "
                                 "one below.");
}

std::string periodogramCsv(const gpu::FrequencyGrid& grid, std::span<const double> power,
                           gpu::TimeUnit unit, std::span<const MethodColumn> columns)
{
    std::string text = unit == gpu::TimeUnit::Unknown
                           ? std::string("frequency,period,power")
                           : "frequency (" + frequencyUnitText(unit).toStdString() + "),period (" +
                                 periodUnitText(unit).toStdString() + "),power";
    for (const MethodColumn& c : columns)
        text += "," + c.name;
    text += "\n";
    char line[96];
    for (std::size_t k = 0; k < power.size(); ++k) {
        const double f = grid.frequency((long long)k);
        std::snprintf(line, sizeof line, "%.17g,%.17g,%.17g", f, 1.0 / f, power[k]);
        text += line;
        for (const MethodColumn& c : columns) {
            std::snprintf(line, sizeof line, ",%.17g", k < c.values.size() ? c.values[k] : 0.0);
            text += line;
        }
        text += "\n";
    }
    return text;
}

std::vector<std::optional<double>> falseAlarmProbabilities(const std::vector<gpu::Peak>& peaks,
                                                           const gpu::FrequencyGrid& grid,
                                                           const gpu::TimeSeries& series,
                                                           const gpu::PeriodogramOptions& options)
{
    std::vector<std::optional<double>> fap(peaks.size());
    // Baluev's approximation assumes the model's offset is fitted or removed, and a method
    // it describes.
    if (!(options.fitMean || options.centerData) || !periodogramTraits(options).falseAlarm ||
        grid.count < 1)
        return fap;
    if (peaks.empty())
        return fap;
    const gpu::FalseAlarmSeries spread = gpu::falseAlarmSeries(series);
    for (std::size_t i = 0; i < peaks.size(); ++i)
        fap[i] =
            gpu::falseAlarmProbability(peaks[i].power, grid.fmax(), spread, options.normalization);
    return fap;
}

std::string peaksJson(const ReportedPeaks& peaks, gpu::Normalization normalization,
                      gpu::TimeUnit unit, int nterms,
                      const std::vector<gpu::FittedSinusoid>& prewhitened, double prewhitenEpoch)
{
    QJsonArray list;
    for (std::size_t i = 0; i < peaks.peaks.size(); ++i) {
        const gpu::Peak& p = peaks.peaks[i];
        QJsonValue fap; // null where it is not defined
        if (i < peaks.falseAlarm.size() && peaks.falseAlarm[i])
            fap = *peaks.falseAlarm[i];
        QJsonObject peak{{"frequency", p.frequency},
                         {"period", 1.0 / p.frequency},
                         {"power", p.power},
                         {"falseAlarmProbability", fap}};
        if (i < peaks.refined.size() && peaks.refined[i]) {
            const RefinedPeak& r = *peaks.refined[i];
            peak.insert("refinedFrequency", r.frequency);
            peak.insert("refinedFrequencyError", r.error);
            peak.insert("refinedPeriod", 1.0 / r.frequency);
            peak.insert("refinedPeriodError", r.error / (r.frequency * r.frequency));
            peak.insert("refinedBy", QString::fromStdString(r.how));
        }
        for (std::size_t c = 0; i < peaks.details.size() && c < peaks.detailNames.size(); ++c)
            peak.insert(QString::fromStdString(peaks.detailNames[c]), peaks.details[i].at(c));
        list.append(peak);
    }
    QJsonArray sinusoids;
    for (const gpu::FittedSinusoid& f : prewhitened)
        sinusoids.append(QJsonObject{{"frequency", f.frequency},
                                     {"frequencyError", f.frequencyError},
                                     {"period", 1.0 / f.frequency},
                                     {"amplitude", f.amplitude},
                                     {"amplitudeError", f.amplitudeError},
                                     {"phase", f.phase},
                                     {"phaseError", f.phaseError}});
    const QString period = periodUnitText(unit);
    const QJsonObject root{{"timeUnit", unit == gpu::TimeUnit::Day    ? "day"
                                        : unit == gpu::TimeUnit::Year ? "year"
                                                                      : "unknown"},
                           {"frequencyUnit", frequencyUnitText(unit)},
                           {"periodUnit", period.isEmpty() ? QJsonValue() : QJsonValue(period)},
                           {"normalization", gpu::normalizationName(normalization)},
                           {"nterms", nterms},
                           {"peaks", list},
                           {"prewhitened", QJsonObject{{"epoch", prewhitenEpoch},
                                                       {"model", "offset + sum amplitude sin(2 pi "
                                                                 "(frequency (t - epoch) + "
                                                                 "phase))"},
                                                       {"sinusoids", sinusoids}}}};
    return QJsonDocument(root).toJson(QJsonDocument::Indented).toStdString();
}

} // namespace warpscope::scene
