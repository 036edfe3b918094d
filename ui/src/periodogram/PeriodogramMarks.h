#pragma once

#include <QRectF>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <vector>

namespace warpscope::ui {

class SpectrumView;

// Marks drawn over the periodogram's plot, in its coordinates: horizontal lines at powers
// (the false-alarm levels) and vertical lines at frequencies (the aliases of the selected
// peak, the Nyquist frequency of regular sampling), each labelled. SpectrumView draws its
// line with GL and paints its own axes and peaks; this transparent child paints on top and
// follows its zoom and pan, and lets every mouse event through to it. Its labels keep clear
// of each other and of the view's peak marks; one with no room is left out (each is also
// written under the plot).
class PeriodogramMarks : public QWidget
{
    Q_OBJECT

public:
    struct Level
    {
        double power = 0.0;
        QString label;
    };
    struct Line
    {
        double frequency = 0.0;
        QString label;
    };

    explicit PeriodogramMarks(SpectrumView* view);

    // How the view's x axis maps frequency: the period, or the frequency times scale.
    void setAxis(bool period, double frequencyScale);
    void setLevels(std::vector<Level> levels);
    void setLines(std::vector<Line> lines);
    const std::vector<Level>& levels() const { return m_levels; }
    const std::vector<Line>& lines() const { return m_lines; }
    // The false-alarm levels' labels as last painted, those of close lines joined.
    const QStringList& paintedLevelLabels() const { return m_paintedLevels; }
    // Every label as last painted and where, in the view's coordinates: none covers another,
    // nor a peak's marker or number (SpectrumView::peakMarks).
    struct PaintedLabel
    {
        QString text;
        QRectF rect;
    };
    const std::vector<PaintedLabel>& paintedLabels() const { return m_painted; }

protected:
    void paintEvent(QPaintEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    // The frequency at an x of the view's axis.
    double frequencyAt(double x) const;

    SpectrumView* m_view;
    bool m_period = false;
    double m_scale = 1.0;
    std::vector<Level> m_levels;
    std::vector<Line> m_lines;
    QStringList m_paintedLevels;
    std::vector<PaintedLabel> m_painted;
};

} // namespace warpscope::ui
