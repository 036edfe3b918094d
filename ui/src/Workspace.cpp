#include "warpscope/ui/Workspace.h"

#include <QAction>
#include <QMenu>

namespace warpscope::ui {
namespace {

QAction* insertBefore(QMenu* menu, QAction* before, const QString& text)
{
    auto* action = new QAction(text, menu);
    menu->insertAction(before, action);
    return action;
}

} // namespace

QAction* WorkspaceMenus::addFileAction(const QString& text) const
{
    return insertBefore(file, fileEnd, text);
}

QAction* WorkspaceMenus::addEditAction(const QString& text) const
{
    return insertBefore(edit, nullptr, text);
}

QAction* WorkspaceMenus::addViewAction(const QString& text) const
{
    return insertBefore(view, viewEnd, text);
}

} // namespace warpscope::ui
