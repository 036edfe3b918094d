#pragma once

#include "warpscope/scene/Options.h"

#include <array>

// How an option's text becomes a scene's value: the parsing both programs share, each refusal
// naming the option and the text as it was typed. Ranges are the scene's validate()'s to check.
namespace warpscope::scene::options {

QString flag(const Option& option); // "--name"
QString text(std::string_view s);   // a declaration's name or key
std::optional<double> parseNumber(const QString& text);
// "a, b or c".
QString alternatives(const QStringList& names);

QString setNumber(const Option& option, const QString& text, double& target);
// A whole number within int; out of its range, the message names the declared range.
QString setWhole(const Option& option, const QString& text, int& target);
// LAT,LON values, replacing target's points.
QString setReferences(const QStringList& values, std::vector<gpu::GeoPoint>& target);
QString setDims(const Option& option, const QString& text, gpu::Dim3& target);
QString setLabLength(const Option& option, const QString& text, long long& target);
QString setTerms(const Option& option, const QString& text, int& target);
// none, poly:N or median:W over target, so that the value not given keeps target's.
QString setDetrend(const QString& text, gpu::DetrendOptions& target);
// FMIN,FMAX,M[,log|,linear]: a manual grid in ordinary frequency.
QString setFrequencies(const QString& text, PeriodogramScene& target);
QString setMasks(const QStringList& values, std::vector<gpu::TimeRange>& target);
// A period search's key (kPeriodSearches) and box least squares' durations and objective.
QString setSearch(const Option& option, const QString& text, PeriodogramScene& target);
QString setBlsDurations(const Option& option, const QString& text, PeriodogramScene& target);
QString setBlsObjective(const Option& option, const QString& text, PeriodogramScene& target);

// One of names (a scene file's names for E, in E's order).
template <typename E, std::size_t N>
QString setChoice(const Option& option, const QString& text,
                  const std::array<const char*, N>& names, E& target)
{
    QStringList allowed;
    for (std::size_t i = 0; i < N; ++i) {
        if (text == QLatin1String(names[i])) {
            target = E(i);
            return {};
        }
        allowed << QLatin1String(names[i]);
    }
    return flag(option) + " must be " + alternatives(allowed) + ", not '" + text + "'";
}

} // namespace warpscope::scene::options
