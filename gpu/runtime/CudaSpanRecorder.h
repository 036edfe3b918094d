#pragma once

#include "runtime/CudaEvent.h"
#include "runtime/CudaStream.h"
#include "warpscope/gpu/Status.h"
#include "warpscope/gpu/Timeline.h"

#include <cuda_runtime.h>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace warpscope::gpu {

// Times GPU operations with a pair of CUDA events recorded on the operation's stream, and
// converts them to the timeline's host clock through a base event whose host time is known.
// Spans are resolved later, in order, once their events have completed, so recording never
// waits for the device. Used from one thread: the backend's.
class CudaSpanRecorder
{
public:
    CudaSpanRecorder() = default;
    ~CudaSpanRecorder();
    CudaSpanRecorder(const CudaSpanRecorder&) = delete;
    CudaSpanRecorder& operator=(const CudaSpanRecorder&) = delete;

    // Records into timeline from now on (null stops recording; pending spans are dropped).
    void setTimeline(std::shared_ptr<Timeline> timeline);
    Timeline* timeline() const { return m_timeline.get(); }
    bool recording() const { return m_timeline != nullptr; }

    // Marks the start of an operation about to be queued on stream. Returns a token for end(),
    // or -1 when not recording, when events could not be made (then the problem is kept
    // for collect()), or when CUPTI's records time it (the timeline asks for GpuTiming::Cupti
    // and CUPTI could be had: kernels and copies).
    int begin(cudaStream_t stream, int lane, SpanKind kind, std::string name,
              std::uint64_t bytes = 0, std::string detail = {});
    void end(int token, cudaStream_t stream);

    // When a completed event happened, on the timeline's clock (0 when not recording).
    double hostUs(cudaEvent_t event) const;

    // Moves completed spans into the timeline, without blocking, CUPTI's records included.
    // Returns the problems met since the last call.
    Status collect();

private:
    struct Pending
    {
        CudaEvent start;
        CudaEvent stop;
        bool ended = false;
        Span span;
    };
    CudaEvent takeEvent();
    // Whether CUPTI times work on stream for lane, following the timeline's choice; routes
    // the stream on first use and notes on the timeline why it cannot.
    bool timedByCupti(cudaStream_t stream, int lane);
    void stopCupti();
    void release(Pending& pending);
    // Fixes the host time of a fresh base event; waits only for that event, on its own
    // stream, so queued work is not waited for.
    Status calibrate();

    std::shared_ptr<Timeline> m_timeline;
    std::vector<CudaEvent> m_freeEvents;
    std::deque<Pending> m_pending;
    int m_firstToken = 0; // the token of m_pending.front()
    CudaStream m_calibrationStream;
    CudaEvent m_base;
    double m_baseUs = 0.0;
    double m_calibratedAtUs = 0.0;
    std::string m_problem;
    bool m_cupti = false;        // CUPTI acquired
    bool m_cuptiRefused = false; // tried and failed; tried again after events are chosen
    std::map<cudaStream_t, bool> m_routed;
};

// One span on a stream, ended when the scope closes however it closes: a span begun and never
// ended would hold back every later span of the recorder, which are resolved in order.
class SpanScope
{
public:
    SpanScope(CudaSpanRecorder& recorder, cudaStream_t stream, int lane, SpanKind kind,
              std::string name, std::uint64_t bytes = 0, std::string detail = {})
        : m_recorder(recorder), m_stream(stream),
          m_token(recorder.begin(stream, lane, kind, std::move(name), bytes, std::move(detail)))
    {}
    ~SpanScope() { m_recorder.end(m_token, m_stream); }
    SpanScope(const SpanScope&) = delete;
    SpanScope& operator=(const SpanScope&) = delete;

private:
    CudaSpanRecorder& m_recorder;
    cudaStream_t m_stream;
    int m_token;
};

} // namespace warpscope::gpu
