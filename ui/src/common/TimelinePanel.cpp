#include "warpscope/ui/TimelinePanel.h"

#include "SpanPlottable.h"
#include "common/Style.h"
#include "warpscope/gpu/TraceExport.h"

#include <QCheckBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>
#include <qcustomplot.h>
#include <utility>

namespace warpscope::ui {
namespace {

constexpr gpu::SpanKind kKinds[] = {gpu::SpanKind::CopyHostToDevice, gpu::SpanKind::Kernel,
                                    gpu::SpanKind::CopyDeviceToHost, gpu::SpanKind::Interop,
                                    gpu::SpanKind::GlDraw,           gpu::SpanKind::Host};
constexpr double kDefaultWindowMs = 20.0;
// The lanes the plot keeps room for however small its dock is dragged: their names stay apart.
constexpr int kLanesAlwaysRoomFor = 6;

QString formatDuration(double us)
{
    if (us < 1000.0)
        return QStringLiteral("%1 µs").arg(us, 0, 'f', us < 10.0 ? 2 : 1);
    return QStringLiteral("%1 ms").arg(us / 1000.0, 0, 'f', 3);
}

// Labels times in fixed point, as many decimals as the tick step needs. The default labels
// keep six significant digits, so once Warpscope has run for 1000 s (1e6 ms) every tick of
// a window a few milliseconds wide read the same "2e+06".
class TimeTicker : public QCPAxisTicker
{
protected:
    double getTickStep(const QCPRange& range) override
    {
        m_step = QCPAxisTicker::getTickStep(range);
        return m_step;
    }
    QString getTickLabel(double tick, const QLocale& locale, QChar, int) override
    {
        const int decimals =
            m_step > 0.0 ? std::clamp(int(std::ceil(-std::log10(m_step) - 1e-9)), 0, 9) : 0;
        return locale.toString(tick, 'f', decimals);
    }

private:
    double m_step = 1.0;
};

// A frame's result is uploaded and drawn at the paints after its kernel, some frames on but
// well within this of its first span; work that starts later belongs to a later frame.
constexpr double kFrameSettlesUs = 1e6;

// The work of the last frame: the spans of the newest frame that holds a kernel (of the newest
// frame where none does) and of the frames after it that upload and draw its result.
struct LastFrame
{
    double fromUs = std::numeric_limits<double>::infinity();
    double toUs = -std::numeric_limits<double>::infinity();
    bool followed = false; // work began after the frame had settled
};

LastFrame lastFrame(const gpu::TimelineSnapshot& snapshot)
{
    std::uint64_t newest = 0, kernel = 0;
    bool anyKernel = false;
    for (const gpu::Span& s : snapshot.spans) {
        newest = std::max(newest, s.frame);
        if (s.kind == gpu::SpanKind::Kernel) {
            kernel = anyKernel ? std::max(kernel, s.frame) : s.frame;
            anyKernel = true;
        }
    }
    const std::uint64_t frame = anyKernel ? kernel : newest;
    LastFrame last;
    for (const gpu::Span& s : snapshot.spans)
        if (s.frame >= frame)
            last.fromUs = std::min(last.fromUs, s.startUs);
    for (const gpu::Span& s : snapshot.spans)
        if (s.frame >= frame) {
            if (s.startUs - last.fromUs > kFrameSettlesUs)
                last.followed = true;
            else
                last.toUs = std::max(last.toUs, s.endUs);
        }
    return last;
}

QString formatBytes(std::uint64_t bytes)
{
    if (bytes >= 1000000)
        return QStringLiteral("%1 MB").arg(bytes / 1e6, 0, 'f', 1);
    if (bytes >= 1000)
        return QStringLiteral("%1 kB").arg(bytes / 1e3, 0, 'f', 1);
    return QStringLiteral("%1 B").arg(bytes);
}

} // namespace

TimelinePanel::TimelinePanel(std::shared_ptr<gpu::Timeline> timeline, QWidget* parent)
    : QWidget(parent), m_timeline(std::move(timeline)), m_plot(new QCustomPlot(this)),
      m_freeze(new QPushButton(tr("&Freeze"), this)),
      m_follow(new QCheckBox(tr("Follow newest"), this)), m_frames(new QSpinBox(this)),
      m_summary(new QLabel(this)), m_problem(new QLabel(this)), m_lanes(new QToolButton(this))
{
    m_lanes->setObjectName("showLanes");
    m_lanes->setCheckable(true);
    m_lanes->setChecked(true);
    m_lanes->setText(tr("Lanes"));
    m_lanes->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_lanes->setArrowType(Qt::DownArrow);
    m_lanes->setToolTip(tr("Show or hide the lanes; hidden, the timeline is one line and "
                           "keeps recording"));
    m_plot->setObjectName("timelinePlot");
    m_plot->setMinimumSize(160, 80); // QCustomPlot warns when laid out at zero size
    m_freeze->setObjectName("freeze");
    m_freeze->setCheckable(true);
    m_freeze->setToolTip(tr("Stop updating the view, to look at it while work goes on (F)"));
    m_freeze->setShortcut(QKeySequence(Qt::Key_F));
    auto* clear = new QPushButton(tr("Clear"), this);
    clear->setObjectName("clear");
    clear->setToolTip(tr("Forget every span recorded so far"));
    auto* fit = new QPushButton(tr("Fit"), this);
    fit->setObjectName("fit");
    fit->setToolTip(tr("Show every span kept"));
    m_follow->setObjectName("follow");
    m_follow->setChecked(true);
    m_follow->setToolTip(tr("Keep the newest spans in view; dragging or zooming turns it off"));
    m_frames->setObjectName("keptFrames");
    m_frames->setRange(1, 100000);
    m_frames->setValue(m_timeline->keptFrames());
    m_frames->setToolTip(tr("How many of the last frames the timeline keeps. Work while nothing "
                            "draws frames, like the periodogram's, counts a frame for each "
                            "tenth of a second."));
    m_cupti = new QCheckBox(tr("CUPTI"), this);
    m_cupti->setObjectName("cupti");
    m_cupti->setToolTip(tr("Time kernels and copies with CUPTI's activity records (the GPU's "
                           "own timestamps, nothing added to the streams) instead of CUDA "
                           "events. Falls back to events, saying why, where CUPTI is missing "
                           "or a profiler holds it."));
    m_cuptiNote = new QLabel(this);
    m_cuptiNote->setObjectName("cuptiNote");
    auto* exportJson = new QPushButton(tr("Export trace…"), this);
    exportJson->setObjectName("exportJson");
    exportJson->setToolTip(tr("Chrome trace-event JSON, for Perfetto or chrome://tracing"));
    auto* exportCsv = new QPushButton(tr("Export CSV…"), this);
    exportCsv->setObjectName("exportCsv");

    auto* bar = new QHBoxLayout;
    bar->addWidget(m_lanes);
    bar->addWidget(m_freeze);
    bar->addWidget(clear);
    bar->addWidget(fit);
    bar->addWidget(m_follow);
    bar->addWidget(new QLabel(tr("Keep frames"), this));
    bar->addWidget(m_frames);
    bar->addWidget(m_cupti);
    bar->addWidget(m_cuptiNote);
    bar->addStretch(1);
    bar->addWidget(m_summary);
    bar->addWidget(exportJson);
    bar->addWidget(exportCsv);
    m_problem->setObjectName("timelineProblem");
    m_problem->setStyleSheet(kErrorText);
    m_problem->setWordWrap(true);
    m_problem->hide();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(bar);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_problem);

    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->axisRect()->setRangeDrag(Qt::Horizontal);
    m_plot->axisRect()->setRangeZoom(Qt::Horizontal);
    m_plot->xAxis->setLabel(tr("time since Warpscope started (ms)"));
    m_plot->xAxis->setTicker(QSharedPointer<TimeTicker>::create());
    m_plot->yAxis->setRangeReversed(true);
    m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    m_plot->yAxis->grid()->setVisible(false);
    QFont laneFont = m_plot->yAxis->tickLabelFont();
    laneFont.setPointSizeF(laneFont.pointSizeF() * 0.85);
    m_plot->yAxis->setTickLabelFont(laneFont);
    m_plot->setNoAntialiasingOnDrag(true);
    m_plot->setAutoAddPlottableToLegend(false); // updateLegend lists the kinds that can appear
    for (std::size_t k = 0; k < m_kinds.size(); ++k)
        m_kinds[k] = new SpanPlottable(m_plot->xAxis, m_plot->yAxis, kKinds[k]);
    // The legend goes in a row of its own above the lanes, so it never hides a span.
    m_plot->legend->setVisible(true);
    m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    m_plot->legend->setWrap(6);
    m_plot->legend->setBorderPen(Qt::NoPen);
    m_plot->axisRect()->insetLayout()->take(m_plot->legend);
    m_plot->plotLayout()->insertRow(0);
    m_plot->plotLayout()->addElement(0, 0, m_plot->legend);
    m_plot->plotLayout()->setRowStretchFactor(0, 0.001);
    m_plot->xAxis->setRange(0, kDefaultWindowMs);
    m_plot->setMouseTracking(true);

    connect(m_lanes, &QToolButton::toggled, this, &TimelinePanel::setLanesShown);
    connect(m_freeze, &QPushButton::toggled, this, &TimelinePanel::setFrozen);
    connect(clear, &QPushButton::clicked, this, [this] {
        m_timeline->clear();
        refresh();
    });
    connect(fit, &QPushButton::clicked, this, &TimelinePanel::fitAll);
    connect(m_follow, &QCheckBox::toggled, this, [this](bool on) {
        if (on)
            showSnapshot(m_shown);
    });
    connect(m_frames, &QSpinBox::valueChanged, this,
            [this](int frames) { m_timeline->setKeptFrames(frames); });
    connect(m_cupti, &QCheckBox::toggled, this, &TimelinePanel::setCupti);
    connect(exportJson, &QPushButton::clicked, this, [this] { exportWithDialog(true); });
    connect(exportCsv, &QPushButton::clicked, this, [this] { exportWithDialog(false); });
    connect(m_plot, &QCustomPlot::mouseMove, this, &TimelinePanel::onMouseMove);
    // Panning or zooming by hand means the user wants to stay where they are.
    connect(m_plot, &QCustomPlot::mousePress, this, [this] { m_follow->setChecked(false); });
    connect(m_plot, &QCustomPlot::mouseWheel, this, [this] { m_follow->setChecked(false); });

    m_poll.setInterval(100);
    connect(&m_poll, &QTimer::timeout, this, &TimelinePanel::refresh);
    m_poll.start();
    refresh();
}

void TimelinePanel::setCupti(bool on)
{
    if (m_cupti->isChecked() != on)
        m_cupti->setChecked(on); // comes back here through toggled
    m_timeline->setGpuTiming(on ? gpu::GpuTiming::Cupti : gpu::GpuTiming::Events);
    refresh();
}

bool TimelinePanel::cupti() const
{
    return m_cupti->isChecked();
}

void TimelinePanel::setLanesShown(bool shown)
{
    if (m_lanes->isChecked() != shown) {
        m_lanes->setChecked(shown); // comes back here through toggled
        return;
    }
    m_lanes->setArrowType(shown ? Qt::DownArrow : Qt::RightArrow);
    m_plot->setVisible(shown);
    fitHeader();
    emit lanesShownChanged(shown);
}

void TimelinePanel::fitHeader()
{
    // Without its lanes the panel is its row of buttons (and a problem, when there is one):
    // the dock holding it shrinks to that.
    setMaximumHeight(lanesShown() ? QWIDGETSIZE_MAX : layout()->sizeHint().height());
}

bool TimelinePanel::lanesShown() const
{
    return m_lanes->isChecked();
}

int TimelinePanel::heightForLanes(int lanes) const
{
    // A lane's row is its name's height and a gap. Above the rows, the legend's row at the
    // height it needs; around them, the axis rect's margins (the time axis's labels and
    // title), known once the plot is laid out and estimated as three lines before.
    const int row = QFontMetrics(m_plot->yAxis->tickLabelFont()).height() + 4;
    const QMargins margins = m_plot->axisRect()->margins();
    const int axes = std::max(margins.top() + margins.bottom(), 3 * fontMetrics().height());
    constexpr int kRounding = 2; // the plot's grid rounds its rows' shares, a pixel each
    return m_plot->legend->minimumOuterSizeHint().height() + m_plot->plotLayout()->rowSpacing() +
           axes + std::max(1, lanes) * row + kRounding;
}

int TimelinePanel::lanesHeight() const
{
    const int rows = int(
        std::count_if(m_rowOfLane.begin(), m_rowOfLane.end(), [](int row) { return row >= 0; }));
    const QMargins margins = layout()->contentsMargins();
    return margins.top() + margins.bottom() + layout()->spacing() + m_lanes->sizeHint().height() +
           heightForLanes(rows);
}

void TimelinePanel::refresh()
{
    const QString note = QString::fromStdString(m_timeline->gpuTimingNote());
    if (note != m_cuptiNote->toolTip()) {
        m_cuptiNote->setText(note.isEmpty() ? QString() : tr("(events: see tooltip)"));
        m_cuptiNote->setToolTip(note);
        if (!note.isEmpty())
            emit message(note);
    }
    if (!frozen() && m_timeline->version() != m_shownVersion)
        showSnapshot(m_timeline->snapshot());
    updateLegend(); // a context that starts recording adds the kinds it can produce
}

void TimelinePanel::updateLegend()
{
    std::array<bool, 6> listed{};
    for (std::size_t k = 0; k < m_kinds.size(); ++k)
        listed[k] = m_timeline->canRecord(kKinds[k]);
    for (const gpu::Span& s : m_shown.spans)
        for (std::size_t k = 0; k < m_kinds.size(); ++k)
            listed[k] = listed[k] || s.kind == kKinds[k];
    // CUPTI times CUDA's kernels and copies, and only CUDA copies between host and device.
    m_cupti->setVisible(m_timeline->canRecord(gpu::SpanKind::CopyHostToDevice));
    if (listed == m_listed)
        return;
    m_listed = listed;
    m_plot->legend->clearItems();
    for (std::size_t k = 0; k < m_kinds.size(); ++k)
        if (listed[k])
            m_kinds[k]->addToLegend();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void TimelinePanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (!std::exchange(m_everShown, true)) {
        m_fitting = true;
        followNewest();
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

void TimelinePanel::redrawNow()
{
    refresh();
    m_plot->replot(QCustomPlot::rpImmediateRefresh);
}

void TimelinePanel::showSnapshot(gpu::TimelineSnapshot snapshot)
{
    m_shownVersion = snapshot.version;
    m_shown = std::move(snapshot);
    // Lanes with no span kept get no row, so the rows that remain stay tall enough to read.
    std::vector<bool> used(m_shown.lanes.size(), false);
    for (const gpu::Span& s : m_shown.spans)
        if (s.lane >= 0 && std::size_t(s.lane) < used.size())
            used[std::size_t(s.lane)] = true;
    m_rowOfLane.assign(m_shown.lanes.size(), -1);
    auto ticker = qSharedPointerCast<QCPAxisTickerText>(m_plot->yAxis->ticker());
    ticker->clear();
    int rows = 0;
    m_laneSeen.resize(used.size(), false);
    for (std::size_t lane = 0; lane < used.size(); ++lane)
        if (used[lane]) {
            ticker->addTick(double(rows), QString::fromStdString(m_shown.lanes[lane]));
            m_rowOfLane[lane] = rows++;
            // A lane's first spans are a workspace's first work: the view fits its frame.
            m_fitting = m_fitting || (m_everShown && !m_laneSeen[lane]);
            m_laneSeen[lane] = true;
        }
    for (SpanPlottable* p : m_kinds)
        p->setSpans(m_shown, m_rowOfLane);
    m_plot->yAxis->setRange(-0.5, std::max(1, rows) - 0.5);
    m_plot->setMinimumHeight(heightForLanes(std::min(rows, kLanesAlwaysRoomFor)));

    followNewest();
    m_summary->setText(tr("%n span(s)", nullptr, int(m_shown.spans.size())) +
                       tr(" on %n lane(s)", nullptr, int(m_shown.lanes.size())));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void TimelinePanel::followNewest()
{
    if (!m_follow->isChecked() || m_shown.spans.empty())
        return;
    if (m_fitting) {
        const LastFrame last = lastFrame(m_shown);
        // The frame is fitted as its spans arrive, until later work begins.
        m_fitting = !last.followed;
        if (m_fitting) {
            showRangeUs(last.fromUs, last.toUs);
            return;
        }
    }
    double endMs = 0.0;
    for (const gpu::Span& s : m_shown.spans)
        endMs = std::max(endMs, s.endUs / 1000.0);
    const double width = m_plot->xAxis->range().size();
    m_plot->xAxis->setRange(endMs - width * 0.95, endMs + width * 0.05);
}

void TimelinePanel::setFrozen(bool frozen)
{
    if (m_freeze->isChecked() != frozen)
        m_freeze->setChecked(frozen); // comes back here through toggled
    else if (!frozen)
        refresh();
    m_freeze->setText(frozen ? tr("&Frozen") : tr("&Freeze"));
}

void TimelinePanel::setKeptFrames(int frames)
{
    m_frames->setValue(frames); // the spin box passes it on to the store
}

bool TimelinePanel::frozen() const
{
    return m_freeze->isChecked();
}

void TimelinePanel::fitAll()
{
    m_follow->setChecked(false);
    if (m_shown.spans.empty())
        return;
    fitWithin(m_shown.spans.front().startUs, std::numeric_limits<double>::infinity());
}

void TimelinePanel::fitWithin(double fromUs, double toUs)
{
    m_follow->setChecked(false);
    double lo = toUs, hi = fromUs;
    for (const gpu::Span& s : m_shown.spans)
        if (s.startUs >= fromUs && s.endUs <= toUs) {
            lo = std::min(lo, s.startUs);
            hi = std::max(hi, s.endUs);
        }
    if (hi <= lo)
        return;
    showRangeUs(lo, hi);
    m_plot->replot();
}

void TimelinePanel::showRangeUs(double fromUs, double toUs)
{
    const double pad = std::max(1.0, (toUs - fromUs) * 0.03);
    m_plot->xAxis->setRange((fromUs - pad) / 1000.0, (toUs + pad) / 1000.0);
}

QString TimelinePanel::exportTrace(const QString& path) const
{
    const gpu::Status s = gpu::writeTextFile(path.toStdString(), gpu::chromeTraceJson(m_shown));
    return s ? QString() : QString::fromStdString(s.message());
}

QString TimelinePanel::exportCsv(const QString& path) const
{
    const gpu::Status s = gpu::writeTextFile(path.toStdString(), gpu::timelineCsv(m_shown));
    return s ? QString() : QString::fromStdString(s.message());
}

void TimelinePanel::exportWithDialog(bool json)
{
    const QString path = QFileDialog::getSaveFileName(
        this, json ? tr("Export trace") : tr("Export timeline as CSV"),
        json ? QStringLiteral("warpscope-trace.json") : QStringLiteral("warpscope-timeline.csv"),
        json ? tr("Chrome trace (*.json)") : tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    const QString error = json ? exportTrace(path) : exportCsv(path);
    if (!error.isEmpty()) {
        QMessageBox::warning(this, tr("Export failed"), error);
        emit message(error);
        return;
    }
    emit message(tr("Saved %n span(s) to %1", nullptr, int(m_shown.spans.size())).arg(path));
}

void TimelinePanel::setProblem(const QString& text)
{
    m_problem->setText(text);
    m_problem->setVisible(!text.isEmpty());
    fitHeader();
}

QString TimelinePanel::describeAt(const QPoint& pos) const
{
    const double timeMs = m_plot->xAxis->pixelToCoord(pos.x());
    const double value = m_plot->yAxis->pixelToCoord(pos.y());
    const int row = int(std::lround(value));
    if (std::abs(value - row) > kBarHalfHeight) // between two rows' bars
        return {};
    const gpu::Span* best = nullptr;
    for (const SpanPlottable* p : m_kinds)
        if (const gpu::Span* s = p->spanAt(timeMs, row); s && (!best || s->depth > best->depth))
            best = s;
    if (!best)
        return {};
    QStringList lines;
    lines << QString::fromStdString(best->name);
    lines << tr("%1 on %2")
                 .arg(QString::fromUtf8(gpu::spanKindName(best->kind)),
                      QString::fromStdString(m_shown.lanes.at(std::size_t(best->lane))));
    lines << tr("%1, from %2 ms")
                 .arg(formatDuration(best->durationUs()))
                 .arg(best->startUs / 1000.0, 0, 'f', 3);
    if (best->bytes > 0 && best->durationUs() > 0.0)
        lines << tr("%1 at %2 GB/s")
                     .arg(formatBytes(best->bytes))
                     .arg(double(best->bytes) / (best->durationUs() * 1000.0), 0, 'f', 1);
    if (!best->detail.empty())
        lines << QString::fromStdString(best->detail);
    return lines.join('\n');
}

int TimelinePanel::barsDrawn() const
{
    int bars = 0;
    for (const SpanPlottable* p : m_kinds)
        bars += p->barsDrawn();
    return bars;
}

void TimelinePanel::onMouseMove(QMouseEvent* event)
{
    const QString text = describeAt(event->pos());
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), text, m_plot);
}

} // namespace warpscope::ui
