#include "PrewhiteningPanel.h"

#include "ValueText.h"
#include "warpscope/scene/PeriodogramUnits.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QMenu>
#include <QPushButton>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace warpscope::ui {

PrewhiteningPanel::PrewhiteningPanel(QWidget* parent) : QWidget(parent)
{
    m_table = new QTableWidget(0, 4, this);
    m_table->setObjectName("prewhitened");
    m_table->setHorizontalHeaderLabels(
        {tr("frequency"), tr("period"), tr("amplitude"), tr("phase (cycles)")});
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setToolTip(tr("The sinusoids taken out of the data, in the order they were found, "
                           "each fitted by least squares with its one-sigma error. The "
                           "periodogram is of what they leave."));
    m_prewhiten = new QPushButton(tr("Prewhiten"), this);
    m_prewhiten->setObjectName("prewhiten");
    m_prewhiten->setToolTip(
        tr("Fit the peak selected in Peaks: its sinusoid (frequency, amplitude, "
           "phase and offset, by least squares) is taken out, and the "
           "periodogram, peaks and fold become those of the residuals"));
    m_refit = new QPushButton(tr("Fit all"), this);
    m_refit->setObjectName("refitAll");
    m_refit->setToolTip(tr("Fit every listed sinusoid at once to the detrended data, refining "
                           "each frequency"));
    // The two steps of the workflow as buttons, the rest in a menu: a narrow row, so that the
    // panel never makes the workspace's smallest size larger.
    auto* more = new QToolButton(this);
    more->setObjectName("prewhiteningMore");
    more->setText(tr("List"));
    more->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(more);
    m_removeAction = menu->addAction(tr("Remove selected"), this, [this] {
        if (selectedRow() >= 0)
            emit removeRequested(selectedRow());
    });
    m_clearAction = menu->addAction(tr("Clear"), this, &PrewhiteningPanel::clearRequested);
    m_exportAction = menu->addAction(tr("Export CSV…"), this, &PrewhiteningPanel::exportRequested);
    more->setMenu(menu);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_prewhiten);
    buttons->addWidget(m_refit);
    buttons->addWidget(more);
    buttons->addStretch(1);
    m_table->setMinimumHeight(40);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(buttons);
    layout->addWidget(m_table, 1);

    connect(m_prewhiten, &QPushButton::clicked, this, &PrewhiteningPanel::prewhitenRequested);
    connect(m_refit, &QPushButton::clicked, this, &PrewhiteningPanel::refitRequested);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, &PrewhiteningPanel::updateButtons);
    updateButtons();
}

void PrewhiteningPanel::setSinusoids(const std::vector<gpu::FittedSinusoid>& sinusoids,
                                     gpu::TimeUnit unit)
{
    m_table->setRowCount(int(sinusoids.size()));
    const QString f = scene::frequencyUnitText(unit);
    m_table->setHorizontalHeaderLabels(
        {unit == gpu::TimeUnit::Unknown ? tr("frequency") : tr("frequency (%1)").arg(f),
         tr("period"), tr("amplitude"), tr("phase (cycles)")});
    for (int row = 0; row < int(sinusoids.size()); ++row) {
        const gpu::FittedSinusoid& s = sinusoids[std::size_t(row)];
        const QString cells[] = {valueWithError(s.frequency, s.frequencyError),
                                 scene::periodText(1.0 / s.frequency, unit),
                                 valueWithError(s.amplitude, s.amplitudeError),
                                 valueWithError(s.phase, s.phaseError)};
        for (int column = 0; column < 4; ++column) {
            auto* item = new QTableWidgetItem(cells[column]);
            m_table->setItem(row, column, item);
        }
    }
    updateButtons();
}

void PrewhiteningPanel::setState(bool busy, bool canFit)
{
    m_busy = busy;
    m_canFit = canFit;
    updateButtons();
}

int PrewhiteningPanel::selectedRow() const
{
    const QList<QTableWidgetItem*> items = m_table->selectedItems();
    return items.isEmpty() ? -1 : items.front()->row();
}

void PrewhiteningPanel::updateButtons()
{
    const bool any = m_table->rowCount() > 0;
    m_prewhiten->setEnabled(!m_busy && m_canFit);
    m_refit->setEnabled(!m_busy && any);
    m_removeAction->setEnabled(!m_busy && selectedRow() >= 0);
    m_clearAction->setEnabled(!m_busy && any);
    m_exportAction->setEnabled(any);
}

} // namespace warpscope::ui
