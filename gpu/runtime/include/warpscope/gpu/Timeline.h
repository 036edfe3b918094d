#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

namespace warpscope::gpu {

enum class SpanKind
{
    CopyHostToDevice,
    CopyDeviceToHost,
    Kernel,
    Interop, // mapping or unmapping a GL buffer for CUDA
    GlDraw,  // timed with GL timer queries
    Host,    // work on a CPU thread
};

const char* spanKindName(SpanKind kind);

// The kinds of span a backend's contexts record. The CPU records its computing as kernels and
// the rest as host work, and a window's uploads into GL buffers and draws; only CUDA copies
// between host and device (and times them with CUPTI).
std::vector<SpanKind> backendSpanKinds(bool cuda);

// How CUDA kernels and copies are timed. Events: a pair of CUDA events around each, on its
// stream. Cupti: CUPTI's activity records, the GPU's own start and end of each, with nothing
// added to the streams; where CUPTI is missing or another tool holds it, events are used and
// the timeline's note says why.
enum class GpuTiming
{
    Events,
    Cupti
};

// One operation on one lane (a CUDA stream, the GL queue or a CPU thread). Times are in
// microseconds on the recorder's clock: a steady host clock whose zero is the recorder's
// creation. Device times are converted to it (see CudaSpanRecorder).
struct Span
{
    int lane = 0;
    SpanKind kind = SpanKind::Host;
    std::string name;
    double startUs = 0.0;
    double endUs = 0.0;
    std::uint64_t bytes = 0; // copies: bytes moved
    std::string detail;      // kernels: the launch configuration
    int depth = 0;           // nesting on its lane: 0 for top-level spans
    std::uint64_t frame = 0; // the frame that was current when the span was recorded

    double durationUs() const { return endUs - startUs; }
};

// A copy of a timeline's contents, sorted by start time.
struct TimelineSnapshot
{
    std::vector<std::string> lanes;
    std::vector<Span> spans;
    std::uint64_t version = 0;
};

// Thread-safe store of the spans of the last N frames. Backends and the renderer add spans;
// panels take snapshots. Adding is a lock and a push, cheap enough to stay on.
//
// A frame begins with beginFrame() (the field view's paint, a streams lab run) or, where
// nothing begins one (the periodogram computes while the field is hidden), with the first span
// added after the current frame has lasted kLongestFrame. Either way old frames are trimmed as
// spans are added, so the store stays bounded whichever workspace is in use.
class Timeline
{
public:
    // Work that never begins a frame is grouped in frames of at most this long.
    static constexpr std::chrono::milliseconds kLongestFrame{100};
    // However many frames are kept, the oldest spans go beyond this many.
    static constexpr std::size_t kMaxSpans = 200'000;

    explicit Timeline(int keptFrames = 120);

    // Finds or creates a lane by name, for example "CUDA stream 1 (field)".
    int lane(const std::string& name);

    // Stamps span with the current frame (beginning one first if the current frame has lasted
    // kLongestFrame) and stores it.
    void add(Span span);
    // Starts a new frame and forgets spans older than the kept frames.
    void beginFrame();
    void setKeptFrames(int frames);
    int keptFrames() const;
    void clear();

    TimelineSnapshot snapshot() const;
    // Changes whenever a span is added or the timeline is cleared.
    std::uint64_t version() const;

    // The timing backends should use; they follow a change at their next span.
    void setGpuTiming(GpuTiming timing);
    GpuTiming gpuTiming() const;
    // Why the requested timing is not the one in use, or empty.
    void setGpuTimingNote(std::string note);
    std::string gpuTimingNote() const;

    // Adds kinds that the contexts recording here can produce (backendSpanKinds), so that a
    // legend lists no kind that cannot appear.
    void addRecordableKinds(const std::vector<SpanKind>& kinds);
    bool canRecord(SpanKind kind) const;

    // Microseconds since the recorder's zero on its host clock.
    double nowUs() const;
    double toUs(std::chrono::steady_clock::time_point t) const;

private:
    void beginFrameLocked(std::chrono::steady_clock::time_point now);
    void trimLocked();

    mutable std::mutex m_mutex;
    const std::chrono::steady_clock::time_point m_zero;
    std::vector<std::string> m_lanes;
    // In the order added, so frames only grow along it and trimming pops from the front.
    std::deque<Span> m_spans;
    std::uint64_t m_frame = 0;
    std::chrono::steady_clock::time_point m_frameBegan;
    std::uint64_t m_version = 0;
    int m_keptFrames;
    GpuTiming m_gpuTiming = GpuTiming::Events;
    std::string m_gpuTimingNote;
    unsigned m_recordableKinds = 0; // bit k for SpanKind k
};

// Records a span of work on the calling thread's lane from construction to destruction: host
// work, or a kernel's when the CPU computes what a GPU would. Scopes opened inside it on the
// same thread nest one level deeper.
class ScopedHostSpan
{
public:
    ScopedHostSpan(Timeline* timeline, int lane, std::string name, SpanKind kind = SpanKind::Host);
    ~ScopedHostSpan();
    ScopedHostSpan(const ScopedHostSpan&) = delete;
    ScopedHostSpan& operator=(const ScopedHostSpan&) = delete;

private:
    Timeline* m_timeline;
    Span m_span;
};

} // namespace warpscope::gpu
