#pragma once

#include <QString>

class QCPAxis;

namespace warpscope::ui {

// Whether a column named label holds magnitudes ("mag", "Kp_mag", "V (mag)"): astronomers
// read those with brighter (smaller) values up.
bool isMagnitude(const QString& label);

// Labels the value axis, upside down for magnitudes so that a brightening goes up.
void setValueAxis(QCPAxis* axis, const QString& label);

} // namespace warpscope::ui
