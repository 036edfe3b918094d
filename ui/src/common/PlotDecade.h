#pragma once

#include <QString>
#include <QVector>

// QCustomPlot refuses ranges wider than 1e250 or narrower than 1e-280, and draws nothing with
// a range it refused: values near double's limits are drawn in units of a power of ten, which
// the axis names. Shared by the plots of a series (the light curve and the fold).
namespace warpscope::ui {

// The power of ten that values whose largest magnitude is `largest` are drawn in: 0 (as they
// are) unless they lie beyond 1e200 or below 1e-200.
int plotDecade(double largest);

// Divides values by 10^decade, in two factors, each within double's range even where
// 10^-decade is not.
void scaleToDecade(QVector<double>& values, int decade);

// label, with "(×1e<decade>)" after it when decade is not 0.
QString decadeLabel(const QString& label, int decade);

} // namespace warpscope::ui
