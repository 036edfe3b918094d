#include "batch/BatchResultsWorkspace.h"

#include "periodogram/PeriodogramWorkspaceAdapter.h"
#include "warpscope/ui/BatchResultsDialog.h"
#include "warpscope/ui/PeriodogramWorkspace.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>

namespace warpscope::ui {

BatchResultsWorkspace::BatchResultsWorkspace(const WorkspaceServices& services,
                                             PeriodogramWorkspaceAdapter& periodogram)
    : QObject(services.window), m_services(services), m_periodogram(periodogram)
{}

void BatchResultsWorkspace::addActions(const WorkspaceMenus& menus)
{
    connect(menus.addFileAction(tr("Open &Batch Results…")), &QAction::triggered, this, [this] {
        const QString path =
            QFileDialog::getOpenFileName(m_services.window, tr("Open batch results"), QString(),
                                         tr("warpscope-batch results (*.csv);;All files (*)"));
        if (path.isEmpty())
            return;
        if (const QString error = openResults(path); !error.isEmpty())
            QMessageBox::warning(m_services.window, tr("Open Batch Results"), error);
    });
}

QString BatchResultsWorkspace::openResults(const QString& path)
{
    auto* dialog = m_services.window->findChild<BatchResultsDialog*>();
    if (!dialog) {
        dialog = new BatchResultsDialog(m_services.window);
        connect(dialog, &BatchResultsDialog::objectChosen, this,
                &BatchResultsWorkspace::openObject);
    }
    if (const QString error = dialog->open(path); !error.isEmpty())
        return error;
    dialog->show();
    dialog->raise();
    return {};
}

void BatchResultsWorkspace::openObject(const QString& id, const QString& lightCurve)
{
    const auto* dialog = m_services.window->findChild<BatchResultsDialog*>();
    const std::optional<scene::BatchSource>& source = dialog->source();
    const bool table = source && source->table;
    const QString input = source ? QString::fromStdString(source->input) : QString();
    WorkspaceHost* host = m_services.host;
    if (table && !QFileInfo(input).isFile()) {
        host->showMessage(tr("%1: the batch's table %2 is missing or was moved")
                              .arg(id, QDir::toNativeSeparators(input)),
                          10000);
        return;
    }
    if (!table && lightCurve.isEmpty()) {
        host->showMessage(source
                              ? tr("%1: its light curve is in neither %2 nor beside the "
                                   "results (moved?)")
                                    .arg(id, QDir::toNativeSeparators(input))
                              : tr("%1: its light curve is not a file beside the results").arg(id),
                          10000);
        return;
    }
    host->showWorkspace(m_periodogram);
    // The batch's preparation and periodogram, so the object looks as it did in the results
    // (one undo step).
    PeriodogramWorkspace* periodogram = m_periodogram.periodogram();
    if (source)
        periodogram->applyScene(source->scene, tr("Batch settings"));
    if (table)
        periodogram->openTableObject(input, source->columns, source->timeFormat, id);
    else
        periodogram->openFile(lightCurve);
}

} // namespace warpscope::ui
