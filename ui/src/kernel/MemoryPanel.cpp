// The Memory tab (MemoryPanel.h).
#include "MemoryPanel.h"

#include <QCheckBox>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace warpscope::ui {
namespace {

enum Column
{
    LineColumn,
    OpColumn,
    InstructionsColumn,
    PerInstructionColumn,
    IdealColumn,
    WhyColumn,
    ColumnCount
};

// A line is marked when it costs twice its ideal, or idles half its lanes.
constexpr double kWorthALook = 2.0;

QString perInstruction(const gpu::MemoryLineStats& line)
{
    const double n = double(std::max<std::uint64_t>(1, line.instructions));
    if (line.op == gpu::MemoryOp::Branch)
        return QObject::tr("%1 lanes").arg(double(line.lanes) / n, 0, 'g', 3);
    const QString unit =
        gpu::isGlobal(line.op) ? QObject::tr("sectors") : QObject::tr("wavefronts");
    return QStringLiteral("%1 %2").arg(double(line.units) / n, 0, 'g', 3).arg(unit);
}

QString ideal(const gpu::MemoryLineStats& line)
{
    if (line.op == gpu::MemoryOp::Branch)
        return QObject::tr("32 lanes");
    const double n = double(std::max<std::uint64_t>(1, line.instructions));
    return QObject::tr("%1  (%2x)")
        .arg(double(line.ideal) / n, 0, 'g', 3)
        .arg(gpu::memoryExcessRatio(line), 0, 'g', 3);
}

// Why some figures stop short, or nothing when none do.
QString partNote(const gpu::KernelMemoryReport& report)
{
    if (report.blocksInPart == 0)
        return {};
    return QObject::tr("%1 of %2 blocks made more accesses between two barriers than the "
                       "simulator keeps: their figures stop there. A smaller mesh records them "
                       "whole.")
        .arg(report.blocksInPart)
        .arg(report.blocks);
}

} // namespace

MemoryPanel::MemoryPanel(QWidget* parent)
    : QWidget(parent), m_record(new QCheckBox(tr("Record memory accesses and branches"), this)),
      m_summary(new QLabel(this)), m_table(new QTableWidget(0, ColumnCount, this))
{
    setObjectName("kernelMemory");
    m_record->setObjectName("recordMemory");
    m_record->setToolTip(
        tr("The CPU simulator records each lane's loads, stores and branches and counts what a\n"
           "GPU would serve: 32-byte sectors per global request, shared-memory wavefronts\n"
           "(bank conflicts) and active lanes. Runs are slower while it records."));
    m_summary->setObjectName("memorySummary");
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_table->setObjectName("memoryLines");
    m_table->setHorizontalHeaderLabels({tr("Line"), tr("Operation"), tr("Warp instr."),
                                        tr("Per instruction"), tr("Ideal"), tr("Why")});
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->horizontalHeader()->setStretchLastSection(true);
    // What the figures are, and where a GPU's own count may differ.
    m_table->setToolTip(
        tr("Counted as Nsight Compute counts them (l1tex sectors and requests, shared-memory\n"
           "wavefronts): the sectors a request asks for, hits in L1 or L2 or not. A GPU's\n"
           "compiler may merge accesses into vector loads or drop ones it can prove needless,\n"
           "which the simulator's compiler leaves as written. Active lanes are counted per\n"
           "basic block, not per GPU instruction. The field and @buffer memory start on\n"
           "256-byte boundaries as cudaMalloc's do; a __device__ array lies where the host's\n"
           "linker puts it (16-byte aligned unless it says __align__), which can cost a\n"
           "sector a request more than on a GPU."));
    m_table->setWordWrap(false);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_record);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    connect(m_record, &QCheckBox::toggled, this, &MemoryPanel::recordingChanged);
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        if (const int line = m_table->item(row, LineColumn)->data(Qt::UserRole).toInt(); line > 0)
            emit lineActivated(line);
    });
    clear({});
}

bool MemoryPanel::recording() const
{
    return m_record->isChecked();
}

void MemoryPanel::setRecording(bool on)
{
    m_record->setChecked(on);
}

void MemoryPanel::setSimulated(bool simulated)
{
    m_simulated = simulated;
    m_record->setEnabled(simulated);
    if (!simulated)
        clear({});
}

void MemoryPanel::clear(const QString& why)
{
    m_table->setRowCount(0);
    m_worst.clear();
    m_summary->show();
    if (!why.isEmpty())
        m_summary->setText(why);
    else if (!m_simulated)
        m_summary->setText(tr("Memory is recorded by the CPU simulator: choose the CPU as the "
                              "device to see it here. On a GPU, Nsight Compute counts the same "
                              "sectors and wavefronts."));
    else if (!recording())
        m_summary->setText(tr("Tick the box to see, per line, how many 32-byte sectors each "
                              "global access costs, the bank conflicts of shared memory and the "
                              "lanes each branch leaves idle."));
    else
        m_summary->setText(tr("Recording: the next run's figures appear here."));
}

void MemoryPanel::addRow(const gpu::MemoryLineStats& line, bool total)
{
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    auto* lineItem = new QTableWidgetItem(total           ? tr("all")
                                          : line.line > 0 ? QString::number(line.line)
                                                          : tr("launcher"));
    lineItem->setData(Qt::UserRole, total ? 0 : line.line);
    lineItem->setToolTip(total           ? tr("The whole launch")
                         : line.line > 0 ? tr("Double-click to go to the line")
                                         : tr("The wrapper's own code: the per-node store, "
                                              "Out::write's bounds check"));
    m_table->setItem(row, LineColumn, lineItem);
    m_table->setItem(row, OpColumn,
                     new QTableWidgetItem(QString::fromUtf8(gpu::memoryOpName(line.op))));
    m_table->setItem(row, InstructionsColumn,
                     new QTableWidgetItem(QString::number(line.instructions)));
    m_table->setItem(row, PerInstructionColumn, new QTableWidgetItem(perInstruction(line)));
    m_table->setItem(row, IdealColumn, new QTableWidgetItem(ideal(line)));
    auto* why = new QTableWidgetItem(QString::fromStdString(line.cause));
    why->setToolTip(why->text());
    m_table->setItem(row, WhyColumn, why);
    if (total) {
        QFont bold = m_table->font();
        bold.setBold(true);
        for (int c = 0; c < ColumnCount; ++c)
            if (QTableWidgetItem* item = m_table->item(row, c))
                item->setFont(bold);
    }
}

void MemoryPanel::show(const gpu::KernelMemoryReport& report)
{
    if (!report.recorded) {
        clear({});
        return;
    }
    const QString note = partNote(report);
    m_summary->setText(note);
    m_summary->setVisible(!note.isEmpty());
    m_table->setRowCount(0);
    // The launch's totals first, then each line.
    for (int op = 0; op < int(gpu::MemoryOp::Count); ++op)
        if (const gpu::MemoryLineStats total = gpu::memoryTotal(report, gpu::MemoryOp(op));
            total.instructions > 0)
            addRow(total, true);
    std::vector<std::pair<double, int>> marked;
    for (const gpu::MemoryLineStats& line : report.lines) {
        addRow(line, false);
        const double excess = gpu::memoryExcessRatio(line);
        if (line.line > 0 && excess >= kWorthALook)
            marked.emplace_back(excess, line.line);
    }
    if (m_table->rowCount() == 0) {
        m_summary->setText(tr("The launch touched no global or shared memory."));
        m_summary->show();
    }
    m_table->resizeColumnsToContents();
    std::sort(marked.rbegin(), marked.rend());
    m_worst.clear();
    for (const auto& [excess, line] : marked)
        if (std::find(m_worst.begin(), m_worst.end(), line) == m_worst.end())
            m_worst.push_back(line);
}

} // namespace warpscope::ui
