#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>
#include <optional>
#include <vector>

namespace warpscope::ui {

class SpectrumView;

// Marks drawn over the periodogram's plot, in its coordinates: horizontal lines at powers
// (the false-alarm levels) and vertical lines at frequencies (the aliases of the selected
// peak, the Nyquist frequency of regular sampling), each labelled. SpectrumView draws its
// line with GL and paints its own axes and peaks; this transparent child paints on top and
// follows its zoom and pan, and lets every mouse event through to it.
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
    // The lines, and the selected peak whose marker and number their labels keep clear of.
    struct Peak
    {
        double frequency = 0.0;
        double power = 0.0;
    };
    void setLines(std::vector<Line> lines, std::optional<Peak> peak = std::nullopt);
    const std::vector<Level>& levels() const { return m_levels; }
    const std::vector<Line>& lines() const { return m_lines; }
    // The false-alarm levels' labels as last painted, those of close lines joined.
    const QStringList& paintedLevelLabels() const { return m_paintedLevels; }

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
    std::optional<Peak> m_peak;
    QStringList m_paintedLevels;
};

} // namespace warpscope::ui
