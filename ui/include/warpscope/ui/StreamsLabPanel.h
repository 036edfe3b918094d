#pragma once

#include "warpscope/gpu/DevicePool.h"
#include "warpscope/gpu/StreamsLab.h"

#include <QFutureWatcher>
#include <QWidget>
#include <memory>
#include <optional>

class QCheckBox;
class QCustomPlot;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSettings;
class QSpinBox;

namespace warpscope::ui {

// The classic streams lesson, live: normalise K arrays with one stream or K streams, from
// pinned or pageable memory, and watch the copies and kernels overlap in the timeline. Runs
// on a worker thread with a context of its own, on the device the pool chose, so the window
// keeps answering.
class StreamsLabPanel : public QWidget
{
    Q_OBJECT

public:
    explicit StreamsLabPanel(std::shared_ptr<gpu::DevicePool> devices, QWidget* parent = nullptr);
    ~StreamsLabPanel() override;

    // The configuration in the fields, or std::nullopt (with the fields marked) when invalid.
    std::optional<gpu::StreamsLabConfig> config();
    void setConfig(const gpu::StreamsLabConfig& config);
    // Runs the lab once with the fields' configuration; compare runs 1 stream, then K.
    void run(bool compare = false);
    // The lesson's chart: the fields' data (K x L values) split into k arrays on k streams,
    // k = 1..kSweepStreams, the median of three runs each, against the floor the copies allow.
    void sweep();
    static constexpr int kSweepStreams = 16;
    QCustomPlot* sweepChart() const { return m_chart; }
    bool running() const;
    QString resultText() const;
    // When the last run's job ran, on the timeline's clock, in microseconds.
    std::pair<double, double> lastRunUs() const { return m_lastRunUs; }
    QLineEdit* lengthField() const { return m_length; }
    QSpinBox* arraysField() const { return m_arrays; }
    void saveSettings(QSettings& settings);
    void restoreSettings(const QSettings& settings);

signals:
    // A run ended: whether it ran and its outputs passed the check, and what to tell.
    void finished(bool ok, const QString& summary);
    // Problems recording spans, for the timeline panel.
    void timelineProblem(const QString& text);

private:
    struct Outcome
    {
        gpu::Status status;
        std::vector<gpu::StreamsLabResult> results;
        std::string device;
        bool cpu = false;
        gpu::Status timeline;
        double startUs = 0.0, endUs = 0.0;
    };
    struct SweepOutcome
    {
        gpu::Status status;
        std::vector<double> medianMs; // per k, from 1
        std::vector<double> floorMs;  // per k; empty when no copy spans were recorded
        bool passed = true;
        std::string device;
        gpu::Status timeline;
    };
    void onFinished();
    void onSweepFinished();
    // The lab's context on the worker thread, opened again when the pool's device changed.
    gpu::Status openContext();
    void showError(const QString& text);

    std::shared_ptr<gpu::DevicePool> m_devices;
    // Opened by the first run, on the worker thread, and used only there.
    std::unique_ptr<gpu::Context> m_context;
    std::uint64_t m_contextGeneration = 0; // the pool's generation it was opened in
    QFutureWatcher<Outcome> m_job;
    QFutureWatcher<SweepOutcome> m_sweepJob;
    std::vector<gpu::StreamsLabConfig> m_submitted;
    std::pair<double, double> m_lastRunUs{0.0, 0.0};

    QSpinBox* m_arrays;
    QLineEdit* m_length;
    QComboBox* m_streams;
    QComboBox* m_memory;
    QCheckBox* m_ordered;
    QPushButton* m_run;
    QPushButton* m_compare;
    QPushButton* m_sweep;
    QProgressBar* m_busy;
    QLabel* m_result;
    QCustomPlot* m_chart;
};

} // namespace warpscope::ui
