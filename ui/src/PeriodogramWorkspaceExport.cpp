#include "warpscope/gpu/TraceExport.h"
#include "warpscope/scene/PeriodogramUnits.h"
#include "warpscope/scene/Prewhitening.h"
#include "warpscope/ui/PeriodogramWorkspace.h"

#include <QFileDialog>

namespace warpscope::ui {

std::vector<double> PeriodogramWorkspace::readPower() const
{
    std::vector<double> power;
    if (!m_spectrum)
        return power;
    try {
        power.resize(std::size_t(m_spectrum->grid().count));
    } catch (const std::bad_alloc&) {
        return {};
    }
    if (!m_spectrum->read(power))
        power.clear();
    return power;
}

QString PeriodogramWorkspace::exportCsv(const QString& path) const
{
    if (!m_spectrum)
        return tr("There is no periodogram to export yet");
    const std::vector<double> power = readPower();
    if (power.empty())
        return tr("Could not copy the periodogram to host memory for export");
    const gpu::Status s =
        gpu::writeTextFile(path.toStdString(),
                           scene::periodogramCsv(grid(), power, m_shownUnit, m_session->columns()));
    return s ? QString() : QString::fromStdString(s.message());
}

QString PeriodogramWorkspace::exportPeaks(const QString& path) const
{
    if (!m_spectrum)
        return tr("There is no periodogram to export yet");
    const gpu::Status s = gpu::writeTextFile(
        path.toStdString(),
        scene::peaksJson(m_peakDetails, m_shownOptions.normalization, m_shownUnit,
                         m_shownOptions.nterms, m_prewhitened, m_prewhitenEpoch));
    return s ? QString() : QString::fromStdString(s.message());
}

QString PeriodogramWorkspace::exportSinusoids(const QString& path) const
{
    const gpu::Status s = gpu::writeTextFile(
        path.toStdString(), scene::prewhitenedCsv(readControls(m_committed), m_shownUnit));
    return s ? QString() : QString::fromStdString(s.message());
}

void PeriodogramWorkspace::exportDialog()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export periodogram"),
                                                      "periodogram.csv", tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    if (const QString error = exportCsv(path); !error.isEmpty())
        setError(error);
    else
        emit message(tr("Saved %1").arg(path));
}

} // namespace warpscope::ui
