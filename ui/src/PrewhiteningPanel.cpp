#include "PrewhiteningPanel.h"

#include "warpscope/scene/PeriodogramUnits.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace warpscope::ui {
namespace {

// "value ± error" with the error's two leading digits, and the value to the same place.
QString withError(double value, double error)
{
    if (!(error > 0.0))
        return QString::number(value, 'g', 8);
    const int decimals = std::max(0, 1 - int(std::floor(std::log10(error))));
    return QStringLiteral("%1 ± %2")
        .arg(value, 0, 'f', std::min(decimals, 15))
        .arg(error, 0, 'f', std::min(decimals, 15));
}

} // namespace

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
    m_summary = new QLabel(this);
    m_summary->setObjectName("prewhiteningSummary");
    m_summary->setWordWrap(true);
    m_prewhiten = new QPushButton(tr("Prewhiten peak"), this);
    m_prewhiten->setObjectName("prewhiten");
    m_prewhiten->setToolTip(tr("Fit the selected peak's sinusoid (frequency, amplitude, phase "
                               "and offset, by least squares), take it out, and recompute the "
                               "periodogram of the residuals"));
    m_refit = new QPushButton(tr("Fit all together"), this);
    m_refit->setObjectName("refitAll");
    m_refit->setToolTip(tr("Fit every listed sinusoid at once to the detrended data, refining "
                           "each frequency"));
    m_remove = new QPushButton(tr("Remove"), this);
    m_remove->setObjectName("removeSinusoid");
    m_clear = new QPushButton(tr("Clear"), this);
    m_clear->setObjectName("clearSinusoids");
    m_export = new QPushButton(tr("Export…"), this);
    m_export->setObjectName("exportSinusoids");
    m_export->setToolTip(tr("Save the list as CSV: frequency, period, amplitude and phase with "
                            "their errors, and the epoch of the phases"));
    auto* buttons = new QHBoxLayout;
    for (QPushButton* b : {m_prewhiten, m_refit, m_remove, m_clear, m_export})
        buttons->addWidget(b);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(buttons);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_summary);

    connect(m_prewhiten, &QPushButton::clicked, this, &PrewhiteningPanel::prewhitenRequested);
    connect(m_refit, &QPushButton::clicked, this, &PrewhiteningPanel::refitRequested);
    connect(m_remove, &QPushButton::clicked, this, [this] {
        if (selectedRow() >= 0)
            emit removeRequested(selectedRow());
    });
    connect(m_clear, &QPushButton::clicked, this, &PrewhiteningPanel::clearRequested);
    connect(m_export, &QPushButton::clicked, this, &PrewhiteningPanel::exportRequested);
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
        const QString cells[] = {
            withError(s.frequency, s.frequencyError), scene::periodText(1.0 / s.frequency, unit),
            withError(s.amplitude, s.amplitudeError), withError(s.phase, s.phaseError)};
        for (int column = 0; column < 4; ++column) {
            auto* item = new QTableWidgetItem(cells[column]);
            m_table->setItem(row, column, item);
        }
    }
    m_summary->setText(
        sinusoids.empty()
            ? tr("Select a peak and press Prewhiten peak to fit its sinusoid and take it out.")
            : tr("%n sinusoid(s) taken out; the periodogram, peaks and fold are of the "
                 "residuals.",
                 nullptr, int(sinusoids.size())));
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
    m_remove->setEnabled(!m_busy && selectedRow() >= 0);
    m_clear->setEnabled(!m_busy && any);
    m_export->setEnabled(any);
}

} // namespace warpscope::ui
