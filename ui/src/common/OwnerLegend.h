#pragma once

#include "warpscope/render/FieldRenderer.h"

#include <QRect>

class QPainter;

// The teaching overlays' legend, which stands where the distance's colour bar does: what a
// colour means under the block, thread, warp or SM colouring, since those colours are
// categories, not distances.
namespace warpscope::ui {

// Paints the legend of overlay (Block, Thread, Warp or Sm) from box's top left, within its
// width, in the painter's pen colour: what the colours mean, the swatch of block (0, 0) (or
// the threadIdx ramp), the striped swatch of nodes no thread reached, and below them caption
// (what the launch covers).
void paintOwnerLegend(QPainter& painter, const QRect& box, render::Overlay overlay,
                      const QString& caption);

} // namespace warpscope::ui
