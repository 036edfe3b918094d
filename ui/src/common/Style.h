#pragma once

#include <QColor>
#include <QString>

// How the panels mark what is wrong, the same everywhere.
namespace warpscope::ui {

// An input whose value cannot be used; the message beside it says why.
inline const QString kInvalidInput =
    QStringLiteral("QLineEdit, QSpinBox { border: 2px solid #e5484d; }");
// The colours of failures and warnings as text: dark enough for a contrast of at least 4.5:1
// (WCAG AA) on white and on the grey of a window or a selected row's light highlight.
inline const QColor kErrorColour(0xa8, 0x1b, 0x1b);
inline const QColor kWarningColour(0x8a, 0x55, 0x00);
// A message about something that failed.
inline const QString kErrorText = QStringLiteral("color: %1;").arg(kErrorColour.name());
// A message about something that works but may not be what the person wants.
inline const QString kWarningText = QStringLiteral("color: %1;").arg(kWarningColour.name());

} // namespace warpscope::ui
