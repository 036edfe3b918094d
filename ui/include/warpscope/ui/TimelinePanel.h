#pragma once

#include "warpscope/gpu/Timeline.h"

#include <QTimer>
#include <QWidget>
#include <array>
#include <memory>

class QCheckBox;
class QCustomPlot;
class QLabel;
class QPushButton;
class QSpinBox;
class QToolButton;

namespace warpscope::ui {

class SpanPlottable;

// What every stream did: one lane per CUDA stream, GL queue or CPU thread, one bar per span,
// coloured by kind. Time runs along x (milliseconds since Warpscope started); the wheel and
// drag zoom and pan it, and lanes stay put. Hovering a bar tells what it was.
class TimelinePanel : public QWidget
{
    Q_OBJECT

public:
    explicit TimelinePanel(std::shared_ptr<gpu::Timeline> timeline, QWidget* parent = nullptr);

    // Takes the timeline's newest spans now, unless frozen.
    void refresh();
    // Refreshes and draws at once (for a screenshot), rather than on the next event loop pass.
    void redrawNow();
    void setFrozen(bool frozen);
    void setKeptFrames(int frames);
    // Times kernels and copies with CUPTI instead of CUDA events (gpu::GpuTiming).
    void setCupti(bool on);
    bool cupti() const;
    bool frozen() const;
    // Hidden, the timeline is a one-line header (its buttons) that keeps recording; a
    // laptop's short window starts that way.
    void setLanesShown(bool shown);
    bool lanesShown() const;
    // The panel's height that gives every lane shown a row its name fits in.
    int lanesHeight() const;
    // Shows every span kept, or keeps following the newest ones.
    void fitAll();
    // Fits the view to the spans that lie within this stretch of the timeline's clock
    // (microseconds), and stops following.
    void fitWithin(double fromUs, double toUs);
    // Writes what the panel shows. Returns an error message, or an empty string.
    QString exportTrace(const QString& path) const;
    QString exportCsv(const QString& path) const;

    const gpu::TimelineSnapshot& shown() const { return m_shown; }
    QCustomPlot* plot() const { return m_plot; }
    // The tooltip text for a point of the plot, empty over no span.
    QString describeAt(const QPoint& pos) const;
    // Bars drawn by the last repaint, after culling and merging.
    int barsDrawn() const;

signals:
    // A message for the status bar: an export, or a problem recording spans.
    void message(const QString& text);
    void lanesShownChanged(bool shown);

public slots:
    // Problems the devices report while recording, shown under the plot.
    void setProblem(const QString& text);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void showSnapshot(gpu::TimelineSnapshot snapshot);
    // Keeps the newest spans in view: the last frame fitted while a fit is pending (see
    // m_fitting), then at the width that fit left.
    void followNewest();
    // Lists in the legend the kinds the recording backends can produce or the spans show, and
    // offers CUPTI only where CUDA records.
    void updateLegend();
    // Shows this stretch of the timeline's clock (microseconds), with a margin.
    void showRangeUs(double fromUs, double toUs);
    void exportWithDialog(bool json);
    void onMouseMove(QMouseEvent* event);
    void fitHeader();
    // The plot's height that gives this many lanes rows their names fit in.
    int heightForLanes(int lanes) const;

    std::shared_ptr<gpu::Timeline> m_timeline;
    QCustomPlot* m_plot;
    std::array<SpanPlottable*, 6> m_kinds{};
    QPushButton* m_freeze;
    QCheckBox* m_follow;
    QSpinBox* m_frames;
    QCheckBox* m_cupti;
    QLabel* m_cuptiNote;
    QLabel* m_summary;
    QLabel* m_problem;
    QToolButton* m_lanes;
    QTimer m_poll;
    gpu::TimelineSnapshot m_shown;
    std::vector<int> m_rowOfLane; // -1 for lanes without spans
    std::uint64_t m_shownVersion = ~0ull;
    // The first show and a lane's first spans (a workspace's first work) fit the last frame
    // until the frames move past it; Follow newest then keeps that width.
    bool m_fitting = false;
    bool m_everShown = false;
    std::vector<bool> m_laneSeen;
    std::array<bool, 6> m_listed{};
};

} // namespace warpscope::ui
