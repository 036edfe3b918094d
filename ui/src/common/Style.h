#pragma once

#include <QString>

// How the panels mark what is wrong, the same everywhere.
namespace warpscope::ui {

// An input whose value cannot be used; the message beside it says why.
inline const QString kInvalidInput =
    QStringLiteral("QLineEdit, QSpinBox { border: 2px solid #e5484d; }");
// A message about something that failed.
inline const QString kErrorText = QStringLiteral("color: #e5484d;");

} // namespace warpscope::ui
