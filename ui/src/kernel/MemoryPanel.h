#pragma once

#include "warpscope/gpu/KernelMemory.h"

#include <QWidget>
#include <vector>

class QCheckBox;
class QLabel;
class QTableWidget;

// The Kernel workspace's Memory tab: what a recorded launch did to memory (gpu::
// KernelMemoryReport), per kernel and per line of the user's code, each figure beside the
// fewest the same bytes need and a sentence on why. Recording is the CPU simulator's and asks
// for a build of its own, so it is a choice here (off, the simulator runs at full speed).
namespace warpscope::ui {

class MemoryPanel : public QWidget
{
    Q_OBJECT

public:
    explicit MemoryPanel(QWidget* parent = nullptr);

    bool recording() const;
    void setRecording(bool on);
    // Whether the runs are the simulator's (only they are recorded).
    void setSimulated(bool simulated);
    void show(const gpu::KernelMemoryReport& report);
    // The lines worth a look (at least twice the ideal, or half the lanes idle), worst first.
    const std::vector<int>& worstLines() const { return m_worst; }

signals:
    void recordingChanged(bool on);
    void lineActivated(int line);

private:
    void clear(const QString& why);
    // A row of the table: a line's figures, or (total) the launch's for one operation.
    void addRow(const gpu::MemoryLineStats& line, bool total);

    QCheckBox* m_record;
    QLabel* m_summary;
    QTableWidget* m_table;
    bool m_simulated = true;
    std::vector<int> m_worst;
};

} // namespace warpscope::ui
