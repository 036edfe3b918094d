#pragma once

#include <QString>
#include <functional>

// How figures read where they may not be ordinary numbers, the same everywhere: a value that is
// not finite is named, never printed as "nan", and a probability below double's range is not
// "0".
namespace warpscope::ui {

// "NaN", "+inf" or "-inf" where value is not finite, format(value) otherwise.
QString valueText(double value, const std::function<QString(double)>& format);

// "N nodes are not finite (NaN or infinity)", for a kernel's run that left some.
QString nonFiniteText(long long nodes);

// "value ± error" with the error's two leading digits and the value to the same place; the
// value alone (valueText, 8 digits) where the error is not a positive finite number, since an
// infinite or undefined error has no digits to give.
QString valueWithError(double value, double error);

// A false-alarm probability with three significant digits, or "< 1e-300" below that, where
// it has underflowed (to 0 or a subnormal) and its digits mean nothing.
QString falseAlarmText(double probability);

} // namespace warpscope::ui
