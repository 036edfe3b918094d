#include "ValueText.h"

#include <QCoreApplication>
#include <algorithm>
#include <cmath>

namespace warpscope::ui {

QString valueText(double value, const std::function<QString(double)>& format)
{
    if (std::isnan(value))
        return QStringLiteral("NaN");
    if (std::isinf(value))
        return value > 0 ? QStringLiteral("+inf") : QStringLiteral("-inf");
    return format(value);
}

QString nonFiniteText(long long nodes)
{
    return nodes == 1
               ? QCoreApplication::translate("ValueText", "1 node is not finite (NaN or infinity)")
               : QCoreApplication::translate("ValueText",
                                             "%1 nodes are not finite (NaN or infinity)")
                     .arg(nodes);
}

QString valueWithError(double value, double error)
{
    if (!(error > 0.0) || !std::isfinite(error) || !std::isfinite(value))
        return valueText(value, [](double v) { return QString::number(v, 'g', 8); });
    const int decimals = std::max(0, 1 - int(std::floor(std::log10(error))));
    return QStringLiteral("%1 ± %2")
        .arg(value, 0, 'f', std::min(decimals, 15))
        .arg(error, 0, 'f', std::min(decimals, 15));
}

QString falseAlarmText(double probability)
{
    if (!(probability >= 1e-300))
        return QStringLiteral("< 1e-300");
    return QString::number(probability, 'g', 3);
}

} // namespace warpscope::ui
