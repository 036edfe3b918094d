#pragma once

#include "warpscope/gpu/LaunchConfig.h"

#include <QWidget>

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
    // The value shown for a row label, for tests; empty when there is no such row.
    QString value(const QString& label) const;

private:
    QFormLayout* m_form;
};

} // namespace warpscope::ui
