// The Kernel view's memory overlays: each node coloured by what the warp that wrote it did to
// memory in the simulator's record of the launch (gpu/MemoryPaint.h), with its colour bar and
// hover readout.
#include "common/ColourBar.h"
#include "warpscope/gpu/LaunchLesson.h"
#include "warpscope/gpu/MemoryPaint.h"
#include "warpscope/ui/KernelView.h"

#include <QPainter>
#include <cmath>

namespace warpscope::ui {
namespace {

gpu::MemoryFigure figureOf(render::Overlay overlay)
{
    return overlay == render::Overlay::Sectors     ? gpu::MemoryFigure::SectorsPerRequest
           : overlay == render::Overlay::Conflicts ? gpu::MemoryFigure::ConflictWays
                                                   : gpu::MemoryFigure::ActiveLanes;
}

QString figureTitle(render::Overlay overlay)
{
    return overlay == render::Overlay::Sectors     ? KernelView::tr("Sectors per request")
           : overlay == render::Overlay::Conflicts ? KernelView::tr("Bank-conflict ways")
                                                   : KernelView::tr("Active lanes");
}

QString figureText(double v)
{
    return QString::number(v, 'g', 3);
}

} // namespace

void KernelView::paintMemory()
{
    m_memoryStale = false;
    m_memoryPainted = 0;
    m_memoryStats = {};
    const gpu::FieldLayout layout = m_surface.layout;
    const std::size_t nodes = std::size_t(layout.nx) * std::size_t(layout.ny);
    if (!m_memory.recorded || m_memory.warps.warpsPerBlock == 0 || !m_owners.valid() ||
        m_owners.nodes != nodes)
        return;
    if (m_ownerWords.size() != 2 * nodes && !m_renderer.readOwners(m_owners, m_ownerWords))
        return;
    if (!(m_memorySurface.layout == layout)) {
        m_renderer.destroySurface(m_memorySurface);
        if (!m_renderer.createSurface(layout, m_memorySurface))
            return;
    }
    std::vector<float> values(layout.elementCount());
    const std::size_t painted =
        gpu::paintMemoryFigure(m_memory.warps, figureOf(m_overlay), m_ownerWords, layout, values);
    if (!m_renderer.uploadField(values, m_memorySurface))
        return;
    m_memoryPainted = (long long)painted;
    m_memoryStats.min = values[layout.statsOffset()];
    m_memoryStats.max = values[layout.statsOffset() + 1];
}

QString KernelView::memoryAt(QPointF pos) const
{
    int row = 0, col = 0;
    if (!showsMemory() || m_memoryPainted == 0 || !nodeAt(pos, row, col))
        return {};
    const std::size_t node = std::size_t(row) * std::size_t(m_args.mesh.nx) + std::size_t(col);
    if (2 * node + 1 >= m_ownerWords.size())
        return {};
    const std::uint32_t owner[2] = {m_ownerWords[2 * node], m_ownerWords[2 * node + 1]};
    std::size_t warp = 0;
    const gpu::MemoryWarpStats& w = m_memory.warps;
    if (!gpu::nodeWarp(w, owner, warp))
        return {};
    QStringList parts;
    const float sectors = w.sectorsPerRequest[warp];
    const float ideal =
        warp < w.idealSectorsPerRequest.size() ? w.idealSectorsPerRequest[warp] : std::nanf("");
    if (std::isfinite(sectors))
        parts << (std::isfinite(ideal) && ideal > 0.0f
                      ? tr("%1 sectors a global request (its average) where %2 would do (%3x)")
                            .arg(figureText(sectors), figureText(ideal),
                                 figureText(sectors / ideal))
                      : tr("%1 sectors a global request (its average)").arg(figureText(sectors)));
    if (const float ways = w.conflictWays[warp]; std::isfinite(ways))
        parts << (ways < 1.005f
                      ? tr("shared memory without bank conflicts")
                      : tr("%1-way bank conflicts in shared memory").arg(figureText(ways)));
    if (const float lanes = w.activeLanes[warp]; std::isfinite(lanes))
        parts << tr("%1 of 32 lanes active").arg(figureText(lanes));
    if (parts.isEmpty())
        parts << tr("no memory access or branch recorded");
    const gpu::Dim3& g = m_ranWith.grid;
    return tr("warp %1 of block (%2, %3): %4")
        .arg(gpu::ownerThread(owner[1]) / 32)
        .arg(owner[0] % g.x)
        .arg(owner[0] / g.x)
        .arg(parts.join("; "));
}

void KernelView::drawMemoryLegend(QPainter& painter)
{
    const QString title = figureTitle(m_overlay);
    if (m_memoryPainted == 0) {
        QString why;
        if (!m_memory.recorded)
            why = cuda() ? tr("%1: runs on the GPU are not recorded; the CPU simulator records "
                              "a launch's memory accesses.")
                         : tr("%1: waiting for a run the simulator records (Memory tab).");
        else if (m_memory.warps.warpsPerBlock == 0)
            why = tr("%1: the launch has more warps than the record keeps figures for (%2); "
                     "a smaller mesh or grid can be painted.")
                      .arg(gpu::kMaxRecordedWarps);
        else
            why = tr("%1: no node was written by a warp that did this.");
        const QRect area = rect().adjusted(12, 12, -12, -12);
        const int flags = Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap;
        const QRect text = painter.fontMetrics().boundingRect(area, flags, why.arg(title));
        painter.setPen(Qt::NoPen);
        painter.setBrush(QColor(0, 0, 0, 200));
        painter.drawRoundedRect(text.adjusted(-6, -4, 6, 4), 4, 4);
        painter.setPen(QColor(245, 245, 245));
        painter.drawText(area, flags, why.arg(title));
        return;
    }
    const int line = painter.fontMetrics().height();
    // The title, the bar, then two lines on what a node's colour means.
    const int barHeight = std::min(220, height() - 30 - 4 * line);
    if (barHeight < 40 || width() < 240)
        return;
    const QRect box(width() - 170, 6, 164, barHeight + 4 * line + 18);
    painter.setPen(Qt::NoPen);
    painter.setBrush(QColor(0, 0, 0, 150));
    painter.drawRoundedRect(box, 4, 4);
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QColor(225, 228, 235));
    painter.drawText(QRect(box.left() + 8, box.top() + 4, box.width() - 12, line),
                     Qt::AlignLeft | Qt::AlignVCenter, title);
    const QRect bar(box.left() + 8, box.top() + line + 8, 14, barHeight);
    paintColourBar(painter, bar, m_colourBar, &m_memoryStats, figureText);
    painter.setPen(QColor(225, 228, 235));
    painter.drawText(QRect(box.left() + 8, bar.bottom() + 6, box.width() - 12, 3 * line),
                     Qt::AlignLeft | Qt::TextWordWrap,
                     tr("A node shows its warp's figure; striped: its warp did none."));
}

} // namespace warpscope::ui
