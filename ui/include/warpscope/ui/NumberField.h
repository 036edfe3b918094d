#pragma once

#include <QWidget>

class QDoubleSpinBox;
class QSlider;

namespace warpscope::ui {

// A spin box with a slider under it. The spin box accepts any number so that out-of-range
// input can be explained rather than silently refused; the slider covers the useful range
// (logarithmically for sizes). Both update live while dragging or typing.
class NumberField : public QWidget
{
    Q_OBJECT

public:
    NumberField(double sliderMin, double sliderMax, int decimals, bool logarithmic,
                QWidget* parent = nullptr);

    double value() const;
    void setValue(double value); // does not emit edited
    void setError(const QString& message);
    QDoubleSpinBox* spinBox() const { return m_spin; }
    QSlider* slider() const { return m_slider; }

signals:
    void edited(double value);

private:
    int toSlider(double value) const;
    double fromSlider(int position) const;

    QDoubleSpinBox* m_spin;
    QSlider* m_slider;
    double m_min, m_max;
    bool m_log;
    bool m_updating = false;
};

} // namespace warpscope::ui
