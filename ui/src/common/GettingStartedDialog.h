#pragma once

#include "warpscope/scene/StartingScenes.h"

#include <QDialog>

class QCheckBox;

namespace warpscope::ui {

// Help > Getting started, and the welcome at the first start: three ways into the app, each
// opening a ready scene, and whether to show this at start (remembered in the settings).
class GettingStartedDialog : public QDialog
{
    Q_OBJECT

public:
    explicit GettingStartedDialog(QWidget* parent = nullptr);

    // Whether the welcome is shown at start (the settings' value; yes until turned off).
    static bool showAtStart();

signals:
    void chosen(scene::StartingPath path);

private:
    QCheckBox* m_atStart;
};

} // namespace warpscope::ui
