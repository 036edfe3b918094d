#pragma once

#include "warpscope/ui/Workspace.h"

#include <QObject>

namespace warpscope::ui {

class PeriodogramWorkspace;

// The periodogram's page as a Workspace, from PeriodogramWorkspace's public interface: its
// scene section, settings, undo steps, File > Open Time Series and its readiness.
class PeriodogramWorkspaceAdapter : public QObject, public Workspace
{
    Q_OBJECT

public:
    explicit PeriodogramWorkspaceAdapter(const WorkspaceServices& services);

    PeriodogramWorkspace* periodogram() const { return m_periodogram; }

    QString key() const override { return "periodogram"; }
    QString title() const override;
    QWidget* page() override;
    // Its plots need the room; it states its own status on its page.
    bool startsWithoutDocks() const override { return true; }
    bool statesItsOwnStatus() const override { return true; }
    void addActions(const WorkspaceMenus& menus) override;
    QUndoStack* undoStack() override;
    bool writeScene(scene::Scene& scene, QString* problem) override;
    void readScene(const scene::Scene& scene, const QString& file) override;
    std::optional<scene::Workspace> sceneName() const override
    {
        return scene::Workspace::Periodogram;
    }
    QString restoreSettings(const QSettings& settings) override;
    void saveSettings(QSettings& settings) override;
    QString failure(bool shown) const override;
    bool ready(bool shown) const override;

private:
    WorkspaceServices m_services;
    PeriodogramWorkspace* m_periodogram;
};

} // namespace warpscope::ui
