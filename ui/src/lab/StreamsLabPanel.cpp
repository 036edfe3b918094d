#include "warpscope/ui/StreamsLabPanel.h"

#include "common/Style.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace warpscope::ui {

StreamsLabPanel::StreamsLabPanel(std::shared_ptr<gpu::DevicePool> devices, QWidget* parent)
    : QWidget(parent), m_devices(std::move(devices)), m_arrays(new QSpinBox(this)),
      m_length(new QLineEdit(this)), m_streams(new QComboBox(this)), m_memory(new QComboBox(this)),
      m_ordered(new QCheckBox(tr("Copies in order"), this)),
      m_run(new QPushButton(tr("&Run"), this)), m_compare(new QPushButton(tr("Run 1 vs &K"), this)),
      m_sweep(new QPushButton(tr("&Sweep 1..%1").arg(kSweepStreams), this)),
      m_busy(new QProgressBar(this)), m_result(new QLabel(this)), m_chart(new QCustomPlot(this))
{
    m_arrays->setObjectName("labArrays");
    m_arrays->setRange(1, gpu::kStreamsLabMaxArrays);
    m_arrays->setToolTip(tr("K: how many arrays to normalise"));
    m_length->setObjectName("labLength");
    m_length->setToolTip(tr("L: float32 values per array, for example 10000000 or 1e7 (at most "
                            "%1)")
                             .arg(gpu::kStreamsLabMaxLength));
    m_streams->setObjectName("labStreams");
    m_streams->addItem(tr("1 stream"));
    m_streams->addItem(tr("K streams"));
    m_streams->setToolTip(tr("With K streams, each array's copies and kernels go on a stream of "
                             "its own,\nso one array's copy overlaps another's work"));
    m_memory->setObjectName("labMemory");
    m_memory->addItem(tr("Pinned"));
    m_memory->addItem(tr("Pageable"));
    m_memory->setToolTip(tr("Copies from pageable memory go through a staging buffer and "
                            "block the host,\nso they cannot overlap"));
    m_ordered->setObjectName("labOrdered");
    m_ordered->setToolTip(tr("With K streams: one stream for the copies in, one for the\n"
                             "kernels and one for the copies out, each in array order, so each\n"
                             "direction's copies run back to back. Without it each array has a\n"
                             "stream of its own and the copy engines interleave the copies."));
    connect(m_streams, &QComboBox::currentIndexChanged, this,
            [this](int index) { m_ordered->setEnabled(index == 1); });
    m_run->setObjectName("labRun");
    m_run->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    m_run->setToolTip(tr("Normalise the arrays once (Ctrl+Enter)"));
    m_compare->setObjectName("labCompare");
    m_compare->setToolTip(tr("Run with 1 stream, then with K streams, and compare"));
    m_sweep->setObjectName("labSweep");
    m_sweep->setToolTip(tr("Split the same K x L values into 1, 2, ... %1 arrays on as many "
                           "streams,\nand chart the job's time against the floor the copies "
                           "allow")
                            .arg(kSweepStreams));
    m_chart->setObjectName("labSweepChart");
    m_chart->addGraph();
    m_chart->graph(0)->setName(tr("job time (median of 3)"));
    m_chart->graph(0)->setPen(QPen(QColor(0x25, 0x63, 0xeb), 2));
    m_chart->graph(0)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
    m_chart->addGraph();
    m_chart->graph(1)->setName(tr("floor: every copy in, then 1/k of the data back"));
    m_chart->graph(1)->setPen(QPen(QColor(0xf5, 0x9e, 0x0b), 2, Qt::DashLine));
    m_chart->xAxis->setLabel(tr("streams (k), the same data in k arrays"));
    m_chart->yAxis->setLabel(tr("ms"));
    m_chart->xAxis->setRange(0.5, kSweepStreams + 0.5);
    QSharedPointer<QCPAxisTickerFixed> wholeStreams(new QCPAxisTickerFixed);
    wholeStreams->setTickStep(1.0);
    wholeStreams->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    m_chart->xAxis->setTicker(wholeStreams);
    // The legend goes under the chart: inside, it would hide points of a narrow panel.
    m_chart->legend->setVisible(true);
    m_chart->axisRect()->insetLayout()->take(m_chart->legend);
    m_chart->plotLayout()->addElement(1, 0, m_chart->legend);
    m_chart->plotLayout()->setRowStretchFactor(1, 0.001);
    m_chart->setMinimumHeight(280);
    m_chart->setVisible(false); // until the first sweep
    m_busy->setRange(0, 0);
    m_busy->setVisible(false);
    m_result->setObjectName("labResult");
    m_result->setWordWrap(true);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* intro = new QLabel(tr("Normalise K arrays of L float32 values so each sums to 1: copy "
                                "in, partial sums, final sum, divide, copy out."),
                             this);
    intro->setWordWrap(true);
    auto* form = new QFormLayout;
    form->addRow(tr("Arrays (K)"), m_arrays);
    form->addRow(tr("Length (L)"), m_length);
    form->addRow(tr("Streams"), m_streams);
    form->addRow(tr("Host memory"), m_memory);
    form->addRow(QString(), m_ordered);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_run);
    buttons->addWidget(m_compare);
    buttons->addWidget(m_sweep);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addLayout(buttons);
    layout->addWidget(m_busy);
    layout->addWidget(m_result);
    layout->addWidget(m_chart, 1);
    layout->addStretch(0);

    setConfig(gpu::StreamsLabConfig{});
    connect(m_run, &QPushButton::clicked, this, [this] { run(false); });
    connect(m_compare, &QPushButton::clicked, this, [this] { run(true); });
    connect(m_length, &QLineEdit::editingFinished, this, [this] { config(); });
    connect(m_sweep, &QPushButton::clicked, this, &StreamsLabPanel::sweep);
    connect(&m_job, &QFutureWatcher<Outcome>::finished, this, &StreamsLabPanel::onFinished);
    connect(&m_sweepJob, &QFutureWatcher<SweepOutcome>::finished, this,
            &StreamsLabPanel::onSweepFinished);
}

StreamsLabPanel::~StreamsLabPanel()
{
    m_job.waitForFinished();
    m_sweepJob.waitForFinished();
}

void StreamsLabPanel::setConfig(const gpu::StreamsLabConfig& config)
{
    m_arrays->setValue(config.arrays);
    m_length->setText(QString::number(config.length));
    m_streams->setCurrentIndex(config.multiStream ? 1 : 0);
    m_memory->setCurrentIndex(config.pinned ? 0 : 1);
    m_ordered->setChecked(config.orderCopies);
    m_ordered->setEnabled(config.multiStream);
    this->config();
}

std::optional<gpu::StreamsLabConfig> StreamsLabPanel::config()
{
    gpu::StreamsLabConfig c;
    c.arrays = m_arrays->value();
    c.multiStream = m_streams->currentIndex() == 1;
    c.pinned = m_memory->currentIndex() == 0;
    c.orderCopies = m_ordered->isChecked();
    bool ok = false;
    const double length = m_length->text().trimmed().toDouble(&ok);
    QString problem;
    if (!ok || !std::isfinite(length) || length != std::floor(length))
        problem = tr("The length must be a whole number of values, for example 10000000");
    else if (length < 1 || length > double(gpu::kStreamsLabMaxLength))
        problem = tr("The length must be between 1 and %1 values").arg(gpu::kStreamsLabMaxLength);
    else
        c.length = static_cast<long long>(length);
    m_length->setStyleSheet(problem.isEmpty() ? QString() : kInvalidInput);
    if (!problem.isEmpty()) {
        showError(problem);
        return std::nullopt;
    }
    return c;
}

void StreamsLabPanel::showError(const QString& text)
{
    m_result->setStyleSheet(kErrorText);
    m_result->setText(text);
}

void StreamsLabPanel::saveSettings(QSettings& s)
{
    s.setValue("lab/arrays", m_arrays->value());
    s.setValue("lab/length", m_length->text());
    s.setValue("lab/multiStream", m_streams->currentIndex() == 1);
    s.setValue("lab/pinned", m_memory->currentIndex() == 0);
    s.setValue("lab/orderCopies", m_ordered->isChecked());
}

void StreamsLabPanel::restoreSettings(const QSettings& s)
{
    gpu::StreamsLabConfig c;
    c.arrays = std::clamp(s.value("lab/arrays", c.arrays).toInt(), 1, gpu::kStreamsLabMaxArrays);
    c.multiStream = s.value("lab/multiStream", c.multiStream).toBool();
    c.pinned = s.value("lab/pinned", c.pinned).toBool();
    c.orderCopies = s.value("lab/orderCopies", c.orderCopies).toBool();
    setConfig(c);
    // The length is kept as typed; a value that is no longer valid is shown as such.
    m_length->setText(s.value("lab/length", QString::number(c.length)).toString());
    config();
}

bool StreamsLabPanel::running() const
{
    return m_job.isRunning() || m_sweepJob.isRunning();
}

gpu::Status StreamsLabPanel::openContext()
{
    // A device chosen since the last run takes over from the next one.
    if (m_context && m_contextGeneration == m_devices->generation())
        return gpu::Status::success();
    m_contextGeneration = m_devices->generation();
    m_context.reset();
    return m_devices->open("lab", m_context);
}

QString StreamsLabPanel::resultText() const
{
    return m_result->text();
}

void StreamsLabPanel::run(bool compare)
{
    if (running())
        return;
    const std::optional<gpu::StreamsLabConfig> c = config();
    if (!c) {
        emit finished(false, m_result->text());
        return;
    }
    m_arrays->setStyleSheet(QString());
    m_submitted.clear();
    if (compare) {
        gpu::StreamsLabConfig one = *c;
        one.multiStream = false;
        gpu::StreamsLabConfig many = *c;
        many.multiStream = true;
        m_submitted = {one, many};
    } else {
        m_submitted = {*c};
    }
    m_run->setEnabled(false);
    m_compare->setEnabled(false);
    m_sweep->setEnabled(false);
    m_busy->setRange(0, 0);
    m_busy->setVisible(true);
    m_result->setStyleSheet(QString());
    m_result->setText(tr("Running…"));
    m_job.setFuture(QtConcurrent::run([this, configs = m_submitted] {
        Outcome outcome;
        outcome.status = openContext();
        if (!outcome.status)
            return outcome;
        outcome.device = m_context->name();
        outcome.cpu = m_context->info().simulated; // the CPU stands in for a GPU
        for (const gpu::StreamsLabConfig& config : configs) {
            if (gpu::Timeline* timeline = m_context->timeline())
                timeline->beginFrame();
            gpu::StreamsLabResult result;
            outcome.status = gpu::runStreamsLab(*m_context, config, result);
            outcome.startUs = result.jobStartUs;
            outcome.endUs = result.jobEndUs;
            if (!outcome.status)
                break;
            outcome.results.push_back(result);
        }
        outcome.timeline = m_context->collectTimeline();
        return outcome;
    }));
}

void StreamsLabPanel::onFinished()
{
    const Outcome outcome = m_job.result();
    m_run->setEnabled(true);
    m_compare->setEnabled(true);
    m_sweep->setEnabled(true);
    m_busy->setVisible(false);
    m_lastRunUs = {outcome.startUs, outcome.endUs};
    if (!outcome.timeline)
        emit timelineProblem(QString::fromStdString(outcome.timeline.message()));
    if (!outcome.status) {
        const QString text = QString::fromStdString(outcome.status.message());
        // Memory problems come from the size the fields ask for.
        if (text.contains("memory")) {
            m_arrays->setStyleSheet(kInvalidInput);
            m_length->setStyleSheet(kInvalidInput);
        }
        showError(text);
        emit finished(false, text);
        return;
    }
    QStringList lines;
    bool passed = true;
    for (std::size_t k = 0; k < outcome.results.size(); ++k) {
        const gpu::StreamsLabResult& r = outcome.results[k];
        const gpu::StreamsLabConfig& c = m_submitted[k];
        passed = passed && r.passed();
        // On the CPU, streams are threads and no memory is pinned.
        const QString how = outcome.cpu ? tr("%n thread(s)", nullptr, r.streams)
                                        : tr("%n stream(s), %1", nullptr, r.streams)
                                              .arg(c.pinned ? tr("pinned") : tr("pageable"));
        lines << tr("%1: %2 ms").arg(how).arg(r.totalMs, 0, 'f', 3);
        lines << (r.passed() ? tr("  every array sums to 1 (worst error %1, tolerance %2)")
                                   .arg(std::max(r.worstSumError, r.worstElementError), 0, 'g', 2)
                                   .arg(gpu::kStreamsLabTolerance, 0, 'g', 2)
                             : tr("  CHECK FAILED: worst sum error %1, worst element error %2")
                                   .arg(r.worstSumError, 0, 'g', 3)
                                   .arg(r.worstElementError, 0, 'g', 3));
    }
    if (outcome.results.size() == 2 && outcome.results[1].totalMs > 0)
        lines << tr("K streams are %1x faster")
                     .arg(outcome.results[0].totalMs / outcome.results[1].totalMs, 0, 'f', 2);
    lines << tr("on %1").arg(QString::fromStdString(outcome.device));
    m_result->setStyleSheet(passed ? QString() : kErrorText);
    m_result->setText(lines.join('\n'));
    emit finished(passed, lines.join("; "));
}

void StreamsLabPanel::sweep()
{
    if (running())
        return;
    const std::optional<gpu::StreamsLabConfig> c = config();
    if (!c) {
        emit finished(false, m_result->text());
        return;
    }
    m_arrays->setStyleSheet(QString());
    m_run->setEnabled(false);
    m_compare->setEnabled(false);
    m_sweep->setEnabled(false);
    m_busy->setRange(0, kSweepStreams);
    m_busy->setValue(0);
    m_busy->setVisible(true);
    m_result->setStyleSheet(QString());
    m_result->setText(tr("Sweeping 1 to %1 streams…").arg(kSweepStreams));
    m_sweepJob.setFuture(QtConcurrent::run([this, base = *c] {
        SweepOutcome outcome;
        outcome.status = openContext();
        if (!outcome.status)
            return outcome;
        outcome.device = m_context->name();
        gpu::Timeline* timeline = m_context->timeline();
        const long long total = base.arrays * base.length;
        double copyInMs = 0.0, copyOutMs = 0.0;
        for (int k = 1; k <= kSweepStreams && outcome.status; ++k) {
            gpu::StreamsLabConfig config = base;
            config.arrays = k;
            config.length = std::max(1LL, (total + k - 1) / k);
            config.multiStream = k > 1;
            std::vector<double> times;
            for (int run = 0; run < 3 && outcome.status; ++run) {
                if (timeline)
                    timeline->beginFrame();
                gpu::StreamsLabResult result;
                outcome.status = gpu::runStreamsLab(*m_context, config, result);
                if (!outcome.status)
                    break;
                outcome.passed = outcome.passed && result.passed();
                times.push_back(result.totalMs);
                // With one stream nothing overlaps, so its copy spans are the copies' own
                // times: the floor for every k is all of them in, then a k-th of them back.
                if (k == 1 && run == 2 && timeline && result.jobEndUs > result.jobStartUs) {
                    outcome.timeline = m_context->collectTimeline();
                    for (const gpu::Span& s : timeline->snapshot().spans) {
                        if (s.startUs < result.jobStartUs || s.endUs > result.jobEndUs)
                            continue;
                        if (s.kind == gpu::SpanKind::CopyHostToDevice)
                            copyInMs += s.durationUs() / 1000.0;
                        if (s.kind == gpu::SpanKind::CopyDeviceToHost)
                            copyOutMs = std::max(copyOutMs, s.durationUs() / 1000.0);
                    }
                }
            }
            if (!outcome.status)
                break;
            std::sort(times.begin(), times.end());
            outcome.medianMs.push_back(times[times.size() / 2]);
            if (copyInMs > 0.0)
                outcome.floorMs.push_back(copyInMs + copyOutMs / k);
            QMetaObject::invokeMethod(m_busy, "setValue", Qt::QueuedConnection, Q_ARG(int, k));
        }
        if (const gpu::Status s = m_context->collectTimeline(); !s)
            outcome.timeline = s;
        return outcome;
    }));
}

void StreamsLabPanel::onSweepFinished()
{
    const SweepOutcome outcome = m_sweepJob.result();
    m_run->setEnabled(true);
    m_compare->setEnabled(true);
    m_sweep->setEnabled(true);
    m_busy->setVisible(false);
    if (!outcome.timeline)
        emit timelineProblem(QString::fromStdString(outcome.timeline.message()));
    if (!outcome.status) {
        const QString text = QString::fromStdString(outcome.status.message());
        showError(text);
        emit finished(false, text);
        return;
    }
    QVector<double> k, median, floor;
    for (std::size_t i = 0; i < outcome.medianMs.size(); ++i) {
        k << double(i + 1);
        median << outcome.medianMs[i];
        if (i < outcome.floorMs.size())
            floor << outcome.floorMs[i];
    }
    m_chart->graph(0)->setData(k, median, true);
    m_chart->graph(1)->setData(k.mid(0, floor.size()), floor, true);
    // Without copies (the CPU) or a timeline there is no floor to draw, and the legend says so.
    m_chart->graph(1)->setName(floor.isEmpty()
                                   ? tr("floor: needs a GPU and the timeline's copy spans")
                                   : tr("floor: every copy in, then 1/k of the data back"));
    const double top =
        std::max(*std::max_element(median.begin(), median.end()),
                 floor.isEmpty() ? 0.0 : *std::max_element(floor.begin(), floor.end()));
    m_chart->yAxis->setRange(0.0, top * 1.1);
    m_chart->setVisible(true);
    m_chart->replot();
    const int best = int(std::min_element(median.begin(), median.end()) - median.begin());
    QString text = tr("Streams 1 to %1: fastest with %2 (%3 ms; 1 stream %4 ms)")
                       .arg(kSweepStreams)
                       .arg(best + 1)
                       .arg(median[best], 0, 'f', 3)
                       .arg(median[0], 0, 'f', 3);
    text += outcome.passed ? tr(", every array summed to 1") : tr(", CHECK FAILED");
    text += tr(", on %1").arg(QString::fromStdString(outcome.device));
    m_result->setStyleSheet(outcome.passed ? QString() : kErrorText);
    m_result->setText(text);
    emit finished(outcome.passed, text);
}

} // namespace warpscope::ui
