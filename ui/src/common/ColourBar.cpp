#include "ColourBar.h"

#include "warpscope/render/FieldRenderer.h"

#include <QCoreApplication>
#include <QPainter>

namespace warpscope::ui {
namespace {

QColor toColour(const std::array<float, 3>& rgb)
{
    return QColor::fromRgbF(rgb[0], rgb[1], rgb[2]);
}

QString tr(const char* text)
{
    return QCoreApplication::translate("ColourBar", text);
}

} // namespace

QImage colourBarImage(const render::Colormap& colormap)
{
    QImage image(1, 256, QImage::Format_RGB32);
    for (int i = 0; i < 256; ++i) {
        const auto& c = colormap.rgb[255 - i];
        image.setPixel(0, i,
                       qRgb(int(c[0] * 255 + 0.5), int(c[1] * 255 + 0.5), int(c[2] * 255 + 0.5)));
    }
    return image;
}

void paintColourBar(QPainter& painter, const QRect& bar, const QImage& image,
                    const gpu::FieldStats* stats, const std::function<QString(double)>& format)
{
    const QColor text = painter.pen().color();
    const QColor frame(110, 114, 124);
    const QFontMetrics fm(painter.font());
    painter.drawImage(bar, image);
    painter.setPen(frame);
    painter.drawRect(bar.adjusted(0, 0, -1, -1));
    painter.setPen(text);
    if (!stats)
        return;
    for (int k = 0; k <= 4; ++k) {
        const double v = stats->min + (stats->max - stats->min) * k / 4.0;
        const double y = bar.bottom() - (bar.height() - 1) * k / 4.0;
        painter.drawLine(QPointF(bar.right() + 1, y), QPointF(bar.right() + 4, y));
        painter.drawText(QPointF(bar.right() + 6, y + fm.ascent() / 2.0 - 1), format(v));
    }
    if (stats->nonFinite <= 0)
        return;
    // The same stripes as the picture's, so the swatch matches what it explains.
    const QRect swatch(bar.left(), bar.bottom() + 8, bar.width(), kNonFiniteSwatchHeight - 8);
    painter.save();
    painter.setClipRect(swatch);
    painter.fillRect(swatch, toColour(render::kNonFiniteStripes[0]));
    painter.setPen(QPen(toColour(render::kNonFiniteStripes[1]), 3));
    for (int x = swatch.left() - swatch.height(); x < swatch.right(); x += 8)
        painter.drawLine(QPoint(x, swatch.bottom()), QPoint(x + swatch.height(), swatch.top()));
    painter.restore();
    painter.setPen(frame);
    painter.drawRect(swatch.adjusted(0, 0, -1, -1));
    painter.setPen(text);
    painter.drawText(QPointF(swatch.right() + 6, swatch.center().y() + fm.ascent() / 2.0 - 1),
                     tr("NaN/inf"));
}

} // namespace warpscope::ui
