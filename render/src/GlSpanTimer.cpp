#include "warpscope/render/GlSpanTimer.h"

#define GL_GLEXT_PROTOTYPES
#include <GL/gl.h>
#include <GL/glext.h>

namespace warpscope::render {
namespace {

// The GPU's clock and the host's drift apart; a fresh reading every few seconds keeps them
// aligned.
constexpr double kRecalibrateUs = 5e6;
// Queries left unread beyond this are dropped, so a context that never answers cannot grow
// the queue.
constexpr std::size_t kMaxPending = 256;

} // namespace

unsigned int GlSpanTimer::takeQuery()
{
    if (!m_free.empty()) {
        const unsigned int q = m_free.back();
        m_free.pop_back();
        return q;
    }
    GLuint q = 0;
    glGenQueries(1, &q);
    return q;
}

void GlSpanTimer::calibrate(gpu::Timeline& timeline)
{
    GLint64 glNs = 0;
    const double before = timeline.nowUs();
    glGetInteger64v(GL_TIMESTAMP, &glNs);
    const double after = timeline.nowUs();
    m_offsetUs = (before + after) / 2.0 - double(glNs) / 1000.0;
    m_calibratedFor = &timeline;
    m_calibratedAtUs = after;
}

void GlSpanTimer::begin()
{
    if (m_open == 0)
        m_open = takeQuery();
    glQueryCounter(m_open, GL_TIMESTAMP);
}

void GlSpanTimer::end(gpu::Timeline& timeline, int lane, std::string name)
{
    if (m_open == 0)
        return;
    if (m_calibratedFor != &timeline || timeline.nowUs() - m_calibratedAtUs > kRecalibrateUs)
        calibrate(timeline);
    Pending p;
    p.start = m_open;
    p.stop = takeQuery();
    m_open = 0;
    glQueryCounter(p.stop, GL_TIMESTAMP);
    p.timeline = &timeline;
    p.span.lane = lane;
    p.span.kind = gpu::SpanKind::GlDraw;
    p.span.name = std::move(name);
    m_pending.push_back(std::move(p));
    while (m_pending.size() > kMaxPending) {
        m_free.push_back(m_pending.front().start);
        m_free.push_back(m_pending.front().stop);
        m_pending.pop_front();
    }
}

int GlSpanTimer::collect()
{
    int collected = 0;
    while (!m_pending.empty()) {
        Pending& p = m_pending.front();
        GLint available = 0;
        glGetQueryObjectiv(p.stop, GL_QUERY_RESULT_AVAILABLE, &available);
        if (!available)
            break;
        GLuint64 startNs = 0, stopNs = 0;
        glGetQueryObjectui64v(p.start, GL_QUERY_RESULT, &startNs);
        glGetQueryObjectui64v(p.stop, GL_QUERY_RESULT, &stopNs);
        p.span.startUs = double(startNs) / 1000.0 + m_offsetUs;
        p.span.endUs = double(stopNs) / 1000.0 + m_offsetUs;
        if (p.span.endUs >= p.span.startUs) {
            p.timeline->add(std::move(p.span));
            ++collected;
        }
        m_free.push_back(p.start);
        m_free.push_back(p.stop);
        m_pending.pop_front();
    }
    return collected;
}

void GlSpanTimer::release()
{
    for (const Pending& p : m_pending) {
        m_free.push_back(p.start);
        m_free.push_back(p.stop);
    }
    m_pending.clear();
    if (m_open)
        m_free.push_back(m_open);
    m_open = 0;
    if (!m_free.empty())
        glDeleteQueries(GLsizei(m_free.size()), m_free.data());
    m_free.clear();
    m_calibratedFor = nullptr;
}

} // namespace warpscope::render
