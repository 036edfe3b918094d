#include "KernelParamControl.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <algorithm>
#include <climits>
#include <cmath>

namespace warpscope::ui {
namespace {

constexpr int kFloatSteps = 1000;

// The slider's positions for param: a float's fixed count; an int's one a whole number, or,
// for a range wider than a slider holds, as many as it holds (each still a whole number).
int sliderSteps(const gpu::KernelParam& param)
{
    if (param.type != gpu::KernelParamType::Int)
        return kFloatSteps;
    return int(std::min(param.max - param.min, double(INT_MAX)));
}

double valueAt(const gpu::KernelParam& param, int step)
{
    const double span = param.max - param.min;
    const int steps = sliderSteps(param);
    if (param.type == gpu::KernelParamType::Int && span == steps)
        return param.min + step; // exact: no division on the way
    return gpu::kernelParamValue(param, param.min + span * double(step) / steps);
}

int stepOf(const gpu::KernelParam& param, double value)
{
    return int(std::lround((value - param.min) / (param.max - param.min) * sliderSteps(param)));
}

QString valueText(const gpu::KernelParam& param, double value)
{
    return param.type == gpu::KernelParamType::Int ? QString::number(qint64(value))
                                                   : QString::number(value, 'g', 4);
}

} // namespace

QWidget* makeKernelParamControl(const gpu::KernelParam& param, double value, QWidget* parent,
                                std::function<void(double)> changed)
{
    const QString name = QString::fromStdString("param_" + param.name);
    if (param.type == gpu::KernelParamType::Bool) {
        auto* box = new QCheckBox(parent);
        box->setObjectName(name);
        box->setChecked(value != 0.0);
        QObject::connect(box, &QCheckBox::toggled, box,
                         [changed](bool on) { changed(on ? 1.0 : 0.0); });
        return box;
    }
    auto* row = new QWidget(parent);
    auto* slider = new QSlider(Qt::Horizontal, row);
    slider->setObjectName(name);
    slider->setRange(0, sliderSteps(param));
    slider->setValue(stepOf(param, value));
    auto* label = new QLabel(valueText(param, value), row);
    label->setMinimumWidth(60);
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(slider, 1);
    layout->addWidget(label);
    QObject::connect(slider, &QSlider::valueChanged, row, [param, label, changed](int step) {
        const double v = valueAt(param, step);
        label->setText(valueText(param, v));
        changed(v);
    });
    return row;
}

} // namespace warpscope::ui
