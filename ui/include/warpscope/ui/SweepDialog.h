#pragma once

#include "warpscope/gpu/DevicePool.h"
#include "warpscope/gpu/LaunchLesson.h"

#include <QDialog>
#include <QFutureWatcher>
#include <atomic>
#include <memory>
#include <vector>

class QCustomPlot;
class QLabel;
class QProgressBar;
class QPushButton;

namespace warpscope::ui {

// Measures the teaching kernel at every block size from 32 to 1024 threads (a warp apart) on
// the current mesh, and plots the median time beside the theoretical occupancy. Runs on a
// worker thread with a context of its own; Cancel stops it between block sizes.
class SweepDialog : public QDialog
{
    Q_OBJECT

public:
    SweepDialog(const gpu::DistanceParams& params, std::shared_ptr<gpu::DevicePool> devices,
                QWidget* parent = nullptr);
    ~SweepDialog() override;

    void start();
    bool running() const { return m_running; }
    struct Point
    {
        long long threads = 0;
        double medianMs = 0.0;
        double occupancy = 0.0;
    };
    const std::vector<Point>& points() const { return m_points; }
    QString resultText() const;
    QCustomPlot* plot() const { return m_plot; }

signals:
    void finished(bool completed);

private:
    struct Outcome
    {
        gpu::Status status;
        std::string device;
        bool cuda = false;
    };
    void onFinished();
    void showPoints();
    QString summary(const Outcome& outcome) const;
    // The smallest block of the highest occupancy.
    const Point& mostOccupied() const;

    gpu::DistanceParams m_params;
    std::shared_ptr<gpu::DevicePool> m_devices;
    std::unique_ptr<gpu::Context> m_context; // opened and used by the worker only
    QFutureWatcher<Outcome> m_job;
    bool m_running = false;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    std::shared_ptr<std::atomic<int>> m_done;
    std::vector<Point> m_points;
    std::shared_ptr<std::vector<Point>> m_incoming; // written by the worker, read when done
    QCustomPlot* m_plot;
    QProgressBar* m_progress;
    QPushButton* m_cancelButton;
    QLabel* m_result;
};

} // namespace warpscope::ui
