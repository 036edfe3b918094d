#pragma once

#include "warpscope/gpu/KernelMemcheck.h"

#include <QFutureWatcher>
#include <QWidget>
#include <functional>
#include <memory>

class QLabel;
class QPushButton;

namespace warpscope::ui {

// "Run again under memcheck", offered after a kernel faulted on a GPU: the same kernel, with
// the same launch and values, run once under compute-sanitizer's memcheck on a worker thread,
// which names the line, the block and the thread the GPU alone does not. Where
// compute-sanitizer is not installed, it says what it would give instead.
class MemcheckRerun : public QWidget
{
    Q_OBJECT

public:
    // source makes the job on the GUI thread (the kernel view's context, build and launch).
    using JobSource = std::function<gpu::Status(gpu::MemcheckJob&)>;
    explicit MemcheckRerun(JobSource source, QWidget* parent = nullptr);
    ~MemcheckRerun() override;

    // After each run: shown when it faulted on a GPU, hidden otherwise.
    void offer(bool gpuFault);
    bool busy() const { return m_job.isRunning(); }

signals:
    // The report of a finished rerun, and what the kernel printed in it.
    void reported(const gpu::MemcheckReport& report, const QString& printed);
    void failed(const QString& why);

private:
    struct Result
    {
        gpu::Status status = gpu::Status::success();
        gpu::MemcheckReport report;
        std::string printed;
    };

    void start();
    void finished();

    JobSource m_source;
    bool m_available;
    QPushButton* m_button;
    QLabel* m_note;
    QFutureWatcher<std::shared_ptr<Result>> m_job;
};

} // namespace warpscope::ui
