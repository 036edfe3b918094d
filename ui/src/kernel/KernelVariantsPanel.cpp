#include "warpscope/ui/KernelVariantsPanel.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QSplitter>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <qcustomplot.h>

namespace warpscope::ui {
namespace {

enum Column
{
    Variant,
    Time,
    Registers,
    Spills,
    Occupancy,
    Sectors,
    Conflicts,
    Lanes,
    MaxDiff,
    Columns
};

// A cell that is not known: a dash, with the reason as its tooltip.
QTableWidgetItem* unknown(const std::string& why)
{
    auto* item = new QTableWidgetItem(QString::fromUtf8("—"));
    item->setToolTip(QString::fromStdString(why));
    item->setTextAlignment(Qt::AlignCenter);
    return item;
}

QTableWidgetItem* figure(const QString& text, const std::string& note = {})
{
    auto* item = new QTableWidgetItem(text);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    if (!note.empty())
        item->setToolTip(QString::fromStdString(note));
    return item;
}

} // namespace

QString KernelVariantsPanel::differenceText(const gpu::KernelVariantRow& row)
{
    const QString largest = QString::number(row.maxAbsDiff, 'g', 3);
    if (row.differingNodes == 0)
        return largest;
    const QString where = tr("differs at %1 nodes").arg(row.differingNodes);
    if (row.nonFiniteDiffering == 0)
        return largest + "; " + where;
    const QString nonFinite =
        where + tr(", of which %1 not finite in one variant").arg(row.nonFiniteDiffering);
    // Without a finite pair that differs, a largest |diff| of 0 would read as "the same".
    return row.differingNodes == row.nonFiniteDiffering ? nonFinite : largest + "; " + nonFinite;
}

KernelVariantsPanel::KernelVariantsPanel(std::shared_ptr<gpu::DevicePool> devices,
                                         RequestSource request, QWidget* parent)
    : QWidget(parent), m_devices(std::move(devices)), m_request(std::move(request)),
      m_table(new QTableWidget(0, Columns, this)), m_plot(new QCustomPlot(this)),
      m_progress(new QProgressBar(this)), m_run(new QPushButton(tr("Measure variants"), this)),
      m_cancelButton(new QPushButton(tr("Cancel"), this)),
      m_export(new QPushButton(tr("Export CSV…"), this)), m_result(new QLabel(this))
{
    setObjectName("kernelVariants");
    m_table->setObjectName("variantsTable");
    m_run->setObjectName("variantsRun");
    m_cancelButton->setObjectName("variantsCancel");
    m_export->setObjectName("variantsExport");
    m_progress->setObjectName("variantsProgress");
    m_table->setHorizontalHeaderLabels(
        {tr("Variant"), tr("Time (ms)"), tr("Registers"), tr("Spills (st/ld B)"), tr("Occupancy"),
         tr("Sectors/request"), tr("Conflict ways"), tr("Active lanes"), tr("Max |diff|")});
    m_table->horizontalHeaderItem(Sectors)->setToolTip(
        tr("Global memory: 32-byte sectors per request, and the fewest the bytes need\n"
           "(one run recorded by the simulator; Memory tab: Record memory accesses)"));
    m_table->horizontalHeaderItem(Conflicts)->setToolTip(
        tr("Shared memory: wavefronts over the fewest needed (1: no bank conflicts)"));
    m_table->horizontalHeaderItem(Lanes)->setToolTip(
        tr("Active lanes of a warp per branch block (32: no divergence)"));
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_result->setWordWrap(true);
    m_result->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_cancelButton->setEnabled(false);
    m_export->setEnabled(false);
    m_plot->yAxis->setLabel(tr("median time (ms)"));
    m_progress->setTextVisible(false);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_run);
    buttons->addWidget(m_progress, 1);
    buttons->addWidget(m_cancelButton);
    buttons->addWidget(m_export);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_table);
    split->addWidget(m_plot);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(buttons);
    layout->addWidget(split, 1);
    layout->addWidget(m_result);

    connect(m_run, &QPushButton::clicked, this, &KernelVariantsPanel::start);
    connect(m_cancelButton, &QPushButton::clicked, this, [this] {
        if (m_cancel)
            *m_cancel = true;
    });
    connect(m_export, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export variants"),
                                                          "kernel-variants.csv", tr("CSV (*.csv)"));
        if (path.isEmpty())
            return;
        const QString error = exportCsv(path);
        m_result->setText(error.isEmpty() ? tr("Saved %1").arg(path) : error);
    });
    connect(&m_job, &QFutureWatcher<Outcome>::finished, this, &KernelVariantsPanel::onFinished);
    auto* poll = new QTimer(this);
    connect(poll, &QTimer::timeout, this, [this] {
        if (m_running)
            m_progress->setValue(m_done->load());
    });
    poll->start(100);
}

KernelVariantsPanel::~KernelVariantsPanel()
{
    if (m_cancel)
        *m_cancel = true;
    m_job.waitForFinished();
}

void KernelVariantsPanel::start()
{
    if (m_running)
        return;
    QString why;
    const std::optional<gpu::KernelVariantsRequest> request = m_request(why);
    if (!request) {
        m_result->setText(why);
        return;
    }
    m_running = true;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    m_done = std::make_shared<std::atomic<int>>(0);
    const int total = int(gpu::kernelVariants(request->source, request->options, 1).size());
    m_progress->setRange(0, total);
    m_progress->setValue(0);
    m_run->setEnabled(false);
    m_cancelButton->setEnabled(true);
    m_export->setEnabled(false);
    m_result->setText(tr("Compiling and measuring %1 variants…").arg(total));
    m_job.setFuture(
        QtConcurrent::run([this, request = *request, cancel = m_cancel, done = m_done]() mutable {
            Outcome outcome;
            // Timing only: its many runs stay off the timeline.
            outcome.status = m_devices->open("variants", m_context, /*record=*/false);
            if (!outcome.status)
                return outcome;
            outcome.device = m_context->name();
            if (m_context->isCuda()) {
                request.options.smMajor = m_context->info().ccMajor;
                request.options.smMinor = m_context->info().ccMinor;
            }
            outcome.status =
                gpu::measureKernelVariants(*m_context, request, outcome.rows, cancel.get(),
                                           [done](int finished, int) { *done = finished; });
            return outcome;
        }));
}

void KernelVariantsPanel::onFinished()
{
    const Outcome outcome = m_job.result();
    m_running = false;
    m_rows = outcome.rows;
    m_run->setEnabled(true);
    m_cancelButton->setEnabled(false);
    m_export->setEnabled(!m_rows.empty());
    showRows();
    const bool completed = outcome.status.ok();
    if (!completed)
        m_result->setText(QString::fromStdString(outcome.status.message()));
    else
        m_result->setText(tr("%1 variants on %2. A dash's tooltip says why it is unknown.")
                              .arg(m_rows.size())
                              .arg(QString::fromStdString(outcome.device)) +
                          expectedText());
    m_progress->setValue(m_progress->maximum());
    emit finished(completed);
}

QString KernelVariantsPanel::expectedText() const
{
    QString text;
    for (const gpu::KernelVariantRow& row : m_rows)
        if (row.differingNodes > 0 && !row.expected.empty())
            text +=
                tr("\n%1 differs, as expected: %2")
                    .arg(QString::fromStdString(row.name), QString::fromStdString(row.expected));
    return text;
}

QString KernelVariantsPanel::resultText() const
{
    return m_result->text();
}

void KernelVariantsPanel::showRows()
{
    m_table->setRowCount(int(m_rows.size()));
    QVector<double> ticks, times;
    QVector<QString> labels;
    for (int i = 0; i < int(m_rows.size()); ++i) {
        const gpu::KernelVariantRow& r = m_rows[std::size_t(i)];
        auto* name = new QTableWidgetItem(QString::fromStdString(r.name));
        if (!r.problem.empty())
            name->setToolTip(QString::fromStdString(r.problem));
        m_table->setItem(i, Variant, name);
        m_table->setItem(
            i, Time,
            r.timed ? figure(QString::number(r.medianMs, 'f', r.medianMs < 1 ? 4 : 2), r.timeNote)
                    : unknown(r.timeNote));
        const std::string notBuilt = r.problem.empty() ? "not compiled by NVRTC" : r.problem;
        if (r.compiled && r.usage.known) {
            m_table->setItem(i, Registers, figure(QString::number(r.usage.registers)));
            m_table->setItem(i, Spills,
                             r.usage.spillsKnown
                                 ? figure(QStringLiteral("%1 / %2")
                                              .arg(r.usage.spillStoreBytes)
                                              .arg(r.usage.spillLoadBytes))
                                 : unknown("this NVRTC gave no ptxas report; the driver's "
                                           "figures have no spills"));
        } else {
            m_table->setItem(i, Registers, unknown(notBuilt));
            m_table->setItem(i, Spills, unknown(notBuilt));
        }
        m_table->setItem(i, Occupancy,
                         r.occupancyKnown ? figure(QStringLiteral("%1 %").arg(
                                                       r.occupancy.fraction * 100.0, 0, 'f', 0),
                                                   "limited by " + r.occupancy.limitedBy)
                                          : unknown(notBuilt));
        showMemory(i, r);
        m_table->setItem(i, MaxDiff,
                         r.compared ? figure(differenceText(r), r.diffNote) : unknown(r.diffNote));
        if (r.timed) {
            ticks << double(ticks.size() + 1);
            times << r.medianMs;
            labels << QString::fromStdString(r.name);
        }
    }
    m_plot->clearPlottables();
    auto* bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    bars->setData(ticks, times);
    bars->setBrush(QColor(70, 130, 180));
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    ticker->addTicks(ticks, labels);
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setTickLabelRotation(20);
    m_plot->xAxis->setRange(0.4, double(ticks.size()) + 0.6);
    m_plot->yAxis->rescale();
    m_plot->yAxis->setRangeLower(0.0);
    if (m_plot->yAxis->range().upper <= 0.0)
        m_plot->yAxis->setRangeUpper(1.0);
    m_plot->replot();
}

void KernelVariantsPanel::showMemory(int i, const gpu::KernelVariantRow& r)
{
    const std::string why = r.memoryNote.empty() ? r.timeNote : r.memoryNote;
    const auto cell = [&](const std::optional<double>& value, const QString& text,
                          const char* none) {
        if (!r.memoryKnown)
            return unknown(why);
        return value ? figure(text, r.memoryNote) : unknown(none);
    };
    const gpu::MemorySummary& m = r.memory;
    m_table->setItem(i, Sectors,
                     cell(m.sectorsPerRequest,
                          m.sectorsPerRequest && m.idealSectorsPerRequest
                              ? tr("%1 (ideal %2)")
                                    .arg(*m.sectorsPerRequest, 0, 'g', 3)
                                    .arg(*m.idealSectorsPerRequest, 0, 'g', 3)
                              : QString(),
                          "no global memory access"));
    m_table->setItem(i, Conflicts,
                     cell(m.conflictWays,
                          m.conflictWays ? QString::number(*m.conflictWays, 'g', 3) : QString(),
                          "no shared memory access"));
    m_table->setItem(i, Lanes,
                     cell(m.activeLanes,
                          m.activeLanes ? QString::number(*m.activeLanes, 'g', 3) : QString(),
                          "no branch recorded"));
}

QString KernelVariantsPanel::exportCsv(const QString& path) const
{
    if (m_rows.empty())
        return tr("No variants measured yet");
    QSaveFile file(path);
    const QByteArray csv = QByteArray::fromStdString(gpu::kernelVariantsCsv(m_rows));
    if (!file.open(QIODevice::WriteOnly) || file.write(csv) != csv.size() || !file.commit())
        return tr("Could not save %1: %2").arg(path, file.errorString());
    return {};
}

} // namespace warpscope::ui
