#pragma once

#include "warpscope/gpu/Periodogram.h"

#include <QStringList>
#include <optional>
#include <qcustomplot.h>
#include <utility>
#include <vector>

namespace warpscope::ui {

// A model folded with the data: offset + sum_k (a_k cos(2 pi k phase) + b_k sin(2 pi k phase)),
// k = 1.., with phase = frac((t - epoch) frequency).
struct FoldModel
{
    double epoch = 0.0; // the time of phase 0
    double offset = 0.0;
    std::vector<std::pair<double, double>> harmonics; // (a_k, b_k)
    // A transit instead of harmonics: offset - depth within halfWidth (of a cycle) of centre.
    struct Box
    {
        double depth = 0.0;
        double centre = 0.5;
        double halfWidth = 0.0;
    };
    std::optional<Box> box;
    QStringList parameters; // shown above the plot: period, amplitude, ...

    double at(double phase) const;
};

// A time series folded at one frequency over two cycles (phase 0 to 2, each point drawn twice,
// so a feature at phase 0 is seen whole): the points with their error bars, the weighted mean
// of each phase bin, and a model as a smooth line, with its parameters in a line above the plot
// where they cover no data. Points that are not finite are left out, and the parameters line
// says how many.
class FoldView : public QCustomPlot
{
    Q_OBJECT

public:
    explicit FoldView(QWidget* parent = nullptr);

    // periodText names the period on the phase axis; yLabel the values.
    void setFold(const gpu::TimeSeries& series, double frequency, const FoldModel& model,
                 const QString& periodText, const QString& yLabel);
    // Empties the plot and says why in its place.
    void clearFold(const QString& why);
    // Bins of the mean curve over one cycle (at least 1; 20 unless set).
    void setBins(int bins);
    int bins() const { return m_bins; }

    // The graphs, for what reads the plot back: points (2N), bin means, model.
    QCPGraph* pointsGraph() const { return graph(0); }
    QCPGraph* binnedGraph() const { return graph(1); }
    QCPGraph* modelGraph() const { return graph(2); }
    // The lines above the plot: the model's parameters and notes, or why it is empty.
    QString caption() const;
    // Points of the last setFold left out for a value that is not finite (or dy not positive).
    std::size_t skippedPoints() const { return m_skipped; }

    // The phase of time t, in [0, 1): frac((t - epoch) frequency), the difference taken first so
    // that times near JD 2.46e6 keep their sub-second resolution.
    static double phaseOf(double t, double epoch, double frequency);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void redraw();
    void fitTicks();
    void showCaption();

    QCPTextElement* m_caption;
    QCPErrorBars* m_errors;
    int m_bins = 20;
    QStringList m_lines; // the caption's lines before wrapping to the width
    std::size_t m_skipped = 0;
    // What setFold was given, kept so that setBins redraws.
    gpu::TimeSeries m_series;
    double m_frequency = 0.0;
    FoldModel m_model;
    QString m_periodText, m_yLabel;
    bool m_empty = true;
};

} // namespace warpscope::ui
