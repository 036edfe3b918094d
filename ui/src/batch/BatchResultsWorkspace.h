#pragma once

#include "warpscope/ui/Workspace.h"

#include <QObject>

namespace warpscope::ui {

class PeriodogramWorkspaceAdapter;

// warpscope-batch's results (File > Open Batch Results) in a dialog of their own; an object
// chosen there opens on the periodogram as the batch saw it. No page, dock or scene section.
class BatchResultsWorkspace : public QObject, public Workspace
{
    Q_OBJECT

public:
    BatchResultsWorkspace(const WorkspaceServices& services,
                          PeriodogramWorkspaceAdapter& periodogram);

    // Shows a results table; an error message naming the file, or an empty string.
    QString openResults(const QString& path);

    QString key() const override { return "batch"; }
    void addActions(const WorkspaceMenus& menus) override;
    bool writeScene(scene::Scene&, QString*) override { return true; }
    void readScene(const scene::Scene&, const QString&) override {}
    QString restoreSettings(const QSettings&) override { return {}; }
    void saveSettings(QSettings&) override {}

private:
    void openObject(const QString& id, const QString& lightCurve);

    WorkspaceServices m_services;
    PeriodogramWorkspaceAdapter& m_periodogram;
};

} // namespace warpscope::ui
