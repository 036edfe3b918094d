#include "ValueText.h"

#include <QCoreApplication>
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

QString falseAlarmText(double probability)
{
    if (!(probability >= 1e-300))
        return QStringLiteral("< 1e-300");
    return QString::number(probability, 'g', 3);
}

} // namespace warpscope::ui
