#pragma once

#include "warpscope/gpu/Distance.h"
#include "warpscope/render/Colormap.h"

#include <QImage>
#include <QRect>
#include <functional>

class QPainter;

// The colour bar beside a heat map, shared by the field and the Kernel view.
namespace warpscope::ui {

// The colormap as an image one pixel wide, its maximum at the top.
QImage colourBarImage(const render::Colormap& colormap);

// The height of the "NaN/inf" swatch paintColourBar puts below a bar, with its gap.
inline constexpr int kNonFiniteSwatchHeight = 24;

// Paints image in bar, with five labels from stats->min (bottom) to stats->max (top) to its
// right when stats is given, and when stats counts nodes that are not finite, a swatch of the
// stripes they are drawn in below it (kNonFiniteSwatchHeight), labelled "NaN/inf".
void paintColourBar(QPainter& painter, const QRect& bar, const QImage& image,
                    const gpu::FieldStats* stats, const std::function<QString(double)>& format);

} // namespace warpscope::ui
