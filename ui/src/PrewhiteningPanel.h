#pragma once

#include "warpscope/gpu/FrequencyFit.h"
#include "warpscope/gpu/TimeSeriesIO.h"

#include <QWidget>
#include <vector>

class QAction;
class QPushButton;
class QTableWidget;

namespace warpscope::ui {

// The prewhitening list of the periodogram workspace: the sinusoids fitted and taken out so
// far, with their errors, and the actions of Period04's workflow. It holds no state of its
// own beyond what it shows; the workspace's scene holds the list.
class PrewhiteningPanel : public QWidget
{
    Q_OBJECT

public:
    explicit PrewhiteningPanel(QWidget* parent = nullptr);

    void setSinusoids(const std::vector<gpu::FittedSinusoid>& sinusoids, gpu::TimeUnit unit);
    // While a fit runs, the actions wait; canFit says whether a peak is selected to fit.
    void setState(bool busy, bool canFit);
    // The row selected in the list, or -1.
    int selectedRow() const;
    QTableWidget* table() const { return m_table; }

signals:
    void prewhitenRequested(); // fit the selected peak and take it out
    void refitRequested();     // fit every listed sinusoid together
    void removeRequested(int row);
    void clearRequested();
    void exportRequested();

private:
    void updateButtons();

    QTableWidget* m_table;
    QPushButton* m_prewhiten;
    QPushButton* m_refit;
    QAction* m_removeAction;
    QAction* m_clearAction;
    QAction* m_exportAction;
    bool m_busy = false;
    bool m_canFit = false;
};

} // namespace warpscope::ui
