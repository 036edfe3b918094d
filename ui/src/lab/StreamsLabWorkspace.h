#pragma once

#include "warpscope/ui/Workspace.h"

#include <QObject>

namespace warpscope::ui {

class StreamsLabPanel;

// The streams lab: a dock of its own (no page), its scene section and settings; its runs'
// spans are fitted into the timeline and their summary shown in the status bar.
class StreamsLabWorkspace : public QObject, public Workspace
{
    Q_OBJECT

public:
    explicit StreamsLabWorkspace(const WorkspaceServices& services);

    StreamsLabPanel* panel() const { return m_panel; }

    QString key() const override { return "lab"; }
    QList<WorkspaceDock> docks() override;
    bool writeScene(scene::Scene& scene, QString* problem) override;
    void readScene(const scene::Scene& scene, const QString& file) override;
    QString restoreSettings(const QSettings& settings) override;
    void saveSettings(QSettings& settings) override;

private:
    StreamsLabPanel* m_panel;
    QDockWidget* m_dock;
};

} // namespace warpscope::ui
