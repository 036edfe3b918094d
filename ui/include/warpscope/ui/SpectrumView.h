#pragma once

#include "warpscope/gpu/DevicePool.h"
#include "warpscope/gpu/Spectrum.h"
#include "warpscope/render/GlWriteScope.h"
#include "warpscope/render/SpectrumRenderer.h"

#include <QOpenGLWidget>
#include <memory>
#include <optional>

namespace warpscope::ui {

// The periodogram's plot: the line comes from a GL vertex buffer written through a
// GlWriteScope (on the GPU OpenGL runs on, decimated there to two vertices per pixel column,
// straight into the buffer); axes,
// ticks, labels and peak marks are painted around it. The wheel zooms x around the cursor,
// a drag pans, a double click shows the whole grid; y follows the spectrum's range. With the
// keyboard: + and - zoom, the arrows pan, Home shows the whole grid.
class SpectrumView : public QOpenGLWidget
{
    Q_OBJECT

public:
    explicit SpectrumView(std::shared_ptr<gpu::DevicePool> devices, QWidget* parent = nullptr);
    ~SpectrumView() override;

    // Shows a spectrum; the x range is kept when the grid is the same. A new grid opens on
    // where the power is (openingRange), given its peaks' width in frequency (1 / the time
    // baseline; 0 when unknown, which opens on the whole grid).
    void setSpectrum(std::shared_ptr<const gpu::Spectrum> spectrum, double peakWidth = 0.0);
    const std::shared_ptr<const gpu::Spectrum>& spectrum() const { return m_spectrum; }
    // What x shows: the period, or the frequency times scale (2 pi for angular frequency).
    void setAxis(bool period, bool logX, double frequencyScale, const QString& xLabel);
    void setYLabel(const QString& label);
    QString xLabel() const { return m_xLabel; }
    // The unit the hover readout gives periods in ("days"), or "" for none.
    void setPeriodUnit(const QString& unit);
    // Peaks to mark (highest first) and the one selected, -1 for none.
    void setPeaks(const std::vector<gpu::Peak>& peaks, int selected);
    void fit();
    // The range a new grid opens on, in axis units: on a linear frequency axis, the one that
    // holds the highest peaks (OpeningRange.h); otherwise the whole grid.
    std::pair<double, double> openingRange() const;
    // Whether the view shows less than the whole grid since it opened (a note says so).
    bool openedZoomed() const { return m_openedZoomed; }
    // The x axis' title: the label, and while the view shows where the power is, that a
    // double click or Home shows the whole grid.
    QString xTitle() const;

    // Where the peaks' marks lie in the widget: each visible peak's marker, and the numbers of
    // the highest kNumberedPeaks, each above and right of its marker, else stacked higher or
    // left of it, clear of every marker and other number; a number with no room is left out
    // (the peak list still has it). The marks painted over the plot keep clear of them too.
    static constexpr int kNumberedPeaks = 5;
    struct PeakLabel
    {
        int number = 0; // 1 for the highest
        QRectF rect;
    };
    struct PeakMarks
    {
        std::vector<QRectF> markers;
        std::vector<PeakLabel> labels;
    };
    PeakMarks peakMarks() const;

    // Widget coordinates of a frequency and a power on the current axes.
    double xPixel(double frequency) const;
    double yPixel(double power) const;
    // The visible x range in axis units.
    std::pair<double, double> xRange() const { return {m_xMin, m_xMax}; }
    // How the line reached the GL buffer ("interop" or "host copy"), and the last problem.
    QString pathText() const { return m_pathText; }
    // The hover readout last drawn: frequency, period and the power under the pointer.
    QString readout() const { return m_readout; }
    // Why the line is not drawn, on the plot, when the powers lie beyond what its float32
    // vertices hold; empty otherwise.
    QString undrawable() const;
    QString errorText() const { return m_error; }

signals:
    // A click (not a drag) at a widget position.
    void clicked(const QPointF& position);
    void message(const QString& text);

protected:
    void initializeGL() override;
    void paintGL() override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    QRectF plotRect() const;
    // Axis value <-> position along the plot, 0 to 1.
    double toUnit(double x) const;
    double fromUnit(double u) const;
    double axisValue(double frequency) const;
    std::pair<double, double> dataRange() const;
    // The power shown at the bottom and the top of the plot.
    std::pair<double, double> yRange() const;
    void setXRange(double lo, double hi);
    // Zooms by factor around the axis position u (0 to 1 across the plot).
    void zoomAround(double u, double factor);
    // Shifts the view by a fraction of its width.
    void pan(double fraction);
    void releaseGl();
    // Opens the view's context on the pool's device for a display, with the GL context
    // current, when there is none or the person chose another device.
    void openContext();
    void paintAxes(class QPainter& painter, const QRectF& plot);

    std::shared_ptr<gpu::DevicePool> m_devices;
    std::unique_ptr<gpu::Context> m_context; // opened with the GL context
    std::unique_ptr<render::GlInterop> m_interop;
    std::uint64_t m_generation = 0;
    render::SpectrumRenderer m_renderer;
    std::shared_ptr<const gpu::Spectrum> m_spectrum;
    // The axis the vertex buffer holds the current spectrum's line for; reset by a new
    // spectrum, so a refill happens only when the spectrum or the axis changes.
    std::optional<gpu::SpectrumAxis> m_filledAxis;
    std::vector<gpu::Peak> m_peaks;
    int m_selected = -1;
    bool m_period = false;
    bool m_logX = false;
    double m_scale = 1.0;
    double m_peakWidth = 0.0; // of the spectrum's peaks, in frequency
    double m_xMin = 0.0, m_xMax = 1.0;
    bool m_openedZoomed = false; // until the person zooms, pans or fits
    QString m_xLabel, m_yLabel, m_periodUnit;
    QString m_pathText, m_error, m_readout;
    std::optional<QPointF> m_hover;
    std::optional<std::pair<float, float>> m_hoverPower; // the line's range in the hovered column
    std::optional<QPointF> m_dragFrom;
    QPointF m_pressAt;
    double m_dragXMin = 0.0, m_dragXMax = 1.0;
};

} // namespace warpscope::ui
