#include "OptionValues.h"

#include <cmath>
#include <limits>

namespace warpscope::scene::options {

QString flag(const Option& option)
{
    return "--" + text(option.name);
}

QString text(std::string_view s)
{
    return QString::fromLatin1(s.data(), qsizetype(s.size()));
}

std::optional<double> parseNumber(const QString& text)
{
    bool ok = false;
    const double v = text.trimmed().toDouble(&ok);
    if (!ok)
        return std::nullopt;
    return v;
}

QString alternatives(const QStringList& names)
{
    if (names.size() < 2)
        return names.join("");
    return names.mid(0, names.size() - 1).join(", ") + " or " + names.back();
}

QString setNumber(const Option& option, const QString& text, double& target)
{
    const auto v = parseNumber(text);
    if (!v)
        return flag(option) + " needs a number, not '" + text + "'";
    target = *v;
    return {};
}

QString setWhole(const Option& option, const QString& text, int& target)
{
    bool ok = false;
    const long long v = text.trimmed().toLongLong(&ok);
    if (!ok)
        return flag(option) + " needs a whole number, not '" + text + "'";
    // Within int, the scene's validation names the value as it was typed.
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
        return flag(option) + " must be between " + QString::number(option.range->min) + " and " +
               QString::number(option.range->max) + ", not " + text;
    target = int(v);
    return {};
}

QString setReferences(const QStringList& values, std::vector<gpu::GeoPoint>& target)
{
    std::vector<gpu::GeoPoint> points;
    for (const QString& value : values) {
        const QStringList parts = value.split(',');
        const auto lat = parts.size() == 2 ? parseNumber(parts[0]) : std::nullopt;
        const auto lon = parts.size() == 2 ? parseNumber(parts[1]) : std::nullopt;
        if (!lat || !lon)
            return "--ref needs LAT,LON such as 30,101, not '" + value + "'";
        points.push_back({*lat, *lon});
    }
    target = std::move(points);
    return {};
}

QString setDims(const Option& option, const QString& text, gpu::Dim3& target)
{
    const QStringList parts = text.split(',');
    bool ok = parts.size() == 3;
    long long v[3] = {1, 1, 1};
    for (int k = 0; ok && k < 3; ++k)
        v[k] = parts[k].trimmed().toLongLong(&ok);
    if (!ok)
        return flag(option) + " needs X,Y,Z such as " +
               QString::fromLatin1(option.example.data(), qsizetype(option.example.size())) +
               ", not '" + text + "'";
    target = {v[0], v[1], v[2]};
    return {};
}

QString setLabLength(const Option& option, const QString& text, long long& target)
{
    const auto v = parseNumber(text);
    if (!v || *v != std::floor(*v) || std::abs(*v) > 1e18)
        return flag(option) + " needs a whole number, not '" + text + "'";
    target = static_cast<long long>(*v);
    return {};
}

QString setTerms(const Option& option, const QString& text, int& target)
{
    bool ok = false;
    const int k = text.trimmed().toInt(&ok);
    if (!ok || k < option.range->min || k > option.range->max)
        return flag(option) + " must be a whole number from " + QString::number(option.range->min) +
               " to " + QString::number(option.range->max) + ", not '" + text + "'";
    target = k;
    return {};
}

QString setSearch(const Option& option, const QString& text, PeriodogramScene& target)
{
    QStringList keys;
    for (const char* key : kPeriodSearches) {
        if (text.trimmed() == QLatin1String(key)) {
            target.search = key;
            return {};
        }
        keys << QString::fromLatin1(key);
    }
    return flag(option) + " must be " + alternatives(keys) + ", not '" + text.left(40) + "'";
}

QString setBlsDurations(const Option& option, const QString& text, PeriodogramScene& target)
{
    const std::string value = text.trimmed().toStdString();
    std::string problem;
    if (value != "auto" && !parseBlsDurations(value, problem))
        return flag(option) + ": " + QString::fromStdString(problem) + ", not '" + text.left(40) +
               "'";
    target.blsDurations = value;
    return {};
}

QString setBlsObjective(const Option& option, const QString& text, PeriodogramScene& target)
{
    for (const char* name : kBlsObjectives)
        if (text.trimmed() == QLatin1String(name)) {
            target.blsObjective = name;
            return {};
        }
    return flag(option) + ": The box least squares objective must be likelihood or snr, not '" +
           text.left(40) + "'";
}

QString setDetrend(const QString& text, gpu::DetrendOptions& target)
{
    gpu::DetrendOptions d = target;
    const QString name = text.section(':', 0, 0).trimmed().toLower();
    const QString value = text.section(':', 1);
    const bool hasValue = text.contains(':');
    bool ok = false;
    if (name == "none" && !hasValue) {
        d.method = gpu::DetrendMethod::None;
    } else if ((name == "poly" || name == "polynomial") && hasValue) {
        d.method = gpu::DetrendMethod::Polynomial;
        d.degree = value.trimmed().toInt(&ok);
        if (!ok)
            return "--detrend poly:N needs a whole degree N, not '" + value + "'";
    } else if (name == "median" && hasValue) {
        d.method = gpu::DetrendMethod::RunningMedian;
        d.window = value.trimmed().toDouble(&ok);
        if (!ok)
            return "--detrend median:W needs a window W in the series' time unit, not '" + value +
                   "'";
    } else {
        return "--detrend must be none, poly:N (N = 0 to " +
               QString::number(gpu::kMaxDetrendDegree) + ") or median:W, not '" + text + "'";
    }
    if (const gpu::Status s = gpu::validateDetrend(d); !s)
        return "--detrend '" + text + "': " + QString::fromStdString(s.message());
    target = d;
    return {};
}

QString setFrequencies(const QString& text, PeriodogramScene& target)
{
    const QString usage = "--frequencies needs FMIN,FMAX,M[,log] with 0 < FMIN < FMAX and 1 <= "
                          "M <= " +
                          QString::number(gpu::kMaxFrequencies) + ", not '" + text + "'";
    const QStringList parts = text.split(',');
    const QString spacing = parts.size() == 4 ? parts[3].trimmed() : QString("linear");
    if ((parts.size() != 3 && parts.size() != 4) || (spacing != "log" && spacing != "linear"))
        return usage;
    bool ok[3] = {false, false, false};
    const double fmin = parts[0].trimmed().toDouble(&ok[0]);
    const double fmax = parts[1].trimmed().toDouble(&ok[1]);
    const long long count = parts[2].trimmed().toLongLong(&ok[2]);
    if (!ok[0] || !ok[1] || !ok[2])
        return usage;
    const bool logarithmic = spacing == "log";
    // The workspace's own check, so that a grid it would refuse is refused here, at once.
    QStringList problems;
    for (const gpu::PeriodogramProblem& problem :
         gpu::validateFrequencyRange(fmin, fmax, count, logarithmic))
        problems << QString::fromStdString(problem.message);
    if (!problems.isEmpty())
        return usage + ": " + problems.join("; ");
    target.fmin = fmin;
    target.fmax = fmax;
    target.count = count;
    target.gridMode = logarithmic ? GridMode::Logarithmic : GridMode::Linear;
    target.unit = FrequencyUnit::Ordinary;
    // A logarithmic grid is drawn on a logarithmic axis, where it is even.
    target.logX = target.logX || logarithmic;
    return {};
}

QString setMasks(const QStringList& values, std::vector<gpu::TimeRange>& target)
{
    std::vector<gpu::TimeRange> ranges;
    for (const QString& value : values) {
        // Times may be negative, so the separator is the one ':' between two numbers.
        const QStringList parts = value.split(':');
        const auto t0 = parts.size() == 2 ? parseNumber(parts[0]) : std::nullopt;
        const auto t1 = parts.size() == 2 ? parseNumber(parts[1]) : std::nullopt;
        if (!t0 || !t1)
            return "--mask needs T0:T1, two times such as 58010:58012.5, not '" + value + "'";
        ranges.push_back({*t0, *t1});
    }
    if (const gpu::Status s = gpu::validateMasks(ranges); !s)
        return "--mask: " + QString::fromStdString(s.message());
    target = std::move(ranges);
    return {};
}

} // namespace warpscope::scene::options
