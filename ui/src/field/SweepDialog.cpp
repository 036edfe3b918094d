#include "warpscope/ui/SweepDialog.h"

#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace warpscope::ui {
namespace {

constexpr long long kWarp = 32;
constexpr long long kLargest = 1024;
constexpr int kSteps = int(kLargest / kWarp);
constexpr int kRepetitions = 20;

} // namespace

SweepDialog::SweepDialog(const gpu::DistanceParams& params,
                         std::shared_ptr<gpu::DevicePool> devices, QWidget* parent)
    : QDialog(parent), m_params(params), m_devices(std::move(devices)),
      m_plot(new QCustomPlot(this)), m_progress(new QProgressBar(this)),
      m_cancelButton(new QPushButton(tr("Cancel"), this)), m_result(new QLabel(this))
{
    setWindowTitle(tr("Block-size sweep of the teaching kernel"));
    resize(900, 600);
    m_plot->setObjectName("sweepPlot");
    m_plot->addGraph();
    m_plot->graph(0)->setName(tr("median time"));
    m_plot->graph(0)->setPen(QPen(QColor(0x25, 0x63, 0xeb), 2));
    m_plot->graph(0)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
    m_plot->addGraph(m_plot->xAxis, m_plot->yAxis2);
    m_plot->graph(1)->setName(tr("theoretical occupancy"));
    m_plot->graph(1)->setPen(QPen(QColor(0xf5, 0x9e, 0x0b), 2, Qt::DashLine));
    m_plot->graph(1)->setLineStyle(QCPGraph::lsStepCenter);
    m_plot->xAxis->setLabel(tr("threads per block (block x, 1, 1; grid fitted to the mesh)"));
    m_plot->yAxis->setLabel(tr("median kernel time (ms)"));
    m_plot->yAxis2->setLabel(tr("theoretical occupancy (%)"));
    m_plot->yAxis2->setVisible(true);
    m_plot->yAxis2->setRange(0, 105);
    m_plot->xAxis->setRange(0, kLargest + kWarp);
    m_plot->legend->setVisible(true);
    m_progress->setRange(0, kSteps);
    m_progress->setObjectName("sweepProgress");
    m_cancelButton->setObjectName("sweepCancel");
    m_result->setObjectName("sweepResult");
    m_result->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_progress);
    layout->addWidget(m_result);
    layout->addWidget(m_cancelButton, 0, Qt::AlignRight);
    connect(m_cancelButton, &QPushButton::clicked, this, [this] {
        if (m_running)
            *m_cancel = true;
        else
            close();
    });
    connect(&m_job, &QFutureWatcher<Outcome>::finished, this, &SweepDialog::onFinished);
    auto* poll = new QTimer(this);
    connect(poll, &QTimer::timeout, this, [this] {
        if (m_running)
            m_progress->setValue(m_done->load());
    });
    poll->start(100);
}

SweepDialog::~SweepDialog()
{
    if (m_cancel)
        *m_cancel = true;
    m_job.waitForFinished();
}

void SweepDialog::start()
{
    if (m_running)
        return;
    m_running = true;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    m_done = std::make_shared<std::atomic<int>>(0);
    m_incoming = std::make_shared<std::vector<Point>>();
    m_cancelButton->setText(tr("Cancel"));
    m_result->setText(
        tr("Measuring %1 block sizes, %2 launches each…").arg(kSteps).arg(kRepetitions));
    m_job.setFuture(QtConcurrent::run(
        [this, params = m_params, cancel = m_cancel, done = m_done, incoming = m_incoming] {
            Outcome outcome;
            // Timing only: its launches stay off the timeline.
            outcome.status = m_devices->open("sweep", m_context, /*record=*/false);
            if (!outcome.status)
                return outcome;
            outcome.device = m_context->name();
            outcome.cuda = m_context->isCuda();
            for (long long threads = kWarp; threads <= kLargest && !*cancel; threads += kWarp) {
                gpu::LessonLaunch lesson;
                lesson.launch.block = {threads, 1, 1};
                lesson.launch.grid = {(params.nx + threads - 1) / threads, params.ny, 1};
                double ms = 0.0;
                outcome.status = gpu::timeLesson(*m_context, params, lesson, kRepetitions, ms);
                if (!outcome.status)
                    return outcome;
                const auto occupancy = gpu::lessonOccupancy(*m_context, params.precision, threads);
                incoming->push_back({threads, ms, occupancy.theoretical.fraction});
                ++*done;
            }
            return outcome;
        }));
}

void SweepDialog::onFinished()
{
    const Outcome outcome = m_job.result();
    m_running = false;
    m_points = *m_incoming;
    m_cancelButton->setText(tr("Close"));
    showPoints();
    const bool completed = outcome.status.ok() && int(m_points.size()) == kSteps;
    if (!outcome.status) {
        m_result->setText(QString::fromStdString(outcome.status.message()));
    } else if (!completed) {
        m_result->setText(tr("Cancelled after %n block size(s).", nullptr, int(m_points.size())));
    } else {
        m_result->setText(summary(outcome));
    }
    m_progress->setValue(int(m_points.size()));
    emit finished(completed);
}

QString SweepDialog::summary(const Outcome& outcome) const
{
    const QString where = tr("on %1, %2 x %3 mesh")
                              .arg(QString::fromStdString(outcome.device))
                              .arg(m_params.nx)
                              .arg(m_params.ny);
    // The CPU's threads share cores and caches, not SMs: its fastest block size is noise as far
    // as a GPU is concerned, so naming one would teach the wrong lesson.
    if (!outcome.cuda) {
        const Point& peak = mostOccupied();
        return tr("Measured %1. CPU timings do not predict a GPU's: the time curve shows the "
                  "CPU backend, not a GPU; the occupancy curve is the simulated GPU's model, "
                  "highest (%2%) from %3 threads per block.")
            .arg(where)
            .arg(std::lround(peak.occupancy * 100.0))
            .arg(peak.threads);
    }
    const auto best =
        std::min_element(m_points.begin(), m_points.end(),
                         [](const Point& a, const Point& b) { return a.medianMs < b.medianMs; });
    return tr("Fastest at %1 threads per block: %2 ms (median of %3 launches) %4")
        .arg(best->threads)
        .arg(best->medianMs, 0, 'f', 4)
        .arg(kRepetitions)
        .arg(where);
}

const SweepDialog::Point& SweepDialog::mostOccupied() const
{
    // The first of equals: the smallest block that reaches the highest occupancy.
    const auto best =
        std::max_element(m_points.begin(), m_points.end(),
                         [](const Point& a, const Point& b) { return a.occupancy < b.occupancy; });
    return *best;
}

void SweepDialog::showPoints()
{
    QVector<double> x, time, occupancy;
    for (const Point& p : m_points) {
        x << double(p.threads);
        time << p.medianMs;
        occupancy << 100.0 * p.occupancy;
    }
    m_plot->graph(0)->setData(x, time);
    m_plot->graph(1)->setData(x, occupancy);
    m_plot->graph(0)->rescaleValueAxis();
    m_plot->yAxis->setRangeLower(0.0);
    m_plot->replot();
}

QString SweepDialog::resultText() const
{
    return m_result->text();
}

} // namespace warpscope::ui
