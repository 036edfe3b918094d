#pragma once

#include "warpscope/gpu/LaunchConfig.h"

#include <QWidget>
#include <string>
#include <vector>

class QComboBox;
class QFormLayout;
class QLabel;

namespace warpscope::ui {

// The compute device's properties and launch limits: those the CUDA driver reports, or,
// on the CPU, the simulated device's, marked as such.
class DevicePanel : public QWidget
{
    Q_OBJECT

public:
    explicit DevicePanel(QWidget* parent = nullptr);
    void setDevice(const gpu::DeviceInfo& device);
    // Offers a choice of GPU when there are several; hidden otherwise.
    void setDevices(const std::vector<std::string>& names, int current);
    QComboBox* chooser() const { return m_chooser; }
    // Which device each part of the app computes on, one "part: device" each.
    void setUse(const QString& text);
    QString use() const;
    // The value shown for a row label, for tests; empty when there is no such row.
    QString value(const QString& label) const;

signals:
    void deviceChosen(int index);

private:
    QComboBox* m_chooser;
    QLabel* m_where;
    QFormLayout* m_form;
};

} // namespace warpscope::ui
