#include "PlotDecade.h"

#include <QCoreApplication>
#include <cmath>

namespace warpscope::ui {

int plotDecade(double largest)
{
    return largest > 1e200 || (largest > 0.0 && largest < 1e-200)
               ? int(std::floor(std::log10(largest)))
               : 0;
}

void scaleToDecade(QVector<double>& values, int decade)
{
    const double half = std::pow(10.0, -(decade / 2)), rest = std::pow(10.0, decade / 2 - decade);
    for (double& v : values)
        v = v * half * rest;
}

QString decadeLabel(const QString& label, int decade)
{
    return decade == 0
               ? label
               : QCoreApplication::translate("PlotDecade", "%1 (×1e%2)").arg(label).arg(decade);
}

} // namespace warpscope::ui
