#pragma once

#include "warpscope/gpu/LaunchConfig.h"

#include <QWidget>
#include <string>
#include <vector>

class QComboBox;
class QFormLayout;

namespace warpscope::ui {

// The compute device's properties and launch limits: those the CUDA driver reports, or,
// on the CPU backend, the simulated device's, marked as such.
class DevicePanel : public QWidget
{
    Q_OBJECT

public:
    explicit DevicePanel(QWidget* parent = nullptr);
    void setDevice(const gpu::DeviceInfo& device);
    // Offers a choice of GPU when there are several; hidden otherwise.
    void setDevices(const std::vector<std::string>& names, int current);
    QComboBox* chooser() const { return m_chooser; }
    // The value shown for a row label, for tests; empty when there is no such row.
    QString value(const QString& label) const;

signals:
    void deviceChosen(int index);

private:
    QComboBox* m_chooser;
    QFormLayout* m_form;
};

} // namespace warpscope::ui
