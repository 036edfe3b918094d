#pragma once

#include <QString>
#include <functional>

// How figures read where they may not be ordinary numbers, the same everywhere: a value that is
// not finite is named, never printed as "nan".
namespace warpscope::ui {

// "NaN", "+inf" or "-inf" where value is not finite, format(value) otherwise.
QString valueText(double value, const std::function<QString(double)>& format);

// "N nodes are not finite (NaN or infinity)", for a kernel's run that left some.
QString nonFiniteText(long long nodes);

} // namespace warpscope::ui
