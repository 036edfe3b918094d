#pragma once

#include "warpscope/gpu/Detrend.h"
#include "warpscope/gpu/Periodogram.h"

#include <QPoint>
#include <optional>
#include <qcustomplot.h>
#include <vector>

namespace warpscope::ui {

// The series over time, above the periodogram: the points used (with error bars when dy
// weighs them), the points masked out in grey, the fitted trend as a line and the masked
// ranges shaded. Shift+drag marks a range to mask; a click on a shaded range removes it;
// the wheel zooms and a plain drag pans along t. The view only reports the masks asked for:
// the workspace keeps them, as one undo step each.
class LightCurveView : public QCustomPlot
{
    Q_OBJECT

public:
    explicit LightCurveView(QWidget* parent = nullptr);

    // series: every point loaded (dy cleared when it is not used); kept: the points outside
    // the masks, and trend its fitted values (empty when nothing is taken out).
    void setData(const gpu::TimeSeries& series, const std::vector<gpu::TimeRange>& masks,
                 const gpu::TimeSeries& kept, const std::vector<double>& trend);
    void setTimeLabel(const QString& label);
    // The values' column name: the y axis's label, reversed for magnitudes (ValueAxis.h).
    void setValueLabel(const QString& label);

signals:
    void maskAdded(const gpu::TimeRange& range);
    void maskRemoved(int index);

protected:
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;

private:
    QCPItemRect* shade(double t0, double t1, const QColor& colour);

    std::vector<gpu::TimeRange> m_masks;
    std::vector<QCPItemRect*> m_shades;
    QCPErrorBars* m_errors;
    QCPItemRect* m_rubberBand;
    std::optional<double> m_dragStart; // t where a Shift+drag began
    QPoint m_pressPos;
    QString m_valueLabel = tr("y");
};

} // namespace warpscope::ui
