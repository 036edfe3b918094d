#include "ValueAxis.h"

#include <QRegularExpression>
#include <qcustomplot.h>

namespace warpscope::ui {

bool isMagnitude(const QString& label)
{
    // "mag" as a word or a word's part after '_' or '-' (TESS "kp_mag", "mag_err" excluded
    // as an error is no brightness), never inside another word ("magnetic", "image").
    static const QRegularExpression pattern(QStringLiteral("(^|[^a-z])mag(nitudes?)?($|[^a-z_])"),
                                            QRegularExpression::CaseInsensitiveOption);
    return pattern.match(label).hasMatch();
}

void setValueAxis(QCPAxis* axis, const QString& label)
{
    axis->setLabel(label);
    axis->setRangeReversed(isMagnitude(label));
}

} // namespace warpscope::ui
