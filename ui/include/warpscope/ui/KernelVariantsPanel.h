#pragma once

#include "warpscope/gpu/DevicePool.h"
#include "warpscope/gpu/KernelVariants.h"

#include <QFutureWatcher>
#include <QWidget>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>

class QCustomPlot;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace warpscope::ui {

// The Kernel workspace's Variants tab: the kernel compiled under several option sets
// (gpu::kernelVariants), each timed and compared with the default's output on a worker thread
// with a context of its own, in a table beside a bar chart of the times; Cancel stops it
// between runs, and the table exports as CSV.
class KernelVariantsPanel : public QWidget
{
    Q_OBJECT

public:
    // request gives the kernel as it is now (source, user's options, mesh, values, launch),
    // or an empty value with why not in the text.
    using RequestSource = std::function<std::optional<gpu::KernelVariantsRequest>(QString&)>;

    KernelVariantsPanel(std::shared_ptr<gpu::DevicePool> devices, RequestSource request,
                        QWidget* parent = nullptr);
    ~KernelVariantsPanel() override;

    void start();
    bool running() const { return m_running; }
    const std::vector<gpu::KernelVariantRow>& rows() const { return m_rows; }
    QString resultText() const;
    // Writes the table as CSV; an empty string or why it failed.
    QString exportCsv(const QString& path) const;
    // A compared row's difference from the default's output, as its cell shows it: the largest
    // |diff| over nodes finite in both, and where any node differs, how many, and how many of
    // those are not finite in one of them ("differs at 12 nodes, of which 12 not finite in one
    // variant"), never a NaN.
    static QString differenceText(const gpu::KernelVariantRow& row);

signals:
    void finished(bool completed);

private:
    struct Outcome
    {
        gpu::Status status;
        std::string device;
        std::vector<gpu::KernelVariantRow> rows;
    };
    void onFinished();
    // The rows that differ where a difference is expected, with why, a line each.
    QString expectedText() const;
    void showRows();
    // The row's memory columns: figures of its recorded run, or dashes saying why not.
    void showMemory(int row, const gpu::KernelVariantRow& r);

    std::shared_ptr<gpu::DevicePool> m_devices;
    RequestSource m_request;
    std::unique_ptr<gpu::Context> m_context; // opened and used by the worker only
    QFutureWatcher<Outcome> m_job;
    bool m_running = false;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    std::shared_ptr<std::atomic<int>> m_done;
    std::vector<gpu::KernelVariantRow> m_rows;
    QTableWidget* m_table;
    QCustomPlot* m_plot;
    QProgressBar* m_progress;
    QPushButton* m_run;
    QPushButton* m_cancelButton;
    QPushButton* m_export;
    QLabel* m_result;
};

} // namespace warpscope::ui
