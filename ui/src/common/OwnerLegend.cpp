#include "OwnerLegend.h"

#include <QCoreApplication>
#include <QImage>
#include <QPainter>

namespace warpscope::ui {
namespace {

constexpr int kSwatch = 16;
const QColor kFrame(110, 114, 124);

QString tr(const char* text)
{
    return QCoreApplication::translate("OwnerLegend", text);
}

QColor toColour(const std::array<float, 3>& rgb)
{
    return QColor::fromRgbF(rgb[0], rgb[1], rgb[2]);
}

// Word-wrapped text from y within box; returns the y below it.
int paintText(QPainter& painter, const QRect& box, int y, const QString& text)
{
    const QRect area(box.left(), y, box.width(), box.bottom() - y);
    const QRect used = painter.fontMetrics().boundingRect(area, Qt::TextWordWrap, text);
    painter.drawText(area, Qt::TextWordWrap, text);
    return used.bottom() + 6;
}

// A framed swatch at (box.left(), y) with its label to the right; returns the y below it.
int paintSwatch(QPainter& painter, const QRect& box, int y, const QImage& swatch,
                const QString& label)
{
    const QRect square(box.left(), y, swatch.width(), swatch.height());
    painter.drawImage(square, swatch);
    const QPen text = painter.pen();
    painter.setPen(kFrame);
    painter.drawRect(square.adjusted(0, 0, -1, -1));
    painter.setPen(text);
    painter.drawText(
        QRect(square.right() + 6, y, box.right() - square.right() - 6, square.height()),
        Qt::AlignVCenter, label);
    return square.bottom() + 8;
}

QImage plainSwatch(const std::array<float, 3>& rgb)
{
    QImage image(kSwatch, kSwatch, QImage::Format_RGB32);
    image.fill(toColour(rgb));
    return image;
}

// The picture's stripes for nodes no thread reached: 6 pixels of each grey along diagonals.
QImage uncoveredSwatch()
{
    QImage image(kSwatch, kSwatch, QImage::Format_RGB32);
    for (int y = 0; y < kSwatch; ++y)
        for (int x = 0; x < kSwatch; ++x)
            image.setPixelColor(x, y, toColour(render::kUncoveredStripes[(x - y + 24) % 12 / 6]));
    return image;
}

// threadIdx.x to the right and threadIdx.y upward, as the picture lays rows out from its foot.
QImage threadRamp(int size)
{
    QImage image(size, size, QImage::Format_RGB32);
    for (int y = 0; y < size; ++y)
        for (int x = 0; x < size; ++x)
            image.setPixelColor(x, y,
                                toColour(render::threadRampColour(
                                    x / float(size - 1), (size - 1 - y) / float(size - 1))));
    return image;
}

} // namespace

void paintOwnerLegend(QPainter& painter, const QRect& box, render::Overlay overlay,
                      const QString& caption)
{
    int y = box.top();
    switch (overlay) {
    case render::Overlay::Block:
        y = paintText(painter, box, y, tr("blockIdx: each block its own hue, darker farther"));
        y = paintSwatch(painter, box, y, plainSwatch(render::kFirstOwnerColour), tr("(0,0)"));
        break;
    case render::Overlay::Thread:
        y = paintText(painter, box, y, tr("threadIdx in its block: x to red, y to green"));
        y = paintSwatch(painter, box, y, threadRamp(40), tr("x →\ny ↑"));
        break;
    case render::Overlay::Warp:
        y = paintText(painter, box, y,
                      tr("warp: never the hue of a neighbour, in its block or the next; darker "
                         "farther"));
        y = paintSwatch(painter, box, y, plainSwatch(render::kFirstOwnerColour), tr("warp 0"));
        break;
    default:
        y = paintText(painter, box, y, tr("SM: each SM its own hue, darker farther"));
        y = paintSwatch(painter, box, y, plainSwatch(render::kFirstOwnerColour), tr("SM 0"));
        break;
    }
    y = paintSwatch(painter, box, y, uncoveredSwatch(), tr("no thread"));
    y = paintText(painter, box, y, tr("dark lines: block edges"));
    paintText(painter, box, y + 8, caption);
}

} // namespace warpscope::ui
