#pragma once

#include "warpscope/gpu/Timeline.h"

#include <deque>
#include <string>
#include <vector>

namespace warpscope::render {

// Times GL work with timestamp queries (GL 3.3 core) and records it as spans of a timeline.
// Results are read a frame or more later, once available, so the draw never waits. GPU
// timestamps are mapped to the timeline's clock through GL_TIMESTAMP readings. All methods
// need the GL context current; release() before it goes.
class GlSpanTimer
{
public:
    GlSpanTimer() = default;
    GlSpanTimer(const GlSpanTimer&) = delete;
    GlSpanTimer& operator=(const GlSpanTimer&) = delete;

    void begin();
    void end(gpu::Timeline& timeline, int lane, std::string name);
    // Moves finished spans into their timeline; returns how many.
    int collect();
    void release();

private:
    struct Pending
    {
        unsigned int start = 0, stop = 0;
        gpu::Timeline* timeline = nullptr;
        gpu::Span span;
    };
    unsigned int takeQuery();
    void calibrate(gpu::Timeline& timeline);

    std::vector<unsigned int> m_free;
    std::deque<Pending> m_pending;
    unsigned int m_open = 0; // the start query of a begin() not yet ended
    gpu::Timeline* m_calibratedFor = nullptr;
    double m_offsetUs = 0.0; // timeline µs minus GL µs
    double m_calibratedAtUs = 0.0;
};

} // namespace warpscope::render
