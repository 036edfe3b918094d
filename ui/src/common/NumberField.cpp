#include "warpscope/ui/NumberField.h"

#include <QDoubleSpinBox>
#include <QSlider>
#include <QVBoxLayout>
#include <cmath>

namespace warpscope::ui {

namespace {
constexpr int kSliderSteps = 1000;
}

NumberField::NumberField(double sliderMin, double sliderMax, int decimals, bool logarithmic,
                         QWidget* parent)
    : QWidget(parent), m_spin(new QDoubleSpinBox(this)),
      m_slider(new QSlider(Qt::Horizontal, this)), m_min(sliderMin), m_max(sliderMax),
      m_log(logarithmic)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(1);
    layout->addWidget(m_spin);
    layout->addWidget(m_slider);
    m_spin->setDecimals(decimals);
    m_spin->setRange(-1e9, 1e9); // validated by the owner, with a message
    // Typing commits on Enter or focus change, so "8192" does not compute 8, 81 and 819 first;
    // the arrows, the wheel and the slider are live.
    m_spin->setKeyboardTracking(false);
    m_spin->setSingleStep(decimals == 0 ? 1.0 : 0.1);
    m_spin->setAccelerated(true);
    m_slider->setRange(0, kSliderSteps);
    m_slider->setFocusPolicy(Qt::NoFocus);
    connect(m_spin, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        if (m_updating)
            return;
        m_updating = true;
        m_slider->setValue(toSlider(v));
        m_updating = false;
        emit edited(v);
    });
    connect(m_slider, &QSlider::valueChanged, this, [this](int position) {
        if (m_updating)
            return;
        m_updating = true;
        m_spin->setValue(fromSlider(position));
        m_updating = false;
        emit edited(m_spin->value());
    });
}

double NumberField::value() const
{
    return m_spin->value();
}

void NumberField::setValue(double value)
{
    m_updating = true;
    m_spin->setValue(value);
    m_slider->setValue(toSlider(value));
    m_updating = false;
}

void NumberField::setError(const QString& message)
{
    m_spin->setStyleSheet(message.isEmpty() ? QString()
                                            : QStringLiteral("QDoubleSpinBox { border: 2px solid "
                                                             "#e5484d; background: #3b1d1f; }"));
    m_spin->setToolTip(message.isEmpty() ? toolTip() : message);
    m_spin->setProperty("invalid", !message.isEmpty());
}

int NumberField::toSlider(double value) const
{
    double t = m_log ? (std::log(std::max(value, m_min)) - std::log(m_min)) /
                           (std::log(m_max) - std::log(m_min))
                     : (value - m_min) / (m_max - m_min);
    if (!std::isfinite(t))
        t = 0.0;
    return int(std::lround(std::clamp(t, 0.0, 1.0) * kSliderSteps));
}

double NumberField::fromSlider(int position) const
{
    const double t = double(position) / kSliderSteps;
    const double v = m_log ? std::exp(std::log(m_min) + t * (std::log(m_max) - std::log(m_min)))
                           : m_min + t * (m_max - m_min);
    const double scale = std::pow(10.0, m_spin->decimals());
    return std::round(v * scale) / scale;
}

} // namespace warpscope::ui
