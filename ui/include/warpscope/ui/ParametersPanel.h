#pragma once

#include "warpscope/gpu/DistanceParams.h"

#include <QWidget>
#include <vector>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QTableWidget;

namespace warpscope::ui {

class NumberField;

// Controls for a distance field: mesh bounds and size, reference points, precision, units,
// radius and colormap. It emits edited() with the parameter changed, live; the
// owner validates, records the change for undo, and reports errors back with showErrors().
class ParametersPanel : public QWidget
{
    Q_OBJECT

public:
    explicit ParametersPanel(QWidget* parent = nullptr);

    // Values as the controls hold them, possibly invalid.
    gpu::DistanceParams params() const;
    void setParams(const gpu::DistanceParams& params); // does not emit edited
    void showErrors(const std::vector<gpu::ParamError>& errors);
    // A failure to compute an otherwise valid field (memory, device): shown under the mesh size.
    void showComputeError(const QString& message);
    void setPrecisionHint(const QString& hint);
    int selectedReference() const;
    void selectReference(int index);
    QString colormap() const;
    void setColormap(const QString& name);
    QString errorText() const;

signals:
    void edited(gpu::ParamField field);
    void colormapChanged(const QString& name);
    void selectedReferenceChanged(int index);

private:
    void addReference();
    void removeReference();
    void fillReferenceTable(const std::vector<gpu::GeoPoint>& references);
    NumberField* field(gpu::ParamField f) const;

    NumberField* m_latMin;
    NumberField* m_latMax;
    NumberField* m_lonMin;
    NumberField* m_lonMax;
    NumberField* m_nx;
    NumberField* m_ny;
    QTableWidget* m_references;
    QPushButton* m_addReference;
    QPushButton* m_removeReference;
    QComboBox* m_precision;
    QComboBox* m_unit;
    QDoubleSpinBox* m_radius;
    QComboBox* m_colormap;
    QLabel* m_errors;
    QLabel* m_computeError;
    QLabel* m_hint;
    bool m_updating = false;
    std::vector<QString> m_referenceErrors;
};

} // namespace warpscope::ui
