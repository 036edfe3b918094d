#include "runtime/CudaCheck.h"
#include "runtime/CudaSpanRecorder.h"
#include "runtime/CuptiTracer.h"

#include <chrono>

namespace warpscope::gpu {
namespace {

// The GPU's timer and the host's clock drift apart slowly; a fresh base every few seconds
// keeps the lanes aligned to well under a microsecond per second of drift.
constexpr double kRecalibrateUs = 5e6;

} // namespace

CudaSpanRecorder::~CudaSpanRecorder()
{
    stopCupti();
}

void CudaSpanRecorder::setTimeline(std::shared_ptr<Timeline> timeline)
{
    for (Pending& p : m_pending)
        release(p);
    m_firstToken += int(m_pending.size());
    m_pending.clear();
    stopCupti();
    m_timeline = std::move(timeline);
    if (m_timeline)
        if (Status s = calibrate(); !s)
            m_problem = s.message();
}

Status CudaSpanRecorder::calibrate()
{
    if (!m_calibrationStream)
        WS_CUDA_TRY(m_calibrationStream.create());
    if (!m_base)
        WS_CUDA_TRY(m_base.create());
    const auto before = std::chrono::steady_clock::now();
    WS_CUDA_TRY(cudaEventRecord(m_base, m_calibrationStream));
    WS_CUDA_TRY(cudaEventSynchronize(m_base));
    const auto after = std::chrono::steady_clock::now();
    // The event completed between the two readings; the midpoint errs by half their gap.
    m_baseUs = (m_timeline->toUs(before) + m_timeline->toUs(after)) / 2.0;
    m_calibratedAtUs = m_baseUs;
    return Status::success();
}

CudaEvent CudaSpanRecorder::takeEvent()
{
    if (!m_freeEvents.empty()) {
        CudaEvent e = std::move(m_freeEvents.back());
        m_freeEvents.pop_back();
        return e;
    }
    CudaEvent e;
    if (const cudaError_t error = e.create(); error != cudaSuccess) {
        cudaGetLastError();
        m_problem = std::string("CUDA events could not be created (") + cudaGetErrorString(error) +
                    "), so some GPU work is missing from the timeline";
    }
    return e;
}

void CudaSpanRecorder::release(Pending& pending)
{
    if (pending.start)
        m_freeEvents.push_back(std::move(pending.start));
    if (pending.stop)
        m_freeEvents.push_back(std::move(pending.stop));
}

int CudaSpanRecorder::begin(cudaStream_t stream, int lane, SpanKind kind, std::string name,
                            std::uint64_t bytes, std::string detail)
{
    if (!m_timeline || !m_base)
        return -1;
    if (kind != SpanKind::Interop && timedByCupti(stream, lane))
        return -1;
    Pending p;
    p.start = takeEvent();
    if (p.start)
        p.stop = takeEvent();
    if (!p.stop || cudaEventRecord(p.start, stream) != cudaSuccess) {
        cudaGetLastError();
        if (m_problem.empty())
            m_problem = "A CUDA event could not be recorded; some GPU work is missing from the "
                        "timeline";
        release(p);
        return -1;
    }
    p.span.lane = lane;
    p.span.kind = kind;
    p.span.name = std::move(name);
    p.span.bytes = bytes;
    p.span.detail = std::move(detail);
    m_pending.push_back(std::move(p));
    return m_firstToken + int(m_pending.size()) - 1;
}

void CudaSpanRecorder::end(int token, cudaStream_t stream)
{
    const int index = token - m_firstToken;
    if (token < 0 || index < 0 || index >= int(m_pending.size()))
        return;
    Pending& p = m_pending[std::size_t(index)];
    if (cudaEventRecord(p.stop, stream) != cudaSuccess) {
        cudaGetLastError();
        m_problem = "A CUDA event could not be recorded; some GPU work is missing from the "
                    "timeline";
        return; // stays unended, and is dropped when collected
    }
    p.ended = true;
}

double CudaSpanRecorder::hostUs(cudaEvent_t event) const
{
    float ms = 0.0f;
    if (!m_timeline || !m_base || cudaEventElapsedTime(&ms, m_base, event) != cudaSuccess) {
        cudaGetLastError();
        return 0.0;
    }
    return m_baseUs + 1000.0 * double(ms);
}

bool CudaSpanRecorder::timedByCupti(cudaStream_t stream, int lane)
{
    if (m_timeline->gpuTiming() != GpuTiming::Cupti) {
        stopCupti();
        m_cuptiRefused = false;
        return false;
    }
    if (m_cuptiRefused)
        return false;
    if (!m_cupti) {
        if (Status s = CuptiTracer::instance().acquire(); !s) {
            m_timeline->setGpuTimingNote(s.message());
            m_cuptiRefused = true;
            return false;
        }
        m_cupti = true;
        m_timeline->setGpuTimingNote({});
    }
    if (auto it = m_routed.find(stream); it != m_routed.end())
        return it->second;
    const Status routed = CuptiTracer::instance().route(stream, m_timeline, lane);
    if (!routed)
        m_timeline->setGpuTimingNote(routed.message());
    m_routed[stream] = bool(routed);
    return bool(routed);
}

void CudaSpanRecorder::stopCupti()
{
    if (!m_cupti)
        return;
    for (const auto& [stream, routed] : m_routed)
        if (routed)
            CuptiTracer::instance().unroute(stream);
    m_routed.clear();
    CuptiTracer::instance().release();
    m_cupti = false;
}

Status CudaSpanRecorder::collect()
{
    if (m_cupti) {
        if (m_timeline && m_timeline->gpuTiming() == GpuTiming::Cupti)
            CuptiTracer::instance().flush();
        else
            stopCupti();
    }
    while (!m_pending.empty()) {
        Pending& p = m_pending.front();
        if (p.ended) {
            const cudaError_t state = cudaEventQuery(p.stop);
            if (state == cudaErrorNotReady)
                break; // later spans on other streams may be done, but order is kept simple
            float startMs = 0.0f, stopMs = 0.0f;
            if (state == cudaSuccess &&
                cudaEventElapsedTime(&startMs, m_base, p.start) == cudaSuccess &&
                cudaEventElapsedTime(&stopMs, m_base, p.stop) == cudaSuccess) {
                p.span.startUs = m_baseUs + 1000.0 * double(startMs);
                p.span.endUs = m_baseUs + 1000.0 * double(stopMs);
                m_timeline->add(std::move(p.span));
            } else {
                cudaGetLastError();
            }
        }
        release(p);
        m_pending.pop_front();
        ++m_firstToken;
    }
    if (m_timeline && m_pending.empty() && m_timeline->nowUs() - m_calibratedAtUs > kRecalibrateUs)
        if (Status s = calibrate(); !s)
            m_problem = s.message();
    if (m_problem.empty())
        return Status::success();
    Status problem = Status::failure(m_problem);
    m_problem.clear();
    return problem;
}

} // namespace warpscope::gpu
