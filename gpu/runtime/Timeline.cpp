#include "warpscope/gpu/Timeline.h"

#include <algorithm>

namespace warpscope::gpu {
namespace {

thread_local int t_hostDepth = 0;

} // namespace

const char* spanKindName(SpanKind kind)
{
    switch (kind) {
    case SpanKind::CopyHostToDevice:
        return "HtoD copy";
    case SpanKind::CopyDeviceToHost:
        return "DtoH copy";
    case SpanKind::Kernel:
        return "kernel";
    case SpanKind::Interop:
        return "interop";
    case SpanKind::GlDraw:
        return "GL draw";
    case SpanKind::Host:
        break;
    }
    return "host";
}

std::vector<SpanKind> backendSpanKinds(bool cuda)
{
    if (cuda)
        return {SpanKind::CopyHostToDevice, SpanKind::CopyDeviceToHost, SpanKind::Kernel,
                SpanKind::Interop,          SpanKind::GlDraw,           SpanKind::Host};
    return {SpanKind::Kernel, SpanKind::Interop, SpanKind::GlDraw, SpanKind::Host};
}

Timeline::Timeline(int keptFrames)
    : m_zero(std::chrono::steady_clock::now()), m_frameBegan(m_zero),
      m_keptFrames(std::max(1, keptFrames))
{}

int Timeline::lane(const std::string& name)
{
    std::lock_guard lock(m_mutex);
    const auto it = std::find(m_lanes.begin(), m_lanes.end(), name);
    if (it != m_lanes.end())
        return int(it - m_lanes.begin());
    m_lanes.push_back(name);
    ++m_version;
    return int(m_lanes.size()) - 1;
}

void Timeline::setGpuTiming(GpuTiming timing)
{
    std::lock_guard lock(m_mutex);
    m_gpuTiming = timing;
    if (timing == GpuTiming::Events)
        m_gpuTimingNote.clear();
}

GpuTiming Timeline::gpuTiming() const
{
    std::lock_guard lock(m_mutex);
    return m_gpuTiming;
}

void Timeline::setGpuTimingNote(std::string note)
{
    std::lock_guard lock(m_mutex);
    m_gpuTimingNote = std::move(note);
}

std::string Timeline::gpuTimingNote() const
{
    std::lock_guard lock(m_mutex);
    return m_gpuTimingNote;
}

void Timeline::add(Span span)
{
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard lock(m_mutex);
    if (now - m_frameBegan > kLongestFrame)
        beginFrameLocked(now);
    span.frame = m_frame;
    m_spans.push_back(std::move(span));
    if (m_spans.size() > kMaxSpans)
        m_spans.pop_front();
    ++m_version;
}

void Timeline::beginFrame()
{
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard lock(m_mutex);
    beginFrameLocked(now);
}

void Timeline::beginFrameLocked(std::chrono::steady_clock::time_point now)
{
    ++m_frame;
    m_frameBegan = now;
    trimLocked();
}

void Timeline::setKeptFrames(int frames)
{
    std::lock_guard lock(m_mutex);
    m_keptFrames = std::max(1, frames);
    trimLocked();
}

int Timeline::keptFrames() const
{
    std::lock_guard lock(m_mutex);
    return m_keptFrames;
}

void Timeline::trimLocked()
{
    const std::size_t before = m_spans.size();
    const std::uint64_t kept = std::uint64_t(m_keptFrames);
    while (!m_spans.empty() && m_spans.front().frame + kept <= m_frame)
        m_spans.pop_front();
    if (m_spans.size() != before)
        ++m_version;
}

void Timeline::clear()
{
    std::lock_guard lock(m_mutex);
    m_spans.clear();
    ++m_version;
}

TimelineSnapshot Timeline::snapshot() const
{
    TimelineSnapshot snap;
    {
        std::lock_guard lock(m_mutex);
        snap.lanes = m_lanes;
        snap.spans.assign(m_spans.begin(), m_spans.end());
        snap.version = m_version;
    }
    // Device spans arrive a frame late, so the store is only roughly in time order.
    std::stable_sort(snap.spans.begin(), snap.spans.end(),
                     [](const Span& a, const Span& b) { return a.startUs < b.startUs; });
    return snap;
}

std::uint64_t Timeline::version() const
{
    std::lock_guard lock(m_mutex);
    return m_version;
}

double Timeline::toUs(std::chrono::steady_clock::time_point t) const
{
    return std::chrono::duration<double, std::micro>(t - m_zero).count();
}

double Timeline::nowUs() const
{
    return toUs(std::chrono::steady_clock::now());
}

void Timeline::addRecordableKinds(const std::vector<SpanKind>& kinds)
{
    std::lock_guard lock(m_mutex);
    for (SpanKind kind : kinds)
        m_recordableKinds |= 1u << unsigned(kind);
}

bool Timeline::canRecord(SpanKind kind) const
{
    std::lock_guard lock(m_mutex);
    return (m_recordableKinds >> unsigned(kind)) & 1u;
}

ScopedHostSpan::ScopedHostSpan(Timeline* timeline, int lane, std::string name, SpanKind kind)
    : m_timeline(timeline)
{
    if (!m_timeline)
        return;
    m_span.lane = lane;
    m_span.kind = kind;
    m_span.name = std::move(name);
    m_span.depth = t_hostDepth++;
    m_span.startUs = m_timeline->nowUs();
}

ScopedHostSpan::~ScopedHostSpan()
{
    if (!m_timeline)
        return;
    --t_hostDepth;
    m_span.endUs = m_timeline->nowUs();
    m_timeline->add(std::move(m_span));
}

} // namespace warpscope::gpu
