#include "lab/StreamsLabWorkspace.h"

#include "warpscope/ui/StreamsLabPanel.h"
#include "warpscope/ui/TimelinePanel.h"

#include <QDockWidget>

namespace warpscope::ui {

StreamsLabWorkspace::StreamsLabWorkspace(const WorkspaceServices& services)
    : QObject(services.window), m_panel(new StreamsLabPanel(services.devices, services.window)),
      m_dock(new QDockWidget(tr("Streams lab"), services.window))
{
    m_dock->setObjectName("streamsLabDock");
    m_dock->setWidget(m_panel);
    TimelinePanel* timeline = services.timelinePanel;
    WorkspaceHost* host = services.host;
    connect(m_panel, &StreamsLabPanel::timelineProblem, timeline, &TimelinePanel::setProblem);
    connect(m_panel, &StreamsLabPanel::finished, this,
            [this, timeline, host](bool, const QString& summary) {
                host->showMessage(tr("Streams lab: %1").arg(summary), 15000);
                timeline->refresh();
                const auto [from, to] = m_panel->lastRunUs();
                if (to > from)
                    timeline->fitWithin(from, to);
            });
}

QList<WorkspaceDock> StreamsLabWorkspace::docks()
{
    return {{m_dock}};
}

bool StreamsLabWorkspace::writeScene(scene::Scene& scene, QString* problem)
{
    const auto lab = m_panel->config();
    if (!lab) {
        if (problem)
            *problem = tr("The streams lab: %1").arg(m_panel->resultText());
        return false;
    }
    scene.lab = scene::LabScene::from(*lab);
    return true;
}

void StreamsLabWorkspace::readScene(const scene::Scene& scene, const QString& /*file*/)
{
    m_panel->setConfig(scene.lab.config());
}

QString StreamsLabWorkspace::restoreSettings(const QSettings& settings)
{
    m_panel->restoreSettings(settings);
    return {};
}

void StreamsLabWorkspace::saveSettings(QSettings& settings)
{
    m_panel->saveSettings(settings);
}

} // namespace warpscope::ui
