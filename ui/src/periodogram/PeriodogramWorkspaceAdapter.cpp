#include "periodogram/PeriodogramWorkspaceAdapter.h"

#include "warpscope/ui/PeriodogramWorkspace.h"

#include <QAction>
#include <QFileDialog>

namespace warpscope::ui {

PeriodogramWorkspaceAdapter::PeriodogramWorkspaceAdapter(const WorkspaceServices& services)
    : QObject(services.window), m_services(services),
      m_periodogram(new PeriodogramWorkspace(services.devices, services.window))
{
    WorkspaceHost* host = services.host;
    connect(m_periodogram, &PeriodogramWorkspace::message, this,
            [host](const QString& text) { host->showMessage(text, 10000); });
    connect(m_periodogram, &PeriodogramWorkspace::deviceKnown, this,
            [host](const gpu::DeviceInfo& device) { host->announceDevice(device); });
}

QString PeriodogramWorkspaceAdapter::title() const
{
    return tr("Periodogram");
}

QWidget* PeriodogramWorkspaceAdapter::page()
{
    return m_periodogram;
}

void PeriodogramWorkspaceAdapter::addActions(const WorkspaceMenus& menus)
{
    QAction* open = menus.addFileAction(tr("&Open Time Series…"));
    open->setShortcut(QKeySequence::Open);
    connect(open, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            m_services.window, tr("Open time series"), QString(),
            tr("Time series (*.csv *.tsv *.txt *.dat);;All files (*)"));
        if (path.isEmpty())
            return;
        m_services.host->showWorkspace(*this);
        m_periodogram->openFile(path);
    });
}

QUndoStack* PeriodogramWorkspaceAdapter::undoStack()
{
    return m_periodogram->undoStack();
}

bool PeriodogramWorkspaceAdapter::writeScene(scene::Scene& scene, QString* problem)
{
    const auto controls = m_periodogram->currentScene(problem);
    if (controls)
        scene.periodogram = *controls;
    return controls.has_value();
}

void PeriodogramWorkspaceAdapter::readScene(const scene::Scene& scene, const QString& /*file*/)
{
    m_periodogram->applyScene(scene.periodogram, tr("Open scene"));
}

QString PeriodogramWorkspaceAdapter::restoreSettings(const QSettings& settings)
{
    m_periodogram->restoreSettings(settings);
    return {};
}

void PeriodogramWorkspaceAdapter::saveSettings(QSettings& settings)
{
    m_periodogram->saveSettings(settings);
}

QString PeriodogramWorkspaceAdapter::failure(bool shown) const
{
    return shown && !m_periodogram->busy() ? m_periodogram->errorText() : QString();
}

bool PeriodogramWorkspaceAdapter::ready(bool shown) const
{
    return !shown || (!m_periodogram->busy() && m_periodogram->spectrum());
}

} // namespace warpscope::ui
