#include "MemcheckRerun.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QtConcurrent/QtConcurrentRun>

namespace warpscope::ui {

MemcheckRerun::MemcheckRerun(JobSource source, QWidget* parent)
    : QWidget(parent), m_source(std::move(source)),
      m_available(!gpu::computeSanitizerPath().empty()),
      m_button(new QPushButton(tr("Run again under memcheck"), this)), m_note(new QLabel(this))
{
    setObjectName("memcheckRerun");
    m_button->setObjectName("memcheckRun");
    m_button->setToolTip(tr("Runs this kernel once more under compute-sanitizer's memcheck, "
                            "which names the line, block and thread of the fault (it runs "
                            "many times slower)"));
    m_note->setWordWrap(true);
    m_note->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_button);
    layout->addWidget(m_note, 1);
    m_button->setVisible(m_available);
    connect(m_button, &QPushButton::clicked, this, &MemcheckRerun::start);
    connect(&m_job, &QFutureWatcher<std::shared_ptr<Result>>::finished, this,
            &MemcheckRerun::finished);
    hide();
}

MemcheckRerun::~MemcheckRerun()
{
    m_job.waitForFinished();
}

void MemcheckRerun::offer(bool gpuFault)
{
    if (busy())
        return;
    setVisible(gpuFault);
    m_button->setEnabled(true);
    m_note->setText(m_available ? QString()
                                : tr("compute-sanitizer, from the CUDA toolkit, would name the "
                                     "line, block and thread of this fault"));
}

void MemcheckRerun::start()
{
    gpu::MemcheckJob job;
    if (const gpu::Status s = m_source(job); !s) {
        emit failed(QString::fromStdString(s.message()));
        return;
    }
    m_button->setEnabled(false);
    m_note->setText(tr("Running under memcheck… (up to %1 s)")
                        .arg(gpu::memcheckTimeoutMs(job.args.timeoutMs) / 1000.0, 0, 'f', 0));
    m_job.setFuture(QtConcurrent::run([job = std::move(job)] {
        auto result = std::make_shared<Result>();
        result->status = gpu::runUnderMemcheck(job, result->report, result->printed);
        return result;
    }));
}

void MemcheckRerun::finished()
{
    const std::shared_ptr<Result> result = m_job.result();
    m_button->setEnabled(true);
    m_note->clear();
    if (!result->status) {
        emit failed(QString::fromStdString(result->status.message()));
        return;
    }
    emit reported(result->report, QString::fromStdString(result->printed));
}

} // namespace warpscope::ui
