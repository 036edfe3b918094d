#pragma once

#include "warpscope/gpu/UserKernel.h"

#include <QWidget>
#include <functional>

namespace warpscope::ui {

// The control of one @param, named "param_<name>": for a float, a slider over [min, max] in
// 1000 steps; for an int, a slider in whole steps (one position a number where the range has
// at most int's count of them); each with its value beside it; for a bool, a check box.
// changed is called with each new value (kernelParamValue's: whole for an int, 0 or 1 for a
// bool).
QWidget* makeKernelParamControl(const gpu::KernelParam& param, double value, QWidget* parent,
                                std::function<void(double)> changed);

} // namespace warpscope::ui
